// libcudacxx_pipeline_matmul.cu - a tiled matrix multiply in the style of the
// CUDA samples' globalToShmemAsyncCopy: each block stages tiles of A and B in
// shared memory with cuda::memcpy_async through a two-stage cuda::pipeline
// (the next tiles are fetched while the current ones are used), and a second
// kernel normalizes each row by its largest entry, with a cuda::barrier
// (arrive, then wait with the token) between finding the maximum and dividing
// by it, as simpleAWBarrier splits its phases. Exits 0 only when the GPU's
// answer matches the CPU's.
//
// usage: libcudacxx_pipeline_matmul N   (C = A * B with A, B and C N x N)
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/std/utility>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace cg = cooperative_groups;

// nvcc warns that a __shared__ cuda::pipeline_shared_state has a constructor
// it will not run; the pipeline sets the state up itself (the CUDA samples
// silence the warning the same way).
#ifdef __NVCC__
#pragma nv_diag_suppress static_var_with_dynamic_init
#endif

#define CUDA_OK(call)                                                                     \
    do {                                                                                  \
        const cudaError_t status_ = (call);                                               \
        if (status_ != cudaSuccess) {                                                     \
            fprintf(stderr, "CUDA error %s at %s:%d (%s)\n", cudaGetErrorString(status_), \
                    __FILE__, __LINE__, #call);                                           \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

constexpr int TILE = 16;
constexpr int STAGES = 2;

// One thread per element of C; n need not be a multiple of TILE (the tiles
// are read from zero-padded copies of A and B, whose side is padded).
__global__ void matmulPipelined(const float* A, const float* B, float* C, int n, int padded) {
    // Aligned for wide copies, spelled as the samples spell it.
    __shared__ alignas(alignof(float4)) float As[STAGES][TILE][TILE];
    __shared__ alignas(alignof(float4)) float Bs[STAGES][TILE][TILE];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> pipeState;
    cg::thread_block cta = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(cta, &pipeState);

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    const int tiles = padded / TILE;
    float acc = 0.0f;
    for (int fetch = 0, use = 0; use < tiles; ++use) {
        for (; fetch < tiles && fetch < use + STAGES; ++fetch) {
            const int s = fetch % STAGES;
            pipe.producer_acquire();
            cuda::memcpy_async(&As[s][ty][tx], &A[row * padded + fetch * TILE + tx], sizeof(float), pipe);
            cuda::memcpy_async(&Bs[s][ty][tx], &B[(fetch * TILE + ty) * padded + col], sizeof(float), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        const int s = use % STAGES;
        for (int k = 0; k < TILE; ++k) acc += As[s][ty][k] * Bs[s][k][tx];
        pipe.consumer_release();
    }
    if (row < n && col < n) C[row * n + col] = acc;
}

// One block per row: the block finds the row's largest |value| (atomic_ref on
// shared memory), then every thread divides its entries by it.
__global__ void normalizeRows(float* C, int n) {
    __shared__ cuda::barrier<cuda::thread_scope_block> phase;
    __shared__ float rowMax;
    float* rowData = C + blockIdx.x * n;
    if (threadIdx.x == 0) {
        init(&phase, blockDim.x);
        rowMax = 0.0f;
    }
    __syncthreads();

    float mine = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) mine = fmaxf(mine, fabsf(rowData[i]));
    cuda::atomic_ref<float, cuda::thread_scope_block> shared(rowMax);
    float seen = shared.load();
    while (mine > seen && !shared.compare_exchange_weak(seen, mine)) {
    }
    auto token = phase.arrive();
    phase.wait(cuda::std::move(token));

    const float scale = rowMax > 0.0f ? 1.0f / rowMax : 1.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) rowData[i] *= scale;
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 100;
    const int padded = (n + TILE - 1) / TILE * TILE;
    std::vector<float> A(padded * padded, 0.0f), B(padded * padded, 0.0f);
    std::mt19937 gen(std::random_device{}());
    std::uniform_int_distribution<int> small(-4, 4);  // whole numbers: exact sums in any order
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) {
            A[r * padded + c] = static_cast<float>(small(gen));
            B[r * padded + c] = static_cast<float>(small(gen));
        }

    float *dA, *dB, *dC;
    CUDA_OK(cudaMalloc(&dA, A.size() * sizeof(float)));
    CUDA_OK(cudaMalloc(&dB, B.size() * sizeof(float)));
    CUDA_OK(cudaMalloc(&dC, static_cast<size_t>(n) * n * sizeof(float)));
    CUDA_OK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));

    const dim3 block(TILE, TILE), grid(padded / TILE, padded / TILE);
    matmulPipelined<<<grid, block>>>(dA, dB, dC, n, padded);
    CUDA_OK(cudaGetLastError());
    normalizeRows<<<n, 96>>>(dC, n);
    CUDA_OK(cudaGetLastError());
    std::vector<float> C(static_cast<size_t>(n) * n);
    CUDA_OK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int r = 0; r < n; ++r) {
        std::vector<float> row(n, 0.0f);
        float largest = 0.0f;
        for (int c = 0; c < n; ++c) {
            for (int k = 0; k < n; ++k) row[c] += A[r * padded + k] * B[k * padded + c];
            largest = std::fmax(largest, std::fabs(row[c]));
        }
        for (int c = 0; c < n; ++c) {
            const float expected = largest > 0.0f ? row[c] * (1.0f / largest) : row[c];
            if (std::fabs(C[r * n + c] - expected) > 1e-6f * std::fmax(1.0f, std::fabs(expected))) {
                if (++errors <= 5)
                    fprintf(stderr, "C[%d][%d] = %g, expected %g\n", r, c, C[r * n + c], expected);
            }
        }
    }
    CUDA_OK(cudaFree(dA));
    CUDA_OK(cudaFree(dB));
    CUDA_OK(cudaFree(dC));
    printf("libcudacxx_pipeline_matmul n=%d errors=%d %s\n", n, errors, errors == 0 ? "OK" : "FAILED");
    return errors == 0 ? 0 : 1;
}
