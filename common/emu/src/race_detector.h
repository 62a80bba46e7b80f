// race_detector.h - what the scheduler tells the shared-memory race detector
// (race_detector.cpp), and what the compiler's instrumentation hooks
// (tsan_hooks.cpp) call.
//
// Kernel translation units are compiled with GCC's ThreadSanitizer
// instrumentation but linked without its runtime: every load and store the
// kernel makes calls one of the __tsan_* hooks in tsan_hooks.cpp. Those keep
// only accesses to the running block's shared memory. They are used twice:
//   - a volatile access to shared memory is a point where the lanes of a warp
//     wait for each other (legacy warp-synchronous code runs as it did on the
//     GPUs it was written for), always; so is one to global memory
//     (volatile_global.cpp);
//   - under the race check (on by default in a program with a source that
//     uses __shared__, off with CUEMU_CHECK=none, on for every kernel with
//     CUEMU_CHECK=race) every shared access is checked against the last ones
//     to the same word since the block's last barrier.
#ifndef CUEMU_RACE_DETECTOR_H
#define CUEMU_RACE_DETECTOR_H

#include <cstddef>
#include <cstdint>

#include "cuemu/types.h"

namespace cuemu::detail {

// ---- the scheduler's side (scheduler.cpp and block_loop.cpp call these) -----------
// A block starts on this worker: its shared memory is the worker's copy of the
// __shared__ variables plus dynamic_bytes at dynamic_shared. left_out: the
// block runs an uninstrumented twin because the check leaves it out
// (race_check_of_launch, race_detector.cpp): nothing of the block is looked at.
void race_block_begin(const void* dynamic_shared, std::size_t dynamic_bytes, bool left_out = false);
// Whether a launch whose blocks the check samples looks at this block.
bool race_samples_block(std::uint64_t linear_block, dim3 grid);
// The worker has no block to run any more (end of its part of a launch).
void race_worker_idle();
// Every thread of the block left the __syncthreads() at file:line.
void race_barrier_released(const char* file, int line);
// A warp function (__syncwarp, a shuffle, a vote ...) completed in warp `warp`.
void race_warp_synchronized(unsigned warp);
// Every thread of a multi-warp tile (cooperative groups' thread_block_tile<64>
// to <1024>), warps first_warp .. first_warp + warps - 1, left one of its
// calls: what each did before is ordered before what any does after.
void race_tile_synchronized(unsigned first_warp, unsigned warps);
// The block made a multi-warp tile (see race_shadow.h: tiles_made).
void race_multi_warp_tile_made();
// The running CUDA thread waits until no other thread of its block can run
// (each runs to its next barrier, warp function, volatile shared access or
// end), so the lanes of a warp take their volatile shared accesses in step
// (scheduler.cpp). In the hooks' section: a watchdog signal that lands in it
// before it has marked the thread as waiting (its first lines) names the
// kernel's line that called the hook, not this function's.
__attribute__((section("cuemu_access_hooks"))) void warp_lockstep_point();

// ---- the instrumentation's side (tsan_hooks.cpp calls these) ----------------------
// What a worker does with an access: nothing (host code, or a build without
// instrumentation), lockstep for volatile accesses only, or that plus the
// race check. Read by every hook first, so it is a plain thread-local.
enum access_watch : unsigned char { watch_nothing = 0, watch_volatile = 1, watch_races = 2 };
extern __thread unsigned char tls_access_watch;

// A load or store of `size` bytes at addr by the running CUDA thread; pc is
// the instruction after the access (for its source line).
__attribute__((section("cuemu_access_hooks"))) void shared_access(
    const void* addr, std::size_t size, bool is_write, bool is_volatile, const void* pc);
// A volatile access outside the block's shared memory (volatile_global.cpp):
// a lockstep point too, unless it is on the thread's own stack. Under
// CUEMU_CHECK=race, clock says when it happened (the race check's block,
// barrier interval and warp functions), for the note on warp-synchronous code;
// nullptr otherwise.
struct volatile_race_clock {
    std::uint32_t generation, epoch, warp_sync;
    std::uint16_t thread;  // linear index in the block
};
// The note, once per program, on legacy warp-synchronous code: lanes a and b
// of one warp met on a volatile word of `space` ("global" or "shared") with no
// warp function between them; the program goes on (volatile_global.cpp).
void note_warp_synchronous(const char* space, unsigned thread_a, bool a_writes, const void* pc_a,
                           unsigned thread_b, bool b_writes, const void* pc_b, std::uintptr_t address);
__attribute__((section("cuemu_access_hooks"))) void volatile_access_outside_shared(
    const void* addr, bool is_write, const void* pc, const volatile_race_clock* clock);
// An interrupted instruction's address, or, when it lies in the hooks, the
// kernel's call of the hook (for the watchdog's report of where a kernel spun).
const void* kernel_pc_of(const void* pc);

// Whether the program was built with the instrumentation at all (a kernel
// translation unit called __tsan_init); false in the AddressSanitizer build.
bool race_instrumented();
// __tsan_init, called by each instrumented translation unit as it starts.
void note_instrumented();

}  // namespace cuemu::detail

#endif
