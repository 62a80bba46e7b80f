// cuemu/split_block.h - what a kernel split at its __syncthreads runs on: the
// block's threads as loops, one per region between barriers.
//
// cuemu-rewrite makes the split version of a kernel whose barriers it can cut
// with certainty (rewriter/split_regions.h) as an overload of its twin,
// __cuemu_fast_NAME(split_tag, parameters...), called once per block instead
// of once per thread (cuemu/launch.h: split_loop_of). Each region runs for
// every thread still running, in threadIdx order, the order in which the
// fiber path resumes threads leaving a barrier; threadIdx is in memory while
// a thread runs, so a fault names it as on the fiber path. What a thread keeps
// across a barrier lives in arrays indexed by the thread, in scratch memory
// of the worker's (src/split_blocks.cpp).
//
// Each thread has a state: running (0), exited (it returned), or parked at a
// loop of nesting depth d (its condition was false while others go round
// again: it carries on after the loop once the loop has ended for all). A
// barrier that some threads reach while others have exited or are parked is
// what the fiber path reports as a __syncthreads() not reached by every
// thread, and so does this (the launch fails with the same report).
//
// A shuffle (__shfl_*_sync with the full mask) or a vote (__ballot_sync,
// __any_sync, __all_sync) cuts a split version too: in
// a pass before the statement that calls it, every running thread publishes
// the value it passes (`publish`), and in the region from that statement on
// the call reads its source lane's value (`shuffle`), by the fiber path's own
// lane rule (shuffle_source, builtins.h), or the vote over the lanes that
// published (`vote`, vote_result); a lane that had exited gives all one bits
// (a shuffle) or takes no part (a vote), as there. `__syncwarp()` is a cut
// with nothing to publish. An `if` around shuffles parks the threads for which
// its condition is false, as a loop does. A block with a partial last warp,
// or one that fails declined_block's check, is left to the fiber path: the
// version declines it before it has done anything (read by launch.h's
// run_block_with).
#ifndef CUEMU_SPLIT_BLOCK_H
#define CUEMU_SPLIT_BLOCK_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "builtins.h"
#include "thread_loop.h"
#include "types.h"

namespace cuemu {

// The first parameter of a kernel's split version.
struct split_tag {};

// Whether launches may run split versions now (CUEMU_SPLIT, the profiler,
// CUEMU_ON_FAULT=continue; src/split_blocks.cpp).
bool split_blocks_allowed();
// How many blocks split versions have run in this process (for tests).
std::uint64_t split_blocks_run();

namespace detail {
// This worker's scratch memory, at least `bytes`, 64-byte aligned, for one
// block (each call counts one: split_blocks_run).
unsigned char* split_scratch(std::size_t bytes);
// True while a split version runs on this worker: a barrier or warp function
// reached from a function it calls cannot be run (block_barrier refuses it).
extern __thread bool tls_in_split_block;
// Set by a split version that declined its block (a partial warp): the
// launch's loop runs the block's threads on fibers instead (launch.h).
extern __thread bool tls_split_declined;
// A shuffle of a split version read a lane that had returned: the note of
// src/undefined_shuffle.cpp, printed once a program.
[[gnu::cold, gnu::noinline]] void note_undefined_shuffle_in_split(int op, unsigned linear, dim3 dim,
                                                                   unsigned source, const char* file, int line);
// The report of a barrier some threads do not reach (stuck_block_report.cpp);
// it ends the block.
[[noreturn]] void split_barrier_not_reached(const unsigned char* state, unsigned count, dim3 dim,
                                            const char* file, int line);
}  // namespace detail

class split_block {
public:
    static constexpr unsigned char exited_state = 255;
    unsigned t = 0;  // the linear index of the thread a region runs now

    __attribute__((no_sanitize("thread"))) split_block()
        : cursor_(tls_thread_cursor), count_(tls_thread_cursor.count), dim_(tls_thread_cursor.dim) {}

    // A split version with shuffles runs whole warps only: for a block with
    // a partial last warp it declines, before any side effect.
    __attribute__((no_sanitize("thread"))) bool declined_partial_warp() const {
        detail::tls_split_declined = (count_ & 31u) != 0;
        return detail::tls_split_declined;
    }
    // A split version with an if around shuffles, or a call whose order
    // between threads could show, checks its block before anything runs:
    // `bits(thread)` (threadIdx set) has bit k for the k-th if's condition,
    // bit 31 where the thread may make such a call. Each warp's lanes must
    // agree on every if (the warp takes it whole or not at all, as the
    // split version runs it), and one thread at most may make the calls
    // (in its own order, the fiber path's); else the version declines the
    // block and fibers run it.
    template <class Bits>
    __attribute__((no_sanitize("thread"))) bool declined_block(Bits&& bits) {
        uint3 idx{0, 0, 0};
        unsigned warp_bits = 0, callers = 0;
        bool declined = false;
        for (unsigned i = 0; i < count_ && !declined; ++i) {
            tls_thread_idx.x = idx.x;
            tls_thread_idx.y = idx.y;
            tls_thread_idx.z = idx.z;
            asm volatile("" : : "m"(tls_thread_idx));
            const unsigned b = bits();
            if ((i & 31u) == 0) warp_bits = b & 0x7fffffffu;
            declined = (b & 0x7fffffffu) != warp_bits || (callers += b >> 31) > 1;
            if (++idx.x == dim_.x) {
                idx.x = 0;
                if (++idx.y == dim_.y) {
                    idx.y = 0;
                    ++idx.z;
                }
            }
        }
        detail::tls_split_declined = declined;
        return declined;
    }
    // Scratch for `variables` arrays of `bytes_per_thread` in all, and the states.
    __attribute__((no_sanitize("thread"))) void begin(unsigned variables, std::size_t bytes_per_thread) {
        const std::size_t state_bytes = (count_ + 63u) & ~std::size_t{63};
        base_ = detail::split_scratch(state_bytes + bytes_per_thread * count_ + 64u * variables);
        state_ = base_;
        std::memset(state_, 0, count_);
        next_byte_ = state_bytes;
        detail::tls_in_split_block = true;
    }
    template <class T>
    __attribute__((no_sanitize("thread"))) T* storage() {
        next_byte_ = (next_byte_ + 63u) & ~std::size_t{63};
        T* p = reinterpret_cast<T*>(base_ + next_byte_);
        next_byte_ += sizeof(T) * count_;
        return p;
    }

    // for (first(); more(); next()) if (enter()) ...: every running thread in order.
    __attribute__((no_sanitize("thread"), always_inline)) void first() {
        t = 0;
        idx_ = uint3{0, 0, 0};
    }
    __attribute__((no_sanitize("thread"), always_inline)) bool more() const { return t < count_; }
    __attribute__((no_sanitize("thread"), always_inline)) void next() {
        // The watchdog counts progress (any change will do) once a warp, as
        // the launch's own loop does (thread_loop.h).
        if ((++t & 31) == 0) region_end();
        if (++idx_.x == dim_.x) {
            idx_.x = 0;
            if (++idx_.y == dim_.y) {
                idx_.y = 0;
                ++idx_.z;
            }
        }
    }
    __attribute__((no_sanitize("thread"), always_inline)) bool enter() {
        if (state_[t]) return false;
        // As thread_loop.h does it: the fault handler reads threadIdx from
        // memory to name the thread, so the store is kept, in order. Field
        // by field: next() wrote them so, and a wider load of them would
        // wait for those stores to reach the cache.
        tls_thread_idx.x = idx_.x;
        tls_thread_idx.y = idx_.y;
        tls_thread_idx.z = idx_.z;
        asm volatile("" : : "m"(tls_thread_idx));
        return true;
    }
    // Before the parts of a loop the same for every thread (its start, its
    // condition, its step), computed once for the block: threadIdx is the
    // first running thread's, the one that computes them first on the fiber
    // path, so a fault there names it.
    __attribute__((no_sanitize("thread"))) void lead() {
        unsigned first = 0;
        while (first < count_ && state_[first]) ++first;
        if (first == count_) first = 0;
        tls_thread_idx.x = first % dim_.x;
        tls_thread_idx.y = first / dim_.x % dim_.y;
        tls_thread_idx.z = first / (dim_.x * dim_.y);
        asm volatile("" : : "m"(tls_thread_idx));
    }
    __attribute__((no_sanitize("thread"), always_inline)) void exit() {
        state_[t] = exited_state;
        ++exited_;
    }
    __attribute__((no_sanitize("thread"), always_inline)) void park(unsigned depth) {
        state_[t] = static_cast<unsigned char>(depth);
        ++parked_;
    }
    __attribute__((no_sanitize("thread"))) void unpark(unsigned depth) {
        if (!parked_) return;
        for (unsigned i = 0; i < count_; ++i)
            if (state_[i] == depth) {
                state_[i] = 0;
                --parked_;
            }
    }
    __attribute__((no_sanitize("thread"), always_inline)) bool running() const {
        return exited_ + parked_ < count_;
    }
    // The watchdog counts progress once a region too.
    __attribute__((no_sanitize("thread"), always_inline)) void region_end() {
        cursor_.progress->store(cursor_.progress->load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    __attribute__((no_sanitize("thread"), always_inline)) void barrier(const char* file, int line) {
        if ((exited_ | parked_) && running())
            detail::split_barrier_not_reached(state_, count_, dim_, file, line);
    }
    // A shuffle's pass before its statement: `lanes` (one word per warp)
    // says which lanes published a value into `values` (one per thread).
    __attribute__((no_sanitize("thread"))) void clear_lanes(unsigned* lanes) const {
        std::memset(lanes, 0, sizeof(unsigned) * (count_ >> 5));
    }
    __attribute__((no_sanitize("thread"), always_inline)) void publish(std::uint64_t* values, unsigned* lanes,
                                                                      std::uint64_t bits) const {
        values[t] = bits;
        lanes[t >> 5] |= 1u << (t & 31u);
    }
    // What thread t's shuffle `op` (warp_shfl_idx ...) returns, as the fiber
    // path's warp_collective would: its source lane by shuffle_source, its
    // own value where the source is outside its segment, all one bits where
    // the source lane did not publish (it had exited).
    // The call's file and line come from its site, for the note on such a read.
    template <class T>
    __attribute__((no_sanitize("thread"), always_inline)) T shuffle(int op, const std::uint64_t* values,
                                                                   const unsigned* lanes, int param,
                                                                   int width, const char* file = __builtin_FILE(),
                                                                   int line = __builtin_LINE()) const {
        const unsigned lane = t & 31u;
        const int source = shuffle_source(op, lane, param, shuffle_width(width));
        std::uint64_t bits = values[t];
        if (source >= 0) {
            if (__builtin_expect(lanes[t >> 5] >> source & 1u, 1)) {
                bits = values[(t & ~31u) + source];
            } else {
                detail::note_undefined_shuffle_in_split(op, t, dim_, static_cast<unsigned>(source), file, line);
                bits = ~std::uint64_t{0};
            }
        }
        return from_warp_bits<T>(bits);
    }
    // What thread t's vote `op` (warp_ballot, warp_any, warp_all) returns, as
    // the fiber path's warp_collective would: over the lanes of its warp that
    // published a predicate (`values` 0 or 1), the others having exited.
    __attribute__((no_sanitize("thread"), always_inline)) unsigned vote(int op, const std::uint64_t* values,
                                                                       const unsigned* lanes) const {
        const unsigned group = lanes[t >> 5], base = t & ~31u;
        unsigned ballot = 0;
        for (unsigned rest = group; rest; rest &= rest - 1) {
            const unsigned l = static_cast<unsigned>(__builtin_ctz(rest));
            if (values[base + l]) ballot |= 1u << l;
        }
        return static_cast<unsigned>(vote_result(op, ballot, group));
    }
    // Every thread has finished: the block's cursor says so, as after the
    // launch's own loop (thread_loop.h) ran them all in one run.
    __attribute__((no_sanitize("thread"))) void finish() {
        cursor_.next = cursor_.run_end = count_;
        cursor_.run_begin = 0;
        cursor_.active_run = 0;
        cursor_.idx = uint3{0, 0, dim_.z};
        detail::tls_in_split_block = false;
    }

private:
    thread_cursor& cursor_;
    unsigned count_;
    dim3 dim_;
    uint3 idx_{0, 0, 0};
    unsigned exited_ = 0, parked_ = 0;
    unsigned char* base_ = nullptr;
    unsigned char* state_ = nullptr;
    std::size_t next_byte_ = 0;
};

}  // namespace cuemu

#endif
