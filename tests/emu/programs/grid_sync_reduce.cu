// grid_sync_reduce.cu - a whole-array sum in ONE kernel with a grid-wide
// barrier, the way a parallel-programming course shows cooperative launches:
// the grid is sized from the occupancy calculator so every block can be
// resident at once, the kernel is launched with cudaLaunchCooperativeKernel
// (arguments as an array of pointers), each block writes its partial sum,
// grid.sync() waits for all of them, and block 0 reduces the partials. The
// device's cudaDevAttrCooperativeLaunch is checked first. Prints
// "grid_sync_reduce ... OK" when the sum equals the CPU's.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace cg = cooperative_groups;

#define CUDA_CHECK(expr)                                                              \
    do {                                                                              \
        cudaError_t status_ = (expr);                                                 \
        if (status_ != cudaSuccess) {                                                 \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(status_), \
                    __FILE__, __LINE__, cudaGetErrorString(status_));                 \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

constexpr int kThreads = 256;

__global__ void sumKernel(const long long* in, long long n, long long* partial, long long* out) {
    cg::grid_group grid = cg::this_grid();
    __shared__ long long shared[kThreads];
    long long mine = 0;
    for (long long i = grid.thread_rank(); i < n; i += grid.size()) mine += in[i];
    shared[threadIdx.x] = mine;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = shared[0];

    grid.sync();  // every block's partial sum is written

    if (blockIdx.x == 0) {
        long long s = 0;
        for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) s += partial[b];
        shared[threadIdx.x] = s;
        __syncthreads();
        for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
            if (threadIdx.x < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
            __syncthreads();
        }
        if (threadIdx.x == 0) *out = shared[0];
    }
}

int main(int argc, char** argv) {
    long long n = argc > 1 ? atoll(argv[1]) : 1000003;
    if (n <= 0 || n > (1LL << 28)) {
        fprintf(stderr, "usage: %s [1 <= n <= 268435456]\n", argv[0]);
        return 2;
    }
    int device = 0, cooperative = 0, smCount = 0, blocksPerSm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    if (!cooperative) {
        fprintf(stderr, "device %d does not support cooperative launches\n", device);
        return 1;
    }
    CUDA_CHECK(cudaDeviceGetAttribute(&smCount, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSm, sumKernel, kThreads, 0));
    const int blocks = smCount * blocksPerSm;

    std::vector<long long> host(n);
    std::mt19937_64 gen(std::random_device{}());
    std::uniform_int_distribution<long long> dist(-1000000, 1000000);
    long long expected = 0;
    for (long long& v : host) expected += v = dist(gen);

    long long *in, *partial, *out;
    CUDA_CHECK(cudaMalloc(&in, n * sizeof(long long)));
    CUDA_CHECK(cudaMalloc(&partial, blocks * sizeof(long long)));
    CUDA_CHECK(cudaMalloc(&out, sizeof(long long)));
    CUDA_CHECK(cudaMemcpy(in, host.data(), n * sizeof(long long), cudaMemcpyHostToDevice));

    void* args[] = {&in, &n, &partial, &out};
    CUDA_CHECK(cudaLaunchCooperativeKernel(sumKernel, dim3(blocks), dim3(kThreads), args, 0, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    long long result = 0;
    CUDA_CHECK(cudaMemcpy(&result, out, sizeof result, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(partial));
    CUDA_CHECK(cudaFree(out));
    printf("grid_sync_reduce n=%lld blocks=%d sum=%lld expected=%lld %s\n", n, blocks, result,
           expected, result == expected ? "OK" : "FAILED");
    return result == expected ? 0 : 1;
}
