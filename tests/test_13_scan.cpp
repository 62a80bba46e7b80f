// test_13_scan.cpp - lesson 13: prefix sums (scan) and stream compaction.
//
// Built twice, against lessons/13-scan/scan.cu (the exercise, which must fail
// here as shipped) and solutions/13-scan/scan.cu (which must pass), for the
// emulator and for nvcc.
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference_scan.h"

#include <cmath>
#include <vector>

// The launchers from the lesson file (the same declarations as there).
void inclusive_scan_hillis_steele_one_block_on_gpu(const int* h_in, int* h_out, int n,
                                                   int block_size);
void exclusive_scan_blelloch_one_block_on_gpu(const int* h_in, int* h_out, int n, int block_size);
void exclusive_scan_on_gpu(const int* h_in, int* h_out, int n, int block_size);
void exclusive_scan_on_gpu(const float* h_in, float* h_out, int n, int block_size);
int compact_positive_on_gpu(const float* h_x, float* h_values, int* h_indices, int n,
                            int block_size);

// Random whole numbers 0 to 9 (counts, flags: data where the answer is exact).
static std::vector<int> random_counts(int n) {
    std::vector<float> u = random_floats((size_t)n, 0.0f, 10.0f);
    return std::vector<int>(u.begin(), u.end());  // truncates to 0..9
}

// -1 everywhere: a place the code forgets to write fails the comparison.
static std::vector<int> poisoned_ints(int n) { return std::vector<int>((size_t)n, -1); }

// Whole numbers are compared exactly. They are compared as floats so that
// compare.h's report applies (first mismatches, and a hint when the answer is
// shifted by one place, the inclusive/exclusive mix-up): every value in this
// test is below 2^24, where a float holds each whole number exactly, so a
// tolerance of 0 is an exact comparison.
static std::vector<float> as_floats(const std::vector<int>& v, int n) {
    return std::vector<float>(v.begin(), v.begin() + n);
}
#define REQUIRE_INTS_EQUAL(got_name, got, ref, n)                                  \
    do {                                                                           \
        std::vector<float> got_f_ = as_floats((got), (n)), ref_f_ = as_floats((ref), (n)); \
        REQUIRE_ALL_CLOSE((got_name), got_f_.data(), ref_f_.data(), (size_t)(n), 0.0, 0.0); \
    } while (0)

// One scan of whole numbers per (n, block) case, compared exactly with the
// CPU's loop; the first failing case ends the test case.
struct ScanCase {
    int n, block;
};
template <size_t kCount, class GpuScan, class CpuScan>
static void check_int_scans(const ScanCase (&cases)[kCount], GpuScan gpu_scan, CpuScan cpu_scan,
                            const char* got_name) {
    for (const ScanCase& c : cases) {
        CAPTURE(c.n);
        CAPTURE(c.block);
        auto in = random_counts(c.n);
        auto ref = poisoned_ints(c.n), got = poisoned_ints(c.n);
        cpu_scan(in.data(), ref.data(), c.n);
        gpu_scan(in.data(), got.data(), c.n, c.block);
        REQUIRE_INTS_EQUAL(got_name, got, ref, c.n);
    }
}

TEST_CASE("Hillis-Steele: the inclusive scan of one block matches the CPU") {
    // (n, block): a single element; a full block of 1024; 1000 and 1023 in a
    // 1024-thread block (threads past the end); a block of 7 (not a power of
    // two: Hillis-Steele does not need one).
    const ScanCase kCases[] = {{1, 1}, {1, 256}, {1000, 1024}, {1023, 1024}, {1024, 1024}, {7, 7}, {5, 7}};
    check_int_scans(kCases, inclusive_scan_hillis_steele_one_block_on_gpu, cpu_inclusive_scan_ints,
                    "your inclusive scan");
}

TEST_CASE("Blelloch: the exclusive scan of one block matches the CPU") {
    // (n, block): the block holds 2 * block elements; a full block and one
    // element short for several powers of two; 1, 1000, 1023 and 2048 in the
    // largest block.
    const ScanCase kCases[] = {{1, 1},       {2, 1},       {1, 1024}, {1000, 1024}, {1023, 1024},
                               {2048, 1024}, {2047, 1024}, {64, 32},  {63, 32},     {3, 2}};
    check_int_scans(kCases, exclusive_scan_blelloch_one_block_on_gpu, cpu_exclusive_scan_ints,
                    "your exclusive scan");
}

TEST_CASE("the multi-block exclusive scan of whole numbers matches the CPU exactly") {
    // (n, block): one block's span (512 for 256 threads) and one past it;
    // 1000 and 1023; 100003 needs 196 blocks of 512 and a second pass; with
    // 8 threads (16 elements per block) 100003 takes four levels of block
    // totals (6251 -> 391 -> 25 -> 2), so the offsets of every level count.
    const ScanCase kCases[] = {{1, 256},    {512, 256},    {513, 256}, {1000, 256},
                               {1023, 256}, {100003, 256}, {100003, 8}, {5000, 1024}};
    // The int overload of the launcher (it also has one for float).
    void (*int_scan)(const int*, int*, int, int) = exclusive_scan_on_gpu;
    check_int_scans(kCases, int_scan, cpu_exclusive_scan_ints, "your exclusive scan");
}

TEST_CASE("the multi-block exclusive scan of floats matches the CPU within rounding") {
    // Tolerance. The device adds floats along a tree of depth ceil(log2 n)
    // and rounds at every level; the reference adds in double. Each rounding
    // is at most 2^-24 of a partial sum, and with values in [-1, 1] no
    // partial sum exceeds n, so no prefix is off by more than
    // depth * 2^-24 * n: 6e-4 for 1000 elements, 0.1 for 100003 (measured on
    // the emulator: 3e-5 at 100003). A missed or shifted element is off by its own
    // size, uniform in [-1, 1], far above that for almost every element.
    for (int n : {1, 1000, 1023, 100003}) {
        CAPTURE(n);
        auto in = random_floats((size_t)n);
        auto ref = poisoned_floats((size_t)n), got = poisoned_floats((size_t)n);
        cpu_exclusive_scan_floats(in.data(), ref.data(), n);
        exclusive_scan_on_gpu(in.data(), got.data(), n, 256);
        const double depth = std::ceil(std::log2(n > 1 ? (double)n : 2.0));
        const double atol = depth * std::ldexp(1.0, -24) * n;
        REQUIRE_ALL_CLOSE("your exclusive scan", got.data(), ref.data(), (size_t)n, atol, 0.0);
    }
}

TEST_CASE("stream compaction keeps the positive activations, in order, with their indices") {
    // Values are moved, never summed: they must match exactly.
    struct Case {
        int n, block;
        float lo, hi;  // the range of x
    };
    // Random signs at sizes off the block multiple; all negative (nothing
    // kept); all positive (everything kept, the count is n); one element.
    const Case kCases[] = {{1000, 256, -1.0f, 1.0f},  {1023, 256, -1.0f, 1.0f},
                           {100003, 256, -1.0f, 1.0f}, {4097, 64, -1.0f, 1.0f},
                           {1, 256, 0.5f, 1.0f},      {1, 256, -1.0f, -0.5f},
                           {3000, 128, -1.0f, -0.01f}, {3000, 128, 0.01f, 1.0f}};
    for (const Case& c : kCases) {
        CAPTURE(c.n);
        CAPTURE(c.block);
        CAPTURE(c.lo);
        CAPTURE(c.hi);
        auto x = random_floats((size_t)c.n, c.lo, c.hi);
        auto ref_values = poisoned_floats((size_t)c.n), got_values = poisoned_floats((size_t)c.n);
        auto ref_indices = poisoned_ints(c.n), got_indices = poisoned_ints(c.n);
        const int ref_kept = cpu_compact_positive(x.data(), ref_values.data(), ref_indices.data(), c.n);
        const int kept = compact_positive_on_gpu(x.data(), got_values.data(), got_indices.data(), c.n,
                                                 c.block);
        REQUIRE_ALL_CLOSE("your compacted values", got_values.data(), ref_values.data(),
                          (size_t)ref_kept, 0.0, 0.0);
        REQUIRE_INTS_EQUAL("your compacted indices", got_indices, ref_indices, ref_kept);
        REQUIRE(kept == ref_kept);  // the length of the compacted vector
    }
}
