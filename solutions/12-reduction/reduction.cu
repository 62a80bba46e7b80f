// Lesson 12: reduction - many numbers in, one number out.
//
// Summing a vector looks serial: each addition needs the one before. It is
// not, because addition is associative: add pairs, then pairs of pairs, and
// n numbers take log2(n) rounds instead of n - 1 steps. This file climbs a
// ladder of sum kernels, each fixing what the one before wastes:
//
//   1. one atomicAdd per element      correct, but every thread queues at one address
//   2. a shared-memory tree per block interleaved pairs (tid % (2*stride)), then
//      3. sequential pairs (tid < stride): whole warps idle together
//   4. the last warp in registers     __shfl_down_sync instead of shared memory
//   5. cooperative groups             cg::reduce over a 32-thread tile
//   6. one atomicAdd per block        a grid-stride loop, then one launch, no second pass
//
// Float addition is not associative, though: each order rounds differently,
// so every kernel's sum differs a little from the CPU's left-to-right sum.
// Then the same tree with another operator: the maximum and where it is
// (argmax), which the exercise completes. Last, the deep-learning use: a
// softmax, whose denominator is a sum of exp(x - max), built from the two.
//
// Build and run:   ./tutorial run 12 [--n 100003] [--block 256] [--bench]
//                  ./tutorial check 12              (the exercise's test)
//                  ./tutorial solution 12           (the finished version)
// It prints each kernel's sum against the exact one, the maximum and its
// index, and a softmax checked against the CPU (PASS or FAIL); --bench adds a
// timing table of every step.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference_reduction.h"
#include "timer.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;

// Every block size here is a power of two from 32 to 1024: the trees halve
// the block each round, and the warp steps assume whole warps of 32 threads.
// The shared arrays are sized for the largest block.
constexpr int kMaxBlock = 1024;
constexpr int kWarp = 32;

bool block_size_is_valid(int block_size) {
    return block_size >= kWarp && block_size <= kMaxBlock && (block_size & (block_size - 1)) == 0;
}

// ---- 1. one atomicAdd per element ----

// Every thread adds its element straight into the total. atomicAdd makes the
// read-add-write of *total one indivisible step, so no addition is lost; but
// all n of them wait in line at the same address, one after another.
// [snippet: atomic-per-element]
__global__ void sum_atomic_per_element_kernel(const float* x, float* total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, x[i]);
}
// [end snippet]

// ---- 2. a tree in shared memory, interleaved addressing ----

// Each block sums blockDim.x elements into block_sums[blockIdx.x]; a second
// launch then sums those (reduce_in_passes below). Round 1 adds neighbours
// (0+1, 2+3, ...), round 2 pairs two apart (0+2, 4+6, ...), and so on: the
// sums gather at the threads whose index is a multiple of 2 * stride.
// [snippet: tree-interleaved]
__global__ void sum_tree_interleaved_kernel(const float* x, float* block_sums, int n) {
    __shared__ float partial[kMaxBlock];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + tid;
    partial[tid] = (i < n) ? x[i] : 0.0f;  // past the end: 0 adds nothing
    __syncthreads();
    for (int stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) partial[tid] += partial[tid + stride];
        __syncthreads();  // this round's sums are read by the next round
    }
    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}
// [end snippet]

// ---- 3. the same tree, sequential addressing ----

// The working threads are always the first `stride` ones, adding the element
// `stride` places above: the halves fold onto each other. Which threads work
// is the only change; the sum is built from the same kind of pairs.
// [snippet: tree-sequential]
__global__ void sum_tree_sequential_kernel(const float* x, float* block_sums, int n) {
    __shared__ float partial[kMaxBlock];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + tid;
    partial[tid] = (i < n) ? x[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}
// [end snippet]

// ---- 4. the last warp with shuffles ----

// Down to 32 partial sums the tree goes through shared memory, as above. The
// last five rounds happen inside one warp, whose 32 lanes can read each
// other's registers directly: __shfl_down_sync(mask, v, offset) returns v of
// the lane `offset` above. No shared memory, no __syncthreads: the mask names
// the lanes that take part (all 32) and the call waits for them.
// [snippet: warp-shuffle]
__global__ void sum_warp_shuffle_kernel(const float* x, float* block_sums, int n) {
    __shared__ float partial[kMaxBlock];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + tid;
    float v = (i < n) ? x[i] : 0.0f;  // this thread's running sum, in a register
    partial[tid] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride >= kWarp; stride /= 2) {
        if (tid < stride) partial[tid] = v = v + partial[tid + stride];
        __syncthreads();
    }
    if (tid < kWarp) {  // the first warp holds the last 32 partial sums
        for (int offset = kWarp / 2; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if (tid == 0) block_sums[blockIdx.x] = v;
    }
}
// [end snippet]

// ---- 5. cooperative groups ----

// The same idea with named groups instead of index arithmetic: the block is
// cut into tiles of 32 threads (one warp each); cg::reduce sums over a tile
// and hands every member the result. Each tile's sum goes to shared memory,
// and the first tile sums those.
// [snippet: block-sum-cg]
__device__ float block_sum(float v) {
    __shared__ float tile_sums[kMaxBlock / kWarp];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<kWarp> tile = cg::tiled_partition<kWarp>(block);
    v = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        v = (tile.thread_rank() < tile.meta_group_size()) ? tile_sums[tile.thread_rank()] : 0.0f;
        v = cg::reduce(tile, v, cg::plus<float>());
    }
    return v;  // the block's sum, in thread 0 (and the rest of the first tile)
}
// [end snippet]

__global__ void sum_cooperative_groups_kernel(const float* x, float* block_sums, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = block_sum((i < n) ? x[i] : 0.0f);
    if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
}

// ---- 6. one atomicAdd per block ----

// No second launch: each thread first adds up many elements on its own (a
// grid-stride loop, from lesson 04), the block sums its threads' totals, and
// thread 0 adds the block's sum to *total with one atomicAdd. n elements,
// gridDim.x atomics: a thousand blocks queue where a million threads did.
// [snippet: atomic-per-block]
__global__ void sum_atomic_per_block_kernel(const float* x, float* total, int n) {
    float mine = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        mine += x[i];
    float block_total = block_sum(mine);
    if (threadIdx.x == 0) atomicAdd(total, block_total);
}
// [end snippet]

// ---- the same tree, another operator: maximum and argmax ----

// A reduction works with any operator that is associative, such as max. To
// find *where* the maximum is, each partial result carries its index along.
// Ties: the lower index wins, so exactly one answer is right whatever order
// the pairs are combined in (and the test can check it).

// (value, index) <- the better of (value, index) and (other_value, other_index):
// the larger value; of two equal values, the lower index.
// [snippet: keep-larger]
__device__ void keep_larger(float& value, int& index, float other_value, int other_index) {
    if (other_value > value || (other_value == value && other_index < index)) {
        value = other_value;
        index = other_index;
    }
}
// [end snippet]

// Each block finds the largest of its blockDim.x elements and its index. The
// first pass reads the input (indices == nullptr: element i's index is i);
// later passes read the previous pass's (value, index) pairs.
// [snippet: max-argmax-kernel]
__global__ void max_argmax_kernel(const float* values, const int* indices, float* block_values,
                                  int* block_indices, int n) {
    __shared__ float best_value[kMaxBlock];
    __shared__ int best_index[kMaxBlock];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + tid;
    // A thread past the end holds what loses to every element, even to
    // -INFINITY itself (on the index): then it changes no result.
    float value = -INFINITY;
    int index = INT_MAX;
    if (i < n) {
        value = values[i];
        index = indices ? indices[i] : i;
    }
    best_value[tid] = value;
    best_index[tid] = index;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) {  // the better of this pair and the pair stride places above
            keep_larger(value, index, best_value[tid + stride], best_index[tid + stride]);
            best_value[tid] = value;
            best_index[tid] = index;
        }
        __syncthreads();  // the next round reads what this round stored
    }
    if (tid == 0) {
        block_values[blockIdx.x] = best_value[0];
        block_indices[blockIdx.x] = best_index[0];
    }
}
// [end snippet]

// ---- softmax: the reductions at work ----

// y[i] = exp(x[i] - max) for the max found on the device (*max_value).
__global__ void exp_shifted_kernel(const float* x, const float* max_value, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = expf(x[i] - *max_value);
}

// y[i] /= *denominator
__global__ void divide_kernel(float* y, const float* denominator, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] / *denominator;
}

// ---- host side: launching the ladder ----

static int blocks_for(int n, int block_size) { return (n + block_size - 1) / block_size; }

// The steps, in order; sum_on_gpu's `step` counts from 0.
static const char* const kStepNames[] = {
    "1. atomicAdd per element",   "2. tree, interleaved",      "3. tree, sequential",
    "4. last warp with shuffles", "5. cooperative groups",     "6. atomicAdd per block",
};
int sum_step_count() { return (int)(sizeof kStepNames / sizeof kStepNames[0]); }
const char* sum_step_name(int step) { return kStepNames[step]; }

// Scratch for the multi-pass steps: two buffers the passes alternate between,
// each big enough for the first pass's block sums; and one float for a total.
struct SumScratch {
    float* d_a = nullptr;
    float* d_b = nullptr;
    float* d_total = nullptr;
};

static SumScratch allocate_scratch(int n, int block_size) {
    SumScratch s;
    size_t partials = (size_t)blocks_for(n, block_size);
    CUDA_CHECK(cudaMalloc(&s.d_a, partials * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&s.d_b, partials * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&s.d_total, sizeof(float)));
    return s;
}

static void free_scratch(SumScratch& s) {
    CUDA_CHECK(cudaFree(s.d_a));
    CUDA_CHECK(cudaFree(s.d_b));
    CUDA_CHECK(cudaFree(s.d_total));
    s = SumScratch{};
}

using BlockSumKernel = void (*)(const float*, float*, int);

// One launch turns n numbers into ceil(n / block) block sums; launch again on
// those until one number is left. Launches on one stream run in order, so
// each pass sees the whole of the pass before. Returns where the sum is.
// [snippet: passes]
static const float* reduce_in_passes(BlockSumKernel kernel, const float* d_x, int n,
                                     int block_size, SumScratch& s) {
    const float* in = d_x;
    float* out = s.d_a;
    do {
        int blocks = blocks_for(n, block_size);
        kernel<<<blocks, block_size>>>(in, out, n);
        CUDA_CHECK(cudaGetLastError());
        in = out;
        out = (out == s.d_a) ? s.d_b : s.d_a;
        n = blocks;
    } while (n > 1);
    return in;
}
// [end snippet]

// A grid for step 6: enough blocks to fill the device, no more; each thread's
// grid-stride loop covers the rest.
static int resident_blocks(int n, int block_size) {
    int device = 0, sms = 0, threads_per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    int fill = sms * (threads_per_sm / block_size);
    int needed = blocks_for(n, block_size);
    return needed < fill ? needed : (fill > 0 ? fill : 1);
}

// The sum of d_x[0..n) by one step of the ladder, left on the device; returns
// where it is. Every pointer is a device pointer.
static const float* sum_on_device(int step, const float* d_x, int n, int block_size, SumScratch& s) {
    switch (step) {
        case 0:
            CUDA_CHECK(cudaMemset(s.d_total, 0, sizeof(float)));  // atomics add into it
            sum_atomic_per_element_kernel<<<blocks_for(n, block_size), block_size>>>(d_x, s.d_total, n);
            CUDA_CHECK(cudaGetLastError());
            return s.d_total;
        case 1: return reduce_in_passes(sum_tree_interleaved_kernel, d_x, n, block_size, s);
        case 2: return reduce_in_passes(sum_tree_sequential_kernel, d_x, n, block_size, s);
        case 3: return reduce_in_passes(sum_warp_shuffle_kernel, d_x, n, block_size, s);
        case 4: return reduce_in_passes(sum_cooperative_groups_kernel, d_x, n, block_size, s);
        default:
            CUDA_CHECK(cudaMemset(s.d_total, 0, sizeof(float)));
            sum_atomic_per_block_kernel<<<resident_blocks(n, block_size), block_size>>>(d_x, s.d_total, n);
            CUDA_CHECK(cudaGetLastError());
            return s.d_total;
    }
}

// ---- launchers: host arrays in, host results out ----

// *h_sum = x[0] + ... + x[n-1] by step `step` (0 to sum_step_count() - 1).
// n >= 1; block_size a power of two from 32 to 1024. Returns false, and
// launches nothing, for any other block size or step.
bool sum_on_gpu(const float* h_x, int n, int step, int block_size, float* h_sum) {
    if (!block_size_is_valid(block_size) || step < 0 || step >= sum_step_count() || n < 1)
        return false;
    float* d_x = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    SumScratch s = allocate_scratch(n, block_size);
    const float* d_sum = sum_on_device(step, d_x, n, block_size, s);
    CUDA_CHECK(cudaMemcpy(h_sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
    free_scratch(s);
    CUDA_CHECK(cudaFree(d_x));
    return true;
}

// Max and argmax buffers: values and indices, twice, for alternating passes.
struct MaxScratch {
    float* d_values[2] = {nullptr, nullptr};
    int* d_indices[2] = {nullptr, nullptr};
};

static MaxScratch allocate_max_scratch(int n, int block_size) {
    MaxScratch m;
    size_t partials = (size_t)blocks_for(n, block_size);
    for (int k = 0; k < 2; ++k) {
        CUDA_CHECK(cudaMalloc(&m.d_values[k], partials * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&m.d_indices[k], partials * sizeof(int)));
    }
    return m;
}

static void free_max_scratch(MaxScratch& m) {
    for (int k = 0; k < 2; ++k) {
        CUDA_CHECK(cudaFree(m.d_values[k]));
        CUDA_CHECK(cudaFree(m.d_indices[k]));
    }
    m = MaxScratch{};
}

// The largest of d_x[0..n) and its index, in passes as for the sums; returns
// the buffer slot (0 or 1) whose element 0 holds them.
static int max_argmax_on_device(const float* d_x, int n, int block_size, MaxScratch& m) {
    const float* in_values = d_x;
    const int* in_indices = nullptr;  // first pass: the index of element i is i
    int slot = 0;
    do {
        int blocks = blocks_for(n, block_size);
        max_argmax_kernel<<<blocks, block_size>>>(in_values, in_indices, m.d_values[slot],
                                                  m.d_indices[slot], n);
        CUDA_CHECK(cudaGetLastError());
        in_values = m.d_values[slot];
        in_indices = m.d_indices[slot];
        slot = 1 - slot;
        n = blocks;
    } while (n > 1);
    return 1 - slot;
}

// The largest element of x[0..n) and the lowest index where it occurs. n >= 1;
// block_size as for sum_on_gpu (false, nothing launched, otherwise).
bool max_argmax_on_gpu(const float* h_x, int n, int block_size, float* h_max, int* h_index) {
    if (!block_size_is_valid(block_size) || n < 1) return false;
    float* d_x = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    MaxScratch m = allocate_max_scratch(n, block_size);
    int slot = max_argmax_on_device(d_x, n, block_size, m);
    CUDA_CHECK(cudaMemcpy(h_max, m.d_values[slot], sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_index, m.d_indices[slot], sizeof(int), cudaMemcpyDeviceToHost));
    free_max_scratch(m);
    CUDA_CHECK(cudaFree(d_x));
    return true;
}

// y = softmax(x): y[i] = exp(x[i] - max) / sum_j exp(x[j] - max). Two
// reductions: the max (so that no exp can overflow), then the denominator,
// both left on the device where the next kernel reads them.
// [snippet: softmax]
static void softmax_on_device(const float* d_x, float* d_y, int n, int block_size) {
    MaxScratch m = allocate_max_scratch(n, block_size);
    SumScratch s = allocate_scratch(n, block_size);
    const int blocks = blocks_for(n, block_size);
    int slot = max_argmax_on_device(d_x, n, block_size, m);
    exp_shifted_kernel<<<blocks, block_size>>>(d_x, m.d_values[slot], d_y, n);
    CUDA_CHECK(cudaGetLastError());
    const float* d_denominator = sum_on_device(5, d_y, n, block_size, s);  // one atomic per block
    divide_kernel<<<blocks, block_size>>>(d_y, d_denominator, n);
    CUDA_CHECK(cudaGetLastError());
    free_scratch(s);
    free_max_scratch(m);
}
// [end snippet]

// y = softmax(x), host arrays of n >= 1 floats; block_size as for sum_on_gpu.
bool softmax_on_gpu(const float* h_x, float* h_y, int n, int block_size) {
    if (!block_size_is_valid(block_size) || n < 1) return false;
    float *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    softmax_on_device(d_x, d_y, n, block_size);
    CUDA_CHECK(cudaMemcpy(h_y, d_y, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    return true;
}

// ---- main: every step against the exact sum, max, softmax, optional timing ----
#ifndef TUTORIAL_TEST_BUILD

// Float rounds each addition to 24 significant bits: an error of at most
// u = 2^-24 times the result. A sum of n numbers, in any order, adds at most
// n - 1 such errors, each at most u times a partial sum, and no partial sum
// exceeds sum |x|: so |float sum - exact sum| <= (n - 1) * u * sum |x|. That
// holds for every kernel here and for any order a GPU picks (the atomics).
static double rounding_bound(int n, double sum_abs) { return (double)(n - 1) * std::ldexp(1.0, -24) * sum_abs; }

// Mean time of one call of work(), in ms, by CUDA events, after one warm-up
// call: enough calls to last about 0.2 s (at least 3, at most 1000).
template <class Work>
static double mean_ms(Work work) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    auto time_calls = [&](int reps) {
        CUDA_CHECK(cudaEventRecord(start));
        for (int r = 0; r < reps; ++r) work();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        return (double)ms;
    };
    double once = time_calls(1);  // the warm-up, timed to choose the count
    int reps = once > 0.0 ? (int)(200.0 / once) : 1000;
    reps = reps < 3 ? 3 : (reps > 1000 ? 1000 : reps);
    double mean = time_calls(reps) / reps;
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return mean;
}

static void print_timing_row(const char* label, double ms, int n) {
    std::printf("  %-28s %10.3f ms %10.3g GB/s\n", label, ms, (double)n * sizeof(float) / (ms * 1e6));
}

static void run_bench(const std::vector<float>& h_x, int n, int block_size, const char* where, bool emulated) {
    std::printf("\ntiming on %s: the sum of %d floats, block %d,\n"
                "kernels only (the input is already on the device), mean of many calls\n"
                "after a warm-up; GB/s counts the input read once (4 bytes per element)\n",
                where, n, block_size);
    float* d_x = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    SumScratch s = allocate_scratch(n, block_size);
    for (int step = 0; step < sum_step_count(); ++step)
        print_timing_row(sum_step_name(step),
                         mean_ms([&] { sum_on_device(step, d_x, n, block_size, s); }), n);
    MaxScratch m = allocate_max_scratch(n, block_size);
    print_timing_row("max and argmax (sequential)",
                     mean_ms([&] { max_argmax_on_device(d_x, n, block_size, m); }), n);
    free_max_scratch(m);
    free_scratch(s);
    CUDA_CHECK(cudaFree(d_x));

    volatile float sink = 0.0f;  // keeps the compiler from dropping the loop
    const int reps = 5;
    double t0 = wall_time_ms();
    for (int r = 0; r < reps; ++r) sink = sink + cpu_sum_serial(h_x.data(), n);
    print_timing_row("CPU, one core, serial loop", (wall_time_ms() - t0) / reps, n);
    if (emulated)
        std::printf("These are CPU times from the emulator, which runs the threads of a block\n"
                    "one after another: atomics cost no waiting here, and every barrier or\n"
                    "warp function is a switch between threads. They say nothing about a GPU.\n");
}

int main(int argc, char** argv) {
    long long n = 100003, block_size = 256, bench = 0;
    cli_option options[] = {
        {"--n", "number of elements to reduce", CLI_INT, &n, 1, 1LL << 28},
        {"--block", "threads per block, a power of two", CLI_INT, &block_size, 32, 1024},
        {"--bench", "also time every step of the ladder", CLI_FLAG, &bench, 0, 1},
    };
    cli_parse(argc, argv,
              "The sum of a vector by six kernels, from one atomicAdd per element to one per\n"
              "block; the maximum and its index; a softmax. Each is checked against the CPU.",
              options, 3);
    if (!block_size_is_valid((int)block_size)) {
        std::fprintf(stderr, "error: --block must be a power of two from 32 to 1024 (got %lld)\n", block_size);
        return 2;
    }
    // Host: five arrays of n floats (the inputs, the whole numbers, the
    // logits, two softmax outputs). Device: at most two arrays of n floats
    // and the scratch, at most a fifth of one (blocks of 32). Time, on the 2-core
    // development machine (solution, 2 workers): the default run passed about
    // 250 thousand elements per second (0.42 s for 100003, lightly loaded;
    // 9.7 s for 10^6 at a load average of 8), --bench a fifth of that (10^7
    // elements: each tree step took 6.6 to 12 s a call, under load);
    // every tree round is a switch between threads for each of them. The CPU
    // reference (exp in double for the softmax) runs at 100 million or more.
    run_limits_require_memory(5.0 * 4.0 * (double)n, 2.2 * 4.0 * (double)n);
    run_limits_check_duration((double)n, bench ? 1.0 / 50e3 : 1.0 / 250e3, 1.0 / 100e6, "--n");

    cudaDeviceProp prop = {};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);
    const bool emulated = std::strstr(prop.name, "emulator") != nullptr;
    const int count = (int)n, block = (int)block_size;
    bool all_passed = true;

    // 1. The sum, six ways, against the exact sum. Then the same six on whole
    // numbers small enough that no partial sum, in any order, needs more than
    // float's 24 bits: no addition rounds, so each must give the exact sum.
    std::vector<float> h_x((size_t)count);
    fill_random(h_x.data(), h_x.size(), 1, -1.0f, 1.0f);
    const double exact = cpu_sum_exact(h_x.data(), count);
    const double bound = rounding_bound(count, cpu_sum_abs(h_x.data(), count));
    const float whole_limit = std::floor(std::fmin(100.0f, 16777216.0f / (float)count));
    std::vector<float> h_whole((size_t)count);
    fill_random(h_whole.data(), h_whole.size(), 3, -whole_limit - 0.5f, whole_limit + 0.5f);
    for (float& v : h_whole) v = std::round(v);
    const double whole_exact = cpu_sum_exact(h_whole.data(), count);
    std::printf("\nthe sum of %d random floats in [-1, 1), blocks of %d threads\n", count, block);
    std::printf("  %-30s %14s %11s   %s\n", "", "sum", "off by", "whole numbers");
    std::printf("  %-30s %14.6f\n", "exact (added in double)", exact);
    const float serial = cpu_sum_serial(h_x.data(), count);
    std::printf("  %-30s %14.6f %11.2e\n", "CPU, float, left to right", (double)serial,
                std::fabs((double)serial - exact));
    for (int step = 0; step < sum_step_count(); ++step) {
        float got = NAN, got_whole = NAN;  // stay NaN if nothing is copied back
        sum_on_gpu(h_x.data(), count, step, block, &got);
        sum_on_gpu(h_whole.data(), count, step, block, &got_whole);
        bool whole_ok = whole_limit < 1.0f || (double)got_whole == whole_exact;
        bool ok = std::fabs((double)got - exact) <= bound && whole_ok;  // false for NaN
        all_passed &= ok;
        std::printf("  %-30s %14.6f %11.2e   %-13s %s\n", sum_step_name(step), (double)got,
                    std::fabs((double)got - exact),
                    whole_limit < 1.0f ? "(n too large)" : whole_ok ? "exact" : "WRONG",
                    ok ? "PASS" : "FAIL");
    }
    std::printf("  each order of additions rounds differently. No float sum may be off by\n"
                "  more than (n - 1) * 2^-24 * sum |x| = %.2e, a worst case that random\n"
                "  roundings never come near (they partly cancel); the whole numbers (from\n"
                "  -%g to %g), whose sums never round, must come out exact\n",
                bound, (double)whole_limit, (double)whole_limit);

    // 2. Max and argmax: no rounding at all, so the answer must be exact.
    float got_max = NAN, ref_max = 0.0f;
    int got_index = -1, ref_index = 0;
    max_argmax_on_gpu(h_x.data(), count, block, &got_max, &got_index);
    cpu_max_argmax(h_x.data(), count, &ref_max, &ref_index);
    bool max_ok = got_max == ref_max && got_index == ref_index;
    all_passed &= max_ok;
    std::printf("\nmax and argmax of the same numbers\n");
    std::printf("  GPU: x[%d] = %.7f\n  CPU: x[%d] = %.7f   %s\n", got_index, (double)got_max,
                ref_index, (double)ref_max, max_ok ? "PASS" : "FAIL");

    // 3. Softmax of logits whose exp() overflows float unless the max is subtracted.
    std::vector<float> logits((size_t)count), y_got((size_t)count), y_ref((size_t)count);
    fill_random(logits.data(), logits.size(), 2, 60.0f, 100.0f);
    cpu_softmax(logits.data(), y_ref.data(), count);
    fill_poison(y_got.data(), y_got.size());
    softmax_on_gpu(logits.data(), y_got.data(), count, block);
    std::printf("\nsoftmax of %d logits in [60, 100): y[i] = exp(x[i] - max) / sum_j exp(x[j] - max)\n",
                count);
    const float largest = *std::max_element(logits.begin(), logits.end());
    std::printf("  without the max: expf(%.2f) = %g in float, and inf / inf is NaN\n",
                (double)largest, (double)std::exp(largest));
    // Each y is exp() rounded (a few ulp) divided by the denominator, a float
    // sum of positive terms: relative error at most about (n + 4) * 2^-24.
    const double softmax_rtol = ((double)count + 4.0) * std::ldexp(1.0, -24);
    size_t bad = compare_floats("softmax", y_got.data(), y_ref.data(), (size_t)count, 1e-30, softmax_rtol, 5);
    double total = 0.0;
    for (float v : y_got) total += v;
    std::printf("  checked against cpu_softmax: %s (its outputs add up to %.6f)\n", bad == 0 ? "PASS" : "FAIL", total);
    all_passed &= bad == 0;

    if (bench) run_bench(h_x, count, block, prop.name, emulated);

    std::printf("\n%s\n", all_passed ? "PASS" : "FAIL");
    return all_passed ? 0 : 1;
}
#endif
