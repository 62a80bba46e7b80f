// test_18_cublas.cpp - lesson 18: the dense layer's product from cuBLAS.
//
// Built twice, against lessons/18-cublas/cublas_layer.cu (the exercise, which
// must fail here as shipped) and solutions/18-cublas/cublas_layer.cu (which
// must pass), for the emulator (cuBLAS on OpenBLAS) and for nvcc (the real
// cuBLAS).
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference.h"

#include <cmath>
#include <vector>

// The launchers from the lesson file (the same declarations as there).
void matmul_cublas_on_gpu(const float* h_a, const float* h_b, float* h_c, int m, int n, int k);
void dense_layer_cublas_on_gpu(const float* h_w, const float* h_x, const float* h_b, float* h_y,
                               int outputs, int inputs, int batch, int block_size);

// Tolerances. cuBLAS sums in float in an order of its own (blocked, maybe
// split over k); the CPU reference sums in double. For the product of numbers
// in [-1, 1], a sum of k terms is off by at most a few k * 6e-8: 1e-5 * k
// absolute covers it (as lesson 08), while a wrong operand order or a
// transposed result is off by about 1 or more. The layer's outputs are
// sigmoids, in (0, 1), of sums kept near +-1 by weights scaled like lesson
// 10's: 1e-5 covers the rounding (a few 1e-7 measured), a wrong bias moves
// them by 1e-2 or more.
static const double kLayerTol = 1e-5;

TEST_CASE("row-major C = A B through cublasSgemm matches cpu_matmul, m, n and k all different") {
    struct Shape {
        int m, n, k;
    };
    // 1 x 1 x 1; every dimension different, so a swapped m, n or k or a wrong
    // leading dimension cannot pass; k larger than m and n; a single row and
    // a single column; a square one, where a transposed answer would have
    // the right shape.
    const Shape kShapes[] = {{1, 1, 1}, {37, 100, 129}, {5, 3, 1000}, {1, 129, 37}, {129, 1, 37}, {64, 64, 64}};
    for (const Shape& s : kShapes) {
        CAPTURE(s.m);
        CAPTURE(s.n);
        CAPTURE(s.k);
        auto a = random_floats((size_t)s.m * s.k), b = random_floats((size_t)s.k * s.n);
        auto ref = poisoned_floats((size_t)s.m * s.n), got = poisoned_floats((size_t)s.m * s.n);
        cpu_matmul(a.data(), b.data(), ref.data(), s.m, s.n, s.k);
        matmul_cublas_on_gpu(a.data(), b.data(), got.data(), s.m, s.n, s.k);
        REQUIRE_MATRIX_CLOSE("your C", got.data(), ref.data(), s.m, s.n, 1e-5 * s.k, 1e-5);
    }
}

TEST_CASE("the layer (cuBLAS, then bias and sigmoid) matches cpu_dense_layer for sizes off the block") {
    struct Shape {
        int outputs, inputs, batch, block;
    };
    // Batches of 1, 37 and 1000 with several neurons each: a wrong neuron
    // index (the column, or always 0) shows in all of them. Blocks of 7 (not a
    // power of two), 256 and 1024 (the largest), none dividing the element count.
    const Shape kShapes[] = {{10, 100, 37, 256}, {129, 1, 37, 7}, {129, 784, 1, 1024}, {3, 50, 1000, 256}};
    for (const Shape& s : kShapes) {
        CAPTURE(s.outputs);
        CAPTURE(s.inputs);
        CAPTURE(s.batch);
        CAPTURE(s.block);
        const float scale = 1.0f / std::sqrt((float)s.inputs);
        auto w = random_floats((size_t)s.outputs * s.inputs, -scale, scale);
        auto b = random_floats((size_t)s.outputs, -scale, scale);
        auto x = random_floats((size_t)s.inputs * s.batch);
        auto ref = poisoned_floats((size_t)s.outputs * s.batch), got = poisoned_floats(ref.size());
        cpu_dense_layer(w.data(), x.data(), b.data(), ref.data(), s.outputs, s.inputs, s.batch);
        dense_layer_cublas_on_gpu(w.data(), x.data(), b.data(), got.data(), s.outputs, s.inputs,
                                  s.batch, s.block);
        REQUIRE_MATRIX_CLOSE("your Y", got.data(), ref.data(), s.outputs, s.batch, kLayerTol,
                             kLayerTol);
    }
}
