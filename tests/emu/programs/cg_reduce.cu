// cg_reduce.cu - sum of a float array with cooperative groups, the way the
// CUDA samples write it: a grid-stride loop gives each thread a partial sum,
// each 32-thread tile reduces its partials with cg::reduce, the tiles' results
// meet in shared memory, the first tile reduces those, and one atomicAdd per
// block adds the block's sum to the total. Exits 0 only when the GPU's answer
// matches the CPU's.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK_CUDA(call)                                                                 \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,         \
                    cudaGetErrorString(err_));                                           \
            exit(EXIT_FAILURE);                                                          \
        }                                                                                \
    } while (0)

__global__ void reduceSum(const float* __restrict__ input, float* total, size_t n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    extern __shared__ float warpSums[];

    float sum = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x)
        sum += input[i];

    sum = cg::reduce(warp, sum, cg::plus<float>());
    if (warp.thread_rank() == 0) warpSums[warp.meta_group_rank()] = sum;
    block.sync();

    if (warp.meta_group_rank() == 0) {
        float blockSum = warp.thread_rank() < warp.meta_group_size() ? warpSums[warp.thread_rank()] : 0.0f;
        blockSum = cg::reduce(warp, blockSum, cg::plus<float>());
        if (warp.thread_rank() == 0) atomicAdd(total, blockSum);
    }
}

int main(int argc, char** argv) {
    size_t n = argc > 1 ? strtoull(argv[1], nullptr, 10) : 1000003;
    if (n == 0) { fprintf(stderr, "usage: %s [n >= 1]\n", argv[0]); return 2; }

    std::random_device rd;
    unsigned seed = rd();
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> h_input(n);
    double expected = 0.0, magnitude = 0.0;
    for (size_t i = 0; i < n; ++i) {
        h_input[i] = dist(gen);
        expected += h_input[i];
        magnitude += fabs(h_input[i]);
    }

    float *d_input = nullptr, *d_total = nullptr;
    CHECK_CUDA(cudaMalloc(&d_input, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_total, sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d_input, h_input.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_total, 0, sizeof(float)));

    // The tiles are whole warps, so the block size is a multiple of 32.
    const int threads = 256;
    const int blocks = 96;  // fewer threads than elements: the grid-stride loop does the rest
    const size_t sharedBytes = (threads / 32) * sizeof(float);
    reduceSum<<<blocks, threads, sharedBytes>>>(d_input, d_total, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());

    float gpuTotal = 0.0f;
    CHECK_CUDA(cudaMemcpy(&gpuTotal, d_total, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaFree(d_input));
    CHECK_CUDA(cudaFree(d_total));

    // Float sums in another order differ by rounding. Each addition rounds by
    // at most half an ulp (6e-8 relative) of a partial sum no larger than the
    // sum of |x|, and no element goes through more than: its thread's loop, two
    // tile reductions of 5 steps each, and one atomicAdd per block.
    const size_t perThread = (n + (size_t)threads * blocks - 1) / ((size_t)threads * blocks);
    const double tolerance = 1e-6 + (perThread + 10 + blocks) * 6e-8 * magnitude;
    const bool ok = fabs(gpuTotal - expected) <= tolerance;
    printf("cg_reduce n=%zu seed=%u sum=%.4f (cpu %.4f, tolerance %.4f) %s\n", n, seed, gpuTotal,
           expected, tolerance, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
