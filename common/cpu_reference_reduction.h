/* cpu_reference_reduction.h - the CPU answers lesson 12 (reduction) is checked
 * against: plain loops, one element after another, nothing clever.
 *
 * Sums come two ways. cpu_sum_exact adds in double: with float inputs and the
 * lengths the lesson uses (up to about 10^8), its own rounding error is below
 * a millionth of float's, so it stands for the exact sum. cpu_sum_serial adds
 * in float, left to right, the way a naive C loop does: it is *a* float sum,
 * not *the* sum, and a GPU that adds in another order gets another float.
 */
#ifndef TUTORIAL_CPU_REFERENCE_REDUCTION_H
#define TUTORIAL_CPU_REFERENCE_REDUCTION_H

#include <math.h>

/* x[0] + x[1] + ... + x[n-1], added in double */
static inline double cpu_sum_exact(const float* x, int n) {
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += (double)x[i];
    return sum;
}

/* The same sum added in float, left to right: what `float s = 0; s += x[i]` gives */
static inline float cpu_sum_serial(const float* x, int n) {
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) sum += x[i];
    return sum;
}

/* |x[0]| + ... + |x[n-1]|, in double: the scale of the rounding errors of a sum */
static inline double cpu_sum_abs(const float* x, int n) {
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += fabs((double)x[i]);
    return sum;
}

/* The largest element and where it is; of several equal largest elements, the
 * first (lowest index). n >= 1. */
static inline void cpu_max_argmax(const float* x, int n, float* max_value, int* max_index) {
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (x[i] > x[best]) best = i; /* strictly greater: a tie keeps the earlier index */
    *max_value = x[best];
    *max_index = best;
}

/* y[i] = exp(x[i] - max) / sum over j of exp(x[j] - max), in double, then
 * rounded to float. Subtracting the maximum changes nothing mathematically
 * (it cancels between numerator and denominator) but keeps every exp() at
 * most 1, so it cannot overflow. n >= 1. */
static inline void cpu_softmax(const float* x, float* y, int n) {
    double max_value = x[0];
    for (int i = 1; i < n; ++i)
        if (x[i] > max_value) max_value = x[i];
    double denominator = 0.0;
    for (int i = 0; i < n; ++i) denominator += exp((double)x[i] - max_value);
    for (int i = 0; i < n; ++i) y[i] = (float)(exp((double)x[i] - max_value) / denominator);
}

#endif
