/* timer.h - wall-clock time on the host, in milliseconds.
 *
 * For CPU code only. GPU work is asynchronous: a kernel launch returns before
 * the kernel has finished, so timing a GPU with this clock needs a
 * cudaDeviceSynchronize() before the second reading, and CUDA events are the
 * better tool (lesson 05). On the emulator, "GPU" times are CPU times.
 *
 * C++ uses the monotonic std::chrono::steady_clock. Plain C uses C11's
 * timespec_get, which needs no POSIX feature macros (so it works under a
 * strict -std=c11 whatever was included first); it follows the system clock,
 * which is fine for the short intervals the lessons time.
 */
#ifndef TUTORIAL_TIMER_H
#define TUTORIAL_TIMER_H

#ifdef __cplusplus
#include <chrono>

static inline double wall_time_ms(void) {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}
#else
#include <time.h>

static inline double wall_time_ms(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
#endif

#endif
