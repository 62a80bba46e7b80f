// Lesson 11: when kernels go wrong - four classic bugs, found and fixed.
//
// A GPU answers most beginner bugs with a wrong number, a hang, or
// "an illegal memory access was encountered" long after the cause. This file
// has four small launchers; in the exercise each hides one classic bug:
//
//   scale_on_gpu        a thread writes past the end of its buffer
//   add_offset_on_gpu   a host pointer goes to the kernel
//   block_sums_on_gpu   a shared-memory reduction misses a barrier
//   square_on_gpu       a copy goes the wrong way
//
// Run the exercise on the emulator and read what it says: it names the
// kernel, the block, the thread, the source line and the buffer. Fix the bug,
// run again, meet the next one. The TODO(11.k) notes say which function
// holds which bug, not where in it: reading the report is the exercise.
//
// Build and run:   ./tutorial run 11          (the exercise, bugs included)
//                  ./tutorial check 11        (the exercise's test)
//                  ./tutorial solution 11     (this file)
// It runs the four launchers on random data, checks each against the CPU and
// prints PASS or FAIL for each.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"

#include <cstdio>
#include <vector>

// The reductions below assume this many threads per block (a power of two,
// so the tree halves evenly).
constexpr int kBlockSize = 256;

static int blocks_for(int n, int block_size) { return (n + block_size - 1) / block_size; }

// ---- bug 1: the bounds check ----

__global__ void scale_kernel(const float* x, float* y, int n, float factor) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = factor * x[i];
}

// y = factor * x
// TODO(11.1): one bug between here and scale_kernel. Run with --n 1000.
void scale_on_gpu(const float* h_x, float* h_y, int n, float factor) {
    const size_t bytes = (size_t)n * sizeof(float);
    float *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    scale_kernel<<<blocks_for(n, kBlockSize), kBlockSize>>>(d_x, d_y, n, factor);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
}

// ---- bug 2: which pointer goes to the kernel ----

__global__ void add_offset_kernel(const float* x, float* y, int n, float offset) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + offset;
}

// y = x + offset
// TODO(11.2): one bug in this function.
void add_offset_on_gpu(const float* h_x, float* h_y, int n, float offset) {
    const size_t bytes = (size_t)n * sizeof(float);
    float *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    add_offset_kernel<<<blocks_for(n, kBlockSize), kBlockSize>>>(h_x, d_y, n, offset);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
}

// ---- bug 3: a barrier in a shared-memory reduction ----

// Each block adds up its kBlockSize elements of x into sums[blockIdx.x]:
// load into shared memory, then halve the number of active threads each
// step, every active thread adding the element `stride` places ahead.
// TODO(11.3): one bug in this kernel: on a GPU the sums come out wrong, no crash.
__global__ void block_sums_kernel(const float* x, float* sums, int n) {
    __shared__ float partial[kBlockSize];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Threads past n load 0, so they take part in every step (and reach every
    // barrier) without changing the sum.
    partial[threadIdx.x] = (i < n) ? x[i] : 0.0f;
    __syncthreads();  // every element loaded before anyone reads a neighbour's
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}

// How many sums block_sums_on_gpu writes: one per block.
int block_count(int n) { return blocks_for(n, kBlockSize); }

// h_sums[b] = sum of x[b*kBlockSize .. (b+1)*kBlockSize), one per block.
void block_sums_on_gpu(const float* h_x, int n, float* h_sums) {
    const int num_blocks = block_count(n);
    float *d_x = nullptr, *d_sums = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_sums, (size_t)num_blocks * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    block_sums_kernel<<<num_blocks, kBlockSize>>>(d_x, d_sums, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_sums, d_sums, (size_t)num_blocks * sizeof(float),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_sums));
}

// ---- bug 4: the direction of a copy ----

__global__ void square_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * x[i];
}

// y = x * x
// TODO(11.4): one bug in this function.
void square_on_gpu(const float* h_x, float* h_y, int n) {
    const size_t bytes = (size_t)n * sizeof(float);
    float *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    square_kernel<<<blocks_for(n, kBlockSize), kBlockSize>>>(d_x, d_y, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
}

// ---- main: each launcher against the CPU ----
#ifndef TUTORIAL_TEST_BUILD

static bool report(const char* label, const std::vector<float>& got,
                   const std::vector<float>& ref, double atol, double rtol) {
    size_t mismatches = compare_floats(label, got.data(), ref.data(), got.size(), atol, rtol, 3);
    std::printf("  %-20s %s\n", label, mismatches == 0 ? "PASS" : "FAIL");
    return mismatches == 0;
}

int main(int argc, char** argv) {
    long long n = 1000;
    cli_option options[] = {
        {"--n", "number of elements (not a multiple of 256 shows bug 1)", CLI_INT, &n, 1,
         10000000},
    };
    cli_parse(argc, argv, "Runs four small kernels and checks each against the CPU.", options, 1);
    // Three host arrays, two on the device: refused up front if they do not fit.
    run_limits_require_memory(3.0 * 4.0 * (double)n, 2.0 * 4.0 * (double)n);

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);

    const size_t count = (size_t)n;
    std::vector<float> h_x(count), h_y(count), h_ref(count);
    fill_random(h_x.data(), count, 11, -1.0f, 1.0f);
    bool all_passed = true;

    // Scaling, adding and squaring one float are correctly rounded on any
    // device, so these agree exactly; the tolerance is a margin only.
    std::printf("1. scale_on_gpu\n");
    fill_poison(h_y.data(), count);
    scale_on_gpu(h_x.data(), h_y.data(), (int)n, 3.0f);
    for (size_t i = 0; i < count; ++i) h_ref[i] = 3.0f * h_x[i];
    all_passed &= report("scale", h_y, h_ref, 1e-6, 1e-6);

    std::printf("2. add_offset_on_gpu\n");
    fill_poison(h_y.data(), count);
    add_offset_on_gpu(h_x.data(), h_y.data(), (int)n, 0.5f);
    for (size_t i = 0; i < count; ++i) h_ref[i] = h_x[i] + 0.5f;
    all_passed &= report("add offset", h_y, h_ref, 1e-6, 1e-6);

    std::printf("3. block_sums_on_gpu\n");
    const int num_blocks = block_count((int)n);
    std::vector<float> h_sums((size_t)num_blocks), h_ref_sums((size_t)num_blocks);
    fill_poison(h_sums.data(), h_sums.size());
    block_sums_on_gpu(h_x.data(), (int)n, h_sums.data());
    for (int b = 0; b < num_blocks; ++b) {
        double sum = 0.0;
        for (size_t i = (size_t)b * kBlockSize; i < count && i < (size_t)(b + 1) * kBlockSize; ++i)
            sum += h_x[i];
        h_ref_sums[(size_t)b] = (float)sum;
    }
    // A tree of 256 float additions rounds differently from a double sum:
    // values in [-1, 1], so a few 1e-6 of absolute error per sum is normal.
    all_passed &= report("block sums", h_sums, h_ref_sums, 1e-4, 1e-5);

    std::printf("4. square_on_gpu\n");
    fill_poison(h_y.data(), count);
    square_on_gpu(h_x.data(), h_y.data(), (int)n);
    for (size_t i = 0; i < count; ++i) h_ref[i] = h_x[i] * h_x[i];
    all_passed &= report("square", h_y, h_ref, 1e-6, 1e-6);

    std::printf("\n%s\n", all_passed ? "PASS" : "FAIL");
    return all_passed ? 0 : 1;
}
#endif
