/* cpu_reference.h - the plain, obviously-correct CPU versions every test
 * compares against. One simple loop each; no tricks, so that when a test fails
 * the suspect is the GPU code, not the reference.
 */
#ifndef TUTORIAL_CPU_REFERENCE_H
#define TUTORIAL_CPU_REFERENCE_H

#include <math.h>

/* c[i] = a[i] + b[i] for i in [0, n) */
static inline void cpu_vector_add(const float* a, const float* b, float* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

/* Matrices are row-major: element (row, col) of a rows x cols matrix lives at
 * [row * cols + col]. */

/* C = A + B, all rows x cols */
static inline void cpu_matrix_add(const float* a, const float* b, float* c,
                                  int rows, int cols) {
    for (int row = 0; row < rows; ++row)
        for (int col = 0; col < cols; ++col)
            c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

/* The logistic sigmoid 1 / (1 + e^-x), computed in double so that it can
 * judge float versions (expf, __expf) against something more exact. */
static inline double cpu_sigmoid_exact(double x) { return 1.0 / (1.0 + exp(-x)); }

/* y[i] = sigmoid(x[i]) */
static inline void cpu_sigmoid(const float* x, float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = (float)cpu_sigmoid_exact(x[i]);
}

/* y[i] = max(x[i], 0) */
static inline void cpu_relu(const float* x, float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

/* C (m x n) = A (m x k) * B (k x n). Sums in double: the reference should be
 * the more exact side, so a mismatch points at the GPU code. */
static inline void cpu_matmul(const float* a, const float* b, float* c,
                              int m, int n, int k) {
    for (int row = 0; row < m; ++row)
        for (int col = 0; col < n; ++col) {
            double sum = 0.0;
            for (int i = 0; i < k; ++i) sum += (double)a[row * k + i] * b[i * n + col];
            c[row * n + col] = (float)sum;
        }
}

/* A dense layer applied to a batch: Y = sigmoid(W X + b).
 *   W: outputs x inputs     (one row of weights per output neuron)
 *   X: inputs x batch       (one column per sample, so W X is a plain matmul)
 *   b: outputs              (added to every column)
 *   Y: outputs x batch */
static inline void cpu_dense_layer(const float* w, const float* x, const float* b,
                                   float* y, int outputs, int inputs, int batch) {
    for (int o = 0; o < outputs; ++o)
        for (int s = 0; s < batch; ++s) {
            double sum = b[o];
            for (int i = 0; i < inputs; ++i) sum += (double)w[o * inputs + i] * x[i * batch + s];
            y[o * batch + s] = (float)cpu_sigmoid_exact(sum);
        }
}

#endif
