// emu-speed.cu - how fast the emulator runs the two kinds of kernel that
// matter for its design: barrier-free threads (a vector add) and barrier
// round trips (a tiled matrix multiply, two __syncthreads per tile).
//
//   bin/nvcc-emu tools/emu-speed.cu -o /tmp/emu-speed && /tmp/emu-speed
//   CUEMU_WORKERS=1 /tmp/emu-speed        # one worker thread
//
// It is ordinary CUDA, so nvcc builds it too; on a GPU the same figures are
// GPU rates. Times are CUDA events after one warm-up launch; on the emulator
// they are CPU times.
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_check.h"

constexpr int TILE = 16;

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void tiled_matmul(const float* a, const float* b, float* c, int n) {
    __shared__ float ta[TILE][TILE], tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        ta[threadIdx.y][threadIdx.x] = a[row * n + t * TILE + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(t * TILE + threadIdx.y) * n + col];
        __syncthreads();  // the tile is loaded
        for (int k = 0; k < TILE; ++k) sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();  // everyone is done with it before the next load
    }
    c[row * n + col] = sum;
}

template <class Launch>
static float time_ms(Launch launch) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    launch();  // warm-up
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(start));
    launch();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms;
}

int main() {
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s\n", prop.name);

    const int n = 1 << 24;
    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_c, n * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_a, 0, n * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_b, 0, n * sizeof(float)));
    float ms = time_ms([&] { vector_add<<<(n + 255) / 256, 256>>>(d_a, d_b, d_c, n); });
    std::printf("vector add, %d threads, no barrier: %.1f ms, %.0f M threads/s\n", n, ms,
                n / (ms * 1e-3) / 1e6);

    const int m = 512;
    ms = time_ms([&] {
        tiled_matmul<<<dim3(m / TILE, m / TILE), dim3(TILE, TILE)>>>(d_a, d_b, d_c, m);
    });
    const double waits = double(m) * m * (m / TILE) * 2;  // every thread, 2 barriers per tile
    std::printf("tiled matmul %dx%d, %dx%d tiles: %.1f ms, %.1f M barrier waits/s\n", m, m,
                TILE, TILE, ms, waits / (ms * 1e-3) / 1e6);
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    return 0;
}
