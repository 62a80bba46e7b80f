// test_08_matrix_multiply.cpp - lesson 08: one thread per element of C = A * B.
//
// Built twice, against lessons/08-matrix-multiply/matmul.cu (the exercise,
// which must fail here as shipped) and solutions/08-matrix-multiply/matmul.cu
// (which must pass), for the emulator and for nvcc.
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference.h"

// The launchers from the lesson file (the same declarations as there).
void matmul_on_gpu(const float* h_a, const float* h_b, float* h_c, int m, int n, int k,
                   int block_size);
void matmul_rows_from_x_on_gpu(const float* h_a, const float* h_b, float* h_c, int m, int n,
                               int k, int block_size);

namespace {

// C (m x n) = A (m x k) * B (k x n). None of these is square except the last,
// and none is a multiple of any block size below, so the last blocks stick out
// past the right and bottom edges; k = 1 and m = 1 are edge cases too.
struct Shape {
    int m, n, k;
};
const Shape kShapes[] = {
    {1, 1, 1},        // one thread, one product
    {17, 5, 33},      // 17x33 * 33x5: C is tall and thin
    {100, 129, 37},   // 100x37 * 37x129
    {1, 300, 7},      // a single row
    {129, 129, 129},  // square, one more than a multiple of 32
};
const int kBlockSizes[] = {1, 8, 16, 32};

// Tolerance. Each element of C is a float sum of k products, rounded at every
// step, so its error grows with k; the reference sums in double and is the
// more exact side. With inputs in [-1, 1] the products add up to at most k in
// size, so the absolute part grows with k: it covers elements near zero, where
// terms cancel and a relative tolerance alone would be too strict. 1e-5 * k is
// well above the rounding seen in practice and far below what a bug gives
// (an element off by 0.1 or more, or NaN where nothing was written).
double atol_for(int k) { return 1e-5 * k; }
const double kRtol = 1e-5;

using Launcher = void (*)(const float*, const float*, float*, int, int, int, int);

void check_launcher_against_cpu(Launcher launcher) {
    for (const Shape& s : kShapes) {
        auto a = random_floats((size_t)s.m * s.k), b = random_floats((size_t)s.k * s.n);
        auto ref = poisoned_floats((size_t)s.m * s.n);
        cpu_matmul(a.data(), b.data(), ref.data(), s.m, s.n, s.k);
        for (int block_size : kBlockSizes) {
            CAPTURE(s.m);
            CAPTURE(s.n);
            CAPTURE(s.k);
            CAPTURE(block_size);
            auto got = poisoned_floats((size_t)s.m * s.n);  // an unwritten element is NaN
            launcher(a.data(), b.data(), got.data(), s.m, s.n, s.k, block_size);
            REQUIRE_MATRIX_CLOSE("your C", got.data(), ref.data(), s.m, s.n, atol_for(s.k), kRtol);
        }
    }
}

}  // namespace

TEST_CASE("threadIdx.x along the columns: C = A * B matches the CPU, any shape and block") {
    check_launcher_against_cpu(matmul_on_gpu);
}

TEST_CASE("threadIdx.x along the rows: the same answer, only the mapping differs") {
    check_launcher_against_cpu(matmul_rows_from_x_on_gpu);
}

TEST_CASE("A times the identity is A: every element lands in its own row and column") {
    // A swapped row and column index can still pass for a square product of
    // symmetric inputs; with a non-square A and B = I, C must equal A exactly
    // (each element is one product x * 1 plus zeros, no rounding).
    const int m = 45, k = 19;
    auto a = random_floats((size_t)m * k);
    std::vector<float> identity((size_t)k * k, 0.0f);
    for (int i = 0; i < k; ++i) identity[(size_t)i * k + i] = 1.0f;
    auto got = poisoned_floats((size_t)m * k);
    matmul_on_gpu(a.data(), identity.data(), got.data(), m, k, k, 16);
    REQUIRE_MATRIX_CLOSE("your A times I", got.data(), a.data(), m, k, 0.0, 0.0);
}
