// split_blocks.cpp - the run-time side of kernels split at their barriers
// (cuemu/split_block.h): whether launches may use them (CUEMU_SPLIT), each
// worker's scratch memory for what threads keep across a barrier, and the
// refusal of a barrier the split version cannot run.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "cuemu/runtime.h"
#include "cuemu/split_block.h"
#include "diagnostics.h"
#include "internal.h"

namespace cuemu {

namespace detail {
__thread bool tls_in_split_block = false;
__thread bool tls_split_declined = false;

namespace {
struct free_deleter {
    void operator()(unsigned char* p) const { std::free(p); }
};
thread_local std::unique_ptr<unsigned char, free_deleter> scratch;
thread_local std::size_t scratch_bytes = 0;
std::atomic<std::uint64_t> blocks_run{0};

// CUEMU_SPLIT=0 runs every block on fibers, as before split versions existed
// (to compare the two, or to rule the split version out of a question).
bool split_setting() {
    static const bool on = [] {
        const char* text = std::getenv("CUEMU_SPLIT");
        if (!text || !*text || std::strcmp(text, "1") == 0) return true;
        if (std::strcmp(text, "0") == 0) return false;
        std::fprintf(stderr, "cuemu: CUEMU_SPLIT must be 0 or 1, got '%s'\n", text);
        std::exit(2);
    }();
    return on;
}
}  // namespace

unsigned char* split_scratch(std::size_t bytes) {
    blocks_run.fetch_add(1, std::memory_order_relaxed);
    if (bytes > scratch_bytes) {
        const std::size_t rounded = (bytes + 4095) / 4096 * 4096;
        scratch.reset(static_cast<unsigned char*>(std::aligned_alloc(64, rounded)));
        if (!scratch) {
            std::fflush(stdout);
            std::fprintf(stderr, "cuemu: out of host memory for a block's %zu bytes of per-thread variables\n",
                         rounded);
            std::abort();
        }
        scratch_bytes = rounded;
    }
    return scratch.get();
}

// Reached from block_barrier, a warp function or a volatile access (file
// null) while a split version runs: a function the kernel calls waits for
// other threads, which the split version cannot do (cuemu-rewrite splits no
// kernel that calls such a function it can see; this one it could not see:
// in another file, say).
[[noreturn]] void split_block_cannot_wait(const char* file, int line) {
    tls_in_split_block = false;
    stop_kernel_with(
        cudaErrorNotSupported, "a function the kernel calls waits for other threads, in a block the emulator split",
        file ? "  the emulator ran this kernel as loops over each block's threads, cut at its own\n"
               "  __syncthreads(); a barrier or warp function inside a function it calls cannot be\n"
               "  run that way"
             : "  the emulator ran this kernel as loops over each block's threads, cut at its own\n"
               "  __syncthreads(); a volatile access inside a function it calls, which runs a warp's\n"
               "  lanes in step, cannot be run that way",
        "run the program with CUEMU_SPLIT=0 (every block on fibers), and please report it",
        "the kernel runs as written", file ? file : "", line);
}
}  // namespace detail

std::uint64_t split_blocks_run() { return detail::blocks_run.load(std::memory_order_relaxed); }

bool split_blocks_allowed() { return detail::split_setting() && !detail::continue_after_fault(); }

}  // namespace cuemu
