// launch_checks.cpp - what a launch is refused before it is queued, as the
// real runtime refuses it: a configuration past the hardware's limits (the
// real ones) (a launch from a kernel too: dynamic_parallelism.cpp). Also the note the emulator
// prints about a refused launch the program never asked about.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "block_state.h"
#include "cuemu/launch.h"
#include "cuemu/runtime.h"
#include "internal.h"

namespace cuemu::detail {
namespace {
// The hardware limits a launch is checked against (the real ones).
constexpr unsigned max_threads_per_block = 1024;
constexpr unsigned max_block_dim[3] = {1024, 1024, 64};
constexpr unsigned max_grid_dim[3] = {2147483647u, 65535u, 65535u};

// The first limit a configuration breaks, in words, with the real runtime's
// error for it; cudaSuccess and "" when it is fine. CUDA 13's runtime answers
// every one of these with cudaErrorInvalidValue ("invalid argument"), not the
// cudaErrorInvalidConfiguration older runtimes gave: measured on an H200 with
// runtime 13.0 and driver 580 (tools/launch-limits.cu, docs/gpu-runs/2026-11-30-h200.md).
constexpr cudaError_t refused_configuration = cudaErrorInvalidValue;

cudaError_t check_configuration(const launch_config& c, std::string& why) {
    const unsigned block[3] = {c.block.x, c.block.y, c.block.z};
    const unsigned grid[3] = {c.grid.x, c.grid.y, c.grid.z};
    const char* axis[3] = {"x", "y", "z"};
    std::uint64_t threads = 1;
    for (int d = 0; d < 3; ++d) {
        if (block[d] == 0 || grid[d] == 0) {
            why = std::string(block[d] == 0 ? "block" : "grid") + " size " + axis[d] +
                  " is 0: a launch needs at least one block of at least one thread";
            return refused_configuration;
        }
        if (block[d] > max_block_dim[d]) {
            why = "block size " + std::string(axis[d]) + " is " + std::to_string(block[d]) +
                  ", the limit is " + std::to_string(max_block_dim[d]);
            return refused_configuration;
        }
        if (grid[d] > max_grid_dim[d]) {
            why = "grid size " + std::string(axis[d]) + " is " + std::to_string(grid[d]) +
                  ", the limit is " + std::to_string(max_grid_dim[d]);
            return refused_configuration;
        }
        threads *= block[d];
    }
    if (threads > max_threads_per_block) {
        why = "a block of " + std::to_string(threads) + " threads, the limit is " +
              std::to_string(max_threads_per_block) + " per block";
        return refused_configuration;
    }
    const launch_limits limits = launch_limits_of(c.kernel);
    if (const int bound = limits.max_threads; threads > static_cast<std::uint64_t>(bound)) {
        why = "a block of " + std::to_string(threads) + " threads, and the kernel's __launch_bounds__ allows " +
              std::to_string(bound);
        return refused_configuration;
    }
    // A GPU adds the kernel's static __shared__ bytes to the dynamic request:
    // together at most 48 KiB, unless the kernel opted in with
    // cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...),
    // and then the dynamic part at most what it opted in to. Static bytes
    // cuemu-rewrite could not count are 0 here (kernel_registry.h).
    const std::size_t static_bytes = limits.static_bytes;
    if (static_bytes > shared_per_block) {
        why = "the kernel's " + std::to_string(static_bytes) +
              " bytes of static __shared__ memory, the limit is " + std::to_string(shared_per_block) +
              " (48 KiB; nvcc refuses to build it)";
        return refused_configuration;
    }
    const std::size_t limit = limits.dynamic_limit;
    if (c.shared_bytes > limit) {
        const bool default_limit = !limits.opted_in;
        why = std::to_string(c.shared_bytes) + " bytes of dynamic shared memory" +
              (static_bytes && default_limit
                   ? " beside the kernel's " + std::to_string(static_bytes) + " bytes of static __shared__ memory"
                   : "") +
              ", the limit is " +
              (default_limit ? std::to_string(shared_per_block) + (static_bytes ? " for both together" : "") +
                                   " (48 KiB; a kernel may opt in to up to 64 KiB with cudaFuncSetAttribute("
                                   "kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes))"
                             : std::to_string(limit) + " (what cudaFuncSetAttribute set for this kernel)");
        return refused_configuration;
    }
    return cudaSuccess;
}

// A refused launch the program has not (yet) asked about. Its note is printed
// only if the program never reads the error: at the next launch or at exit.
// A program that checks cudaGetLastError() after each launch, as the lessons
// do, prints its own message and gets no extra line from the emulator.
std::mutex refusal_mutex;
std::string unread_refusal;  // guarded by refusal_mutex

void print_unread_refusal() {
    std::string note;
    {
        std::lock_guard<std::mutex> lock(refusal_mutex);
        note.swap(unread_refusal);
    }
    if (note.empty()) return;
    std::fflush(stdout);
    std::fprintf(stderr, "%s", note.c_str());
}

void remember_refusal(const launch_site& site, cudaError_t e, const std::string& why) {
    static bool at_exit_registered = [] { return std::atexit(print_unread_refusal) == 0; }();
    (void)at_exit_registered;
    char text[1024];
    std::snprintf(text, sizeof text,
                  "cuemu: note: the launch of kernel '%s' at %s:%d was refused and never ran:\n"
                  "  %s.\n"
                  "  The runtime said %s (\"%s\"),\n"
                  "  but the program did not ask: check cudaGetLastError() after every launch.\n",
                  site.kernel, site.file, site.line, why.c_str(), cudaGetErrorName(e),
                  cudaGetErrorString(e));
    std::lock_guard<std::mutex> lock(refusal_mutex);
    unread_refusal = text;
}

}  // namespace

void last_error_was_read() {
    std::lock_guard<std::mutex> lock(refusal_mutex);
    unread_refusal.clear();
}

}  // namespace cuemu::detail

namespace cuemu {

// null_arguments.h: a mark holding an integer other than 0 reached a pointer
// parameter. nvcc accepts only a null pointer constant there, so the program
// would not have built with it; the emulator says so instead of guessing.
void integer_passed_as_pointer(long long value) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "cuemu: a kernel launch passed the integer %lld for a pointer parameter; CUDA "
                 "accepts only a null pointer constant (0, NULL, nullptr) there, and nvcc refuses "
                 "this launch: pass a pointer\n",
                 value);
    std::fflush(stderr);
    // Reached on a worker thread, in the kernel's call: end the process here,
    // without the exit handlers that would wait for this very kernel.
    std::_Exit(1);
}

cudaError_t detail::launch_configuration_error(const launch_config& config, std::string& why) {
    return check_configuration(config, why);
}

// The host side of a launch, at the launch itself: what a GPU refuses before
// the kernel is queued.
cudaError_t detail::check_launch(const launch_site& site, const launch_config& config) {
    using namespace detail;
    print_unread_refusal();  // an earlier refused launch the program never checked
    std::string why;
    cudaError_t e = check_configuration(config, why);
    // The caller records e (not sticky); remember why, in case the program
    // never reads the error and a note is due.
    if (e != cudaSuccess) remember_refusal(site, e, why);
    return e;
}

}  // namespace cuemu
