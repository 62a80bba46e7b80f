// Lesson 13: scan (prefix sums) - and what it is for: stream compaction.
//
// A scan turns a list into its running totals. The inclusive scan of
// 3 1 4 1 5 is 3 4 8 9 14 (element i counts itself); the exclusive scan is
// 0 3 4 8 9 (everything before i). It looks sequential - each total needs the
// one before - yet it runs in parallel in about log2(n) steps. Inside one block:
// Hillis-Steele (simple, about n log2 n additions) and Blelloch's
// work-efficient up-sweep/down-sweep (about 2n additions). Across blocks:
// scan each block, scan the blocks' totals, add them back. Then the use:
// stream compaction, keeping only the positive activations after a ReLU. The
// exclusive scan of the keep-flags gives each kept element its place in the
// output.
//
// Build and run:   ./tutorial run 13 [--n 100003] [--block 256] [--bench]
//                  ./tutorial check 13              (the exercise's test)
//                  ./tutorial solution 13           (the finished version)
// It checks the one-block scans, the multi-block scan (of whole numbers,
// exactly, and of floats, within a stated tolerance) and the compaction
// against the CPU (PASS or FAIL); --bench adds a timing table.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference_scan.h"
#include "timer.h"

#include <cmath>
#include <cstdio>
#include <vector>

// The largest block; the shared arrays are sized for it.
constexpr int kMaxBlock = 1024;

// ---- one block: Hillis-Steele, inclusive ----

// Each block scans its own blockDim.x elements (one per thread), inclusive.
// Step k adds to each element the one 2^k places to its left: after the step
// with offset d, tile[t] holds the sum of the 2d elements ending at t. All
// threads update at once, in place, so each step needs two barriers: every
// thread reads its left neighbour's value before any thread overwrites it,
// and every write lands before the next step reads. (Two arrays that swap
// roles each step, "double buffering", would replace the first barrier.)
// [snippet: hillis-steele]
template <typename T>
__global__ void hillis_steele_scan_kernel(const T* in, T* out, int n) {
    __shared__ T tile[kMaxBlock];
    const int t = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + t;
    tile[t] = i < n ? in[i] : T(0);  // past the end: 0 adds nothing
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        T from_left = t >= offset ? tile[t - offset] : T(0);
        __syncthreads();  // every read of this step before any write
        tile[t] += from_left;
        __syncthreads();  // every write of this step before the next reads
    }
    if (i < n) out[i] = tile[t];
}
// [end snippet]

// ---- one block: Blelloch, exclusive, work-efficient ----

// Each block scans its own 2 * blockDim.x elements (two per thread),
// exclusive. blockDim.x must be a power of two. The tile is a balanced binary
// tree over the elements, summed bottom-up, then walked top-down:
//   up-sweep    after the step with stride s, tile[i] for i = 2s-1, 4s-1, ...
//               holds the sum of the 2s elements ending at i; the last
//               element ends up holding the block's total;
//   down-sweep  the total is replaced by 0 (nothing comes before the block),
//               and each node hands its prefix to its left child and its
//               prefix plus the left child's sum to its right child.
// Each level does half the work of the one below: n-1 additions up, n-1 down.
// If block_sums is not null, the block's total goes there (for the
// multi-block scan). in and out may be the same array: a block reads all of
// its elements before it writes any, and touches no other block's.
// [snippet: blelloch]
template <typename T>
__global__ void blelloch_scan_kernel(const T* in, T* out, T* block_sums, int n) {
    __shared__ T tile[2 * kMaxBlock];
    const int t = threadIdx.x;
    const int span = 2 * blockDim.x;  // elements per block
    const int base = blockIdx.x * span;
    // Thread t loads elements t and t + blockDim.x: neighbouring threads read
    // neighbouring addresses, which a GPU combines into few transactions.
    for (int k = t; k < span; k += blockDim.x) tile[k] = base + k < n ? in[base + k] : T(0);

    for (int stride = 1; stride < span; stride *= 2) {  // up-sweep
        __syncthreads();
        int i = (t + 1) * 2 * stride - 1;
        if (i < span) tile[i] += tile[i - stride];
    }
    if (t == 0) {  // thread 0 made the last up-sweep step itself: no barrier needed
        if (block_sums) block_sums[blockIdx.x] = tile[span - 1];
        tile[span - 1] = T(0);
    }
    for (int stride = span / 2; stride >= 1; stride /= 2) {  // down-sweep
        __syncthreads();
        int i = (t + 1) * 2 * stride - 1;
        if (i < span) {
            T left = tile[i - stride];
            tile[i - stride] = tile[i];
            tile[i] += left;
        }
    }
    __syncthreads();
    for (int k = t; k < span; k += blockDim.x)
        if (base + k < n) out[base + k] = tile[k];
}
// [end snippet]

// ---- many blocks: scan the blocks, scan their totals, add them back ----

// Pass 3: block b's elements get offsets[b], the sum of every element in
// blocks 0 to b-1 (the exclusive scan of the block totals). Same layout as
// blelloch_scan_kernel: 2 * blockDim.x elements per block.
// [snippet: add-offsets]
template <typename T>
__global__ void add_block_offsets_kernel(T* out, const T* offsets, int n) {
    const int span = 2 * blockDim.x;
    const T offset = offsets[blockIdx.x];
    for (int k = threadIdx.x; k < span; k += blockDim.x) {
        int i = blockIdx.x * span + k;
        if (i < n) out[i] += offset;
    }
}
// [end snippet]

static int blocks_for(int n, int per_block) { return (n + per_block - 1) / per_block; }

// How many block totals the multi-block scan stores, over all its levels.
static size_t scan_scratch_elements(int n, int block_size) {
    size_t total = 0;
    for (int blocks = blocks_for(n, 2 * block_size); blocks > 1;
         blocks = blocks_for(blocks, 2 * block_size))
        total += (size_t)blocks;
    return total;
}

// The exclusive scan of n elements on device pointers, any n >= 1.
// block_size: a power of two, 1 to 1024. d_scratch: room for
// scan_scratch_elements(n, block_size) elements. d_in may equal d_out.
// Pass 2 scans the block totals with this same function: with 256 threads
// (512 elements per block) one block scans them up to 512 blocks, that is
// 262144 elements; beyond, pass 2 has passes of its own.
// [snippet: multi-block]
template <typename T>
static void exclusive_scan_on_device(const T* d_in, T* d_out, int n, int block_size, T* d_scratch) {
    const int blocks = blocks_for(n, 2 * block_size);
    if (blocks == 1) {  // one block holds it all: no totals, no offsets
        blelloch_scan_kernel<<<1, block_size>>>(d_in, d_out, (T*)nullptr, n);
        CUDA_CHECK(cudaGetLastError());
        return;
    }
    T* d_block_sums = d_scratch;  // one total per block
    blelloch_scan_kernel<<<blocks, block_size>>>(d_in, d_out, d_block_sums, n);  // pass 1
    CUDA_CHECK(cudaGetLastError());
    exclusive_scan_on_device(d_block_sums, d_block_sums, blocks, block_size,  // pass 2
                             d_scratch + blocks);
    add_block_offsets_kernel<<<blocks, block_size>>>(d_out, d_block_sums, n);  // pass 3
    CUDA_CHECK(cudaGetLastError());
}
// [end snippet]

// ---- stream compaction: keep the positive activations ----

// keep[i] = 1 where ReLU(x[i]) = max(x[i], 0) is not zero, else 0.
__global__ void keep_positive_flags_kernel(const float* x, int* keep, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) keep[i] = x[i] > 0.0f ? 1 : 0;
}

// positions is the exclusive scan of keep: for a kept element, how many kept
// elements come before it, which is its place in the compacted output. No two
// kept elements share a place, so every thread writes without atomics.
// [snippet: scatter]
__global__ void scatter_kept_kernel(const float* x, const int* keep, const int* positions,
                                    float* values, int* indices, int* kept_count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (keep[i]) {
        values[positions[i]] = x[i];
        indices[positions[i]] = i;
    }
    // The exclusive scan's last element counts the kept elements before the
    // last one; the last adds itself.
    if (i == n - 1) *kept_count = positions[i] + keep[i];
}
// [end snippet]

// ---- device memory ----

template <typename T>
static T* device_array(size_t count) {
    T* d_p = nullptr;
    CUDA_CHECK(cudaMalloc(&d_p, (count > 0 ? count : 1) * sizeof(T)));
    return d_p;
}

template <typename T>
static void copy_to_device(T* d_dst, const T* h_src, size_t count) {
    CUDA_CHECK(cudaMemcpy(d_dst, h_src, count * sizeof(T), cudaMemcpyHostToDevice));
}

template <typename T>
static void copy_to_host(T* h_dst, const T* d_src, size_t count) {
    CUDA_CHECK(cudaMemcpy(h_dst, d_src, count * sizeof(T), cudaMemcpyDeviceToHost));
}

// Every buffer of a compaction of n elements.
struct CompactionBuffers {
    float* d_x = nullptr;
    int* d_keep = nullptr;
    int* d_positions = nullptr;
    int* d_scratch = nullptr;
    float* d_values = nullptr;
    int* d_indices = nullptr;
    int* d_count = nullptr;
};

static CompactionBuffers allocate_compaction(int n, int block_size) {
    CompactionBuffers buf;
    buf.d_x = device_array<float>((size_t)n);
    buf.d_keep = device_array<int>((size_t)n);
    buf.d_positions = device_array<int>((size_t)n);
    buf.d_scratch = device_array<int>(scan_scratch_elements(n, block_size));
    buf.d_values = device_array<float>((size_t)n);
    buf.d_indices = device_array<int>((size_t)n);
    buf.d_count = device_array<int>(1);
    // Fresh device memory holds leftovers, possibly an earlier run's right
    // answer. 0xFF bytes are NaN as floats and -1 as ints: an output nobody
    // writes cannot pass by luck.
    CUDA_CHECK(cudaMemset(buf.d_values, 0xFF, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMemset(buf.d_indices, 0xFF, (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMemset(buf.d_count, 0xFF, sizeof(int)));
    return buf;
}

static void free_compaction(CompactionBuffers& buf) {
    CUDA_CHECK(cudaFree(buf.d_x));
    CUDA_CHECK(cudaFree(buf.d_keep));
    CUDA_CHECK(cudaFree(buf.d_positions));
    CUDA_CHECK(cudaFree(buf.d_scratch));
    CUDA_CHECK(cudaFree(buf.d_values));
    CUDA_CHECK(cudaFree(buf.d_indices));
    CUDA_CHECK(cudaFree(buf.d_count));
    buf = CompactionBuffers{};
}

// flags -> exclusive scan -> scatter, on the buffers above (x already there).
// [snippet: compaction]
static void compact_positive_on_device(const CompactionBuffers& buf, int n, int block_size) {
    const int blocks = blocks_for(n, block_size);
    keep_positive_flags_kernel<<<blocks, block_size>>>(buf.d_x, buf.d_keep, n);
    CUDA_CHECK(cudaGetLastError());
    exclusive_scan_on_device(buf.d_keep, buf.d_positions, n, block_size, buf.d_scratch);
    scatter_kept_kernel<<<blocks, block_size>>>(buf.d_x, buf.d_keep, buf.d_positions, buf.d_values,
                                               buf.d_indices, buf.d_count, n);
    CUDA_CHECK(cudaGetLastError());
}
// [end snippet]

// ---- launchers: host arrays in, host arrays out ----

// Inclusive scan of n <= block_size ints in one block of block_size threads
// (1 to 1024).
void inclusive_scan_hillis_steele_one_block_on_gpu(const int* h_in, int* h_out, int n,
                                                   int block_size) {
    int* d_in = device_array<int>((size_t)n);
    int* d_out = device_array<int>((size_t)n);
    copy_to_device(d_in, h_in, (size_t)n);
    hillis_steele_scan_kernel<<<1, block_size>>>(d_in, d_out, n);
    CUDA_CHECK(cudaGetLastError());
    copy_to_host(h_out, d_out, (size_t)n);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
}

// Exclusive scan of n <= 2 * block_size ints in one block of block_size
// threads (a power of two, 1 to 1024).
void exclusive_scan_blelloch_one_block_on_gpu(const int* h_in, int* h_out, int n, int block_size) {
    int* d_in = device_array<int>((size_t)n);
    int* d_out = device_array<int>((size_t)n);
    copy_to_device(d_in, h_in, (size_t)n);
    blelloch_scan_kernel<<<1, block_size>>>(d_in, d_out, (int*)nullptr, n);
    CUDA_CHECK(cudaGetLastError());
    copy_to_host(h_out, d_out, (size_t)n);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
}

// Exclusive scan of any n >= 1 elements, as many blocks as it takes;
// block_size a power of two, 1 to 1024.
template <typename T>
static void exclusive_scan_from_host(const T* h_in, T* h_out, int n, int block_size) {
    T* d_data = device_array<T>((size_t)n);
    T* d_scratch = device_array<T>(scan_scratch_elements(n, block_size));
    copy_to_device(d_data, h_in, (size_t)n);
    exclusive_scan_on_device(d_data, d_data, n, block_size, d_scratch);  // in place
    copy_to_host(h_out, d_data, (size_t)n);
    CUDA_CHECK(cudaFree(d_data));
    CUDA_CHECK(cudaFree(d_scratch));
}

void exclusive_scan_on_gpu(const int* h_in, int* h_out, int n, int block_size) {
    exclusive_scan_from_host(h_in, h_out, n, block_size);
}

void exclusive_scan_on_gpu(const float* h_in, float* h_out, int n, int block_size) {
    exclusive_scan_from_host(h_in, h_out, n, block_size);
}

// The positive elements of x, in order, into values, and where each came from
// into indices (both with room for n; past the count they are left NaN and
// -1). Returns how many were kept. block_size a power of two, 1 to 1024.
int compact_positive_on_gpu(const float* h_x, float* h_values, int* h_indices, int n,
                            int block_size) {
    CompactionBuffers buf = allocate_compaction(n, block_size);
    copy_to_device(buf.d_x, h_x, (size_t)n);
    compact_positive_on_device(buf, n, block_size);
    int kept = 0;
    copy_to_host(&kept, buf.d_count, 1);
    copy_to_host(h_values, buf.d_values, (size_t)n);
    copy_to_host(h_indices, buf.d_indices, (size_t)n);
    free_compaction(buf);
    return kept;
}

// ---- main: each version against the CPU, then an optional timing table ----
#ifndef TUTORIAL_TEST_BUILD

// Whole numbers 0 to 9: "how many items each element has", say.
static std::vector<int> random_counts(int n, uint64_t seed) {
    std::vector<float> u((size_t)n);
    fill_random(u.data(), u.size(), seed, 0.0f, 10.0f);
    std::vector<int> counts((size_t)n);
    for (int i = 0; i < n; ++i) counts[(size_t)i] = (int)u[(size_t)i];
    return counts;
}

// Counts are compared as floats with no tolerance at all: every value here
// is a whole number below 2^24, which a float holds exactly, and compare.h's
// report (first mismatch, a hint when the answer is shifted) applies as is.
static bool same_ints(const char* label, const int* got, const int* ref, int n) {
    std::vector<float> got_f(got, got + n), ref_f(ref, ref + n);
    size_t bad = compare_floats(label, got_f.data(), ref_f.data(), (size_t)n, 0.0, 0.0, 5);
    std::printf("  %s: %s\n", label, bad == 0 ? "PASS" : "FAIL");
    return bad == 0;
}

static void print_row_of(const char* label, const int* v, int count) {
    std::printf("  %-10s", label);
    for (int i = 0; i < count; ++i) std::printf(" %3d", v[i]);
    std::printf("\n");
}

// Float prefix sums of n values in [-1, 1]. The device adds along a tree of
// depth ceil(log2 n) and rounds at every level; the reference adds in
// double. Each rounding is at most 2^-24 of a partial sum, and no partial sum
// exceeds n in size, so no prefix can be off by more than depth * 2^-24 * n:
// 1e-3 for 1000 elements, 0.1 for 100003. A scan that misses or shifts an
// element is off by that element's size, typically 0.5.
static double float_scan_tolerance(int n) {
    const double depth = std::ceil(std::log2((double)n > 1 ? (double)n : 2.0));
    return depth * std::ldexp(1.0, -24) * (double)n;
}

// Mean time of one call of work(), in milliseconds, from CUDA events around
// `reps` calls, after one untimed call that pays any one-time setup.
template <class Work>
static double mean_ms(int reps, Work work) {
    work();
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    for (int r = 0; r < reps; ++r) work();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float total_ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&total_ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return total_ms / reps;
}

static void print_timing(const char* label, double ms, int n) {
    std::printf("  %-44s %9.3f ms %9.1f million elements/s\n", label, ms, n / (ms * 1e3));
}

int main(int argc, char** argv) {
    long long n_flag = 100003, block_flag = 256, bench = 0;
    cli_option options[] = {
        {"--n", "number of elements", CLI_INT, &n_flag, 1, 100000000},
        {"--block", "threads per block, a power of two", CLI_INT, &block_flag, 1, kMaxBlock},
        {"--bench", "also time each version (data already on the device)", CLI_FLAG, &bench, 0, 1},
    };
    cli_parse(argc, argv,
              "Prefix sums on the GPU: Hillis-Steele and Blelloch in one block, a multi-block\n"
              "scan, and stream compaction of a ReLU's positive outputs, checked against the CPU.",
              options, 3);
    if (block_flag & (block_flag - 1)) {
        std::fprintf(stderr, "error: --block must be a power of two (1, 2, 4, ... 1024), got %lld\n",
                     block_flag);
        return 2;
    }
    const int n = (int)n_flag, block = (int)block_flag;

    // Sizes this machine cannot hold, or finish in a few minutes, are refused
    // up front (run_limits.h). The host holds about 12 arrays of n 4-byte
    // elements, the device at most 5 (the compaction's). Seconds per element,
    // measured for this program on a 2-core machine shared with other jobs
    // (emulator, whole run): 4 us, and 15 times that with --bench (each version
    // runs 6 times). The CPU reference alone: 10 ns.
    run_limits_require_memory(48.0 * n, 20.0 * n + 8.0 * (double)scan_scratch_elements(n, block));
    run_limits_check_duration((double)n, bench ? 15 * 4e-6 : 4e-6, bench ? 15 * 10e-9 : 10e-9,
                              "--n");

    cudaDeviceProp prop = {};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);
    bool all_passed = true;

    // 1. One block, both algorithms, on small whole numbers.
    const int hs_n = n < block ? n : block;
    const int bl_n = n < 2 * block ? n : 2 * block;
    std::vector<int> counts = random_counts(n, 1);
    std::vector<int> inclusive((size_t)bl_n), exclusive((size_t)bl_n);
    std::vector<int> ref_inclusive((size_t)bl_n), ref_exclusive((size_t)bl_n);
    cpu_inclusive_scan_ints(counts.data(), ref_inclusive.data(), bl_n);
    cpu_exclusive_scan_ints(counts.data(), ref_exclusive.data(), bl_n);
    std::printf("\none block: %d threads\n", block);
    std::printf("  Hillis-Steele, inclusive: %d elements, one per thread\n", hs_n);
    std::printf("  Blelloch, exclusive:      %d elements, two per thread\n", bl_n);
    inclusive_scan_hillis_steele_one_block_on_gpu(counts.data(), inclusive.data(), hs_n, block);
    exclusive_scan_blelloch_one_block_on_gpu(counts.data(), exclusive.data(), bl_n, block);
    const int shown = hs_n < 12 ? hs_n : 12;
    std::printf("  the first %d:\n", shown);
    print_row_of("counts", counts.data(), shown);
    print_row_of("inclusive", inclusive.data(), shown);
    print_row_of("exclusive", exclusive.data(), shown);
    all_passed &= same_ints("Hillis-Steele inclusive", inclusive.data(), ref_inclusive.data(), hs_n);
    all_passed &= same_ints("Blelloch exclusive", exclusive.data(), ref_exclusive.data(), bl_n);
    {
        // Additions each algorithm makes for one block's worth, from its loops.
        long long hs_adds = 0, bl_adds = 0;
        for (int offset = 1; offset < block; offset *= 2) hs_adds += block - offset;
        for (int stride = 1; stride < 2 * block; stride *= 2) bl_adds += 2 * (2 * block / (2 * stride));
        std::printf("  additions per element: Hillis-Steele %.2f (%d elements), Blelloch %.2f (%d elements)\n",
                    (double)hs_adds / block, block, (double)bl_adds / (2 * block), 2 * block);
    }

    // 2. The whole array: three passes.
    std::printf("\nthe whole array: %d elements, %d per block\n", n, 2 * block);
    {
        int level_n = n;
        int pass = 1;
        while (blocks_for(level_n, 2 * block) > 1) {
            int blocks = blocks_for(level_n, 2 * block);
            std::printf("  level %d: %d blocks scan %d elements and write %d totals\n", pass, blocks,
                        level_n, blocks);
            level_n = blocks;
            ++pass;
        }
        std::printf("  level %d: one block scans %d elements; then each level adds its offsets\n",
                    pass, level_n);
    }
    std::vector<int> scanned((size_t)n), ref_scanned((size_t)n);
    cpu_exclusive_scan_ints(counts.data(), ref_scanned.data(), n);
    exclusive_scan_on_gpu(counts.data(), scanned.data(), n, block);
    all_passed &= same_ints("exclusive scan of counts 0-9", scanned.data(), ref_scanned.data(), n);

    std::vector<float> x((size_t)n), x_scanned((size_t)n), ref_x_scanned((size_t)n);
    fill_random(x.data(), x.size(), 2, -1.0f, 1.0f);
    cpu_exclusive_scan_floats(x.data(), ref_x_scanned.data(), n);
    fill_poison(x_scanned.data(), x_scanned.size());
    exclusive_scan_on_gpu(x.data(), x_scanned.data(), n, block);
    const double atol = float_scan_tolerance(n);
    size_t bad = compare_floats("exclusive scan of floats", x_scanned.data(), ref_x_scanned.data(),
                                (size_t)n, atol, 0.0, 5);
    double largest = 0.0;
    for (int i = 0; i < n; ++i)
        largest = std::fmax(largest, std::fabs((double)x_scanned[(size_t)i] - ref_x_scanned[(size_t)i]));
    std::printf("  exclusive scan of floats in [-1, 1]: %s (largest difference %.2g, allowed %.2g)\n",
                bad == 0 ? "PASS" : "FAIL", largest, atol);
    all_passed &= bad == 0;

    // 3. Stream compaction of the same x, seen as pre-activations.
    std::printf("\nstream compaction: the positive outputs of ReLU(x), x in [-1, 1]\n");
    std::printf("  keep = (x > 0), positions = exclusive scan of keep, each kept x to its position\n");
    std::vector<float> values((size_t)n), ref_values((size_t)n);
    std::vector<int> indices((size_t)n), ref_indices((size_t)n);
    const int ref_kept = cpu_compact_positive(x.data(), ref_values.data(), ref_indices.data(), n);
    const int kept = compact_positive_on_gpu(x.data(), values.data(), indices.data(), n, block);
    std::printf("  kept %d of %d (%.1f%%), CPU reference %d: %s\n", kept, n, 100.0 * kept / n,
                ref_kept, kept == ref_kept ? "PASS" : "FAIL");
    all_passed &= kept == ref_kept;
    std::printf("  the compacted vector, %d values and their indices, against the CPU:\n", ref_kept);
    size_t bad_values = compare_floats("values", values.data(), ref_values.data(), (size_t)ref_kept,
                                       0.0, 0.0, 5);
    std::printf("  values: %s\n", bad_values == 0 ? "PASS" : "FAIL");
    all_passed &= bad_values == 0;
    all_passed &= same_ints("indices", indices.data(), ref_indices.data(), ref_kept);

    // 4. Timing, when asked.
    if (bench) {
        const int reps = 5;
        std::printf("\ntiming on %s, n = %d, %d threads per block,\n", prop.name, n, block);
        std::printf("mean of %d runs after a warm-up, data already on the device\n", reps);
        double t0 = wall_time_ms();
        for (int r = 0; r < reps; ++r) cpu_exclusive_scan_ints(counts.data(), ref_scanned.data(), n);
        print_timing("CPU exclusive scan (reference), ints", (wall_time_ms() - t0) / reps, n);

        int* d_counts = device_array<int>((size_t)n);
        int* d_out = device_array<int>((size_t)n);
        int* d_scratch = device_array<int>(scan_scratch_elements(n, block));
        float* d_x = device_array<float>((size_t)n);
        float* d_x_out = device_array<float>((size_t)n);
        float* d_x_scratch = device_array<float>(scan_scratch_elements(n, block));
        copy_to_device(d_counts, counts.data(), (size_t)n);
        copy_to_device(d_x, x.data(), (size_t)n);
        print_timing("Hillis-Steele, each block on its own, ints", mean_ms(reps, [&] {
                         hillis_steele_scan_kernel<<<blocks_for(n, block), block>>>(d_counts, d_out, n);
                         CUDA_CHECK(cudaGetLastError());
                     }), n);
        print_timing("Blelloch, each block on its own, ints", mean_ms(reps, [&] {
                         blelloch_scan_kernel<<<blocks_for(n, 2 * block), block>>>(d_counts, d_out,
                                                                                  (int*)nullptr, n);
                         CUDA_CHECK(cudaGetLastError());
                     }), n);
        print_timing("whole array, three passes, ints", mean_ms(reps, [&] {
                         exclusive_scan_on_device(d_counts, d_out, n, block, d_scratch);
                     }), n);
        print_timing("whole array, three passes, floats", mean_ms(reps, [&] {
                         exclusive_scan_on_device(d_x, d_x_out, n, block, d_x_scratch);
                     }), n);
        for (void* d_p : {(void*)d_counts, (void*)d_out, (void*)d_scratch, (void*)d_x,
                          (void*)d_x_out, (void*)d_x_scratch})
            CUDA_CHECK(cudaFree(d_p));

        CompactionBuffers buf = allocate_compaction(n, block);
        copy_to_device(buf.d_x, x.data(), (size_t)n);
        print_timing("compaction: flags, scan, scatter", mean_ms(reps, [&] {
                         compact_positive_on_device(buf, n, block);
                     }), n);
        free_compaction(buf);
        std::printf("  \"each block on its own\": one kernel, every block scans its own part\n"
                    "  and nothing more (not a scan of the whole array): the two algorithms\n"
                    "  side by side on the same elements.\n");
    }

    std::printf("\n%s\n", all_passed ? "PASS" : "FAIL");
    return all_passed ? 0 : 1;
}
#endif
