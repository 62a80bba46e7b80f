// Lesson 22: Thrust and CUB, the library way.
//
// Lessons 12 to 14 wrote a reduction, a scan and a histogram by hand: shared
// memory, barriers, atomics, a second pass for the blocks' totals. CUDA comes
// with libraries that have done this work, tuned for every GPU:
//
//   Thrust  whole-array algorithms on device_vector, like the C++ standard
//           library: reduce, transform_reduce, inclusive_scan, sort_by_key,
//           copy_if; fancy iterators (counting, transform) that compute
//           their values instead of reading them from memory.
//   CUB     the pieces Thrust is made of: device-wide calls that take their
//           scratch memory from you (cub::DeviceReduce, cub::DeviceHistogram)
//           and block-wide ones you call inside a kernel of your own
//           (cub::BlockReduce).
//
// Both mix with hand-written kernels: thrust::raw_pointer_cast turns a
// device_vector into the plain pointer a kernel takes.
//
// Build and run:   ./tutorial run 22 [--n 1048576] [--k 5]
//                  ./tutorial run 22 --bench   (each library call against the hand-written kernel)
//                  ./tutorial check 22         (the exercise's test)
//                  ./tutorial solution 22      (the finished version)
// It prints each library call's result against the CPU, the memory a fused
// call saves, the top k scores of a batch found by a small pipeline, and
// PASS or FAIL.
#include <cuda_runtime.h>

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "timer.h"
#include "cpu_reference_histogram.h"
#include "cpu_reference_reduction.h"
#include "cpu_reference_scan.h"
#include "cpu_reference_top_k.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

static const int kBlock = 256;      // threads per block of the hand-written kernels
static const int kMaxBlocks = 1024;  // grid of the grid-stride kernels

static int blocks_for(int n) { return std::min(kMaxBlocks, (n + kBlock - 1) / kBlock); }

// ---- the hand-written kernels of lessons 12 to 14, short versions ----

// Lesson 12: each thread sums a stride of the input, the block adds its
// threads' sums in a tree in shared memory, one atomic per block.
__global__ void sum_kernel(const float* x, float* total, int n) {
    __shared__ float partial[kBlock];
    float mine = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        mine += x[i];
    partial[threadIdx.x] = mine;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(total, partial[0]);
}

// Lesson 13: each block scans its own tile (Hillis-Steele) and writes its
// total; a second level scans the totals, and each block adds the totals
// of the blocks before it.
__global__ void scan_tiles_kernel(const int* in, int* out, int* tile_totals, int n) {
    __shared__ int tile[kBlock];
    const int i = blockIdx.x * kBlock + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < kBlock; offset *= 2) {
        const int before = threadIdx.x >= offset ? tile[threadIdx.x - offset] : 0;
        __syncthreads();
        tile[threadIdx.x] += before;
        __syncthreads();
    }
    if (i < n) out[i] = tile[threadIdx.x];
    if (threadIdx.x == kBlock - 1) tile_totals[blockIdx.x] = tile[threadIdx.x];
}

__global__ void add_tile_offsets_kernel(int* out, const int* scanned_totals, int n) {
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i < n && blockIdx.x > 0) out[i] += scanned_totals[blockIdx.x - 1];
}

// in and out may be the same array: each element is read and written by
// the same thread.
void hand_inclusive_scan(const int* in, int* out, int n) {
    const int tiles = (n + kBlock - 1) / kBlock;
    int* totals = nullptr;
    CUDA_CHECK(cudaMalloc(&totals, (size_t)tiles * sizeof(int)));
    scan_tiles_kernel<<<tiles, kBlock>>>(in, out, totals, n);
    CUDA_CHECK(cudaGetLastError());
    if (tiles > 1) {
        hand_inclusive_scan(totals, totals, tiles);
        add_tile_offsets_kernel<<<tiles, kBlock>>>(out, totals, n);
        CUDA_CHECK(cudaGetLastError());
    }
    CUDA_CHECK(cudaFree(totals));
}

// Lesson 14: each block counts into its own bins in shared memory, then
// adds them to the global bins, so few atomics reach global memory.
__global__ void histogram_kernel(const unsigned char* pixels, unsigned int* bins, int n) {
    __shared__ unsigned int block_bins[HISTOGRAM_BINS];
    for (int b = threadIdx.x; b < HISTOGRAM_BINS; b += blockDim.x) block_bins[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&block_bins[pixels[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < HISTOGRAM_BINS; b += blockDim.x) atomicAdd(&bins[b], block_bins[b]);
}

// ---- the same with a library ----

// CUB's block-wide reduction inside a kernel of our own: the tree, the
// shared memory and the barriers of sum_kernel in two lines.
// [snippet: block-reduce]
__global__ void sum_block_reduce_kernel(const float* x, float* total, int n) {
    using BlockSum = cub::BlockReduce<float, kBlock>;
    __shared__ typename BlockSum::TempStorage scratch;
    float mine = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        mine += x[i];
    const float block_total = BlockSum(scratch).Sum(mine);  // valid in thread 0 only
    if (threadIdx.x == 0) atomicAdd(total, block_total);
}
// [end snippet]

// Functors: Thrust and CUB call them on the device, so operator() is
// __host__ __device__.
struct Square {
    __host__ __device__ float operator()(float v) const { return v * v; }
};

// The four ways to sum x, all on the same device_vector.
enum class SumWay { hand_kernel, thrust_reduce, cub_device_reduce, cub_block_reduce };

// [snippet: sums]
float sum_on_gpu(const thrust::device_vector<float>& x, SumWay way) {
    const int n = (int)x.size();
    const float* raw = thrust::raw_pointer_cast(x.data());  // a plain device pointer
    if (way == SumWay::thrust_reduce)
        return thrust::reduce(x.begin(), x.end(), 0.0f, thrust::plus<float>());

    thrust::device_vector<float> total(1, 0.0f);
    float* raw_total = thrust::raw_pointer_cast(total.data());
    if (way == SumWay::cub_device_reduce) {
        // CUB's two calls: the first only says how much scratch memory it needs.
        void* scratch = nullptr;
        size_t scratch_bytes = 0;
        CUDA_CHECK(cub::DeviceReduce::Sum(scratch, scratch_bytes, raw, raw_total, n));
        CUDA_CHECK(cudaMalloc(&scratch, scratch_bytes));
        CUDA_CHECK(cub::DeviceReduce::Sum(scratch, scratch_bytes, raw, raw_total, n));
        CUDA_CHECK(cudaFree(scratch));
    } else if (way == SumWay::cub_block_reduce) {
        sum_block_reduce_kernel<<<blocks_for(n), kBlock>>>(raw, raw_total, n);
        CUDA_CHECK(cudaGetLastError());
    } else {
        sum_kernel<<<blocks_for(n), kBlock>>>(raw, raw_total, n);
        CUDA_CHECK(cudaGetLastError());
    }
    return total[0];  // one element copied back; waits for the work
}
// [end snippet]

// The launcher the test calls: the four sums of h_x, in SumWay's order.
void sums_on_gpu(const float* h_x, int n, float* sums) {
    const thrust::device_vector<float> x(h_x, h_x + n);
    const SumWay ways[] = {SumWay::hand_kernel, SumWay::thrust_reduce, SumWay::cub_device_reduce,
                           SumWay::cub_block_reduce};
    for (int w = 0; w < 4; ++w) sums[w] = sum_on_gpu(x, ways[w]);
}

// Sum of squares two ways: a temporary array of squares, then a sum (the
// squares are written and read again), or one fused call that squares each
// element as it reads it. The initial value's type is the type Thrust adds
// in: 0.0 adds in double (a million positive floats added in float drift).
// [snippet: fusion]
double sum_of_squares_two_passes(const thrust::device_vector<float>& x) {
    thrust::device_vector<float> squares(x.size());
    thrust::transform(x.begin(), x.end(), squares.begin(), Square());
    return thrust::reduce(squares.begin(), squares.end(), 0.0, thrust::plus<double>());
}

double sum_of_squares_fused(const thrust::device_vector<float>& x) {
    return thrust::transform_reduce(x.begin(), x.end(), Square(), 0.0, thrust::plus<double>());
}

// The same single pass through a fancy iterator: reading element i of
// `squares` reads x[i] and squares it; no array of squares exists.
double sum_of_squares_iterator(const thrust::device_vector<float>& x) {
    const auto squares = thrust::make_transform_iterator(x.begin(), Square());
    return thrust::reduce(squares, squares + x.size(), 0.0, thrust::plus<double>());
}
// [end snippet]

// [snippet: scan-histogram]
void inclusive_scan_on_gpu(const thrust::device_vector<int>& in, thrust::device_vector<int>& out) {
    thrust::inclusive_scan(in.begin(), in.end(), out.begin());
}

// 256 bins of width 1 over the grey levels 0..255: 257 level boundaries.
void histogram_on_gpu(const thrust::device_vector<unsigned char>& pixels,
                      thrust::device_vector<unsigned int>& bins) {
    const unsigned char* raw_pixels = thrust::raw_pointer_cast(pixels.data());
    unsigned int* raw_bins = thrust::raw_pointer_cast(bins.data());
    const int n = (int)pixels.size();
    void* scratch = nullptr;
    size_t scratch_bytes = 0;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(scratch, scratch_bytes, raw_pixels, raw_bins,
                                                   HISTOGRAM_BINS + 1, 0, HISTOGRAM_BINS, n));
    CUDA_CHECK(cudaMalloc(&scratch, scratch_bytes));
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(scratch, scratch_bytes, raw_pixels, raw_bins,
                                                   HISTOGRAM_BINS + 1, 0, HISTOGRAM_BINS, n));
    CUDA_CHECK(cudaFree(scratch));
}
// [end snippet]

// ---- the pipeline: the top k scores of a batch ----

// A candidate's score from its logit: the formula of top_k_score.
struct Score {
    __host__ __device__ float operator()(float logit) const { return 1.0f / (1.0f + expf(-logit)); }
};

struct AboveCut {
    float cut;
    __host__ __device__ bool operator()(float logit) const { return logit > cut; }
};

// The launcher the test calls. Writes the k highest scores, in falling
// order, and the candidates they belong to; then the candidates whose logit
// is above `cut`, in rising order, into above_ids (room for n), and returns
// how many there are.
// [snippet: top-k]
int top_k_on_gpu(const float* h_logits, int n, int k, float cut, int* h_top_ids,
                 float* h_top_scores, int* h_above_ids) {
    thrust::device_vector<float> logits(h_logits, h_logits + n);  // copied to the device
    thrust::device_vector<float> scores(n);
    thrust::device_vector<int> ids(n);

    // TODO(22.1): fill `scores` with each logit's score: one Thrust call
    // that applies the functor Score to every logit. As it is, every score
    // stays 0.
    thrust::sequence(ids.begin(), ids.end());  // 0, 1, 2, ... n-1
    // TODO(22.2): sort the scores, highest first, and move each id with its
    // score (one call: the scores are the keys, the ids the values, and
    // thrust::greater<float>() the order).
    // TODO(22.3): copy the first k scores and the first k ids to
    // h_top_scores and h_top_ids (thrust::copy_n copies from the device to a
    // host pointer). As it is, the host never sees them.

    // The ids above the cut: a counting iterator stands for 0, 1, 2, ...
    // without an array; copy_if keeps the ones whose logit passes.
    thrust::device_vector<int> above(n);
    const thrust::counting_iterator<int> first(0);
    auto end = thrust::copy_if(first, first + n, logits.begin(), above.begin(), AboveCut{cut});
    const int count = (int)(end - above.begin());
    thrust::copy_n(above.begin(), count, h_above_ids);
    return count;
}
// [end snippet]

// ---- main: check each call, count the bytes a fused call saves, run the pipeline ----
#ifndef TUTORIAL_TEST_BUILD

static const char* kTimeLabel =
#ifdef CUEMU
    "CPU time on the emulator, where Thrust and CUB run on one thread: not a GPU's";
#else
    "wall-clock time on the host, the GPU's work included";
#endif

static bool report(const char* what, bool ok) {
    std::printf("  %-40s %s\n", what, ok ? "PASS" : "FAIL");
    return ok;
}

// Median of five runs of `work`, which must wait for the device itself.
template <typename Work>
static double median_ms(Work work) {
    std::vector<double> ms;
    work();  // a warm-up: first-call costs (allocations, loading code) left out
    for (int r = 0; r < 5; ++r) {
        const double start = wall_time_ms();
        work();
        CUDA_CHECK(cudaDeviceSynchronize());
        ms.push_back(wall_time_ms() - start);
    }
    std::sort(ms.begin(), ms.end());
    return ms[2];
}

static void bench(const thrust::device_vector<float>& x, const thrust::device_vector<int>& counts,
                  const thrust::device_vector<unsigned char>& pixels) {
    const int n = (int)x.size();
    thrust::device_vector<int> scanned(n);
    thrust::device_vector<unsigned int> bins(HISTOGRAM_BINS);
    thrust::device_vector<float> keys(n);
    thrust::device_vector<int> values(n);
    struct Row {
        const char* task;
        const char* way;
        double ms;
    };
    const Row rows[] = {
        {"sum", "hand-written kernel (lesson 12)", median_ms([&] { sum_on_gpu(x, SumWay::hand_kernel); })},
        {"", "thrust::reduce", median_ms([&] { sum_on_gpu(x, SumWay::thrust_reduce); })},
        {"", "cub::DeviceReduce::Sum", median_ms([&] { sum_on_gpu(x, SumWay::cub_device_reduce); })},
        {"", "kernel with cub::BlockReduce", median_ms([&] { sum_on_gpu(x, SumWay::cub_block_reduce); })},
        {"sum of squares", "thrust::transform, then reduce", median_ms([&] { sum_of_squares_two_passes(x); })},
        {"", "thrust::transform_reduce (fused)", median_ms([&] { sum_of_squares_fused(x); })},
        {"scan", "hand-written kernels (lesson 13)",
         median_ms([&] {
             hand_inclusive_scan(thrust::raw_pointer_cast(counts.data()),
                                 thrust::raw_pointer_cast(scanned.data()), n);
         })},
        {"", "thrust::inclusive_scan", median_ms([&] { inclusive_scan_on_gpu(counts, scanned); })},
        {"histogram", "hand-written kernel (lesson 14)",
         median_ms([&] {
             thrust::fill(bins.begin(), bins.end(), 0u);
             histogram_kernel<<<blocks_for(n), kBlock>>>(thrust::raw_pointer_cast(pixels.data()),
                                                         thrust::raw_pointer_cast(bins.data()), n);
             CUDA_CHECK(cudaGetLastError());
         })},
        {"", "cub::DeviceHistogram::HistogramEven", median_ms([&] { histogram_on_gpu(pixels, bins); })},
        {"sort", "thrust::sort_by_key (no lesson 12-14 kernel)",
         median_ms([&] {
             thrust::copy(x.begin(), x.end(), keys.begin());
             thrust::sequence(values.begin(), values.end());
             thrust::sort_by_key(keys.begin(), keys.end(), values.begin());
         })},
    };
    std::printf("\ntime per call, %d elements, median of 5 (%s)\n", n, kTimeLabel);
    for (const Row& r : rows) std::printf("  %-15s %-45s %9.3f ms\n", r.task, r.way, r.ms);
}

int main(int argc, char** argv) {
    long long n = 1 << 20, k = 5, seed = 1, bench_flag = 0;
    cli_option options[] = {
        {"--n", "elements of each array (and candidates of the batch)", CLI_INT, &n, 1, 1 << 26},
        {"--k", "how many of the top scores to keep", CLI_INT, &k, 1, 1000},
        {"--seed", "seed of the inputs", CLI_INT, &seed, 0, 1000000000},
        {"--bench", "time each library call against the hand-written kernel", CLI_FLAG, &bench_flag, 0, 1},
    };
    cli_parse(argc, argv,
              "Reductions, a scan, a histogram and a sort with Thrust and CUB, checked\n"
              "against the CPU; then the top k scores of a batch.",
              options, 4);
    if (k > n) k = n;
    // Host: the inputs, their copies back and the references (about 40 bytes
    // an element); device: the inputs and the pipeline's arrays (about 30),
    // and --bench's outputs and temporaries (about 20 more).
    run_limits_require_memory(40.0 * n, (bench_flag ? 50.0 : 30.0) * n);
    const int count = (int)n;

    std::vector<float> h_x((size_t)count);
    fill_random(h_x.data(), h_x.size(), (uint64_t)seed, -1.0f, 1.0f);
    const thrust::device_vector<float> x(h_x.begin(), h_x.end());
    bool passed = true;

    std::printf("1. the sum of %d floats, four ways (the CPU's sum in double: %.4f)\n", count,
                cpu_sum_exact(h_x.data(), count));
    // Float sums in another order differ in the last bits: a tolerance that
    // grows with the sum of the magnitudes.
    const double exact = cpu_sum_exact(h_x.data(), count);
    const double tolerance = 1e-5 * cpu_sum_abs(h_x.data(), count) + 1e-6;
    const struct {
        SumWay way;
        const char* name;
    } ways[] = {{SumWay::hand_kernel, "hand-written kernel (lesson 12)"},
                {SumWay::thrust_reduce, "thrust::reduce"},
                {SumWay::cub_device_reduce, "cub::DeviceReduce::Sum"},
                {SumWay::cub_block_reduce, "kernel with cub::BlockReduce"}};
    for (const auto& w : ways) {
        const float sum = sum_on_gpu(x, w.way);
        const bool ok = report(w.name, std::fabs(sum - exact) <= tolerance);
        if (!ok) std::printf("    got %.4f\n", sum);
        passed &= ok;
    }

    std::printf("\n2. the sum of squares: two passes, fused, through an iterator\n");
    double exact_squares = 0.0;
    for (float v : h_x) exact_squares += (double)v * v;
    const double squares_tolerance = 1e-6 * exact_squares;
    passed &= report("thrust::transform, then thrust::reduce",
                     std::fabs(sum_of_squares_two_passes(x) - exact_squares) <= squares_tolerance);
    passed &= report("thrust::transform_reduce",
                     std::fabs(sum_of_squares_fused(x) - exact_squares) <= squares_tolerance);
    passed &= report("thrust::reduce over a transform_iterator",
                     std::fabs(sum_of_squares_iterator(x) - exact_squares) <= squares_tolerance);
    const double mb = count * sizeof(float) / 1e6;
    std::printf("  memory traffic, counted: two passes read x, write the squares and read them\n"
                "  again (%.1f MB); the other two read x once (%.1f MB)\n", 3 * mb, mb);

    std::printf("\n3. an inclusive scan and a histogram\n");
    std::vector<int> h_counts((size_t)count), ref_scan((size_t)count), h_scan((size_t)count);
    for (int i = 0; i < count; ++i) h_counts[(size_t)i] = (int)(h_x[(size_t)i] * 4.0f + 4.0f);  // 0..8
    cpu_inclusive_scan_ints(h_counts.data(), ref_scan.data(), count);
    const thrust::device_vector<int> counts(h_counts.begin(), h_counts.end());
    thrust::device_vector<int> scanned(count, -1);
    inclusive_scan_on_gpu(counts, scanned);
    thrust::copy(scanned.begin(), scanned.end(), h_scan.begin());
    passed &= report("thrust::inclusive_scan", h_scan == ref_scan);

    std::vector<unsigned char> h_pixels((size_t)count);
    fill_grey_image(h_pixels.data(), h_pixels.size(), (uint64_t)seed, 0);
    const thrust::device_vector<unsigned char> pixels(h_pixels.begin(), h_pixels.end());
    thrust::device_vector<unsigned int> bins(HISTOGRAM_BINS, 0u);
    histogram_on_gpu(pixels, bins);
    std::vector<unsigned int> h_bins(HISTOGRAM_BINS), ref_bins(HISTOGRAM_BINS);
    thrust::copy(bins.begin(), bins.end(), h_bins.begin());
    cpu_histogram(h_pixels.data(), h_pixels.size(), ref_bins.data());
    passed &= report("cub::DeviceHistogram::HistogramEven",
                     compare_histograms("bins", h_bins.data(), ref_bins.data()) == 0);

    const int top = (int)k;
    const float cut = 3.9f;  // logits lie in -4..4: about one in eighty passes
    std::printf("\n4. the top %d scores of a batch of %d candidates, and the logits above %.1f\n", top,
                count, cut);
    std::vector<float> logits((size_t)count);
    fill_random(logits.data(), logits.size(), (uint64_t)seed + 1, -4.0f, 4.0f);
    std::vector<int> top_ids((size_t)top, -1), above_ids((size_t)count, -1);
    std::vector<float> top_scores((size_t)top);
    fill_poison(top_scores.data(), top_scores.size());
    const int above = top_k_on_gpu(logits.data(), count, top, cut, top_ids.data(), top_scores.data(),
                                   above_ids.data());
    std::vector<int> ref_ids((size_t)top), ref_above((size_t)count);
    std::vector<float> ref_scores((size_t)top);
    cpu_top_k(logits.data(), count, top, ref_ids.data(), ref_scores.data());
    const int ref_count = cpu_ids_above(logits.data(), count, cut, ref_above.data());
    for (int i = 0; i < std::min(top, 10); ++i)
        std::printf("  #%-2d candidate %8d  score %.6f\n", i + 1, top_ids[(size_t)i], top_scores[(size_t)i]);
    // The scores' exp is the device's on a GPU: a few units in the last place.
    passed &= report("top scores", compare_floats("top scores", top_scores.data(), ref_scores.data(),
                                                  (size_t)top, 1e-6, 1e-6, 5) == 0);
    bool ids_ok = true;
    for (int i = 0; i < top; ++i)
        ids_ok = ids_ok && top_ids[(size_t)i] >= 0 && top_ids[(size_t)i] < count &&
                 std::fabs(top_k_score(logits[(size_t)top_ids[(size_t)i]]) - top_scores[(size_t)i]) <= 1e-6;
    passed &= report("each id is the candidate of its score", ids_ok);
    std::printf("  %d candidates above the cut (the CPU: %d)\n", above, ref_count);
    passed &= report("ids above the cut",
                     above == ref_count && std::equal(ref_above.begin(), ref_above.begin() + ref_count,
                                                      above_ids.begin()));

    if (bench_flag) bench(x, counts, pixels);
    std::printf("\n%s\n", passed ? "PASS" : "FAIL");
    return passed ? 0 : 1;
}
#endif  // TUTORIAL_TEST_BUILD
