/* cpu_reference_streams.h - the CPU version of lesson 17's per-element work.
 * One plain loop; the lesson is about how the data reaches the device, not
 * about the arithmetic.
 */
#ifndef TUTORIAL_CPU_REFERENCE_STREAMS_H
#define TUTORIAL_CPU_REFERENCE_STREAMS_H

#include <math.h>

/* out[i] = sqrt(|in[i]|) + in[i] * in[i] for i in [0, n) */
static inline void cpu_stream_transform(const float* in, float* out, int n) {
    for (int i = 0; i < n; ++i) out[i] = sqrtf(fabsf(in[i])) + in[i] * in[i];
}

#endif
