// device_clock.cpp - clock() with its device meaning inside a kernel.
//
// CUDA declares a single clock() for host and device code: on the host it is
// the C library's processor time, in a kernel it reads a per-multiprocessor
// counter of clock cycles. The emulator compiles kernels as host code, so a
// kernel's clock() would silently have been the C library's (microseconds of
// processor time since the program started), which measures nothing a kernel
// means by it. This file defines clock() itself: a program that calls clock()
// has it as an undefined symbol, which the linker resolves with the first
// archive member that defines it, this one in the emulator's library, before
// it reaches the C library.
//
//   on a CUDA thread: clock64() (builtins.h), all 64 bits of it: nvcc 13
//     compiles a kernel's clock() to a read of %clock64 where clock_t has 64
//     bits (Linux), and on an H200 it returned 6049633879, past 2^32.
//     clock64() counts cycles of the
//     emulated device's nominal 1 GHz clock (cudaDevAttrClockRate), that is
//     nanoseconds of the host's monotonic clock: elapsed counts measure the
//     time this CPU took, not what a GPU would have taken;
//   anywhere else: what the C library's clock() answers, computed the same way
//     (processor time of the whole process, CLOCKS_PER_SEC per second, or -1
//     when it cannot be read).
#include <ctime>

#include "cuemu/builtins.h"  // clock64(), cuemu::in_device_code()

extern "C" std::clock_t clock() noexcept {
    if (cuemu::in_device_code()) return static_cast<std::clock_t>(clock64());
    timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return static_cast<std::clock_t>(-1);
    return static_cast<std::clock_t>(t.tv_sec) * CLOCKS_PER_SEC +
           static_cast<std::clock_t>(t.tv_nsec / (1000000000 / CLOCKS_PER_SEC));
}
