// test_support.h - what every lesson test shares.
//
// - test_seed(): fresh random inputs each run, printed at start-up so a failing
//   run can be repeated exactly with TUTORIAL_SEED=<seed>.
// - random_floats(n): a vector of uniform floats from that seed.
// - poisoned_floats(n): a vector of NaN, for outputs (an element the code
//   forgets to write then fails the comparison).
// - CHECK_ALL_CLOSE(got, ref, n, atol, rtol): |got - ref| <= atol + rtol*|ref|
//   for every element; prints the first mismatches with their index.
#ifndef TUTORIAL_TEST_SUPPORT_H
#define TUTORIAL_TEST_SUPPORT_H

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
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

#define CHECK_ALL_CLOSE(got, ref, n, atol, rtol)                                   \
    do {                                                                           \
        std::size_t mismatches_ =                                                  \
            compare_floats(#got, (got), (ref), (n), (atol), (rtol), 5);            \
        CHECK_MESSAGE(mismatches_ == 0, mismatches_, " of ", (n),                  \
                      " elements differ from the CPU reference (seed ",            \
                      test_seed(), ")");                                           \
    } while (0)

#endif
