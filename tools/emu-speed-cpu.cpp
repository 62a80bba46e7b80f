// emu-speed-cpu.cpp - the yardstick of tools/emu-speed.cu: the same two
// computations as its kernels, written as plain C++ loops, once serial and once
// split over threads with OpenMP. tools/emu-speed.sh compiles this file on its
// own with `g++ -O2 -fopenmp`, without the emulator's flags (no race-check
// instrumentation, no alignment checks), so it is what a C++ programmer would
// write and build.
#include <omp.h>

// c = a + b over n floats.
void serial_vector_add(const float* a, const float* b, float* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

void openmp_vector_add(const float* a, const float* b, float* c, int n, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

// c = a * b for n x n row-major matrices, in i-k-j order: the inner loop runs
// along rows of b and c (cache friendly, and the compiler vectorises it), and
// each c[i][j] still sums its products in k order, as the kernel does.
static void matmul_rows(const float* a, const float* b, float* c, int n, int row) {
    float* out = c + static_cast<long>(row) * n;
    for (int j = 0; j < n; ++j) out[j] = 0.0f;
    for (int k = 0; k < n; ++k) {
        const float x = a[static_cast<long>(row) * n + k];
        const float* in = b + static_cast<long>(k) * n;
        for (int j = 0; j < n; ++j) out[j] += x * in[j];
    }
}

void serial_matmul(const float* a, const float* b, float* c, int n) {
    for (int i = 0; i < n; ++i) matmul_rows(a, b, c, n, i);
}

void openmp_matmul(const float* a, const float* b, float* c, int n, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int i = 0; i < n; ++i) matmul_rows(a, b, c, n, i);
}
