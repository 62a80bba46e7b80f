// cuemu/thread_loop.h - the loop that runs a block's CUDA threads one after
// another, compiled into the program for each launch (launch.h), so that the
// kernel is called directly, usually inlined, instead of once per thread
// through a pointer.
//
// The scheduler (src/scheduler.cpp) hands a fiber of the block a
// thread_cursor and calls the launch's loop on it. The loop starts threads
// until the block has none left to start. A thread that reaches __syncthreads
// or a warp function suspends the fiber inside the kernel call; another fiber
// then carries on the same loop with the same cursor, and when the suspended
// thread is resumed and finishes, its fiber goes on with whatever thread is
// next. So the cursor, not the loop, holds what is shared.
//
// The loop does no per-thread bookkeeping beyond threadIdx: threads that
// finish one after another on the same fiber form a "run", and the cursor
// only moves the run's end. The scheduler records the run's exits (warp
// lanes gone, threads exited, progress for the watchdog) whenever it looks
// at the block: when a thread calls into it (a barrier, a warp function, a
// fault), when the loop ends, and when a finished thread breaks the run.
#ifndef CUEMU_THREAD_LOOP_H
#define CUEMU_THREAD_LOOP_H

#include <atomic>
#include <cstdint>

#include "types.h"

namespace cuemu {
extern __thread uint3 tls_thread_idx;

struct thread_cursor {
    unsigned next = 0;   // threads of the block started so far
    unsigned count = 0;  // threads in the block
    uint3 idx{0, 0, 0};  // the next thread's index (x fastest)
    dim3 dim;            // the block's size
    unsigned exited = 0;  // threads that have finished, as recorded so far
    // Threads run_begin .. run_end - 1 have finished and their exits are not
    // recorded yet (scheduler.cpp records them: record_run).
    unsigned run_begin = 0, run_end = 0;
    void (*record_run)() = nullptr;
    // This worker's progress count for the watchdog (scheduler.cpp); only
    // this worker writes it.
    std::atomic<std::uint64_t>* progress = nullptr;
};

// The cursor of the block this OS thread (a worker) runs. A block stays on
// one worker and a worker runs one block at a time, so each block has its
// own; thread-local, its address is known, so the loop below needs no
// pointer to it (and no alignment checks on one).
extern __thread thread_cursor tls_thread_cursor;

// Runs the threads of the block that have not started yet, in threadIdx
// order (x fastest), calling `call` for each with threadIdx set.
// Not instrumented for the race check (its memory is the emulator's); in a
// source that is, GCC then calls the kernel instead of inlining it.
template <class Call>
__attribute__((no_sanitize("thread"))) inline void run_threads(Call& call) {
    thread_cursor& c = tls_thread_cursor;
    // The next thread, kept in registers as well; after a call that
    // suspended (other fibers started threads meanwhile) read afresh.
    unsigned next = c.next;
    uint3 idx = c.idx;
    while (next < c.count) {
        const unsigned linear = next;
        uint3 following = idx;
        if (++following.x == c.dim.x) {
            following.x = 0;
            if (++following.y == c.dim.y) {
                following.y = 0;
                ++following.z;
            }
        }
        c.next = linear + 1;
        c.idx = following;
        tls_thread_idx = idx;
        // The cursor and threadIdx are in memory before the kernel runs: a
        // fault inside it (a signal) reads them to name the thread, and the
        // compiler could otherwise keep them in registers across the
        // inlined kernel.
        asm volatile("" ::: "memory");
        call();
        // This thread has finished (its fiber may have been suspended and
        // resumed in between, so everything here is read from the cursor).
        if (c.run_end != linear) {
            c.record_run();
            c.run_begin = linear;
        }
        c.run_end = linear + 1;
        // The watchdog counts progress (any change will do) once a warp as
        // well, so that it sees a block of slow threads moving on.
        if ((linear & 31) == 31)
            c.progress->store(c.progress->load(std::memory_order_relaxed) + 1,
                              std::memory_order_relaxed);
        next = c.next;
        if (__builtin_expect(next == linear + 1, 1)) {
            idx = following;
        } else {
            idx = c.idx;
        }
    }
}

}  // namespace cuemu

#endif
