/* cpu_reference_sgemm.h - the CPU answer lesson 19's kernels are checked
 * against: SGEMM, C = alpha * A * B + beta * C, as plain loops.
 *
 * Row-major like every lesson: element (row, col) of a rows x cols matrix
 * lives at [row * cols + col]. A is m x k, B is k x n, C is m x n.
 */
#ifndef TUTORIAL_CPU_REFERENCE_SGEMM_H
#define TUTORIAL_CPU_REFERENCE_SGEMM_H

/* Sums in double: the reference should be the more exact side, so that a
 * mismatch points at the GPU code. As in BLAS, beta == 0 means C is not read
 * at all: it may hold anything, NaN included, and is simply overwritten. */
static inline void cpu_sgemm(int m, int n, int k, float alpha, const float* a, const float* b,
                             float beta, float* c) {
    for (int row = 0; row < m; ++row)
        for (int col = 0; col < n; ++col) {
            double sum = 0.0;
            for (int i = 0; i < k; ++i) sum += (double)a[row * k + i] * b[i * n + col];
            double result = (double)alpha * sum;
            if (beta != 0.0f) result += (double)beta * c[row * n + col];
            c[row * n + col] = (float)result;
        }
}

#endif
