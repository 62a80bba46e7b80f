// block_waits.cpp - what the emulator's libcu++ barriers and pipelines
// (include/cuda/barrier, include/cuda/pipeline) need from the scheduler and
// the race check, behind three calls (cuemu/libcudacxx_waits.h). The
// scheduler itself is not changed: a waiting CUDA thread uses the same
// "let every other thread of my block run first" point as a volatile shared
// access, and a completed block-scope phase starts a new interval of the race
// check as a __syncthreads() does.
#include "cuemu/libcudacxx_waits.h"

#include <thread>

#include "cuemu/builtins.h"
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

unsigned long long block_arrivals() { return arrivals_on_this_worker; }

}  // namespace cuemu::libcudacxx
