// test_support.h - what every lesson test shares.
//
// - test_seed(): fresh random inputs each run, printed at start-up so a failing
//   run can be repeated exactly with TUTORIAL_SEED=<seed>.
// - random_floats(n): a vector of uniform floats from that seed.
// - poisoned_floats(n): a vector of NaN, for outputs (an element the code
//   forgets to write then fails the comparison).
// - REQUIRE_ALL_CLOSE("your c", got, ref, n, atol, rtol): |got - ref| <= atol +
//   rtol*|ref| for every element, or the test case stops with a report a
//   student can read: a summary first, at most eight mismatches, a hint for the
//   common shapes of failure (see compare.h). The seed that repeats the inputs
//   is printed once, first (test_main.cpp).
// - REQUIRE_MATRIX_CLOSE("your C", got, ref, rows, cols, atol, rtol): the same
//   for a row-major matrix, mismatches given as (row, col).
// The first failing size ends the test case: one clear report rather than the
// same failure once per size.
#ifndef TUTORIAL_TEST_SUPPORT_H
#define TUTORIAL_TEST_SUPPORT_H

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compare.h"
#include "random_data.h"

// Defined in test_main.cpp.
std::uint64_t test_seed();

// Each call draws from a different stream, so a and b of one test differ.
inline std::vector<float> random_floats(std::size_t n, float lo = -1.0f, float hi = 1.0f) {
    static std::uint64_t stream = 0;
    std::vector<float> v(n);
    fill_random(v.data(), n, test_seed() + 0x632BE59BD9B4E019ull * ++stream, lo, hi);
    return v;
}

inline std::vector<float> poisoned_floats(std::size_t n) {
    std::vector<float> v(n);
    fill_poison(v.data(), n);
    return v;
}

// The report for got against the CPU reference, empty when they match.
inline std::string comparison_report(const char* got_name, const float* got, const float* ref,
                                     std::size_t n, std::size_t cols, double atol,
                                     double rtol) {
    std::string text(8192, '\0');
    tutorial_text out = {&text[0], text.size(), 0};
    // Eight mismatches the first time; a later failure of the same run shows
    // three, so that the whole output stays short enough to read.
    static int reports_so_far = 0;
    int max_print = reports_so_far == 0 ? 8 : 3;
    std::size_t bad = tutorial_compare_report(&out, got_name, got_name, "CPU reference", got, ref, n,
                                              cols, atol, rtol, max_print);
    if (bad == 0) return std::string();
    ++reports_so_far;
    text.resize(out.length);
    if (!text.empty() && text.back() == '\n') text.pop_back();  // doctest ends the line
    return text;
}

#define REQUIRE_ALL_CLOSE(got_name, got, ref, n, atol, rtol)                             \
    do {                                                                                 \
        std::string report_ = comparison_report((got_name), (got), (ref), (n), 0,        \
                                                (atol), (rtol));                         \
        if (!report_.empty()) FAIL(report_);                                             \
    } while (0)

#define REQUIRE_MATRIX_CLOSE(got_name, got, ref, rows, cols, atol, rtol)                 \
    do {                                                                                 \
        std::string report_ = comparison_report((got_name), (got), (ref),                \
                                                (std::size_t)(rows) * (std::size_t)(cols), \
                                                (cols), (atol), (rtol));                 \
        if (!report_.empty()) FAIL(report_);                                             \
    } while (0)

#endif
