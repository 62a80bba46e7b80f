// cub_block_sum.cu - an ordinary CUB program, built with bin/nvcc-emu by the
// test emu.driver.cub_block_sum: each block sums its tile with
// cub::BlockReduce (TempStorage in shared memory), then cub::DeviceReduce
// adds the block sums (the two-call temporary-storage protocol) and
// cub::DeviceRadixSort sorts the input (with a CachingDeviceAllocator and
// CubDebugExit, as CUB's examples); both are checked against the CPU.
//   cub_block_sum N
#define CUB_STDERR  // CubDebugExit prints a failure before it exits
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(call)                                                                        \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(err_));           \
            std::exit(1);                                                                       \
        }                                                                                       \
    } while (0)

constexpr int kBlock = 256;

__global__ void block_sums(const int* in, int n, long long* sums) {
    using BlockReduce = cub::BlockReduce<long long, kBlock>;
    __shared__ typename BlockReduce::TempStorage temp;
    const int i = blockIdx.x * kBlock + threadIdx.x;
    const long long sum = BlockReduce(temp).Sum(i < n ? in[i] : 0);
    if (threadIdx.x == 0) sums[blockIdx.x] = sum;
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 100003;
    if (n < 1) {
        std::fprintf(stderr, "usage: cub_block_sum N (N >= 1)\n");
        return 2;
    }
    const int blocks = (n + kBlock - 1) / kBlock;
    std::vector<int> h(n);
    unsigned state = 12345;
    for (int& x : h) x = static_cast<int>((state = state * 1103515245u + 12345u) >> 8) % 2001 - 1000;

    int *d_in, *d_sorted;
    long long *d_block_sums, *d_total;
    CHECK_CUDA(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_sorted, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_block_sums, blocks * sizeof(long long)));
    CHECK_CUDA(cudaMalloc(&d_total, sizeof(long long)));
    CHECK_CUDA(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    block_sums<<<blocks, kBlock>>>(d_in, n, d_block_sums);
    CHECK_CUDA(cudaGetLastError());

    void* d_temp = nullptr;
    size_t temp_bytes = 0;
    CHECK_CUDA(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_block_sums, d_total, blocks));
    CHECK_CUDA(cudaMalloc(&d_temp, temp_bytes));
    CHECK_CUDA(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_block_sums, d_total, blocks));
    CHECK_CUDA(cudaFree(d_temp));

    // As CUB's own examples do: a caching allocator and CubDebugExit.
    cub::CachingDeviceAllocator allocator(true);
    d_temp = nullptr;
    CubDebugExit(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_in, d_sorted, n));
    CubDebugExit(allocator.DeviceAllocate(&d_temp, temp_bytes));
    CubDebugExit(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_in, d_sorted, n));
    CubDebugExit(allocator.DeviceFree(d_temp));

    long long total = 0;
    std::vector<int> sorted(n);
    CHECK_CUDA(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(sorted.data(), d_sorted, n * sizeof(int), cudaMemcpyDeviceToHost));

    long long expected = 0;
    for (int x : h) expected += x;
    std::vector<int> expected_sorted = h;
    std::sort(expected_sorted.begin(), expected_sorted.end());
    if (total != expected || sorted != expected_sorted) {
        std::printf("cub_block_sum: sum %lld (CPU %lld), sorted %s\n", total, expected,
                    sorted == expected_sorted ? "equal" : "differs");
        return 1;
    }
    std::printf("cub_block_sum %d values, sum %lld, sorted OK\n", n, total);
    CHECK_CUDA(cudaFree(d_in));
    CHECK_CUDA(cudaFree(d_sorted));
    CHECK_CUDA(cudaFree(d_block_sums));
    CHECK_CUDA(cudaFree(d_total));
    return 0;
}
