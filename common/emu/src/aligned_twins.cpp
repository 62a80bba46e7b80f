// aligned_twins.cpp - the run-time side of the twins built without the
// misaligned-access check (cuemu/launch.h, cuemu-rewrite's aligned_twin.h):
// whether launches may run them (CUEMU_ALIGNED_TWINS) and how many have.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuemu/launch.h"

namespace cuemu {
namespace {
std::atomic<std::uint64_t> launches{0};

// CUEMU_ALIGNED_TWINS=0 runs the checked twin instead (to compare the two,
// or to rule the aligned twin out of a question).
bool aligned_twins_setting() {
    static const bool on = [] {
        const char* text = std::getenv("CUEMU_ALIGNED_TWINS");
        if (!text || !*text || std::strcmp(text, "1") == 0) return true;
        if (std::strcmp(text, "0") == 0) return false;
        std::fprintf(stderr, "cuemu: CUEMU_ALIGNED_TWINS must be 0 or 1, got '%s'\n", text);
        std::exit(2);
    }();
    return on;
}
}  // namespace

bool aligned_twins_allowed() { return aligned_twins_setting(); }
void count_aligned_twin_launch() { launches.fetch_add(1, std::memory_order_relaxed); }
std::uint64_t aligned_twin_launches() { return launches.load(std::memory_order_relaxed); }

}  // namespace cuemu
