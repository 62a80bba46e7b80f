// profiler.h - the profiler (CUEMU_PROFILE=FILE.csv) as the rest of the
// emulator sees it: the scheduler tells it where launches and blocks begin
// and end, the instrumentation hooks hand it every access of a kernel run
// for profiling. docs/profiler.md says what it counts and how.
//
// A launch is profiled when CUEMU_PROFILE is set: it then runs the kernel's
// instrumented body (every load and store calls a hook, and the flop plugin's
// calls count arithmetic) instead of its uninstrumented twin (cuemu/launch.h).
#ifndef CUEMU_PROFILER_H
#define CUEMU_PROFILER_H

#include <cstddef>
#include <cstdint>

namespace cuemu {
struct launch_site;
struct launch_config;
// builtins.h's atomics call it for a profiled kernel (one atomic instruction).
void profile_atomic(const void* address, std::size_t size);
}  // namespace cuemu

namespace cuemu::detail {

// Whether CUEMU_PROFILE is set (read once; a bad value or an unknown CUEMU_GPU
// ends the program with one line and exit code 2 at the first launch).
bool profiling_requested();

// Set on a worker while it runs a block of a profiled launch; read by every
// instrumentation hook first.
extern __thread bool tls_profiling;

// ---- the scheduler's side ---------------------------------------------------------
// Around a launch, on the device thread (block_loop.cpp: run_launch).
void profile_launch_begin(const launch_site& site, const launch_config& config);
void profile_launch_end();
// A block starts on this worker (the previous one, if any, has finished).
void profile_block_begin(const void* dynamic_shared, std::size_t dynamic_bytes);
// The worker has no block left to run in this launch.
void profile_worker_idle();
// The program exits: closes the files (queue.cpp, after the queued work is done).
void profile_finish();

// ---- the instrumentation's side -----------------------------------------------------
enum class profile_op : unsigned char { load, store, atomic };
// A load, store or atomic of `size` bytes at addr by the running CUDA thread;
// pc identifies the instruction (the hook call's return address).
void profile_access(const void* addr, std::size_t size, profile_op op, const void* pc);

}  // namespace cuemu::detail

#endif
