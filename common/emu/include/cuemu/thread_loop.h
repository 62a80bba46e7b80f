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
// finish one after another on the same fiber form a "run". While a run goes
// on, the cursor's `next` and `run_end` are not kept up to date: the thread
// running is always the one after the run's last finished thread, and
// threadIdx says which it is. Whenever the scheduler looks at the block (a
// thread calls into it: a barrier, a warp function, a fault), it first
// brings the cursor up to date from threadIdx and ends the run
// (scheduler.cpp: record_finished_run); the loop sees that after the call
// returns (active_run changed) and starts a new run from the cursor. So the
// cost per thread is a store of threadIdx.x, the call and two compares; the
// progress tick for the watchdog comes once a warp, outside the inner loop.
#ifndef CUEMU_THREAD_LOOP_H
#define CUEMU_THREAD_LOOP_H

#include <atomic>
#include <cstdint>

#include "types.h"

namespace cuemu {
extern __thread uint3 tls_thread_idx;

struct thread_cursor {
    unsigned next = 0;   // threads of the block started so far (see the top)
    unsigned count = 0;  // threads in the block
    uint3 idx{0, 0, 0};  // the next thread's index (x fastest)
    dim3 dim;            // the block's size
    unsigned exited = 0;  // threads that have finished, as recorded so far
    // Threads run_begin .. run_end - 1 have finished and their exits are not
    // recorded yet (scheduler.cpp records them: record_run).
    unsigned run_begin = 0, run_end = 0;
    // The run a fiber's loop is in (numbered from 1), 0 when none: while it
    // is nonzero, next and run_end are threadIdx's linear index + 1 and
    // threadIdx's linear index, and idx the thread after threadIdx.
    unsigned active_run = 0, runs_started = 0;
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
// order (x fastest), calling body(args...) for each with threadIdx set.
// Not instrumented for the race check (its memory is the emulator's); in a
// source that is, GCC then calls the kernel instead of inlining it.
template <class Body, class... Args>
__attribute__((no_sanitize("thread"))) inline void run_threads(const Body& body, Args... args) {
    thread_cursor& c = tls_thread_cursor;
    for (;;) {
        // A new run from the cursor (at the start, or after a thread of this
        // fiber was suspended and resumed and has now finished).
        unsigned linear = c.next;
        const unsigned count = c.count;
        if (linear >= count) return;
        if (c.run_end != linear) {
            c.record_run();
            c.run_begin = linear;
        }
        c.run_end = linear;
        const unsigned run = ++c.runs_started;
        c.active_run = run;
        const dim3 dim = c.dim;
        uint3 idx = c.idx;
        // If the compiler moves a load of the kernel's out of the loops
        // (the same address for every thread, read by every thread), it
        // happens here, and a fault in it names the run's first thread, the
        // first to read it anyway.
        tls_thread_idx = idx;
        asm volatile("" ::: "memory");
        for (;;) {  // a row of threads (one y and z)
            tls_thread_idx = idx;
            const unsigned row_end = linear + (dim.x - idx.x);
            for (;;) {  // the row's threads up to the end of a warp
                const unsigned stretch_end = row_end < (linear | 31u) + 1 ? row_end : (linear | 31u) + 1;
                for (;;) {
                    // threadIdx is in memory before the kernel runs: a fault
                    // inside it (a signal) reads it to name the thread. The asm
                    // "reads" it, so the compiler keeps every store, in order;
                    // GCC moves no memory access across a volatile asm when it
                    // schedules instructions. Not a full memory barrier, which
                    // would make it reload the kernel's arguments for every
                    // thread.
                    asm volatile("" : : "m"(tls_thread_idx));
                    body(args...);
                    if (__builtin_expect(c.active_run != run, 0)) {
                        // The thread was suspended: the scheduler ended the run
                        // and others went on. It has finished now, on its own.
                        if (c.run_end != linear) {
                            c.record_run();
                            c.run_begin = linear;
                        }
                        c.run_end = linear + 1;
                        goto next_run;
                    }
                    if (++linear == stretch_end) break;
                    tls_thread_idx.x = ++idx.x;
                }
                // The watchdog counts progress (any change will do) once a
                // warp as well, so that it sees a block of slow threads moving on.
                if ((linear & 31) == 0)
                    c.progress->store(c.progress->load(std::memory_order_relaxed) + 1,
                                      std::memory_order_relaxed);
                if (linear == row_end) break;
                tls_thread_idx.x = ++idx.x;
            }
            idx.x = 0;
            if (++idx.y == dim.y) {
                idx.y = 0;
                ++idx.z;
            }
            if (linear == count) {
                c.next = c.run_end = count;
                c.idx = idx;
                c.active_run = 0;
                return;
            }
        }
    next_run:;
    }
}

}  // namespace cuemu

#endif
