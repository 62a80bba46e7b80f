/* random_data.h - reproducible random test inputs, and output poisoning.
 *
 * Tests use fresh random numbers each run (a constant input such as all ones
 * hides indexing bugs: every element looks the same). The numbers come from a
 * seed, so a failing run can be repeated exactly: the tests print their seed.
 * The generator is a small 64-bit xorshift-multiply (splitmix64), the same on
 * every platform, unlike rand().
 */
#ifndef TUTORIAL_RANDOM_DATA_H
#define TUTORIAL_RANDOM_DATA_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef struct { uint64_t state; } tutorial_rng;

static inline uint64_t tutorial_rng_next(tutorial_rng* rng) {
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform float in [lo, hi) */
static inline float tutorial_rng_float(tutorial_rng* rng, float lo, float hi) {
    double unit = (double)(tutorial_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(lo + (hi - lo) * unit);
}

/* Fill x[0..n) with uniform values in [lo, hi) drawn from seed. */
static inline void fill_random(float* x, size_t n, uint64_t seed, float lo, float hi) {
    tutorial_rng rng = {seed};
    for (size_t i = 0; i < n; ++i) x[i] = tutorial_rng_float(&rng, lo, hi);
}

/* Fill an output buffer with NaN so that any element a kernel forgets to
 * write fails the comparison instead of passing by luck (a zeroed buffer
 * "matches" a result that happens to be zero). */
static inline void fill_poison(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = NAN;
}

#endif
