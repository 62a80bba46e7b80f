/* cpu_reference_data_parallel.h - the CPU versions of lesson 21's two ideas:
 * what an all-reduce must leave on every device (the element-by-element sum
 * of every device's buffer), and the shuffled order in which a training run
 * visits its samples (the same for one device and for N, so the two runs can
 * be compared). Plain loops; the lesson is about moving data between devices.
 */
#ifndef TUTORIAL_CPU_REFERENCE_DATA_PARALLEL_H
#define TUTORIAL_CPU_REFERENCE_DATA_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "random_data.h"

/* sum[i] = parts[0][i] + parts[1][i] + ... + parts[devices - 1][i], for i in
 * [0, n), added in double and rounded once: as close to the true sum as a
 * float can be. An all-reduce adds in float, in an order of its own, so it
 * may differ from this by a few units in the last place. */
static inline void cpu_sum_over_devices(const float* const* parts, int devices, size_t n,
                                        float* sum) {
    for (size_t i = 0; i < n; ++i) {
        double total = 0.0;
        for (int d = 0; d < devices; ++d) total += parts[d][i];
        sum[i] = (float)total;
    }
}

/* order[0..count) = 0, 1, ..., count - 1 in a random order fixed by seed and
 * epoch (Fisher-Yates): each epoch visits every sample once, in its own order. */
static inline void cpu_shuffled_order(int* order, int count, uint64_t seed, int epoch) {
    tutorial_rng rng = {seed * 0x9E3779B97F4A7C15ull + (uint64_t)epoch + 1};
    for (int i = 0; i < count; ++i) order[i] = i;
    for (int i = count - 1; i > 0; --i) {
        int j = (int)(tutorial_rng_next(&rng) % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

#endif
