// fork_safety.cpp - what happens in a child process made with fork() after
// the parent used CUDA. The child inherits the emulator's memory but none of
// its threads (the device thread, the workers), and a lock one of them held
// stays held forever. Waiting for them would hang, so in the child:
//   - the exit handlers skip the device (the queue is not drained, the worker
//     pool is not joined), so a child that never uses CUDA exits normally;
//   - every CUDA call returns cudaErrorInitializationError ("initialization
//     error"), which is what a real runtime answers in such a child (CUDA
//     calls its use there undefined: a child must exec before using CUDA),
//     and the first one prints a line saying why.
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <mutex>

#include "cuemu/runtime.h"
#include "internal.h"

namespace cuemu::detail {
namespace {
std::atomic<bool> forked_child{false};
std::atomic<bool> explained{false};
}  // namespace

void install_fork_guard_once() {
    static std::once_flag once;
    std::call_once(once, [] { pthread_atfork(nullptr, nullptr, [] { forked_child = true; }); });
}

bool in_forked_child() { return forked_child.load(std::memory_order_relaxed); }

cudaError_t forked_child_error() {
    if (!explained.exchange(true)) {
        std::fflush(stdout);
        std::fprintf(stderr,
                     "cuemu: CUDA used in a child process made with fork() after the parent had "
                     "used CUDA;\n"
                     "  the child has none of the parent's device threads, so every CUDA call "
                     "here returns\n"
                     "  cudaErrorInitializationError (\"initialization error\"), as on a GPU\n"
                     "  hint: use CUDA in the parent only, or exec a new program in the child "
                     "(fork + exec)\n");
    }
    return record(cudaErrorInitializationError);
}

}  // namespace cuemu::detail
