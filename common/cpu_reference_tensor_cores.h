/* cpu_reference_tensor_cores.h - the CPU answer lesson 24's GEMM kernels are
 * checked against: C = A * B in double precision, and beside each element the
 * size of what its rounding errors scale with.
 *
 * Row-major like every lesson: element (row, col) of a rows x cols matrix
 * lives at [row * cols + col]. A is m x k, B is k x n, C is m x n.
 */
#ifndef TUTORIAL_CPU_REFERENCE_TENSOR_CORES_H
#define TUTORIAL_CPU_REFERENCE_TENSOR_CORES_H

/* c[row, col] = sum over i of a[row, i] * b[i, col], summed in double: a
 * float times a float is exact in double, and the sum's own rounding (about
 * k * 2^-53 of the magnitude) is far below anything a float or half kernel
 * can reach, so the reference is the exact side of every comparison.
 * magnitude[row, col] = sum over i of |a[row, i] * b[i, col]|: every error
 * bound of a dot product is a multiple of it (a sum of k terms that cancel
 * can be near 0 while each term's rounding error is not). */
static inline void cpu_gemm_fp64(int m, int n, int k, const float* a, const float* b, double* c,
                                 double* magnitude) {
    for (int row = 0; row < m; ++row)
        for (int col = 0; col < n; ++col) {
            double sum = 0.0, size = 0.0;
            for (int i = 0; i < k; ++i) {
                double product = (double)a[row * k + i] * (double)b[i * n + col];
                sum += product;
                size += product < 0 ? -product : product;
            }
            c[row * n + col] = sum;
            magnitude[row * n + col] = size;
        }
}

#endif
