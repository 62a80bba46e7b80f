// cdp_quicksort.cu - quicksort with dynamic parallelism, in the manner of the
// CUDA samples' simple one: a grid of one thread partitions its range around
// a pivot, then launches one grid for each side, each into a stream of its
// own made in the kernel, so that the two sides may run at once. Short ranges,
// and ranges past a depth that would exceed the nesting limit, are sorted in
// place by insertion. The host checks the result against std::sort.
//
//   nvcc -arch=sm_90 -rdc=true cdp_quicksort.cu -o cdp_quicksort -lcudadevrt
//   ./cdp_quicksort [n]          (default 200000)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_),       \
                    __FILE__, __LINE__, cudaGetErrorString(err_));                        \
            exit(EXIT_FAILURE);                                                           \
        }                                                                                 \
    } while (0)

constexpr int insertion_limit = 32;  // ranges this short are sorted by insertion
constexpr int deepest_launch = 16;   // well below CUDA's 24 generations

// A launch that failed in a kernel (read by the host afterwards).
__device__ int launch_failures;

// ---- kernels ------------------------------------------------------------------------
__device__ void insertion_sort(unsigned* data, int lo, int hi) {
    for (int i = lo + 1; i <= hi; ++i) {
        const unsigned v = data[i];
        int j = i - 1;
        while (j >= lo && data[j] > v) {
            data[j + 1] = data[j];
            --j;
        }
        data[j + 1] = v;
    }
}

__global__ void quicksort(unsigned* data, int lo, int hi, int depth);

// One side of a partition, sorted by a grid of its own in a stream made here,
// so that the device runtime may run the two sides at once.
__device__ void sort_side(unsigned* data, int lo, int hi, int depth) {
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
        atomicAdd(&launch_failures, 1);
        return;
    }
    quicksort<<<1, 1, 0, s>>>(data, lo, hi, depth);
    if (cudaGetLastError() != cudaSuccess) atomicAdd(&launch_failures, 1);
    cudaStreamDestroy(s);  // the grid launched into it still runs
}

// Sorts data[lo..hi] (inclusive).
__global__ void quicksort(unsigned* data, int lo, int hi, int depth) {
    if (hi - lo < insertion_limit || depth >= deepest_launch) {
        insertion_sort(data, lo, hi);
        return;
    }
    // The median of three as the pivot, then Hoare's partition.
    const int mid = lo + (hi - lo) / 2;
    unsigned a = data[lo], b = data[mid], c = data[hi];
    const unsigned pivot = max(min(a, b), min(max(a, b), c));
    int left = lo, right = hi;
    while (left <= right) {
        while (data[left] < pivot) ++left;
        while (data[right] > pivot) --right;
        if (left <= right) {
            const unsigned t = data[left];
            data[left] = data[right];
            data[right] = t;
            ++left;
            --right;
        }
    }
    if (lo < right) sort_side(data, lo, right, depth + 1);
    if (left < hi) sort_side(data, left, hi, depth + 1);
}

// ---- main ---------------------------------------------------------------------------
int main(int argc, char** argv) {
    const long requested = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 200000;
    if (requested < 1 || requested > (1 << 26)) {
        fprintf(stderr, "usage: %s [n]   (1 <= n <= %d)\n", argv[0], 1 << 26);
        return 2;
    }
    const int n = static_cast<int>(requested);
    std::vector<unsigned> h_data(n);
    unsigned state = 20261201u;
    for (unsigned& v : h_data) {
        state = state * 1664525u + 1013904223u;
        v = state >> 4;  // with repeats in the small ranges too
        if (v % 7 == 0) v %= 1000;
    }
    unsigned* d_data;
    CHECK_CUDA(cudaMalloc(&d_data, n * sizeof(unsigned)));
    CHECK_CUDA(cudaMemcpy(d_data, h_data.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    quicksort<<<1, 1>>>(d_data, 0, n - 1, 0);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<unsigned> sorted(n);
    CHECK_CUDA(cudaMemcpy(sorted.data(), d_data, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int failures = 0;
    CHECK_CUDA(cudaMemcpyFromSymbol(&failures, launch_failures, sizeof failures));
    CHECK_CUDA(cudaFree(d_data));
    std::sort(h_data.begin(), h_data.end());
    if (failures != 0 || sorted != h_data) {
        printf("cdp_quicksort %d FAILED (%d launches failed)\n", n, failures);
        return 1;
    }
    printf("cdp_quicksort %d OK\n", n);
    return 0;
}
