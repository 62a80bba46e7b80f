// launch_job.h - what the scheduler (block_loop.cpp, scheduler.cpp) and the worker pool
// (worker_pool.cpp) share: a launch as the workers see it, and the calls
// each makes on the other. The pool owns the worker threads (how many, where
// they run, waking them and waiting for them, the watchdog's looks); the
// scheduler owns what a worker does with a launch (blocks, fibers, barriers).
#ifndef CUEMU_LAUNCH_JOB_H
#define CUEMU_LAUNCH_JOB_H

#include <atomic>
#include <csignal>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>

#include "cuemu/launch.h"
#include "cuemu/runtime.h"

namespace cuemu::detail {

// The emulator's own signal for the watchdog: it interrupts a worker whose
// kernel has run too long (see worker_pool::run). A real-time signal, so it
// cannot be confused with anything the system sends.
inline int watchdog_signal() { return SIGRTMIN + 7; }

// How threads are ordered when they start and when they leave a barrier
// (CUEMU_SCHEDULE). forward is threadIdx order; the others exist to expose
// races that forward order happens to hide.
enum class schedule_kind { forward, reverse, shuffle };
struct schedule_setting {
    schedule_kind kind = schedule_kind::forward;
    std::uint64_t seed = 0;
};

struct child_grids;  // dynamic_parallelism.h

struct launch_job {
    const launch_site* site;
    const launch_config* config;
    void (*run_thread)(void*);
    void* ctx;
    std::uint64_t total_blocks;
    schedule_setting schedule;
    double watchdog_seconds = 0;
    // Blocks are handed out `chunk` at a time (one for a cooperative launch,
    // whose blocks must all run at once); the counter every worker takes them
    // from has a cache line of its own.
    std::uint64_t chunk = 1;
    alignas(64) std::atomic<std::uint64_t> next_block{0};
    char next_block_line_end[64 - sizeof(std::atomic<std::uint64_t>)];
    std::atomic<bool> timed_out{false};  // set by the watchdog
    bool timed_out_busy = false;  // ... at its long limit, with registers still changing (watchdog.h)
    double seconds_without_progress = 0;
    std::atomic<unsigned long long> fault_count{0};  // CUEMU_ON_FAULT=continue
    // Blocks numbered above this one are not started: report_block once a
    // report that stops the launch is kept, mirrored here so that workers
    // can read it between blocks without the lock.
    std::atomic<std::uint64_t> lowest_failed_block{std::numeric_limits<std::uint64_t>::max()};
    std::mutex report_mutex;
    // The one report of the launch, printed when it ends (keep_report). Guarded
    // by report_mutex, as is error.
    std::function<cudaError_t()> report;
    std::uint64_t report_block = std::numeric_limits<std::uint64_t>::max();
    bool report_stops = false;  // a fault that stops the launch, not one it goes on after
    cudaError_t error = cudaSuccess;
    // Kernels launched from kernels (dynamic_parallelism.cpp): how deep this
    // grid is (a host launch: 0), and the grids its threads launched, run
    // when its blocks are done. Guarded by children_mutex.
    int depth = 0;
    std::mutex children_mutex;
    std::shared_ptr<child_grids> children;
};

// ---- the scheduler, for the pool (block_loop.cpp) -----------------------------------
// One worker thread's fibers and scratch space, kept from launch to launch.
struct pool_worker;
struct pool_worker_deleter {
    void operator()(pool_worker* w) const;  // discards the worker's fibers
};
using pool_worker_ptr = std::unique_ptr<pool_worker, pool_worker_deleter>;

// Makes the calling thread a worker: its progress counters (read by the
// watchdog from another thread) and its fibers' home.
pool_worker_ptr become_pool_worker(std::atomic<std::uint64_t>* finished,
                                   std::atomic<std::uint64_t>* fingerprint,
                                   std::atomic<std::uint64_t>* answered);
// Runs blocks of the launch until none is left to take (or it stops).
void work_on_launch(pool_worker& worker, launch_job& job);
bool on_worker_thread();

// ---- the pool, for the scheduler (worker_pool.cpp) ----------------------------------
// Runs the launch on the workers and returns when it is over (the watchdog
// may end it). Sets job.schedule and job.watchdog_seconds from the environment.
void run_on_workers(launch_job& job);

}  // namespace cuemu::detail

#endif
