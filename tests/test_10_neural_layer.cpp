// test_10_neural_layer.cpp - lesson 10: a dense layer Y = sigmoid(W X + b).
//
// Built twice, against lessons/10-neural-layer/dense_layer.cu (the exercise,
// which must fail here as shipped) and solutions/10-neural-layer/dense_layer.cu
// (which must pass), for the emulator and for nvcc.
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference.h"

#include <cmath>
#include <cstddef>
#include <vector>

// The launchers from the lesson file (the same declarations as there).
void dense_layer_unfused_on_gpu(const float* h_w, const float* h_x, const float* h_b, float* h_y,
                                int outputs, int inputs, int batch, int tile, int block_size);
void dense_layer_fused_on_gpu(const float* h_w, const float* h_x, const float* h_b, float* h_y,
                              int outputs, int inputs, int batch, int tile);
void two_layer_forward_on_gpu(const float* h_x, const float* h_w1, const float* h_b1,
                              const float* h_w2, const float* h_b2, float* h_y, int inputs,
                              int hidden, int outputs, int batch, int tile);

// Tolerance. Every output is a sigmoid, in (0, 1). The device sums W X in
// float, tile by tile; the reference sums in double, so the two round
// differently. Through the sigmoid (slope at most 1/4) the outputs differ by
// at most about 3e-7 at these sizes (measured on the emulator, one and two
// layers; 1.5e-6 with 16384 inputs). 1e-5 absolute leaves room for a GPU's
// different rounding (fused multiply-adds, its expf) and is still far below
// what a real bug does: a missing bias moves outputs by up to 1/4 of the
// bias, ~1e-2 here, and a missing sigmoid by ~0.5. Outputs never exceed 1, so
// the relative part adds little and is kept as small.
static const double kAtol = 1e-5, kRtol = 1e-5;

// A random layer, scaled like a real one: weights and biases uniform in
// +-1/sqrt(inputs) (the usual default for a linear layer), inputs in [-1, 1].
// Each neuron's sum then stays near +-1 for any number of inputs, where the
// sigmoid is steep. Unscaled weights would push most sums far out, where the
// sigmoid is flat at 0 or 1: a forgotten bias or a wrong row would then change
// the outputs by less than the tolerance, and a broken layer would pass. The
// test case "the random layers are not saturated" checks this assumption.
struct Layer {
    std::vector<float> w, b;
    int outputs, inputs;
};

static Layer random_layer(int outputs, int inputs) {
    const float scale = 1.0f / std::sqrt((float)inputs);
    return Layer{random_floats((size_t)outputs * inputs, -scale, scale),
                 random_floats((size_t)outputs, -scale, scale), outputs, inputs};
}

static std::vector<float> cpu_layer(const Layer& layer, const std::vector<float>& x, int batch) {
    std::vector<float> y = poisoned_floats((size_t)layer.outputs * batch);
    cpu_dense_layer(layer.w.data(), x.data(), layer.b.data(), y.data(), layer.outputs,
                    layer.inputs, batch);
    return y;
}

// Sizes: 1 (a single sample, a single input), 37 and 100 (not multiples of
// any tile below), 129 (one past a multiple of 16 and 32: the last row of
// blocks is almost empty), 10 (fewer outputs than one tile is wide).
static const int kBatches[] = {1, 37};
static const int kInputs[] = {1, 100};
static const int kOutputs[] = {10, 129};

TEST_CASE("three kernels (matmul, add bias, sigmoid) match cpu_dense_layer for sizes off the tile") {
    // Each tile goes with a sigmoid block size: 7 (odd, not a power of two)
    // with 1000, 16 with 256, 32 (the largest, 1024 threads) with 32.
    const int kTileAndBlock[][2] = {{7, 1000}, {16, 256}, {32, 32}};
    for (int batch : kBatches)
        for (int inputs : kInputs)
            for (int outputs : kOutputs) {
                Layer layer = random_layer(outputs, inputs);
                auto x = random_floats((size_t)inputs * batch);
                auto ref = cpu_layer(layer, x, batch);
                for (const auto& tb : kTileAndBlock) {
                    CAPTURE(batch);
                    CAPTURE(inputs);
                    CAPTURE(outputs);
                    CAPTURE(tb[0]);
                    CAPTURE(tb[1]);
                    auto got = poisoned_floats(ref.size());  // NaN: an element nobody wrote fails
                    dense_layer_unfused_on_gpu(layer.w.data(), x.data(), layer.b.data(),
                                               got.data(), outputs, inputs, batch, tb[0], tb[1]);
                    REQUIRE_MATRIX_CLOSE("your Y", got.data(), ref.data(), outputs, batch, kAtol, kRtol);
                }
            }
}

TEST_CASE("the fused kernel matches cpu_dense_layer for sizes off the tile") {
    for (int batch : kBatches)
        for (int inputs : kInputs)
            for (int outputs : kOutputs) {
                Layer layer = random_layer(outputs, inputs);
                auto x = random_floats((size_t)inputs * batch);
                auto ref = cpu_layer(layer, x, batch);
                for (int tile : {1, 7, 16, 32}) {
                    CAPTURE(batch);
                    CAPTURE(inputs);
                    CAPTURE(outputs);
                    CAPTURE(tile);
                    auto got = poisoned_floats(ref.size());
                    dense_layer_fused_on_gpu(layer.w.data(), x.data(), layer.b.data(), got.data(),
                                             outputs, inputs, batch, tile);
                    REQUIRE_MATRIX_CLOSE("your Y", got.data(), ref.data(), outputs, batch, kAtol, kRtol);
                }
            }
}

TEST_CASE("a two-layer forward pass matches two chained cpu_dense_layer calls") {
    struct Shape {
        int inputs, hidden, outputs, batch;
    };
    // The lesson's network (784 -> 128 -> 10) on an odd batch; a hidden layer
    // wider than the input; a single sample; one input and more outputs than
    // hidden neurons. Layer 2's sizes come from layer 1's output, so a mix-up
    // of hidden and inputs or outputs shows in every shape.
    const Shape kShapes[] = {{784, 128, 10, 37}, {100, 129, 10, 37}, {100, 37, 10, 1}, {1, 37, 129, 37}};
    for (const Shape& s : kShapes) {
        Layer layer1 = random_layer(s.hidden, s.inputs);
        Layer layer2 = random_layer(s.outputs, s.hidden);
        auto x = random_floats((size_t)s.inputs * s.batch);
        auto h = cpu_layer(layer1, x, s.batch);
        auto ref = cpu_layer(layer2, h, s.batch);
        for (int tile : {7, 16}) {
            CAPTURE(s.inputs);
            CAPTURE(s.hidden);
            CAPTURE(s.outputs);
            CAPTURE(s.batch);
            CAPTURE(tile);
            auto got = poisoned_floats(ref.size());
            two_layer_forward_on_gpu(x.data(), layer1.w.data(), layer1.b.data(), layer2.w.data(),
                                     layer2.b.data(), got.data(), s.inputs, s.hidden, s.outputs,
                                     s.batch, tile);
            REQUIRE_MATRIX_CLOSE("your Y", got.data(), ref.data(), s.outputs, s.batch, kAtol, kRtol);
        }
    }
}

TEST_CASE("the random layers are not saturated, so the checks above can see a bug") {
    // Most outputs should sit where the sigmoid is steep. If they were all
    // near 0 or 1, the cases above could pass with the bias or the sigmoid
    // wrong, and this would be the test to fail.
    for (int inputs : {1, 100, 784}) {
        CAPTURE(inputs);
        const int outputs = 129, batch = 37;
        Layer layer = random_layer(outputs, inputs);
        auto x = random_floats((size_t)inputs * batch);
        auto y = cpu_layer(layer, x, batch);
        std::size_t steep = 0;
        for (float v : y) steep += (v > 0.05f && v < 0.95f);
        CHECK(steep >= y.size() * 9 / 10);
    }
}
