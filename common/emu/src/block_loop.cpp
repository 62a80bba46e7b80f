// block_loop.cpp - a worker's blocks, and a launch's: the block's scheduling
// loop (run_block_threads: starts threads on fibers, resumes the ones that
// may go on, releases barriers, checks that a barrier is a proper one), where
// a worker's fibers come from (acquire_slot), the worker's chunks of blocks,
// and run_launch, which hands a launch to the worker pool (worker_pool.cpp).
// What a CUDA thread does inside a block (its fiber, barriers, warp
// functions) is scheduler.cpp; what the two share is in scheduler_shared.h.
//
// A failing launch reports the first failing block in launch order, whatever
// the number of workers: blocks are handed out in order, blocks after a failed
// one are not started, blocks before it (already started) run on, and the
// report of the lowest-numbered failed block is printed when the launch ends.
// So the same program gives the same report on 2 cores and on 64.
//
// The block loop also finds what a GPU would hang on or silently get wrong
// (barrier_is_sound; stuck_block_report.cpp says what it was): a __syncthreads
// that some threads skip (they exited, or wait at another __syncthreads),
// warp lanes waiting for lanes held at a block barrier, and a tile's call
// that a thread of the tile never reaches.
// A watchdog (CUEMU_WATCHDOG_SECONDS) interrupts a kernel that never finishes.
#include <algorithm>
#include <atomic>
#include <cstdint>
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
#include "dynamic_parallelism.h"
#include "fiber_context.h"
#include "fiber_switch.h"
#include "internal.h"
#include "launch_job.h"
#include "race_detector.h"
#include "scheduler_shared.h"
#include "../profiler/profiler.h"

namespace cuemu::detail {

namespace {
// Each CUDA thread's stack. Large enough for printf and modest local arrays;
// a guard page below it turns an overflow into a reported fault.
constexpr std::size_t fiber_stack_size = 256 * 1024;

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

}  // namespace

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

namespace {
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
// Runs a checked launch to the end, on the device thread (queue.cpp). Returns
// the error a fault inside the kernel gives (sticky), or cudaSuccess.
cudaError_t detail::run_launch(const launch_site& site, const launch_config& config,
                               void (*run_thread)(void*), void* ctx, int depth) {
    using namespace detail;
    launch_job job;
    job.depth = depth;
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
    // The grids its threads launched complete before it does (a faulted
    // grid's are dropped: the context is gone).
    if (job.error == cudaSuccess) return run_child_grids(job);
    return job.error;
}

}  // namespace cuemu
