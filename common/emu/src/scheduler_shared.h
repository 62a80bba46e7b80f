// scheduler_shared.h - what scheduler.cpp (a CUDA thread's paths: fibers,
// barriers, warp functions) and block_loop.cpp (the block's scheduling loop,
// a worker's blocks, the launch) share. The small helpers both call on hot
// paths are here whole, and static: each file keeps its own copy with
// internal linkage, as they had in scheduler.cpp's anonymous namespace, so
// that GCC inlines them as it did before the split (an inline function with
// external linkage keeps an out-of-line copy, and GCC then inlines less).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "block_state.h"

namespace cuemu::detail {

// How many CUDA threads this worker has finished, ever. The watchdog reads it
// from another thread; only this worker writes it, so a plain relaxed load and
// store (no locked instruction) keeps the per-thread cost at about nothing.
extern __thread std::atomic<std::uint64_t>* tls_progress;

// A barrier released, a warp function completed, a thread finished: the
// kernel is moving, and the watchdog must leave it alone.
static inline void count_progress() {
    tls_progress->store(tls_progress->load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// The next fiber queued to resume (ready[next_ready]; the caller knows there is one).
//
// A switch to a fiber first reads the registers it saved on its stack, and
// with hundreds of fibers a block's stack tops do not stay in the core's
// cache from one barrier to the next: that read used to be most of a
// barrier's cost (perf: the first pop of the switch). The queue says which
// fibers come next, so their stack tops and slots are fetched a few switches
// early (prefetches: they cannot fault, and cost little when useless).
constexpr std::size_t fetch_stack_ahead = 2;  // fibers ahead of the one resumed
constexpr std::size_t fetch_slot_ahead = 4;   // its slot (where its stack is) earlier still
constexpr int stack_lines_fetched = 4;        // the switch's registers and the frames above them
static inline fiber_slot* take_queued(block_state& block) {
    const std::vector<fiber_slot*>& ready = *block.ready;
    const std::size_t i = block.next_ready++;
    if (i + fetch_stack_ahead < ready.size()) {
        const char* top = static_cast<const char*>(ready[i + fetch_stack_ahead]->context);
        for (int line = 0; line < stack_lines_fetched; ++line) __builtin_prefetch(top + 64 * line);
    }
    if (i + fetch_slot_ahead < ready.size()) __builtin_prefetch(ready[i + fetch_slot_ahead]);
    return ready[i];
}

// A small, fast generator for the shuffled schedule (splitmix64).
static inline std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

template <class T>
static void shuffle_with(std::vector<T>& v, std::uint64_t seed) {
    std::uint64_t state = seed;
    for (std::size_t i = v.size(); i > 1; --i) {
        state = mix(state);
        std::swap(v[i - 1], v[state % i]);
    }
}

// A thread has finished (scheduler.cpp).
void complete_groups_after_exit(block_state& block, unsigned linear);

static inline void thread_exited(block_state& block, unsigned linear, bool counts_as_exit = true) {
    if (counts_as_exit) ++block.cursor.exited;
    warp_state& w = block.warps[linear >> 5];
    w.gone |= 1u << (linear & 31);
    if (w.arrived) complete_groups_after_exit(block, linear);
}

// The block loop's own call when a finished thread breaks a run (thread_loop.h;
// scheduler.cpp).
void record_run_of_current_block();

// A fiber's life (scheduler.cpp), for acquire_slot (block_loop.cpp).
[[noreturn]] void fiber_main(void* slot, void* message);

// Makes `block` the launch's block linear_block (block_loop.cpp).
void start_block(block_state& block, std::uint64_t linear_block, uint3 block_idx);

}  // namespace cuemu::detail
