/* compare.h - is the GPU's answer close enough to the CPU's?
 *
 * Floating-point results from two different machines (or two different orders
 * of addition) rarely match bit for bit, so we accept a small difference:
 *
 *     |got - ref| <= atol + rtol * |ref|
 *
 * atol (absolute tolerance) covers values near zero, rtol (relative
 * tolerance) covers large values. A NaN never matches: outputs are poisoned
 * with NaN before a run, so an element the kernel never wrote is caught.
 *
 * Plain C so that lesson 01 (serial C) can use it as well as the .cu lessons.
 */
#ifndef TUTORIAL_COMPARE_H
#define TUTORIAL_COMPARE_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>

static inline int tutorial_close_enough(float got, float ref, double atol,
                                        double rtol) {
    double diff = fabs((double)got - (double)ref);
    /* written so that a NaN in got or ref makes the comparison false */
    return diff <= atol + rtol * fabs((double)ref);
}

/* Compare n floats. Prints the first max_print mismatches (index, got,
 * expected) under the given label and returns how many elements mismatch. */
static inline size_t compare_floats(const char* label, const float* got,
                                    const float* ref, size_t n, double atol,
                                    double rtol, int max_print) {
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (tutorial_close_enough(got[i], ref[i], atol, rtol)) continue;
        if ((int)bad < max_print)
            fprintf(stderr, "  %s mismatch at index %zu: got %.7g, expected %.7g\n",
                    label, i, got[i], ref[i]);
        ++bad;
    }
    if (bad > (size_t)max_print)
        fprintf(stderr, "  %s: ... and %zu more mismatches\n", label,
                bad - (size_t)max_print);
    if (bad)
        fprintf(stderr, "  %s: %zu of %zu elements differ (atol %g, rtol %g)\n",
                label, bad, n, atol, rtol);
    return bad;
}

#endif
