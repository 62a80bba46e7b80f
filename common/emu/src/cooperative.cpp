// cooperative.cpp - cooperative launches (cudaLaunchCooperativeKernel) and
// the grid-wide barrier this_grid().sync() waits at; also the launch calls
// that return their own error (cudaLaunchKernel).
//
// A grid barrier needs every block of the grid running at once. The device
// holds multiProcessorCount x maxBlocksPerMultiProcessor blocks at once (one
// per worker thread), so a cooperative launch of more blocks is refused with
// cudaErrorCooperativeLaunchTooLarge, as on a GPU; with no more blocks than
// workers, every block gets a worker of its own, because a worker waiting at
// the barrier takes no further block. The first thread of each block waits
// for the other blocks (its block's other threads wait for it at a
// __syncthreads, cooperative_groups.h). A block that ends while others wait
// at the barrier would hang a GPU; here the waiting blocks stop with a report.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "cuemu/runtime.h"
#include "cuemu/runtime_extra.h"
#include "graph_internal.h"
#include "internal.h"

namespace cuemu::detail {
namespace {

// Atomics only, no lock: the watchdog's signal may leave a waiting thread's
// frame at any point, and must not leave a lock held behind it.
struct grid_barrier {
    std::atomic<bool> cooperative{false};  // the running launch is a cooperative one
    std::atomic<std::uint64_t> total_blocks{0};
    std::atomic<std::uint64_t> arrived{0};     // blocks waiting at the barrier now
    std::atomic<std::uint64_t> finished{0};    // blocks that have ended
    std::atomic<std::uint64_t> generation{0};  // barriers passed so far
    std::atomic<bool> failed{false};           // a block stopped with an error
};
grid_barrier& barrier() {
    static grid_barrier instance;
    return instance;
}

}  // namespace

// Called on the device thread before the workers start and after they are done.
void cooperative_launch_begin(const launch_config& config, std::uint64_t total_blocks) {
    grid_barrier& b = barrier();
    b.total_blocks = total_blocks;
    b.arrived = 0;
    b.finished = 0;
    b.failed = false;
    b.cooperative = config.cooperative;
}

void cooperative_launch_end() { barrier().cooperative = false; }

void cooperative_block_finished(bool failed) {
    grid_barrier& b = barrier();
    if (!b.cooperative) return;
    if (failed) b.failed = true;
    ++b.finished;
}

}  // namespace cuemu::detail

using namespace cuemu::detail;

bool cuemu::grid_is_cooperative() { return barrier().cooperative; }

// The last block to arrive opens the barrier (arrived is reset before the
// generation moves on, so a block that sees the new generation and arrives
// at the next barrier counts from zero). A block that ended without arriving
// can never arrive: once every block has either arrived or ended, the
// waiters know the barrier will not open.
cuemu::grid_wait cuemu::grid_barrier_wait() {
    grid_barrier& b = barrier();
    if (b.failed) return grid_wait::launch_failed;
    const std::uint64_t generation = b.generation;
    const std::uint64_t arrived = ++b.arrived;
    if (arrived + b.finished == b.total_blocks && b.finished == 0) {
        b.arrived = 0;
        ++b.generation;
        return grid_wait::passed;
    }
    for (;;) {
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        if (b.generation != generation) return grid_wait::passed;
        if (b.failed) return grid_wait::launch_failed;
        if (b.arrived + b.finished == b.total_blocks) return grid_wait::blocks_ended;
    }
}

cudaError_t cuemu::enqueue_launch_returning(const launch_site& site, const launch_config& config,
                                            void (*run_thread)(void*), void* ctx,
                                            void (*destroy)(void*)) {
    auto refuse = [&](cudaError_t e) {
        destroy(ctx);
        (void)hold_pointer_aliases();  // let go of its screened arguments' windows at once
        last_error_was_read();  // the caller gets the error: no note is due
        return record(e);
    };
    if (cudaError_t e = context_status()) {
        destroy(ctx);
        (void)hold_pointer_aliases();
        return e;
    }
    if (cudaError_t e = check_launch(site, config)) return refuse(e);
    if (!is_stream_of_current_device(config.stream)) return refuse(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = capture_check_stream_work(config.stream)) return refuse(e);
    if (config.cooperative) {
        cudaDeviceProp p;
        if (cudaError_t e = cudaGetDeviceProperties(&p, 0)) return refuse(e);
        const std::uint64_t blocks =
            std::uint64_t(config.grid.x) * config.grid.y * std::uint64_t(config.grid.z);
        const std::uint64_t at_once =
            std::uint64_t(p.multiProcessorCount) * std::uint64_t(p.maxBlocksPerMultiProcessor);
        if (blocks > at_once) return refuse(cudaErrorCooperativeLaunchTooLarge);
    }
    enqueue_launch(site, config, run_thread, ctx, destroy);
    return cudaSuccess;
}
