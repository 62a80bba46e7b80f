// flops.cpp - the call the flop plugin (flop_plugin.cpp) puts at the top of
// every basic block of an instrumented kernel that does float or double
// arithmetic. It adds the block's counts to the worker's while the worker
// runs a profiled launch (access_counts.cpp takes them when it goes idle)
// and returns at once otherwise.
#include <cstdint>

#include "profiler.h"

namespace cuemu::detail {
__thread std::uint64_t tls_flop_counts[6];  // fadd fmul ffma dadd dmul dfma
}

extern "C" void __cuemu_count_flops(unsigned long long packed) {
    using namespace cuemu::detail;
    if (__builtin_expect(!tls_profiling, 1)) return;
    for (int kind = 0; kind < 6; ++kind) tls_flop_counts[kind] += (packed >> (10 * kind)) & 1023u;
}
