// split_counts.h - what the tests of split kernels share (test_split_blocks.cu,
// test_split_shuffles.cu): how many blocks ran split, whether this run
// expects them to, and the check that a launch ran so many.
#ifndef CUEMU_TESTS_SPLIT_COUNTS_H
#define CUEMU_TESTS_SPLIT_COUNTS_H

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>

#if defined(CUEMU)
#include "cuemu/split_block.h"
#endif

namespace split_counts {

// How many blocks ran split, where the emulator tells; -1 on a GPU.
inline long long split_blocks() {
#if defined(CUEMU)
    return static_cast<long long>(cuemu::split_blocks_run());
#else
    return -1;
#endif
}
// Whether this run expects split blocks: the emulator, built with the
// instrumentation that twins exist for (not the sanitizer lane's build), and
// not CUEMU_SPLIT=0.
inline bool splitting() {
#if defined(CUEMU) && defined(__SANITIZE_THREAD__)
    const char* setting = std::getenv("CUEMU_SPLIT");
    return !(setting && std::strcmp(setting, "0") == 0);
#else
    return false;
#endif
}
// Under the race check the blocks it looks at run instrumented, on fibers:
// a test run that way checks only the answers.
inline bool race_checked() {
    const char* check = std::getenv("CUEMU_CHECK");
    return check && std::strcmp(check, "none") != 0;
}
// Checks that `blocks` blocks ran split (none where this run expects none) since `before`.
inline void check_split(long long before, long long blocks) {
    if (race_checked()) return;
    if (splitting()) CHECK(split_blocks() - before == blocks);
#if defined(CUEMU)
    else CHECK(split_blocks() == before);
#endif
}

// Checks that no block ran split since `before` (kernels or blocks left to fibers).
inline void check_none_split(long long before) {
#if defined(CUEMU)
    if (!race_checked()) CHECK(split_blocks() == before);
#else
    (void)before;
#endif
}

}  // namespace split_counts

#endif
