// test_24_tensor_cores.cpp - lesson 24: the tensor-core GEMM (nvcuda::wmma),
// cuBLAS's (cublasGemmEx with half inputs) and the FP32 kernel against a
// double-precision CPU product, and loss scaling in half.
//
// Built twice, against lessons/24-tensor-cores/tensor_cores.cu (the exercise:
// the wmma tile loop is empty, so C stays 0 and the first test case fails)
// and solutions/24-tensor-cores/tensor_cores.cu (which must pass), for the
// emulator and for nvcc.
#include "test_support.h"  // doctest, random_floats, REQUIRE_MATRIX_CLOSE
#include "cpu_reference_tensor_cores.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <vector>

// The launchers and the bound from the lesson file (the same declarations).
bool tensor_core_gemm_on_gpu(int m, int n, int k, const float* h_a, const float* h_b,
                             float* h_c);
void fp32_gemm_on_gpu(int m, int n, int k, const float* h_a, const float* h_b, float* h_c);
void cublas_gemm_ex_on_gpu(int m, int n, int k, const float* h_a, const float* h_b, float* h_c);
void half_gradient_on_gpu(const float* h_upstream, const float* h_activation, float scale,
                          float* h_gradient, int count);
double gemm_error_bound(double input_roundoff, int k, double magnitude);

namespace {

// C (m x n) = A (m x k) * B (k x n), all multiples of 16: one tile; tiles
// in a row and a column that are not square; several steps along k with
// fewer tiles than a block has warps (the extra warps must leave); and more
// tiles than one block holds, with 16 steps along k.
struct Shape {
    int m, n, k;
};
const std::vector<Shape> kShapes = {{16, 16, 16}, {16, 48, 16}, {48, 32, 80}, {80, 64, 256}};
// For cuBLAS, which takes any sizes: none a multiple of 16 or of another.
const std::vector<Shape> kOddShapes = {{17, 33, 65}, {1, 7, 3}, {64, 5, 129}};

struct Exact {
    std::vector<float> c;  // the exact product, to float (its rounding: 2^-24 relative)
    double largest_magnitude = 0.0;  // the largest sum |a b| of any element
};

Exact exact_product(const Shape& s, const std::vector<float>& a, const std::vector<float>& b) {
    std::vector<double> c((size_t)s.m * s.n), magnitude(c.size());
    cpu_gemm_fp64(s.m, s.n, s.k, a.data(), b.data(), c.data(), magnitude.data());
    Exact exact;
    exact.c.assign(c.begin(), c.end());
    exact.largest_magnitude = *std::max_element(magnitude.begin(), magnitude.end());
    return exact;
}

const double kHalfRoundoff = 1.0 / 2048.0;  // 2^-11: half's unit roundoff

// Every shape: C from `gemm` (one of the launchers) against the exact
// product, within the lesson's bound for inputs rounded with unit roundoff
// `input_roundoff`, taken at the element with the largest sum |a b| (so it
// holds for every element).
template <typename Gemm>
void check_against_exact(Gemm gemm, double input_roundoff,
                         const std::vector<Shape>& shapes = kShapes) {
    for (const Shape& s : shapes) {
        CAPTURE(s.m);
        CAPTURE(s.n);
        CAPTURE(s.k);
        auto a = random_floats((size_t)s.m * s.k), b = random_floats((size_t)s.k * s.n);
        auto got = poisoned_floats((size_t)s.m * s.n);
        Exact exact = exact_product(s, a, b);
        gemm(s, a.data(), b.data(), got.data());
        const double atol = gemm_error_bound(input_roundoff, s.k, exact.largest_magnitude);
        REQUIRE_MATRIX_CLOSE("your C", got.data(), exact.c.data(), s.m, s.n, atol, 0.0);
    }
}

}  // namespace

// Tolerance: the lesson's bound (its comment derives it): the inputs rounded
// to half err by 2^-11 each, so every product by 2^-10 at most, and k float
// additions add about 2 k 2^-24, all relative to sum |a b|. Taken at the
// largest sum of any element, it holds for every element. With inputs in
// [-1, 1] and k = 256 that is about 0.07, while the typical error is below
// 0.005; an empty tile loop leaves 0 (off by up to 10), a wrong step or a
// swapped tile by about as much.
TEST_CASE("the tensor-core GEMM matches the exact product within half's rounding") {
    check_against_exact(
        [](const Shape& s, const float* a, const float* b, float* c) {
            REQUIRE(tensor_core_gemm_on_gpu(s.m, s.n, s.k, a, b, c));
        },
        kHalfRoundoff);
}

// With inputs that are already halves, nothing is lost in the inputs, and the
// products are exact in float: only the float sums round, about 2 k 2^-24 of
// sum |a b| at most (1e-5 here). A sum kept in half (2^-11 per addition)
// would be off by far more.
TEST_CASE("the tensor-core GEMM sums in float: exact inputs give float accuracy") {
    const Shape s{32, 32, 128};
    auto a = random_floats((size_t)s.m * s.k), b = random_floats((size_t)s.k * s.n);
    for (float& x : a) x = __half2float(__float2half(x));
    for (float& x : b) x = __half2float(__float2half(x));
    auto got = poisoned_floats((size_t)s.m * s.n);
    Exact exact = exact_product(s, a, b);
    REQUIRE(tensor_core_gemm_on_gpu(s.m, s.n, s.k, a.data(), b.data(), got.data()));
    const double atol = gemm_error_bound(0.0, s.k, exact.largest_magnitude);
    REQUIRE_MATRIX_CLOSE("your C", got.data(), exact.c.data(), s.m, s.n, atol, 0.0);
}

TEST_CASE("sizes that are not multiples of 16 are refused") {
    std::vector<float> a(17 * 16, 1.0f), b(16 * 16, 1.0f), c(17 * 16, 0.0f);
    CHECK_FALSE(tensor_core_gemm_on_gpu(17, 16, 16, a.data(), b.data(), c.data()));
    CHECK_FALSE(tensor_core_gemm_on_gpu(16, 16, 17, a.data(), b.data(), c.data()));
}

// cuBLAS's product with half inputs and float sums rounds exactly what the
// wmma kernel rounds, so the same bound holds for it, at any sizes.
TEST_CASE("cublasGemmEx with half inputs matches the exact product within half's rounding") {
    std::vector<Shape> shapes = kShapes;
    shapes.insert(shapes.end(), kOddShapes.begin(), kOddShapes.end());
    check_against_exact(
        [](const Shape& s, const float* a, const float* b, float* c) {
            cublas_gemm_ex_on_gpu(s.m, s.n, s.k, a, b, c);
        },
        kHalfRoundoff, shapes);
}

// The FP32 kernel keeps the inputs as they are: only its float sums round.
TEST_CASE("the FP32 kernel matches the exact product within float's rounding") {
    check_against_exact(
        [](const Shape& s, const float* a, const float* b, float* c) {
            fp32_gemm_on_gpu(s.m, s.n, s.k, a, b, c);
        },
        0.0);
}

// 1e-4 * 1e-4 = 1e-8 is below half's least subnormal (6e-8): 0 in half. Scaled
// by 2^16 the product is a normal half and comes back, unscaled in float,
// within half's rounding of the exact value: three roundings to half (the two
// factors and their product), 2^-11 relative each at most.
TEST_CASE("loss scaling saves a gradient that underflows in half") {
    const float upstream[2] = {1e-4f, 0.5f}, activation[2] = {1e-4f, 0.25f};
    float plain[2] = {NAN, NAN}, scaled[2] = {NAN, NAN};
    half_gradient_on_gpu(upstream, activation, 1.0f, plain, 2);
    half_gradient_on_gpu(upstream, activation, 65536.0f, scaled, 2);
    CHECK(plain[0] == 0.0f);
    CHECK(plain[1] == 0.125f);
    for (int i = 0; i < 2; ++i) {
        CAPTURE(i);
        const double exact = (double)upstream[i] * activation[i];
        CHECK(std::fabs(scaled[i] - exact) <= 3.1 * kHalfRoundoff * exact);
    }
}
