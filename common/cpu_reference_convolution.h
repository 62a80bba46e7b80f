/* cpu_reference_convolution.h - lesson 16's CPU reference: plain loops.
 *
 * Edges are CLAMPED: a position outside the input reads the nearest input
 * element at the border (the picture's edge pixels repeat outwards). The
 * kernels of lesson 16 do the same, so both sides agree exactly on which
 * inputs each output sums. Sums are taken in double: the reference is the
 * more exact side of every comparison.
 */
#ifndef TUTORIAL_CPU_REFERENCE_CONVOLUTION_H
#define TUTORIAL_CPU_REFERENCE_CONVOLUTION_H

static inline int cpu_clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

/* out[i] = sum over k in [-radius, radius] of filter[k + radius] * in[clamp(i + k)]. */
static inline void cpu_convolve_1d(const float* in, const float* filter, float* out, int n,
                                   int radius) {
    for (int i = 0; i < n; ++i) {
        double sum = 0.0;
        for (int k = -radius; k <= radius; ++k)
            sum += (double)filter[k + radius] * in[cpu_clamp_index(i + k, n)];
        out[i] = (float)sum;
    }
}

/* The 2D version on a width x height picture (row-major); the filter is
 * (2 * radius + 1) squared weights, row-major, centre at [radius][radius]. */
static inline void cpu_convolve_2d(const float* in, const float* filter, float* out, int width,
                                   int height, int radius) {
    const int side = 2 * radius + 1;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double sum = 0.0;
            for (int dy = -radius; dy <= radius; ++dy)
                for (int dx = -radius; dx <= radius; ++dx) {
                    int sy = cpu_clamp_index(y + dy, height), sx = cpu_clamp_index(x + dx, width);
                    sum += (double)filter[(dy + radius) * side + dx + radius] * in[sy * width + sx];
                }
            out[y * width + x] = (float)sum;
        }
}

/* How far a float convolution may lie from this double reference. An output
 * is a float sum of `taps` products; every product and every addition rounds
 * to the nearest float, an error of at most 2^-24 of a partial sum, and no
 * partial sum is larger than sum|w| * max|input|. So taps * sum|w| * max|in|
 * * 2^-23 (twice that bound, for the products) covers any order of
 * summation, with or without fused multiply-adds (nvcc contracts a*b + c
 * into one rounding; the emulator's compiler may not). A wrong neighbour or
 * a missing weight is off by about one input times one weight: far more. */
static inline double cpu_convolution_tolerance(const float* filter, int taps,
                                               double max_abs_input) {
    double sum_abs = 0.0;
    for (int t = 0; t < taps; ++t) sum_abs += filter[t] < 0 ? -filter[t] : filter[t];
    return taps * sum_abs * max_abs_input / 8388608.0; /* 2^23 */
}

#endif
