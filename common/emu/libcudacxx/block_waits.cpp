// block_waits.cpp - what the emulator's libcu++ barriers and pipelines
// (include/cuda/barrier, include/cuda/pipeline) need from the scheduler and
// the race check, behind three calls (cuemu/libcudacxx_waits.h). The
// scheduler itself is not changed: a waiting CUDA thread uses the same
// "let every other thread of my block run first" point as a volatile shared
// access, and a completed block-scope phase starts a new interval of the race
// check as a __syncthreads() does. Also the two functions libcu++'s atomic
// wait() calls between polls (cuemu/cuemu.h says libcu++ that a thread
// library supplies them).
#include "cuemu/libcudacxx_waits.h"

#include <atomic>
#include <cstdint>
#include <thread>

#include "cuemu/builtins.h"
#include "cuemu/thread_loop.h"
#include "../src/race_detector.h"

namespace cuemu::libcudacxx {

void let_others_run() {
    // A CUDA thread is a fiber: spinning would keep the other threads of its
    // block, which run on the same OS thread, from ever arriving.
    if (::cuemu::in_device_code())
        detail::warp_lockstep_point();
    else
        std::this_thread::yield();
}

void block_phase_completed(const char* file, int line) {
    detail::race_barrier_released(file, line);
}

namespace {
thread_local unsigned long long arrivals_on_this_worker = 0;
}

void note_block_arrival() { ++arrivals_on_this_worker; }

unsigned long long block_activity() {
    const std::atomic<std::uint64_t>* progress = ::cuemu::tls_thread_cursor.progress;
    return arrivals_on_this_worker + (progress ? progress->load(std::memory_order_relaxed) : 0);
}

}  // namespace cuemu::libcudacxx

#if __has_include(<cuda/std/chrono>)
#define _LIBCUDACXX_HAS_THREAD_LIBRARY_EXTERNAL  // as cuemu/cuemu.h has it for programs
#define _LIBCUDACXX_HAS_NO_THREAD_CONTENTION_TABLE
#include <cuda/std/atomic>
#include <cuda/std/chrono>

_LIBCUDACXX_BEGIN_NAMESPACE_STD

void __libcpp_thread_yield() { ::cuemu::libcudacxx::let_others_run(); }

// A CUDA thread that waits lets its block run instead of sleeping: the value
// it waits for can only come from a thread that gets to run.
void __libcpp_thread_sleep_for(chrono::nanoseconds duration) {
    if (::cuemu::in_device_code())
        ::cuemu::libcudacxx::let_others_run();
    else
        ::std::this_thread::sleep_for(::std::chrono::nanoseconds(duration.count()));
}

_LIBCUDACXX_END_NAMESPACE_STD
#endif
