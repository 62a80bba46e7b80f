// scheduler.cpp - a CUDA thread's paths through the emulator: each CUDA
// thread of a block a fiber on its worker (the worker's loop over its blocks
// is block_loop.cpp), __syncthreads as a switch back to the block's
// scheduling loop (or straight to the next thread the loop has queued:
// hand_on_at_barrier), warp functions, the lockstep of volatile accesses and
// multi-warp tiles' barriers. This file keeps every path a CUDA thread or a
// barrier takes, so that GCC inlines them into one another; what they share
// with the block loop is in scheduler_shared.h. What runs only when something
// goes wrong has files of its own: the fault handler (fault_handler.cpp), the
// reports of a block that cannot go on (stuck_block_report.cpp) and the launch
// checks (launch_checks.cpp). The types they share are in block_state.h.
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
#include <setjmp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
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
#include "scheduler_shared.h"
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
__thread std::atomic<std::uint64_t>* tls_progress = nullptr;  // scheduler_shared.h

namespace {
// The thread index after idx in x-fastest order. Counting up is much cheaper
// than dividing the linear index for every CUDA thread.
inline void advance(uint3& idx, const dim3& dim) {
    if (++idx.x < dim.x) return;
    idx.x = 0;
    if (++idx.y < dim.y) return;
    idx.y = 0;
    ++idx.z;
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

}  // namespace

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

namespace {
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

}  // namespace

// The loop's own call, when a finished thread breaks the run; a fiber of the
// block is running.
void record_run_of_current_block() { record_finished_run(*tls_slot->block); }

namespace {
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
inline fiber_slot* take_next_ready(block_state& block) {
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

// Called by a fiber whose block has no thread left to start. When every
// thread of it has finished (so no other fiber holds one), the fiber goes on
// with the next block of the worker's chunk itself, sparing the switch to the
// scheduler and back and its bookkeeping: a barrier-free block costs about
// as much as its threads. The scheduler's loop in run_block (block_loop.cpp)
// finds the new block in the same block_state when the fiber next suspends or
// finishes. The checks are the ones run_blocks and run_block make between blocks.
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

[[noreturn]] void run_fiber(fiber_slot* s);

}  // namespace

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

namespace {
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


void note_current_thread_out_of_line(fiber_slot* s) { note_current_thread(s); }

}  // namespace cuemu::detail

namespace cuemu {

bool in_device_code() { return detail::tls_slot != nullptr; }

namespace detail {
__thread bool tls_library_device_work = false;
}
bool in_device_branch() { return detail::tls_slot != nullptr || detail::tls_library_device_work; }

bool detail::inside_kernel() { return detail::tls_slot != nullptr; }


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
