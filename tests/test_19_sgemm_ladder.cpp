// test_19_sgemm_ladder.cpp - lesson 19: every rung of the SGEMM ladder, and
// cuBLAS, against the CPU.
//
// Built twice, against lessons/19-sgemm-ladder/sgemm_ladder.cu (the exercise:
// rung 5 has gaps, so it must fail here as shipped) and
// solutions/19-sgemm-ladder/sgemm_ladder.cu (which must pass), for the
// emulator and for nvcc.
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_MATRIX_CLOSE
#include "cpu_reference_sgemm.h"

#include <cmath>
#include <string>

// The launcher from the lesson file (the same declarations as there).
int sgemm_rung_count();
const char* sgemm_rung_name(int rung);
bool sgemm_on_gpu(int rung, int m, int n, int k, float alpha, const float* h_a,
                  const float* h_b, float beta, float* h_c);

namespace {

// C (m x n) = A (m x k) * B (k x n). The rungs use tiles of 32, 64 x 64 x 8
// and 128 x 128 x 8, and float4 loads need rows that are a multiple of 4
// long. The shapes meet all of it: 1 x 1 x 1; odd sizes everywhere (scalar
// loads, partial tiles at every edge); k shorter than one step of 8; sizes
// that are multiples of 4 but not of any tile (float4 loads with ragged
// edges); one size just over a 128 x 128 block in both directions, with
// several steps along k.
struct Shape {
    int m, n, k;
};
const Shape kShapes[] = {
    {1, 1, 1}, {17, 5, 33}, {3, 70, 5}, {100, 36, 44}, {129, 131, 67},
};

// Tolerance. Each element of C is a float sum of k products, rounded at every
// step, in an order that differs from rung to rung; the reference sums in
// double and is the more exact side. With inputs in [-1, 1] the sums are at
// most k in size, so the absolute part grows with k: it covers elements near
// zero, where terms cancel. 1e-5 * k is well above the rounding seen in
// practice and far below what a bug gives (an element off by 0.1 or more, or
// NaN where nothing was written).
double atol_for(int k) { return 1e-5 * k; }
const double kRtol = 1e-5;

// One rung on every shape: with beta = 0 the output starts as NaN (poisoned:
// BLAS must not read C then, and an element nobody writes stays NaN); with
// alpha = 1.5, beta = -0.5 it starts random and must be read and scaled.
void check_rung(int rung) {
    for (const Shape& s : kShapes) {
        CAPTURE(s.m);
        CAPTURE(s.n);
        CAPTURE(s.k);
        auto a = random_floats((size_t)s.m * s.k), b = random_floats((size_t)s.k * s.n);
        auto got = poisoned_floats((size_t)s.m * s.n), ref = poisoned_floats((size_t)s.m * s.n);
        cpu_sgemm(s.m, s.n, s.k, 1.0f, a.data(), b.data(), 0.0f, ref.data());
        REQUIRE(sgemm_on_gpu(rung, s.m, s.n, s.k, 1.0f, a.data(), b.data(), 0.0f, got.data()));
        REQUIRE_MATRIX_CLOSE("your C", got.data(), ref.data(), s.m, s.n, atol_for(s.k), kRtol);

        const float alpha = 1.5f, beta = -0.5f;
        got = random_floats((size_t)s.m * s.n);
        ref = got;
        cpu_sgemm(s.m, s.n, s.k, alpha, a.data(), b.data(), beta, ref.data());
        REQUIRE(sgemm_on_gpu(rung, s.m, s.n, s.k, alpha, a.data(), b.data(), beta, got.data()));
        REQUIRE_MATRIX_CLOSE("your C (alpha 1.5, beta -0.5)", got.data(), ref.data(), s.m, s.n,
                             2.0 * atol_for(s.k), kRtol);
    }
}

}  // namespace

TEST_CASE("the ladder has eight rungs, and cuBLAS as rung 0") {
    REQUIRE(sgemm_rung_count() == 8);
    CHECK(std::string(sgemm_rung_name(0)).find("cuBLAS") != std::string::npos);
    CHECK(std::string(sgemm_rung_name(5)) == "5 2D register tiles");
    auto a = random_floats(4), b = random_floats(4), c = poisoned_floats(4);
    CHECK_FALSE(sgemm_on_gpu(9, 2, 2, 2, 1.0f, a.data(), b.data(), 0.0f, c.data()));
    CHECK(std::isnan(c[0]));  // a rung that does not exist launches nothing
}

TEST_CASE("cuBLAS, the yardstick, agrees with the CPU (row-major through column-major)") {
    check_rung(0);
}
TEST_CASE("rung 1: naive") { check_rung(1); }
TEST_CASE("rung 2: coalesced") { check_rung(2); }
TEST_CASE("rung 3: shared-memory tiles") { check_rung(3); }
TEST_CASE("rung 4: 1D register tiles") { check_rung(4); }
TEST_CASE("rung 5: 2D register tiles (the exercise)") { check_rung(5); }
TEST_CASE("rung 6: float4 loads") { check_rung(6); }
TEST_CASE("rung 7: double buffering") { check_rung(7); }
TEST_CASE("rung 8: warp tiles") { check_rung(8); }
