// block_state.h - a worker's fibers and the block they run (the CUDA threads'
// slots, warps, the block's queues), shared by the scheduler (scheduler.cpp,
// block_loop.cpp) and the code it calls only when something goes wrong: the fault handler
// (fault_handler.cpp), the report of a block that cannot go on
// (stuck_block_report.cpp) and the launch checks (launch_checks.cpp). The hot
// paths (running threads, barriers, warp groups) stay in scheduler.cpp, where
// the compiler can inline them into one another.
#ifndef CUEMU_BLOCK_STATE_H
#define CUEMU_BLOCK_STATE_H

#include <setjmp.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cuemu/builtins.h"
#include "cuemu/runtime.h"
#include "cuemu/thread_loop.h"
#include "fiber_context.h"
#include "fiber_switch.h"
#include "launch_job.h"

namespace cuemu::detail {

struct fiber_slot;

// What a lane asked of a warp function, and what it gets back.
struct warp_request {
    int op = 0;  // a cuemu::warp_op
    std::uint32_t mask = 0;
    std::uint64_t value = 0;
    int param = 0;  // source lane, delta or lane mask
    int width = 32;
    const char* file = "";
    int line = 0;
    std::uint64_t result = 0;
};

// One warp's meeting point for warp functions. Lanes are bits: bit i is lane i.
// The lanes' requests lie side by side here, not in their fiber slots, so that
// the lane completing a group reads and writes one small array instead of 32
// slots scattered over the worker's memory.
struct warp_state {
    std::uint32_t arrived = 0;  // lanes suspended in a warp function
    std::uint32_t gone = 0;     // lanes that have exited, or that the warp lacks
    // True while every arrived lane asked with the same mask, function,
    // parameter and width (the usual case: the whole warp at one call). Then
    // one group holds them all, and a lane whose group is not complete needs
    // no look at the others' (scheduler.cpp: warp_collective).
    bool uniform = true;
    fiber_slot* lane[32];        // who is waiting, for each arrived lane
    warp_request request[32];    // what each arrived lane asked, and its answer
};

// The threads waiting in a call of one multi-warp tile (thread_block_tile<64>
// to <1024>: sync() and the collectives built on it; scheduler.cpp:
// tile_barrier). A block has 16 tiles of 64 threads at most, 8 of 128 ... 1
// of 1024: 31 in all, numbered by tile_wait_index.
struct tile_wait {
    std::vector<fiber_slot*> waiting;
};
constexpr unsigned tile_wait_count = 31;
// The tile of `size` threads (64 ... 1024) that holds thread `linear`.
inline unsigned tile_wait_index(unsigned size, unsigned linear) {
    const unsigned size_class = static_cast<unsigned>(__builtin_ctz(size)) - 6;  // 64: 0 ... 1024: 4
    return 32 - (32 >> size_class) + linear / size;
}

struct block_state {
    launch_job* job;
    // Threads started and finished, the next one's index in forward order
    // (shared with the launch's loop over threads, thread_loop.h).
    thread_cursor& cursor;  // this worker's tls_thread_cursor
    dim3 dim;
    const unsigned* start_order;  // other orders: linear index of each start
    warp_state* warps;
    std::vector<fiber_slot*>* ready;  // to resume, in this order (worker_state::ready)
    std::vector<fiber_slot*>* at_barrier;  // worker_state::at_barrier
    std::vector<fiber_slot*>* at_lockstep;  // worker_state::lockstep
    std::vector<fiber_slot*>* idle;         // worker_state::idle
    std::size_t next_ready = 0;            // ready[next_ready] is the next to resume
    // Blocks chain_next .. chain_end - 1 of the worker's chunk: a fiber whose
    // block has finished goes on with the next of them itself
    // (go_on_with_next_block); empty for other orders and cooperative launches.
    std::uint64_t chain_next = 0, chain_end = 0;
    // The block's scheduling loop (run_block_threads), while a fiber runs.
    fiber_context loop = nullptr;
    // The threads waiting at __syncthreads so far (scheduler.cpp: file_at_barrier):
    int barrier_count = 0;           // how many with a nonzero predicate
    bool barriers_differ = false;    // one waits at another line than the first
    bool arrivals_unsorted = false;  // they did not arrive in threadIdx order
    int released_count = 0;  // barrier_count of the barrier released last
    // The threads waiting in multi-warp tile calls (worker_state::tiles), and
    // how many there are (0 in nearly every block: nothing to look at).
    tile_wait* tiles = nullptr;
    unsigned tile_waiters = 0;
    std::uint64_t* tile_words = nullptr;  // worker_state::tile_words
};

// refused: the kernel called something the emulator cannot do (grid.sync()
// without a cooperative launch); the fiber is never resumed.
// at_lockstep: at a volatile access (shared or global memory), waiting for
// the other lanes (warp_lockstep_point).
// at_tile: in a call of a multi-warp tile (tile_wait), waiting for the
// tile's other threads.
enum class fiber_state { idle, at_barrier, at_warp, at_tile, at_lockstep, faulted, threw, timed_out, refused };

struct alignas(64) fiber_slot {  // its hot fields in one cache line (scheduler_shared.h: take_queued)
    fiber_context context = nullptr;  // this CUDA thread, while suspended
    fiber_state state = fiber_state::idle;
    block_state* block = nullptr;
    uint3 thread_idx{0, 0, 0};
    unsigned linear = 0;  // thread index within the block, x fastest
    // where it waits at __syncthreads (or in a multi-warp tile's call)
    const char* barrier_file = "";
    int barrier_line = 0;
    sigjmp_buf fault_jump;
    // what the fault handler saw
    int signal_number = 0;
    const void* fault_address = nullptr;
    const void* fault_pc = nullptr;
    int fault_is_write = -1;
    const char* stack_low = nullptr;  // guard page .. top of this fiber's stack
    const char* stack_high = nullptr;
    std::string exception_text;
    // what kernel_cannot_go_on was told (string literals of the caller)
    const char* refusal_headline = "";
    const char* refusal_what = "";
    const char* refusal_hint = "";
    const char* refusal_on_a_gpu = "";
    const char* refusal_file = "";
    int refusal_line = 0;
    cudaError_t refusal_error = cudaErrorLaunchFailure;  // a failed device-side assert: cudaErrorAssert
    std::string refusal_text;  // stop_kernel_with's `what`, kept here (its caller's frame is gone)
    // The multi-warp tile call it waits in (at_tile): "sync()", "shfl()" ...
    const char* tile_call = "";
    unsigned tile_size = 0;
    // For AddressSanitizer's fiber annotations (fiber_switch.h).
    stack_span own_stack, scheduler_stack;
    // Inside warp_lockstep_point (for the watchdog: see there).
    bool in_lockstep_wait = false;
    void* fake_stack = nullptr;
    fiber_stack stack;  // freed by discard_all_fibers
};

// Dynamic shared memory is 256-byte aligned; aligned_alloc memory goes back
// through free (an aligned new[] freed by plain delete[] is undefined).
struct free_deleter {
    void operator()(unsigned char* p) const { std::free(p); }
};

struct worker_state {
    std::vector<std::unique_ptr<fiber_slot>> slots;  // every fiber this worker made
    std::vector<fiber_slot*> idle;                   // ready to take a new thread
    std::vector<fiber_slot*> at_barrier;             // suspended at __syncthreads
    std::vector<fiber_slot*> ready;                  // to resume, in this order
    std::vector<fiber_slot*> lockstep;               // at a volatile access
    std::vector<unsigned> start_order;               // for reverse and shuffle
    warp_state warps[32];                            // 1024 threads at most
    tile_wait tiles[tile_wait_count];                // multi-warp tiles' waits
    // What each thread of the block hands its multi-warp tile in a shuffle,
    // vote or reduce, by thread rank (cuemu::tile_exchange_words).
    std::uint64_t tile_words[1024];
    std::unique_ptr<unsigned char[], free_deleter> shared;  // dynamic shared memory
    std::size_t shared_capacity = 0;
};

// The thread index of a linear one, x fastest.
inline uint3 unflatten(std::uint64_t linear, dim3 d) {
    return uint3{static_cast<unsigned>(linear % d.x),
                 static_cast<unsigned>(linear / d.x % d.y),
                 static_cast<unsigned>(linear / (std::uint64_t(d.x) * d.y))};
}

// Two threads wait at the same __syncthreads(): the same line of the same
// file. The file names are usually the same pointer (one string literal), so
// the string compare is rarely needed.
inline bool same_barrier(const fiber_slot* a, const fiber_slot* b) {
    return a->barrier_line == b->barrier_line &&
           (a->barrier_file == b->barrier_file || std::strcmp(a->barrier_file, b->barrier_file) == 0);
}

// The worker's current CUDA thread, block and launch (scheduler.cpp defines them).
extern __thread fiber_slot* tls_slot;  // the CUDA thread running now
extern __thread launch_job* tls_job;  // the launch this worker runs, for the watchdog
extern __thread bool tls_is_worker;   // a worker of the pool (for the fault handler)
extern __thread std::uint64_t tls_linear_block;  // the block this worker runs, numbered in launch order
// The register fingerprint of the CUDA thread the watchdog's signal last
// interrupted on this worker (watchdog.h); written by the signal handler.
extern __thread std::atomic<std::uint64_t>* tls_fingerprint;
extern __thread std::atomic<std::uint64_t>* tls_answered;  // looks answered, ever

// The launch's loop sets only threadIdx for each thread it starts; the slot
// learns which thread it runs when that matters: where the thread suspends,
// faults, throws or is stopped.
inline void note_thread_index(fiber_slot* s) {
    const uint3 idx = tls_thread_idx;
    const dim3 d = s->block->dim;
    s->thread_idx = idx;
    s->linear = idx.x + d.x * (idx.y + d.y * idx.z);
}

// ---- scheduler.cpp, for the code it calls when something goes wrong ------------------
// note_current_thread (scheduler.cpp) for the callers in other files, all
// cold; the hot callers keep the inline one, next to what it inlines.
void note_current_thread_out_of_line(fiber_slot* s);
// Destroys the worker's fibers, unwinding those suspended mid-kernel.
void discard_all_fibers(worker_state& w);

// ---- the fault handler (fault_handler.cpp) ------------------------------------------
// Keeps a failure's report if it is the one the launch will print.
void keep_report(launch_job& job, bool stops, std::function<cudaError_t()> report);
// Keeps the report of a fault (or the watchdog's timeout) in the CUDA thread s.
void report_and_fail(launch_job& job, fiber_slot& s);
// For a fiber that left the fault handler by siglongjmp.
void unblock_watchdog_signal();

// ---- reporting a block that cannot go on (stuck_block_report.cpp) ----------------------
std::string xyz(uint3 v);  // "(3,0,0)"
// One report per launch; discards the worker's fibers.
void report_block_problem(worker_state& w, launch_job& job, const std::string& headline,
                          const std::string& body, const char* hint, const char* on_a_gpu,
                          cudaError_t error = cudaErrorLaunchFailure);
// The running CUDA thread, told why the launch must stop (see kernel_cannot_go_on).
fiber_slot* refusing_slot(cudaError_t error, const char* headline, const char* what,
                          const char* hint, const char* on_a_gpu, const char* file, int line);
// What barrier_is_sound (block_loop.cpp) found wrong when every live thread
// of the block is suspended, reported (report_block_problem).
void report_warp_waits_for_barrier(worker_state& w, block_state& block, unsigned warp);
void report_barrier_after_exit(worker_state& w, block_state& block);
void report_different_barriers(worker_state& w, block_state& block, fiber_slot* first, fiber_slot* b);
// Threads wait in a multi-warp tile's call that a thread of the tile has not
// reached and cannot reach: it exited, or waits elsewhere (block_loop.cpp finds
// them when no thread of the block can run).
void report_tile_call_not_reached(worker_state& w, block_state& block);

}  // namespace cuemu::detail

#endif
