/* timer.h - wall-clock time on the host, in milliseconds.
 *
 * For CPU code only. GPU work is asynchronous: a kernel launch returns before
 * the kernel has finished, so timing a GPU with this clock needs a
 * cudaDeviceSynchronize() before the second reading, and CUDA events are the
 * better tool (lesson 05). On the emulator, "GPU" times are CPU times.
 */
#ifndef TUTORIAL_TIMER_H
#define TUTORIAL_TIMER_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L
#endif
#include <time.h>

static inline double wall_time_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

#endif
