// scheduler.cpp - runs a launch: blocks spread over a pool of worker OS
// threads (worker_pool.cpp), each CUDA thread of a block a fiber on its worker, and
// __syncthreads as a switch back to the block's scheduling loop (or straight
// to the next thread the loop has queued: hand_on_at_barrier). This file keeps
// every path a CUDA thread or a barrier takes, so that GCC inlines them into
// one another; what runs only when something goes wrong has files of its own:
// the fault handler (fault_handler.cpp), the reports of a block that cannot
// go on (stuck_block_report.cpp) and the launch checks (launch_checks.cpp).
// The types they share are in block_state.h.
//
// How one block runs (on one worker thread, never moving):
//   1. A fiber takes thread 0 and runs it. If it finishes without reaching a
//      barrier, the same fiber takes thread 1, and so on: a barrier-free
//      kernel runs a whole block on one fiber, with no switches at all.
//   2. A thread that calls __syncthreads suspends its fiber; a fresh fiber
//      carries on with the next thread index.
//   3. When every thread has started, all live threads are at the barrier:
//      they are resumed one by one in threadIdx order, each running to its
//      next barrier or its end. Repeat until none is waiting.
// Resuming in a fixed order makes a race (a missing barrier) give the same
// wrong answer on every run, which is what a learner can debug.
// CUEMU_SCHEDULE=reverse or shuffle:SEED changes that order (the order threads
// start, and the order they leave each barrier), so a race that forward order
// happens to hide shows up, still reproducibly.
//
// A failing launch reports the first failing block in launch order, whatever
// the number of workers: blocks are handed out in order, blocks after a failed
// one are not started, blocks before it (already started) run on, and the
// report of the lowest-numbered failed block is printed when the launch ends.
// So the same program gives the same report on 2 cores and on 64.
//
// Warp functions (__shfl_sync, __ballot_sync, __syncwarp ...) are barriers
// among the lanes of one warp: a lane that arrives leaves its request in the
// warp's slots and suspends like at __syncthreads (switching straight to the
// next fiber queued, if any: hand_on), and the lane whose arrival completes
// the group works out every member's result (warp_group.h), queues the others
// to resume in lane order, and carries on itself. Lanes that have exited (or
// that a partial warp does not have) do not hold a group up, as PTX specifies
// for "non-exited threads".
//
// Cooperative groups' tiles of more than one warp (thread_block_tile<64> to
// <1024>) meet in tile_barrier: a __syncthreads for the tile's threads alone,
// whose last arrival queues the others (in threadIdx order, or as
// CUEMU_SCHEDULE says) and carries on.
//
// The block loop also finds what a GPU would hang on or silently get wrong
// (barrier_is_sound; stuck_block_report.cpp says what it was): a __syncthreads
// that some threads skip (they exited, or wait at another __syncthreads),
// warp lanes waiting for lanes held at a block barrier, and a tile's call
// that a thread of the tile never reaches.
// A watchdog (CUEMU_WATCHDOG_SECONDS) interrupts a kernel that never finishes.
#include <setjmp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuemu/builtins.h"
#include "cuemu/launch.h"
#include "cuemu/runtime.h"
#include "block_state.h"
#include "diagnostics.h"
#include "fiber_context.h"
#include "fiber_switch.h"
#include "internal.h"
#include "launch_job.h"
#include "race_detector.h"
#include "warp_group.h"
#include "../profiler/profiler.h"

namespace cuemu {
__thread uint3 tls_thread_idx;
__thread uint3 tls_block_idx;
__thread dim3 tls_block_dim;
__thread dim3 tls_grid_dim;
__thread thread_cursor tls_thread_cursor;
}  // namespace cuemu

namespace cuemu::detail {
// The worker's current CUDA thread, block and launch (block_state.h).
__thread fiber_slot* tls_slot = nullptr;
__thread launch_job* tls_job = nullptr;
__thread bool tls_is_worker = false;
__thread std::uint64_t tls_linear_block;
__thread std::atomic<std::uint64_t>* tls_fingerprint = nullptr;
__thread std::atomic<std::uint64_t>* tls_answered = nullptr;

namespace {
// Each CUDA thread's stack. Large enough for printf and modest local arrays;
// a guard page below it turns an overflow into a reported fault.
constexpr std::size_t fiber_stack_size = 256 * 1024;

// The thread index after idx in x-fastest order. Counting up is much cheaper
// than dividing the linear index for every CUDA thread.
inline void advance(uint3& idx, const dim3& dim) {
    if (++idx.x < dim.x) return;
    idx.x = 0;
    if (++idx.y < dim.y) return;
    idx.y = 0;
    ++idx.z;
}

// Each stack's top is moved down by a different offset (its "colour"): the
// stacks are allocated a power of two apart, so without it the top frames of
// all the block's fibers would fall in the same cache sets and evict one
// another at every switch, which made a barrier round trip mostly cache
// misses. Every fiber still gets fiber_stack_size below its top, no more
// (allocate_fiber_stack), so an overflow is the same on every thread.
constexpr std::size_t max_stack_colour = 64 * 1024;

// The colour of the n-th fiber of a worker: steps of 17 cache lines (odd, so
// consecutive fibers cycle through every set of a 4 KiB-periodic cache),
// wrapping below max_stack_colour.
std::size_t stack_colour(std::size_t n) { return n * 17 * 64 % max_stack_colour; }

__thread unsigned char* tls_dynamic_shared = nullptr;
// How many CUDA threads this worker has finished, ever. The watchdog reads it
// from another thread; only this worker writes it, so a plain relaxed load and
// store (no locked instruction) keeps the per-thread cost at about nothing.
__thread std::atomic<std::uint64_t>* tls_progress = nullptr;

// A barrier released, a warp function completed, a thread finished: the
// kernel is moving, and the watchdog must leave it alone.
inline void count_progress() {
    tls_progress->store(tls_progress->load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// ---- warp functions (what the lanes get: warp_group.h) ----------------------------
// The lanes of the group lane `lane` waits for, if every lane of its mask has
// arrived or is gone; 0 while the group still waits for someone.
inline std::uint32_t complete_group_of(const warp_state& w, unsigned lane) {
    const std::uint32_t mask = w.request[lane].mask;
    return mask & ~(w.arrived | w.gone) ? 0 : mask & w.arrived;
}

// Completes a group: computes each member's result and queues the members to
// resume, in lane order, except `running` (the caller, which carries on).
void complete_group(block_state& block, warp_state& w, std::uint32_t group, fiber_slot* running) {
    work_out_results(w, group);
    w.arrived &= ~group;
    race_warp_synchronized(static_cast<unsigned>(&w - block.warps));
    count_progress();
    // Once every fiber queued has been resumed, the queue starts again from
    // its front, so that a block making many warp calls between barriers
    // keeps reusing the same few cache lines.
    std::vector<fiber_slot*>& ready = *block.ready;
    if (block.next_ready == ready.size()) {
        ready.clear();
        block.next_ready = 0;
    }
    for_each_lane(group, [&](unsigned l) {
        if (w.lane[l] != running) ready.push_back(w.lane[l]);
    });
}

// Completes the group lane `lane` waits for, if it is complete (see above).
bool try_complete_group(block_state& block, warp_state& w, unsigned lane, fiber_slot* running) {
    const std::uint32_t group = complete_group_of(w, lane);
    if (!group) return false;
    complete_group(block, w, group, running);
    return true;
}

// A thread has finished (or, with CUEMU_ON_FAULT=continue, was ended by a
// fault): it no longer holds up its warp's lanes. A thread ended by a fault
// does not count as exited, so a barrier the others reach still releases them.
void complete_groups_after_exit(block_state& block, unsigned linear) {
    warp_state& w = block.warps[linear >> 5];
    if (w.uniform) {
        // One group holds every waiting lane.
        try_complete_group(block, w, static_cast<unsigned>(__builtin_ctz(w.arrived)), nullptr);
        return;
    }
    for (std::uint32_t waiting = w.arrived; waiting; waiting &= waiting - 1) {
        unsigned l = static_cast<unsigned>(__builtin_ctz(waiting));
        if (w.arrived >> l & 1u) try_complete_group(block, w, l, nullptr);
    }
}

inline void thread_exited(block_state& block, unsigned linear, bool counts_as_exit = true) {
    if (counts_as_exit) ++block.cursor.exited;
    warp_state& w = block.warps[linear >> 5];
    w.gone |= 1u << (linear & 31);
    if (w.arrived) complete_groups_after_exit(block, linear);
}

// Records the exits of the run of threads the launch's loop (thread_loop.h)
// has finished since the last look: as thread_exited for each, one warp at a
// time; a warp with lanes waiting in a warp function goes thread by thread, in
// order, as the exits happened, so groups complete as they did.
// First, if a fiber's loop is in a run, the run ends at the thread running
// now (threadIdx): the threads before it have finished, and the next to
// start is the one after it.
[[gnu::noinline]] void record_finished_run(block_state& block) {
    thread_cursor& c = block.cursor;
    if (c.active_run) {
        const uint3 idx = tls_thread_idx;
        const unsigned running = idx.x + c.dim.x * (idx.y + c.dim.y * idx.z);
        c.run_end = running;
        c.next = running + 1;
        c.idx = idx;
        advance(c.idx, c.dim);
        c.active_run = 0;
    }
    const unsigned begin = c.run_begin, end = c.run_end;
    if (begin == end) return;
    c.run_begin = end;
    if (begin == 0 && end == c.count) {
        // The whole block ran as one run (barrier-free kernels): no thread
        // ever waited, since a wait ends the run, so no warp has lanes in a
        // warp function, and the lanes' exits matter to nothing before the
        // next block resets them (start_block).
        c.exited = end;
    } else {
        for (unsigned t = begin; t < end;) {
            const unsigned warp_end = std::min(end, (t | 31u) + 1);
            warp_state& w = block.warps[t >> 5];
            if (w.arrived) {
                for (; t < warp_end; ++t) thread_exited(block, t);
                continue;
            }
            const unsigned lanes = warp_end - t;
            w.gone |= (lanes == 32 ? ~0u : ((1u << lanes) - 1)) << (t & 31);
            c.exited += lanes;
            t = warp_end;
        }
    }
    tls_progress->store(tls_progress->load(std::memory_order_relaxed) + (end - begin),
                        std::memory_order_relaxed);
}

// The loop's own call, when a finished thread breaks the run; a fiber of the
// block is running.
void record_run_of_current_block() { record_finished_run(*tls_slot->block); }

// note_thread_index (block_state.h), and, where the thread calls into the
// emulator or faults (not for the watchdog's signal, which may land
// anywhere), brings the block's record of finished threads up to date first.
// Usually (a thread resumed from a warp function or a barrier, calling the
// next) there is nothing to record, and the check stays inline.
inline void note_current_thread(fiber_slot* s) {
    const thread_cursor& c = s->block->cursor;
    if (c.active_run || c.run_begin != c.run_end) record_finished_run(*s->block);
    note_thread_index(s);
}

// ---- fibers ------------------------------------------------------------------
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
inline fiber_slot* take_queued(block_state& block) {
    const std::vector<fiber_slot*>& ready = *block.ready;
    const std::size_t i = block.next_ready++;
    if (i + fetch_stack_ahead < ready.size()) {
        const char* top = static_cast<const char*>(ready[i + fetch_stack_ahead]->context);
        for (int line = 0; line < stack_lines_fetched; ++line) __builtin_prefetch(top + 64 * line);
    }
    if (i + fetch_slot_ahead < ready.size()) __builtin_prefetch(ready[i + fetch_slot_ahead]);
    return ready[i];
}

// From a CUDA thread's fiber back to the block's scheduling loop, and on when
// the loop resumes this fiber.
void yield_to_scheduler(fiber_slot* s) {
    fiber_switch_start(&s->fake_stack, s->scheduler_stack);
    void* message = switch_fiber(&s->context, s->block->loop, nullptr);
    fiber_switch_finish(s->fake_stack, nullptr);
    unwind_if_asked(message);
}

// When the block's loop has fibers queued to resume (the threads leaving the
// previous barrier, the lanes of a completed warp group), a fiber that must
// wait (at __syncthreads, in a warp function) would switch to the loop, and
// the loop's next step would be to resume the first of them. Instead the
// fiber takes that one from the queue itself and switches straight to it: one
// switch per wait instead of two (there and back through the loop's stack),
// and the same order. The loop stays where it was (block_state::loop), and
// the next fiber switches back to it when it must. Everything else
// (starting threads, releasing a barrier, faults, the watchdog) stays with the
// loop. The caller has filed itself as waiting where the loop would have
// (at_barrier, or its warp's arrived lanes). Null when the loop must decide
// what runs next.
fiber_slot* take_next_ready(block_state& block) {
    if (block.next_ready >= block.ready->size() ||
        block.job->timed_out.load(std::memory_order_relaxed))
        return nullptr;
    return take_queued(block);
}

// take_next_ready, or else, while threads of the block are left to start, an
// idle fiber to start the next of them: what the loop would run next
// (run_block_threads), without the two switches through it. Before the
// first barrier of a block, each thread arriving there starts the next.
fiber_slot* take_next_to_run(block_state& block) {
    if (block.next_ready < block.ready->size() || block.cursor.next >= block.cursor.count ||
        block.idle->empty())
        return take_next_ready(block);
    if (block.job->timed_out.load(std::memory_order_relaxed)) return nullptr;
    fiber_slot* fresh = block.idle->back();
    block.idle->pop_back();
    fresh->block = &block;
    return fresh;
}

void hand_on(fiber_slot* s, fiber_slot* next) {
    // From here a fault or the watchdog's signal belongs to next; until the
    // switch the stack is still s's, where the signal handlers leave it
    // alone (fault_handler.cpp: interrupted_on_fiber_stack).
    tls_slot = next;
    fiber_switch_start(&s->fake_stack, next->own_stack);
    void* message = switch_fiber(&s->context, next->context, nullptr);
    fiber_switch_finish(s->fake_stack, nullptr);
    unwind_if_asked(message);
}

// Files s as waiting at __syncthreads, with what the barrier's release will
// need (block_state: barrier_count ...) worked out as the threads arrive,
// rather than in passes over all their slots when the barrier is released.
inline void file_at_barrier(block_state& block, fiber_slot* s, bool predicate) {
    std::vector<fiber_slot*>& waiting = *block.at_barrier;
    if (!waiting.empty()) {
        const fiber_slot* last = waiting.back();
        if (last->linear > s->linear) block.arrivals_unsorted = true;
        if (!same_barrier(s, waiting.front())) block.barriers_differ = true;
    }
    block.barrier_count += predicate;
    waiting.push_back(s);
}

// At __syncthreads (see hand_on). False when the loop must decide what runs next.
bool hand_on_at_barrier(fiber_slot* s) {
    block_state& block = *s->block;
    fiber_slot* next = take_next_to_run(block);
    if (!next) return false;
    hand_on(s, next);
    return true;
}

bool go_on_with_next_block(block_state& block);

[[noreturn]] void run_fiber(fiber_slot* s);

// A fiber's life: CUDA threads, one after another, until the worker
// discards it (see fiber_context.h for the unwinding).
[[noreturn]] void fiber_main(void* slot, void* message) {
    fiber_slot* s = static_cast<fiber_slot*>(slot);
    fiber_switch_finish(nullptr, &s->scheduler_stack);
    fiber_context* back;
    try {
        unwind_if_asked(message);
        run_fiber(s);
    } catch (const fiber_unwind& unwind) {
        back = unwind.back;
    }
    fiber_context gone = nullptr;
    fiber_switch_start(nullptr, s->scheduler_stack);  // null: this stack is done with
    switch_fiber(&gone, *back, nullptr);
    std::abort();  // never resumed
}

[[noreturn]] void run_fiber(fiber_slot* s) {
    if (int how = sigsetjmp(s->fault_jump, 0); how != 0) {
        // The fault handler or the watchdog jumped here from inside the
        // kernel. By default this fiber is never resumed again and the
        // worker discards it; with CUEMU_ON_FAULT=continue, after a fault
        // (not the watchdog), it goes on with the next thread.
        // 3: stop_kernel_with (a failed device-side assert).
        s->state = how == 2   ? fiber_state::timed_out
                   : how == 3 ? fiber_state::refused
                              : fiber_state::faulted;
        forget_abandoned_frames(s->own_stack);
        unblock_watchdog_signal();  // on_fault blocks it, and siglongjmp kept the mask
        yield_to_scheduler(s);
    }
    for (;;) {
        block_state* block = s->block;
        try {
            do {
                // The launch's own loop, in forward order (thread_loop.h);
                // the others, and launches without one, start threads here.
                if (block->job->config->thread_loop && !block->start_order)
                    block->job->config->thread_loop(block->job->ctx);
                record_finished_run(*block);
                while (block->cursor.next < block->cursor.count) {
                    if (block->start_order) {
                        s->linear = block->start_order[block->cursor.next];
                        s->thread_idx = unflatten(s->linear, block->dim);
                    } else {
                        s->linear = block->cursor.next;
                        s->thread_idx = block->cursor.idx;
                        advance(block->cursor.idx, block->dim);
                    }
                    ++block->cursor.next;
                    tls_thread_idx = s->thread_idx;
                    block->job->run_thread(block->job->ctx);
                    thread_exited(*block, s->linear);
                    count_progress();
                }
            } while (go_on_with_next_block(*block));
            s->state = fiber_state::idle;
        } catch (const fiber_unwind&) {
            throw;  // the fiber is being destroyed: let it unwind
        } catch (const std::exception& e) {
            note_current_thread(s);
            s->state = fiber_state::threw;
            s->exception_text = e.what();
        } catch (...) {
            note_current_thread(s);
            s->state = fiber_state::threw;
            s->exception_text = "an exception that is not a std::exception";
        }
        // Done, and threads of the block wait to be resumed: this fiber goes
        // idle as the loop would file it, and the next of them runs.
        if (s->state == fiber_state::idle) {
            if (fiber_slot* next = take_next_ready(*block)) {
                block->idle->push_back(s);
                hand_on(s, next);
                continue;
            }
        }
        yield_to_scheduler(s);
    }
}

fiber_slot* acquire_slot(worker_state& w) {
    if (!w.idle.empty()) {
        fiber_slot* s = w.idle.back();
        w.idle.pop_back();
        return s;
    }
    w.slots.push_back(std::make_unique<fiber_slot>());
    fiber_slot* s = w.slots.back().get();
    s->stack = allocate_fiber_stack(fiber_stack_size, max_stack_colour, stack_colour(w.slots.size() - 1));
    s->stack_low = s->stack.low;  // the guard page too: an overflow faults there
    s->stack_high = s->stack.high;
    const char* usable = s->stack.low + 4096;
    s->own_stack = stack_span{usable, static_cast<std::size_t>(s->stack.high - usable)};
    s->context = make_fiber_context(s->stack, fiber_main, s);
    return s;
}

}  // namespace

// After a fault, fibers of the block may be suspended mid-kernel. Destroying
// them unwinds their stacks; the worker starts afresh with new fibers.
void discard_all_fibers(worker_state& w) {
    for (auto& slot : w.slots) {
        // Destroying a suspended fiber unwinds it on its own stack; tell ASan
        // about the trip there and back (fiber_switch.h).
        void* fake_stack = nullptr;
        fiber_switch_start(&fake_stack, slot->own_stack);
        unwind_fiber(slot->context);  // while the slot is whole
        fiber_switch_finish(fake_stack, nullptr);
        free_fiber_stack(slot->stack);
    }
    w.idle.clear();
    w.at_barrier.clear();
    w.ready.clear();
    w.lockstep.clear();
    for (tile_wait& t : w.tiles) t.waiting.clear();
    w.slots.clear();
}

namespace {
// ---- one block ---------------------------------------------------------------
// Every live thread of the block is suspended: at __syncthreads, or in a warp
// function. Checks that the barrier is a proper one; false (after a report,
// stuck_block_report.cpp) when it is not.
bool barrier_is_sound(worker_state& w, block_state& block) {
    std::vector<fiber_slot*>& waiting = w.at_barrier;
    // Threads in a multi-warp tile's call wait for one of these (or for one
    // that has exited): neither can go on.
    if (block.tile_waiters) {
        report_tile_call_not_reached(w, block);
        return false;
    }
    // Warp lanes waiting for lanes that wait at the barrier: neither can go on.
    for (unsigned warp = 0; warp * 32 < block.cursor.count; ++warp) {
        if (!block.warps[warp].arrived) continue;
        report_warp_waits_for_barrier(w, block, warp);
        return false;
    }
    if (block.cursor.exited) {
        report_barrier_after_exit(w, block);
        return false;
    }
    if (!block.barriers_differ) return true;
    fiber_slot* first = waiting.front();
    for (fiber_slot* b : waiting) {
        if (same_barrier(b, first)) continue;
        report_different_barriers(w, block, first, b);
        return false;
    }
    return true;
}

// A small, fast generator for the shuffled schedule (splitmix64).
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

template <class T>
void shuffle_with(std::vector<T>& v, std::uint64_t seed) {
    std::uint64_t state = seed;
    for (std::size_t i = v.size(); i > 1; --i) {
        state = mix(state);
        std::swap(v[i - 1], v[state % i]);
    }
}

// Resumes s; files it by what it did. False when the block must be abandoned.
bool resume(worker_state& w, fiber_slot* s) {
    tls_slot = s;
    void* fake_stack = nullptr;
    fiber_switch_start(&fake_stack, s->own_stack);
    switch_fiber(&s->block->loop, s->context, nullptr);
    fiber_switch_finish(fake_stack, nullptr);
    // The fiber back here is the one running now: fibers leaving a barrier
    // hand on to each other (hand_on_at_barrier), so it need not be s.
    s = tls_slot;
    tls_slot = nullptr;
    switch (s->state) {
        case fiber_state::idle:
            w.idle.push_back(s);
            return true;
        case fiber_state::at_barrier:
            return true;  // block_barrier filed it
        case fiber_state::at_warp:
            return true;  // its warp_state knows it; a group's completion queues it
        case fiber_state::at_tile:
            return true;  // its tile_wait knows it; the tile's last arrival queues it
        case fiber_state::at_lockstep:
            w.lockstep.push_back(s);
            return true;
        case fiber_state::refused: {
            // Stops the launch whatever CUEMU_ON_FAULT says: going on would
            // be a guess at what the kernel meant.
            // No file: `what` names the threads and lines itself (a race report).
            // A misaligned access is not a call.
            const char* verb = s->refusal_error == cudaErrorMisalignedAddress ? " made the access at "
                                                                             : " called it at ";
            std::string body = *s->refusal_file ? "  thread " + xyz(s->thread_idx) + verb +
                                                      s->refusal_file + ":" + std::to_string(s->refusal_line) + "\n"
                                                : "";
            body += s->refusal_what + std::string(*s->refusal_file ? "\n" : "");
            report_block_problem(w, *s->block->job, s->refusal_headline, body, s->refusal_hint,
                                 s->refusal_on_a_gpu, s->refusal_error);
            return false;
        }
        default:
            report_and_fail(*s->block->job, *s);
            if (continue_after_fault() && s->state != fiber_state::timed_out) {
                // The faulting thread ends here; its fiber is back at its
                // start and takes the next thread when resumed.
                thread_exited(*s->block, s->linear, /*counts_as_exit=*/false);
                w.idle.push_back(s);
                return true;
            }
            discard_all_fibers(w);
            return false;
    }
}

// Makes `block` the launch's block linear_block (blockIdx block_idx), none of
// its threads started, no fiber queued, its shared memory fresh to the race check.
void start_block(block_state& block, std::uint64_t linear_block, uint3 block_idx) {
    tls_block_idx = block_idx;
    tls_in_split_block = false;  // a split block that faulted did not finish()
    tls_linear_block = linear_block;
    block.cursor = thread_cursor{};
    block.cursor.count = block.dim.x * block.dim.y * block.dim.z;
    block.cursor.dim = block.dim;
    block.cursor.record_run = record_run_of_current_block;
    block.cursor.progress = tls_progress;
    // Lanes past the end of the block (a partial last warp) never take part.
    const unsigned warps = (block.cursor.count + 31) / 32;
    for (unsigned i = 0; i < warps; ++i) block.warps[i].arrived = block.warps[i].gone = 0;
    if (unsigned tail = block.cursor.count % 32) block.warps[warps - 1].gone = ~0u << tail;
    block.ready->clear();
    block.next_ready = 0;
    block.at_barrier->clear();
    block.barrier_count = 0;
    block.barriers_differ = block.arrivals_unsorted = false;
    const launch_config& config = *block.job->config;
    const bool left_out = config.race_check_left_out ||
                          (config.race_check_some_blocks && !race_samples_block(linear_block, config.grid));
    tls_block_race_checked = !left_out;
    race_block_begin(tls_dynamic_shared, config.shared_bytes, left_out);
    profile_block_begin(tls_dynamic_shared, block.job->config->shared_bytes);
}

// Called by a fiber whose block has no thread left to start. When every
// thread of it has finished (so no other fiber holds one), the fiber goes on
// with the next block of the worker's chunk itself, sparing the switch to the
// scheduler and back and its bookkeeping: a barrier-free block costs about
// as much as its threads. The scheduler's loop in run_block finds the new
// block in the same block_state when the fiber next suspends or finishes.
// The checks are the ones run_blocks and run_block make between blocks.
bool go_on_with_next_block(block_state& block) {
    if (block.chain_next >= block.chain_end || block.cursor.exited != block.cursor.count) return false;
    launch_job& job = *block.job;
    const std::uint64_t next = block.chain_next;
    if (next > job.lowest_failed_block.load() || job.timed_out.load(std::memory_order_relaxed))
        return false;
    block.chain_next = next + 1;
    uint3 block_idx = tls_block_idx;  // the next block's index, without unflatten's divisions
    advance(block_idx, job.config->grid);
    start_block(block, next, block_idx);
    return true;
}

// The scheduler's loop over the fibers of a block: starts threads, resumes
// the ones that may go on, releases barriers, until every thread has finished
// or the launch has failed.
void run_block_threads(worker_state& w, launch_job& job, block_state& block, std::uint64_t linear_block) {
    const schedule_setting schedule = job.schedule;
    const std::uint64_t block_seed = mix(schedule.seed ^ mix(linear_block));
    if (schedule.kind != schedule_kind::forward) {
        w.start_order.resize(block.cursor.count);
        for (unsigned t = 0; t < block.cursor.count; ++t)
            w.start_order[t] = schedule.kind == schedule_kind::reverse ? block.cursor.count - 1 - t : t;
        if (schedule.kind == schedule_kind::shuffle) shuffle_with(w.start_order, block_seed);
        block.start_order = w.start_order.data();
    }

    w.lockstep.clear();
    std::size_t& next_ready = block.next_ready;  // hand_on_at_barrier moves it too
    for (std::uint64_t round = 1;; ) {
        fiber_slot* s;
        if (next_ready < w.ready.size()) {
            s = take_queued(block);
        } else if (block.cursor.next < block.cursor.count) {
            s = acquire_slot(w);
            s->block = &block;
        } else if (!w.lockstep.empty()) {
            // Lanes at a volatile access go on together, in threadIdx order.
            std::sort(w.lockstep.begin(), w.lockstep.end(),
                      [](const fiber_slot* a, const fiber_slot* b) { return a->linear < b->linear; });
            w.ready.swap(w.lockstep);
            w.lockstep.clear();
            next_ready = 0;
            continue;
        } else if (!w.at_barrier.empty()) {
            // Every live thread is suspended and some wait at __syncthreads.
            if (!barrier_is_sound(w, block)) return;
            std::vector<fiber_slot*>& leaving = w.at_barrier;
            // What every leaving thread's __syncthreads returns (for
            // __syncthreads_count, _and and _or); each reads it as it resumes,
            // before any thread can reach the next barrier.
            block.released_count = block.barrier_count;
            block.barrier_count = 0;
            block.barriers_differ = false;
            if (block.arrivals_unsorted) {
                std::sort(leaving.begin(), leaving.end(),
                          [](const fiber_slot* a, const fiber_slot* b) { return a->linear < b->linear; });
                block.arrivals_unsorted = false;
            }
            if (schedule.kind == schedule_kind::reverse) std::reverse(leaving.begin(), leaving.end());
            if (schedule.kind == schedule_kind::shuffle) shuffle_with(leaving, mix(block_seed + round));
            ++round;
            race_barrier_released(leaving.front()->barrier_file, leaving.front()->barrier_line);
            count_progress();
            w.ready.swap(leaving);
            leaving.clear();
            next_ready = 0;
            continue;
        } else {
            // Threads in a multi-warp tile's call wait for a thread that has
            // exited, or that waits for them in a warp function.
            if (block.tile_waiters) {
                report_tile_call_not_reached(w, block);
                return;
            }
            // No one at a barrier: lanes can only be waiting for each other,
            // and a warp function never waits for a lane that is gone.
            break;
        }
        if (job.timed_out.load(std::memory_order_relaxed)) {
            s->state = fiber_state::timed_out;  // the watchdog fired between fibers
            report_and_fail(job, *s);
            discard_all_fibers(w);
            return;
        }
        if (!resume(w, s)) return;
    }
}

// Runs block linear_block and, in forward order, the blocks up to chain_end
// its fibers go on with; returns the first block it did not run.
std::uint64_t run_block(worker_state& w, launch_job& job, std::uint64_t linear_block,
                        std::uint64_t chain_end) {
    block_state block{&job,     tls_thread_cursor, job.config->block, nullptr,    w.warps,
                      &w.ready, &w.at_barrier,     &w.lockstep,       &w.idle};
    block.tiles = w.tiles;
    block.tile_words = w.tile_words;
    start_block(block, linear_block, unflatten(linear_block, job.config->grid));
    block.chain_next = linear_block + 1;
    if (job.schedule.kind == schedule_kind::forward) block.chain_end = chain_end;
    run_block_threads(w, job, block, linear_block);
    return block.chain_next;
}

void run_blocks(worker_state& w, launch_job& job) {
    std::size_t shared_bytes = job.config->shared_bytes;
    if (shared_bytes > w.shared_capacity) {
        w.shared.reset(static_cast<unsigned char*>(
            std::aligned_alloc(256, (shared_bytes + 255) / 256 * 256)));
        w.shared_capacity = shared_bytes;
    }
    tls_dynamic_shared = w.shared.get();
    tls_block_dim = job.config->block;
    tls_grid_dim = job.config->grid;
    tls_job = &job;
    for (bool stop = false; !stop;) {
        const std::uint64_t first = job.next_block.fetch_add(job.chunk, std::memory_order_relaxed);
        if (first >= job.total_blocks) break;
        const std::uint64_t end = std::min(job.total_blocks, first + job.chunk);
        for (std::uint64_t b = first; b < end;) {
            // Every block before b has been handed out already and runs on, so
            // the launch still reports its first failing block (see the top comment).
            if (b > job.lowest_failed_block.load()) {
                stop = true;
                break;
            }
            // The blocks of a cooperative launch all take part in grid.sync():
            // each is counted as it finishes (cooperative.cpp), so none is chained.
            const std::uint64_t next = run_block(w, job, b, job.config->cooperative ? b + 1 : end);
            for (; b < next; ++b) cooperative_block_finished(job.lowest_failed_block.load() <= b);
        }
    }
    race_worker_idle();
    profile_worker_idle();
    tls_job = nullptr;
}

std::mutex launch_mutex;  // one launch at a time, as on the default stream

}  // namespace

void note_current_thread_out_of_line(fiber_slot* s) { note_current_thread(s); }

// ---- for the worker pool (launch_job.h) --------------------------------------------
struct pool_worker {
    worker_state state;
};

void pool_worker_deleter::operator()(pool_worker* w) const {
    discard_all_fibers(w->state);
    delete w;
}

pool_worker_ptr become_pool_worker(std::atomic<std::uint64_t>* finished,
                                   std::atomic<std::uint64_t>* fingerprint,
                                   std::atomic<std::uint64_t>* answered) {
    tls_progress = finished;
    tls_fingerprint = fingerprint;
    tls_answered = answered;
    tls_is_worker = true;
    return pool_worker_ptr(new pool_worker);
}

void work_on_launch(pool_worker& worker, launch_job& job) { run_blocks(worker.state, job); }

bool on_worker_thread() { return tls_is_worker; }

}  // namespace cuemu::detail

namespace cuemu {

void* dynamic_shared_memory() { return detail::tls_dynamic_shared; }
bool in_device_code() { return detail::tls_slot != nullptr; }

bool detail::inside_kernel() { return detail::tls_slot != nullptr; }

// Runs a checked launch to the end, on the device thread (queue.cpp). Returns
// the error a fault inside the kernel gives (sticky), or cudaSuccess.
cudaError_t detail::run_launch(const launch_site& site, const launch_config& config,
                               void (*run_thread)(void*), void* ctx) {
    using namespace detail;
    launch_job job;
    job.site = &site;
    job.config = &config;
    job.run_thread = run_thread;
    job.ctx = ctx;
    job.total_blocks =
        std::uint64_t(config.grid.x) * config.grid.y * std::uint64_t(config.grid.z);
    // About 16 chunks per worker, so the workers still even out at the end;
    // at most 64 blocks, so a failing block's report is not held up for long.
    if (!config.cooperative)
        job.chunk = std::clamp<std::uint64_t>(job.total_blocks / (16 * std::uint64_t(worker_count())), 1, 64);
    {
        std::lock_guard<std::mutex> lock(launch_mutex);
        // The device queue has opened device memory (queue.cpp); these only
        // bracket the kernel for CUEMU_CHECK=uninit (memory_protection.cpp).
        device_memory_kernel_begin();
        cooperative_launch_begin(config, job.total_blocks);  // cooperative.cpp
        profile_launch_begin(site, config);                  // CUEMU_PROFILE (profiler/)
        run_on_workers(job);
        profile_launch_end();
        cooperative_launch_end();
        device_memory_kernel_end();
    }
    if (job.report) {
        cudaError_t e = job.report();
        if (job.report_stops) job.error = e;
    }
    if (continue_after_fault() && job.fault_count > 1) report_fault_count(site, job.fault_count);
    return job.error;
}

// ---- warp functions --------------------------------------------------------------
namespace {
[[gnu::cold, noreturn]] void warp_function_outside_kernel(const char* file, int line) {
    std::fflush(stdout);  // the program's own output before the report (abort drops it)
    std::fprintf(stderr, "cuemu: a warp function (%s:%d) was called outside a kernel\n", file, line);
    std::abort();
}
}  // namespace

std::uint64_t warp_collective(int op, unsigned mask, std::uint64_t value, int param, int width,
                              const char* file, int line) {
    using namespace detail;
    fiber_slot* s = tls_slot;
    if (!s) warp_function_outside_kernel(file, line);
    if (__builtin_expect(tls_in_split_block, 0)) split_block_cannot_wait(file, line);
    note_current_thread(s);
    block_state& block = *s->block;
    warp_state& w = block.warps[s->linear >> 5];
    const unsigned lane = s->linear & 31;
    // A lane missing from its own mask is undefined on a GPU; here it takes part.
    warp_request& request = w.request[lane];
    request = warp_request{op, mask | (1u << lane), value, param, width, file, line, 0};
    if (const std::uint32_t others = w.arrived) {
        const warp_request& other = w.request[__builtin_ctz(others)];
        w.uniform = w.uniform && other.mask == request.mask && other.op == request.op &&
                    other.param == request.param && other.width == request.width;
    } else {
        w.uniform = true;
    }
    w.arrived |= 1u << lane;
    w.lane[lane] = s;
    if (const std::uint32_t group = complete_group_of(w, lane)) {
        complete_group(block, w, group, s);
        return request.result;
    }
    // Lanes waiting with another mask may be complete now. (Where every lane
    // waiting asked with this lane's mask, none is.)
    if (!w.uniform) {
        for (std::uint32_t waiting = w.arrived & ~(1u << lane); waiting; waiting &= waiting - 1) {
            unsigned l = static_cast<unsigned>(__builtin_ctz(waiting));
            if ((w.arrived >> l & 1u) && w.request[l].mask != request.mask) try_complete_group(block, w, l, s);
        }
        if (!(w.arrived >> lane & 1u)) return request.result;
    }
    s->state = fiber_state::at_warp;
    if (fiber_slot* next = take_next_to_run(block))
        hand_on(s, next);
    else
        yield_to_scheduler(s);
    tls_thread_idx = s->thread_idx;
    return request.result;
}

void kernel_cannot_go_on(const char* headline, const char* what, const char* hint,
                         const char* on_a_gpu, const char* file, int line) {
    using namespace detail;
    fiber_slot* s = refusing_slot(cudaErrorLaunchFailure, headline, what, hint, on_a_gpu, file, line);
    s->state = fiber_state::refused;
    yield_to_scheduler(s);
    // The block loop reports the launch and discards this fiber (unwinding
    // it from here); it never resumes it.
    std::abort();
}

unsigned warp_active_mask() {
    using namespace detail;
    fiber_slot* s = tls_slot;
    if (!s) return 0;
    note_current_thread(s);
    // Every lane the warp has: which lanes have exited depends on the order
    // the emulator runs them in, and it has no notion of divergence.
    const unsigned first = s->linear & ~31u, lanes = s->block->cursor.count - first;
    return lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
}

// ---- barriers ---------------------------------------------------------------------
__attribute__((section("cuemu_access_hooks"))) void detail::warp_lockstep_point() {
    using namespace detail;
    fiber_slot* s = tls_slot;
    if (!s) return;
    if (__builtin_expect(tls_in_split_block, 0)) split_block_cannot_wait(nullptr, 0);  // a volatile access
    // From here to the return the thread is in the emulator's code: the
    // watchdog takes no look at its registers and does not stop it here;
    // the block's loop stops it, naming the kernel's line that made the
    // access (the caller is an access hook).
    s->in_lockstep_wait = true;
    s->fault_pc = kernel_pc_of(__builtin_return_address(0));
    note_current_thread(s);  // brings the block's cursor up to date
    // When no other thread of the block can run before this one goes on
    // (none ready, none left to start, none waiting at a volatile access),
    // waiting would change nothing: a lone thread polling a volatile flag
    // keeps its pace, and the watchdog sees its own loop's registers.
    const block_state& block = *s->block;
    if (block.next_ready < block.ready->size() || block.cursor.next < block.cursor.count ||
        !block.at_lockstep->empty()) {
        s->state = fiber_state::at_lockstep;
        yield_to_scheduler(s);
        tls_thread_idx = s->thread_idx;
    }
    s->fault_pc = nullptr;
    s->in_lockstep_wait = false;
}

int block_barrier(int predicate, const char* file, int line) {
    using namespace detail;
    fiber_slot* s = tls_slot;
    if (!s) {
        std::fflush(stdout);  // the program's own output before the report (abort drops it)
        std::fprintf(stderr, "cuemu: __syncthreads() (%s:%d) called outside a kernel\n", file, line);
        std::abort();
    }
    if (__builtin_expect(tls_in_split_block, 0)) split_block_cannot_wait(file, line);
    note_current_thread(s);
    s->state = fiber_state::at_barrier;
    s->barrier_file = file;
    s->barrier_line = line;
    file_at_barrier(*s->block, s, predicate != 0);
    if (!hand_on_at_barrier(s)) yield_to_scheduler(s);
    // Resumed by the block's loop or by the fiber before it in the queue, on
    // the same OS thread: restore this thread's index (another fiber ran in
    // between).
    tls_thread_idx = s->thread_idx;
    return s->block->released_count;
}


// ---- multi-warp tiles ----------------------------------------------------------------
void tile_barrier(unsigned size, const char* call, const char* file, int line) {
    using namespace detail;
    fiber_slot* s = tls_slot;
    if (!s) {
        std::fflush(stdout);  // the program's own output before the report (abort drops it)
        std::fprintf(stderr, "cuemu: thread_block_tile<%u>::%s (%s:%d) called outside a kernel\n", size, call,
                     file, line);
        std::abort();
    }
    if (__builtin_expect(tls_in_split_block, 0)) split_block_cannot_wait(file, line);
    note_current_thread(s);
    block_state& block = *s->block;
    const unsigned first = s->linear & ~(size - 1);
    // The tile's threads the block has: all of them, or fewer when the block
    // ends in its last warp (multi_warp_tile_made let no tile lack more).
    const unsigned present = std::min(size, block.cursor.count - first);
    std::vector<fiber_slot*>& waiting = block.tiles[tile_wait_index(size, s->linear)].waiting;
    if (waiting.size() + 1 < present) {
        s->state = fiber_state::at_tile;
        s->barrier_file = file;
        s->barrier_line = line;
        s->tile_call = call;
        s->tile_size = size;
        waiting.push_back(s);
        ++block.tile_waiters;
        if (fiber_slot* next = take_next_to_run(block))
            hand_on(s, next);
        else
            yield_to_scheduler(s);
        tls_thread_idx = s->thread_idx;
        return;
    }
    // The last of the tile: the others go on in threadIdx order (or as
    // CUEMU_SCHEDULE says), after this one, which carries on.
    std::sort(waiting.begin(), waiting.end(),
              [](const fiber_slot* a, const fiber_slot* b) { return a->linear < b->linear; });
    const schedule_setting schedule = block.job->schedule;
    if (schedule.kind == schedule_kind::reverse) std::reverse(waiting.begin(), waiting.end());
    if (schedule.kind == schedule_kind::shuffle)
        shuffle_with(waiting, mix(schedule.seed ^ mix(tls_linear_block) ^ mix(block.cursor.next + s->linear)));
    std::vector<fiber_slot*>& ready = *block.ready;
    if (block.next_ready == ready.size()) {
        ready.clear();
        block.next_ready = 0;
    }
    ready.insert(ready.end(), waiting.begin(), waiting.end());
    block.tile_waiters -= static_cast<unsigned>(waiting.size());
    waiting.clear();
    race_tile_synchronized(first / 32, size / 32);
    count_progress();
}

// On a GPU a multi-warp tile's barrier waits for one arrival per warp of the
// tile. The lanes a block's last warp lacks do not matter (a warp's own
// barrier counts them as arrived), but a warp the block does not have never
// arrives: every call of the tile, its creation included, waits for ever
// (measured on an H200, CUDA 13.0: a block of 96 threads hung in
// tiled_partition<64>, one of 100 ran every call of its tile of 36 threads).
void multi_warp_tile_made(unsigned size, const char* file, int line) {
    using namespace detail;
    detail::race_multi_warp_tile_made();
    fiber_slot* s = tls_slot;
    if (!s) return;
    note_current_thread(s);  // brings s->linear up to date
    const unsigned count = s->block->cursor.count, first = s->linear & ~(size - 1);
    if (count > first + size - 32) return;  // every warp of the tile is there
    const unsigned block_warps = (count + 31) / 32, first_warp = first / 32, last_warp = (first + size) / 32 - 1;
    // In a buffer, not a std::string: stop_kernel_with copies it and leaves
    // this frame by a jump, which would leak a string's memory.
    char has[40], missing[40], what[400];
    const auto warps = [](char* buf, unsigned from, unsigned to) {
        if (from == to)
            std::snprintf(buf, 40, "warp %u", from);
        else
            std::snprintf(buf, 40, "warps %u to %u", from, to);
    };
    warps(has, 0, block_warps - 1);
    warps(missing, block_warps, last_warp);
    std::snprintf(what, sizeof what,
                  "  the block has %u threads (%s), so its thread_block_tile<%u> of thread ranks %u to %u\n"
                  "  (warps %u to %u) lacks %s entirely",
                  count, has, size, first, first + size - 1, first_warp, last_warp, missing);
    stop_kernel_with(cudaErrorLaunchFailure, "a multi-warp tile with whole warps past the end of the block", what,
                     "make the block's size a multiple of the tile's, or give the block every warp of\n"
                     "        its last tile: a tile may lack lanes of its last warp, never a whole warp",
                     "the tile's barrier waits for an arrival from each of its warps, and a warp the\n"
                     "  block does not have never arrives: the kernel hangs (an H200 hung already in\n"
                     "  tiled_partition)",
                     file, line);
}

std::uint64_t* tile_exchange_words() {
    detail::fiber_slot* s = detail::tls_slot;
    return s ? s->block->tile_words : nullptr;
}

}  // namespace cuemu
