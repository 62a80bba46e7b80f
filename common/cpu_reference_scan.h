/* cpu_reference_scan.h - plain CPU loops that lesson 13 (scan) is checked
 * against: prefix sums and stream compaction. One loop each, no tricks.
 */
#ifndef TUTORIAL_CPU_REFERENCE_SCAN_H
#define TUTORIAL_CPU_REFERENCE_SCAN_H

/* out[i] = in[0] + ... + in[i]   (inclusive: element i counts itself) */
static inline void cpu_inclusive_scan_ints(const int* in, int* out, int n) {
    int running = 0;
    for (int i = 0; i < n; ++i) {
        running += in[i];
        out[i] = running;
    }
}

/* out[i] = in[0] + ... + in[i-1], out[0] = 0   (exclusive: all before i) */
static inline void cpu_exclusive_scan_ints(const int* in, int* out, int n) {
    int running = 0;
    for (int i = 0; i < n; ++i) {
        out[i] = running;
        running += in[i];
    }
}

/* The exclusive scan of floats, summed in double: the reference should be the
 * more exact side, so that a mismatch points at the GPU code. */
static inline void cpu_exclusive_scan_floats(const float* in, float* out, int n) {
    double running = 0.0;
    for (int i = 0; i < n; ++i) {
        out[i] = (float)running;
        running += in[i];
    }
}

/* Stream compaction: the positive elements of x (what survives a ReLU as
 * non-zero), in their order, with the index each came from. values and
 * indices have room for n; returns how many were kept. */
static inline int cpu_compact_positive(const float* x, float* values, int* indices, int n) {
    int kept = 0;
    for (int i = 0; i < n; ++i)
        if (x[i] > 0.0f) {
            values[kept] = x[i];
            indices[kept] = i;
            ++kept;
        }
    return kept;
}

#endif
