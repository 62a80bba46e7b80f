// emu-speed-cpu.cpp - the yardsticks of tools/emu-speed.cu and
// tools/emu-speed-opencl.cpp: the same computations as their kernels, written as
// plain C++ loops, once serial and once split over threads with OpenMP, and the
// tiled matmul also as a compiler splitting the kernel at its barriers would run
// it on one thread. tools/emu-speed.sh compiles this file on its own with
// `g++ -O2 -fopenmp`, without the emulator's flags (no race-check
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

// The tiled matmul of tools/emu-speed.cu as a compiler that splits a kernel at
// its barriers would lay it out for one CPU thread: each block's threads become
// a loop, and each __syncthreads the boundary between two such loops. Within a
// block, every tile of a and b is first copied into local arrays (the shared
// memory) by one loop over the block's 16 x 16 threads, then a second loop over
// the same threads adds the tile's products to each thread's running sum, kept
// in an array because it lives across the barriers. This is the fair yardstick
// for the emulator's tiled kernel: the same algorithm and memory traffic, with
// the barriers costing nothing but a loop boundary.
constexpr int YARDSTICK_TILE = 16;

void tiled_serial_matmul(const float* a, const float* b, float* c, int n) {
    const int T = YARDSTICK_TILE;
    for (int block_y = 0; block_y < n / T; ++block_y)
        for (int block_x = 0; block_x < n / T; ++block_x) {
            float ta[T][T], tb[T][T], sum[T][T] = {};
            for (int t = 0; t < n / T; ++t) {
                for (int ty = 0; ty < T; ++ty)  // up to the first barrier
                    for (int tx = 0; tx < T; ++tx) {
                        const int row = block_y * T + ty, col = block_x * T + tx;
                        ta[ty][tx] = a[static_cast<long>(row) * n + t * T + tx];
                        tb[ty][tx] = b[static_cast<long>(t * T + ty) * n + col];
                    }
                for (int ty = 0; ty < T; ++ty)  // between the two barriers
                    for (int tx = 0; tx < T; ++tx)
                        for (int k = 0; k < T; ++k) sum[ty][tx] += ta[ty][k] * tb[k][tx];
            }
            for (int ty = 0; ty < T; ++ty)  // after the loop: each thread's store
                for (int tx = 0; tx < T; ++tx)
                    c[static_cast<long>(block_y * T + ty) * n + block_x * T + tx] = sum[ty][tx];
        }
}

// The sum of n ints. The kernels add in another order, which does not change an
// integer sum, so their results must match exactly.
int serial_sum(const int* x, int n) {
    int sum = 0;
    for (int i = 0; i < n; ++i) sum += x[i];
    return sum;
}

int openmp_sum(const int* x, int n, int threads) {
    int sum = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : sum)
    for (int i = 0; i < n; ++i) sum += x[i];
    return sum;
}

// counts[v] = how many of the n bytes equal v, for 256 bins.
void serial_histogram(const unsigned char* x, int n, unsigned* counts) {
    for (int v = 0; v < 256; ++v) counts[v] = 0;
    for (int i = 0; i < n; ++i) ++counts[x[i]];
}

// Each thread counts its share into a histogram of its own, merged at the end:
// the CPU's way of avoiding contended atomics, as the kernel's shared-memory
// histogram per block is the GPU's.
void openmp_histogram(const unsigned char* x, int n, unsigned* counts, int threads) {
    for (int v = 0; v < 256; ++v) counts[v] = 0;
#pragma omp parallel num_threads(threads)
    {
        unsigned mine[256] = {};
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i) ++mine[x[i]];
#pragma omp critical
        for (int v = 0; v < 256; ++v) counts[v] += mine[v];
    }
}
