// Tests for lesson 20: each backward kernel against the CPU and against
// finite differences, one training step against the CPU, and a short run that
// must learn (Fashion-MNIST where the dataset-fashion-mnist package is
// installed, else a small made-up set, and the test says which); also the
// IDX reader (common/fashion_mnist.h) and the loss-curve chart (png_image.h).
#include "test_support.h"
#include "cpu_reference_training.h"
#include "fashion_mnist.h"
#include "png_image.h"
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <stdlib.h>  // mkdtemp
#include <unistd.h>  // rmdir
#include <string>
#include <vector>

// The launchers from the lesson file (the same declarations as there).
// act: 0 ReLU, 1 sigmoid.
void activation_backward_on_gpu(const float* h_da, const float* h_z, float* h_dz, int n, int act);
void weight_grad_on_gpu(const float* h_dz, const float* h_x, float* h_dw, int outputs, int inputs,
                        int batch);
void bias_grad_on_gpu(const float* h_dz, float* h_db, int outputs, int batch);
void input_grad_on_gpu(const float* h_w, const float* h_dz, float* h_dx, int outputs, int inputs,
                       int batch);
float training_step_on_gpu(float* h_params, float* h_grads, const float* h_x, const int* h_labels,
                           int batch, int act, float lr);
double train_and_test_on_gpu(const LabelledImages& train, const LabelledImages& test, int epochs,
                             int batch, float lr, int act, uint64_t seed);

namespace {

const int kInputs = 784, kHidden = 128, kClasses = 10;
const size_t kParams = (size_t)kHidden * kInputs + kHidden + (size_t)kClasses * kHidden + kClasses;

// Tolerances against the CPU reference, which adds in the kernels' order. On
// the emulator the results are the same bits (same compiler, same expf, no
// fused multiply-add), so the check there is exact. A GPU may fuse a multiply
// and an add (one rounding instead of two) and its expf may differ in the last
// bit: over sums of up to a few hundred products of numbers below 1, that is
// well under 1e-5 absolute, 1e-4 relative.
#ifdef TUTORIAL_BACKEND_EMU
const double kAtol = 0.0, kRtol = 0.0;
#else
const double kAtol = 1e-5, kRtol = 1e-4;
#endif

// Finite differences: d f / d v ~ (f(v + h) - f(v - h)) / 2h, with f summed
// in double so that its own rounding (about 1e-16 relative) stays far below
// the h^2 truncation error. Agreement within 1e-4 absolute plus 1e-3 relative
// then means the kernel computes the derivative, not something near it.
const double kStep = 1e-3;

// The derivative of f() in v[p] by a central difference: f is evaluated with
// v[p] nudged up and down by kStep, divided by the nudge as stored in float,
// and v[p] is restored.
template <typename Function>
double central_difference(std::vector<float>& v, size_t p, Function f) {
    const float saved = v[p], above = saved + (float)kStep, below = saved - (float)kStep;
    v[p] = above;
    const double up = f();
    v[p] = below;
    const double down = f();
    v[p] = saved;
    const double h = ((double)above - (double)below) / 2;
    return (up - down) / (2 * h);
}
bool close_to_difference(double analytic, double numeric) {
    return std::fabs(analytic - numeric) <= 1e-4 + 1e-3 * std::fabs(numeric);
}

// A few positions of n to check by finite differences (each costs a whole f).
std::vector<size_t> probe_positions(size_t n, int count) {
    std::vector<size_t> at;
    tutorial_rng rng = {test_seed() + n};
    for (int k = 0; k < count; ++k) at.push_back((size_t)(tutorial_rng_next(&rng) % n));
    return at;
}

double sigmoid_d(double z) { return 1.0 / (1.0 + std::exp(-z)); }
double activate_d(double z, int act) { return act == 0 ? (z > 0 ? z : 0) : sigmoid_d(z); }

// sum over (o, s) of g[o][s] * (W X)[o][s], in double.
double contracted_product(const std::vector<float>& g, const std::vector<float>& w,
                          const std::vector<float>& x, int outputs, int inputs, int batch) {
    double total = 0.0;
    for (int o = 0; o < outputs; ++o)
        for (int s = 0; s < batch; ++s) {
            double dot = 0.0;
            for (int i = 0; i < inputs; ++i) dot += (double)w[(size_t)o * inputs + i] * x[(size_t)i * batch + s];
            total += g[(size_t)o * batch + s] * dot;
        }
    return total;
}

// The whole-network cases below build on the four kernels: while one of the
// kernel cases fails, they say so once and stop, so that the report starts
// with (and stays about) the kernel to fix. A REQUIRE that fails throws, so a
// failing kernel case is one that ends by an exception.
int failed_kernel_cases = 0;
struct CountsKernelFailure {
    ~CountsKernelFailure() {
        if (std::uncaught_exceptions() > 0) ++failed_kernel_cases;
    }
};
bool kernels_failed() {
    static bool said = false;
    if (failed_kernel_cases > 0 && !said) {
        said = true;
        MESSAGE("the whole-network cases wait until the kernel cases above pass");
    }
    return failed_kernel_cases > 0;
}

struct LayerSize {
    int outputs, inputs, batch;
};
// Sizes off the tile (16) and off the reduction block (256), the network's
// own two layers, and a batch larger than the reduction block.
const LayerSize kLayerSizes[] = {{1, 1, 1}, {10, 128, 37}, {128, 784, 33}, {17, 45, 1000}};

}  // namespace

TEST_CASE("activation backward: dZ = dA * act'(Z), against the CPU and finite differences") {
    CountsKernelFailure note;
    for (int act : {0, 1}) {
        for (int n : {1, 1000, 1023, 128 * 37}) {
            INFO((act == 0 ? "ReLU" : "sigmoid") << ", n " << n);
            auto da = random_floats(n), z = random_floats(n, -4.0f, 4.0f);
            auto ref = poisoned_floats(n), got = poisoned_floats(n);
            cpu_activation_backward(da.data(), z.data(), ref.data(), n, act);
            activation_backward_on_gpu(da.data(), z.data(), got.data(), n, act);
            REQUIRE_ALL_CLOSE(act == 0 ? "your dZ (ReLU)" : "your dZ (sigmoid)", got.data(),
                              ref.data(), n, kAtol, kRtol);
            // f(Z) = sum of dA * act(Z): its derivative in Z[i] is dA[i] act'(Z[i]).
            for (size_t i : probe_positions((size_t)n, 8)) {
                if (act == 0 && std::fabs(z[i]) < 2 * kStep) continue;  // ReLU's kink
                double numeric = da[i] * (activate_d(z[i] + kStep, act) - activate_d(z[i] - kStep, act)) /
                                 (2 * kStep);
                CAPTURE(i);
                REQUIRE(close_to_difference(got[i], numeric));
            }
        }
    }
}

TEST_CASE("weight gradient: dW = dZ X^T, against the CPU and finite differences") {
    CountsKernelFailure note;
    for (LayerSize size : kLayerSizes) {
        const int m = size.outputs, k = size.inputs, b = size.batch;
        INFO("outputs " << m << ", inputs " << k << ", batch " << b);
        auto dz = random_floats((size_t)m * b), x = random_floats((size_t)k * b);
        auto ref = poisoned_floats((size_t)m * k), got = poisoned_floats((size_t)m * k);
        cpu_weight_grad(dz.data(), x.data(), ref.data(), m, k, b);
        weight_grad_on_gpu(dz.data(), x.data(), got.data(), m, k, b);
        REQUIRE_MATRIX_CLOSE("your dW", got.data(), ref.data(), m, k, kAtol, kRtol);
        // f(W) = sum of dZ * (W X): its derivative in W[o][i] is dW[o][i].
        auto w = random_floats((size_t)m * k);
        for (size_t p : probe_positions((size_t)m * k, 4)) {
            double numeric = central_difference(w, p, [&] { return contracted_product(dz, w, x, m, k, b); });
            CAPTURE(p);
            REQUIRE(close_to_difference(got[p], numeric));
        }
    }
}

TEST_CASE("bias gradient: db = the sum of each row of dZ, against the CPU and finite differences") {
    CountsKernelFailure note;
    for (LayerSize size : kLayerSizes) {
        const int m = size.outputs, b = size.batch;
        INFO("outputs " << m << ", batch " << b);
        auto dz = random_floats((size_t)m * b);
        auto ref = poisoned_floats(m), got = poisoned_floats(m);
        cpu_bias_grad(dz.data(), ref.data(), m, b);
        bias_grad_on_gpu(dz.data(), got.data(), m, b);
        REQUIRE_ALL_CLOSE("your db", got.data(), ref.data(), m, kAtol, kRtol);
        // f(b) = sum of dZ * (Z + b, b added to every column): f(b + h e_o) -
        // f(b - h e_o) = 2h * (row o of dZ summed), in double.
        for (size_t o : probe_positions((size_t)m, 4)) {
            double up = 0.0, down = 0.0;
            for (int s = 0; s < b; ++s) {
                up += dz[o * b + s] * (0.5 + kStep);
                down += dz[o * b + s] * (0.5 - kStep);
            }
            CAPTURE(o);
            REQUIRE(close_to_difference(got[o], (up - down) / (2 * kStep)));
        }
    }
}

TEST_CASE("input gradient: dX = W^T dZ, against the CPU and finite differences") {
    CountsKernelFailure note;
    for (LayerSize size : kLayerSizes) {
        const int m = size.outputs, k = size.inputs, b = size.batch;
        INFO("outputs " << m << ", inputs " << k << ", batch " << b);
        auto w = random_floats((size_t)m * k), dz = random_floats((size_t)m * b);
        auto ref = poisoned_floats((size_t)k * b), got = poisoned_floats((size_t)k * b);
        cpu_input_grad(w.data(), dz.data(), ref.data(), m, k, b);
        input_grad_on_gpu(w.data(), dz.data(), got.data(), m, k, b);
        REQUIRE_MATRIX_CLOSE("your dX", got.data(), ref.data(), k, b, kAtol, kRtol);
        // f(X) = sum of dZ * (W X): its derivative in X[i][s] is dX[i][s].
        auto x = random_floats((size_t)k * b);
        for (size_t p : probe_positions((size_t)k * b, 4)) {
            double numeric = central_difference(x, p, [&] { return contracted_product(dz, w, x, m, k, b); });
            CAPTURE(p);
            REQUIRE(close_to_difference(got[p], numeric));
        }
    }
}

namespace {

// Random pictures and labels for one batch (X: 784 x batch).
void random_batch(int batch, std::vector<float>* x, std::vector<int>* labels) {
    *x = random_floats((size_t)kInputs * batch, 0.0f, 1.0f);
    labels->resize(batch);
    tutorial_rng rng = {test_seed() + 7 * (uint64_t)batch};
    for (int& label : *labels) label = (int)(tutorial_rng_next(&rng) % kClasses);
}

// Parameters as mlp.cuh starts them: weights uniform in +-sqrt(6 / fan_in), biases small.
std::vector<float> random_params() {
    std::vector<float> p = random_floats(kParams, -1.0f, 1.0f);
    const size_t w1 = (size_t)kHidden * kInputs, w2 = (size_t)kClasses * kHidden;
    for (size_t i = 0; i < w1; ++i) p[i] *= std::sqrt(6.0f / kInputs);
    for (size_t i = w1; i < w1 + kHidden; ++i) p[i] *= 0.1f;
    for (size_t i = w1 + kHidden; i < w1 + kHidden + w2; ++i) p[i] *= std::sqrt(6.0f / kHidden);
    for (size_t i = w1 + kHidden + w2; i < kParams; ++i) p[i] *= 0.1f;
    return p;
}

// The mean loss of the batch for parameters p, all in double.
double mean_loss_d(const std::vector<float>& p, const std::vector<float>& x,
                   const std::vector<int>& labels, int batch, int act) {
    const float* w1 = p.data();
    const float* b1 = w1 + (size_t)kHidden * kInputs;
    const float* w2 = b1 + kHidden;
    const float* b2 = w2 + (size_t)kClasses * kHidden;
    double total = 0.0;
    std::vector<double> a1(kHidden), z2(kClasses);
    for (int s = 0; s < batch; ++s) {
        for (int h = 0; h < kHidden; ++h) {
            double z = b1[h];
            for (int i = 0; i < kInputs; ++i) z += (double)w1[(size_t)h * kInputs + i] * x[(size_t)i * batch + s];
            a1[h] = activate_d(z, act);
        }
        double largest = -1e300;
        for (int c = 0; c < kClasses; ++c) {
            double z = b2[c];
            for (int h = 0; h < kHidden; ++h) z += (double)w2[(size_t)c * kHidden + h] * a1[h];
            z2[c] = z;
            largest = std::max(largest, z);
        }
        double sum = 0.0;
        for (int c = 0; c < kClasses; ++c) sum += std::exp(z2[c] - largest);
        total += std::log(sum) - (z2[labels[s]] - largest);
    }
    return total / batch;
}

// True when hidden unit h's pre-activation, for some sample, lies so close to 0 that
// nudging one of its weights by kStep may carry it across ReLU's kink: there the
// loss has no derivative and a central difference measures neither side.
bool near_relu_kink(const std::vector<float>& p, const std::vector<float>& x, int batch, int h) {
    const float* w1 = p.data();
    const float* b1 = w1 + (size_t)kHidden * kInputs;
    double largest_input = 1.0;
    for (float v : x) largest_input = std::max(largest_input, (double)std::fabs(v));
    for (int s = 0; s < batch; ++s) {
        double z = b1[h];
        for (int i = 0; i < kInputs; ++i) z += (double)w1[(size_t)h * kInputs + i] * x[(size_t)i * batch + s];
        if (std::fabs(z) < 2 * kStep * largest_input) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("one training step matches the CPU step, and its gradients are the loss's derivatives") {
    if (kernels_failed()) return;
    const float lr = 0.1f;
    for (int act : {0, 1}) {
        for (int batch : {1, 37}) {
            CAPTURE(act);
            CAPTURE(batch);
            std::vector<float> x;
            std::vector<int> labels;
            random_batch(batch, &x, &labels);
            auto params = random_params(), ref_params = params;
            auto grads = poisoned_floats(kParams), ref_grads = poisoned_floats(kParams);
            float ref_loss = cpu_training_step(ref_params.data(), ref_grads.data(), x.data(),
                                               labels.data(), kInputs, kHidden, kClasses, batch,
                                               act, lr);
            float loss = training_step_on_gpu(params.data(), grads.data(), x.data(), labels.data(),
                                              batch, act, lr);
            REQUIRE_ALL_CLOSE("your gradients (W1, b1, W2, b2 in one array)", grads.data(),
                              ref_grads.data(), kParams, kAtol, kRtol);
            REQUIRE_ALL_CLOSE("your updated parameters", params.data(), ref_params.data(), kParams,
                              kAtol, kRtol);
            REQUIRE_ALL_CLOSE("the loss", &loss, &ref_loss, 1, kAtol, kRtol);
        }
    }
}

TEST_CASE("the gradients of a step are the derivatives of the mean loss (finite differences)") {
    if (kernels_failed()) return;
    for (int act : {0, 1}) {
        const int batch = 5;
        CAPTURE(act);
        std::vector<float> x;
        std::vector<int> labels;
        random_batch(batch, &x, &labels);
        auto params = random_params(), before = params;
        auto grads = poisoned_floats(kParams);
        training_step_on_gpu(params.data(), grads.data(), x.data(), labels.data(), batch, act, 0.1f);
        const size_t w1 = (size_t)kHidden * kInputs, w2 = (size_t)kClasses * kHidden;
        // Two probes in each block: W1 (a pixel that is not 0), b1, W2, b2.
        std::vector<size_t> probes;
        for (size_t p : probe_positions(w1, 2)) probes.push_back(p);
        for (size_t p : probe_positions(kHidden, 2)) probes.push_back(w1 + p);
        for (size_t p : probe_positions(w2, 2)) probes.push_back(w1 + kHidden + p);
        for (size_t p : probe_positions(kClasses, 2)) probes.push_back(w1 + kHidden + w2 + p);
        for (size_t p : probes) {
            if (act == 0 && p < w1 + kHidden) {
                const int h = p < w1 ? (int)(p / kInputs) : (int)(p - w1);
                if (near_relu_kink(before, x, batch, h)) continue;
            }
            auto shifted = before;
            double numeric =
                central_difference(shifted, p, [&] { return mean_loss_d(shifted, x, labels, batch, act); });
            CAPTURE(p);
            CAPTURE(grads[p]);
            CAPTURE(numeric);
            REQUIRE(close_to_difference(grads[p], numeric));
        }
    }
}

// ---- the data files and the loss curve ----

namespace {

// One IDX file as fashion_mnist.h expects it, gzip-compressed: a big-endian
// header (magic, item count, then rows and columns for pictures) and bytes.
void write_idx(const std::string& path, uint32_t magic, const std::vector<uint32_t>& sizes,
               const std::vector<unsigned char>& bytes) {
    gzFile file = gzopen(path.c_str(), "wb");
    REQUIRE_MESSAGE(file != nullptr, "cannot write " << path);
    std::vector<uint32_t> header = {magic};
    header.insert(header.end(), sizes.begin(), sizes.end());
    for (uint32_t v : header) {
        unsigned char b[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                              (unsigned char)(v >> 8), (unsigned char)v};
        REQUIRE(gzwrite(file, b, 4) == 4);
    }
    if (!bytes.empty()) REQUIRE(gzwrite(file, bytes.data(), (unsigned)bytes.size()) == (int)bytes.size());
    REQUIRE(gzclose(file) == Z_OK);
}

// `count` pictures whose pixel i of picture n is (7n + i) % 256, and labels.
void write_small_set(const std::string& dir, int pictures, const std::vector<unsigned char>& labels) {
    std::vector<unsigned char> pixels((size_t)pictures * kInputs);
    for (size_t k = 0; k < pixels.size(); ++k) pixels[k] = (unsigned char)((7 * (k / kInputs) + k % kInputs) % 256);
    write_idx(dir + "/train-images-idx3-ubyte.gz", 0x803, {(uint32_t)pictures, 28, 28}, pixels);
    write_idx(dir + "/train-labels-idx1-ubyte.gz", 0x801, {(uint32_t)labels.size()}, labels);
}

}  // namespace

TEST_CASE("Fashion-MNIST's files: pictures and labels read right, bad files refused in one line") {
    char dir_template[] = "/tmp/test_20_idx.XXXXXX";
    REQUIRE(mkdtemp(dir_template) != nullptr);
    const std::string dir = dir_template;
    LabelledImages set;
    std::string error;

    write_small_set(dir, 3, {0, 9, 4});
    REQUIRE_MESSAGE(load_fashion_mnist(dir, "train", 2, &set, &error), error);
    CHECK(set.count == 2);  // max_count keeps the first ones
    REQUIRE(set.pixels.size() == 2 * (size_t)kInputs);
    CHECK(set.pixels[kInputs + 5] == (7 + 5) / 255.0f);
    CHECK(set.pixels[kInputs - 1] == (783 % 256) / 255.0f);
    CHECK(set.labels == std::vector<int>{0, 9});
    REQUIRE_MESSAGE(load_fashion_mnist(dir, "train", 100, &set, &error), error);
    CHECK(set.count == 3);  // all, when there are fewer

    CHECK_FALSE(load_fashion_mnist(dir + "/missing", "train", 10, &set, &error));
    CHECK(error == "cannot open " + dir + "/missing/train-images-idx3-ubyte.gz");

    // Labels where pictures belong: the magic number (and the shape) says so.
    write_idx(dir + "/train-images-idx3-ubyte.gz", 0x801, {3}, {0, 1, 2});
    CHECK_FALSE(load_fashion_mnist(dir, "train", 10, &set, &error));
    CHECK(error == dir + "/train-images-idx3-ubyte.gz is not an IDX file of 28 x 28 pictures");

    // A header promising 3 pictures, bytes for 2.
    write_idx(dir + "/train-images-idx3-ubyte.gz", 0x803, {3, 28, 28},
              std::vector<unsigned char>(2 * kInputs, 1));
    CHECK_FALSE(load_fashion_mnist(dir, "train", 10, &set, &error));
    CHECK(error == dir + "/train-images-idx3-ubyte.gz is shorter than its header says");

    write_small_set(dir, 3, {0, 9});
    CHECK_FALSE(load_fashion_mnist(dir, "train", 10, &set, &error));
    CHECK(error == dir + ": train has 3 pictures but 2 labels");

    write_small_set(dir, 3, {0, 10, 4});
    CHECK_FALSE(load_fashion_mnist(dir, "train", 10, &set, &error));
    CHECK(error == dir + ": a label of train is 10, not 0 to 9");

    for (const char* name : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"})
        std::remove((dir + "/" + name).c_str());
    rmdir(dir.c_str());
}

TEST_CASE("the loss curve: axes, quarter lines, and the values joined left to right") {
    // 64 x 32 with an 8-pixel margin: the plot spans x 8..55, y 8 (top,
    // the largest value) to 23 (bottom, 0).
    const GreyPicture chart = draw_line_chart({4.0f, 2.0f, 1.0f, 0.5f}, 64, 32);
    REQUIRE(chart.width == 64);
    REQUIRE(chart.height == 32);
    auto at = [&](int x, int y) { return chart.pixels[(size_t)y * 64 + x]; };
    CHECK(at(0, 0) == 1.0f);    // the margin stays white
    CHECK(at(8, 12) == 0.0f);   // the vertical axis
    CHECK(at(30, 23) == 0.0f);  // the horizontal axis, at 0
    CHECK(at(8, 8) == 0.0f);    // the first value, the largest: top left
    CHECK(at(55, 21) == 0.0f);  // the last, 0.5 of 4: 15 / 8 pixels above the axis
    CHECK(at(50, 16) == 0.75f); // the grey line at half the largest value
    CHECK(at(50, 10) == 1.0f);  // above the curve: white
}

// A short run must learn. With the dataset-fashion-mnist package: one epoch on
// the first 500 training pictures (mini-batches of 32, learning rate 0.1,
// seed 1) must classify at least 65% of the first 500 test pictures right
// (guessing gives 10%). Measured on the emulator: 72.8% (the run is
// deterministic; a GPU's fused multiply-adds may move it by a few pictures).
// Without the package: a made-up set of 10 classes (prototype pictures plus
// noise), the same run, at least 90%; measured: 100%. TUTORIAL_FASHION_MNIST_DIR
// points the test at another folder (a missing one forces the made-up set).
//
// 2.5 to 4 s on the emulator (2-core machine under load): too slow for the
// sanitizer lane (AddressSanitizer makes every access several times slower),
// where the case says so and stops; its kernels are all exercised under the
// sanitizers by the cases above. (A doctest::skip decorator would hide the
// case from ./tutorial export, which lists the cases by their plain
// TEST_CASE("...") lines.)
TEST_CASE("a short training run learns") {
#if defined(__SANITIZE_ADDRESS__)
    MESSAGE("not run under AddressSanitizer: too slow there");
    return;
#endif
    if (kernels_failed()) return;
    const char* dir = std::getenv("TUTORIAL_FASHION_MNIST_DIR");
    if (!dir) dir = kFashionMnistDefaultDir;
    LabelledImages train, test;
    std::string error;
    double threshold = 0.65;
    if (load_fashion_mnist(dir, "train", 500, &train, &error) &&
        load_fashion_mnist(dir, "t10k", 500, &test, &error)) {
        MESSAGE("training on Fashion-MNIST from " << std::string(dir));
    } else {
        MESSAGE("Fashion-MNIST not found (" << error << "): training on a made-up set instead; "
                << std::string(kFashionMnistInstallHint));
        make_synthetic_images(500, 11, &train);
        make_synthetic_images(500, 12, &test);
        threshold = 0.90;
    }
    standardize_pixels(&train);
    standardize_pixels(&test);
    const double accuracy = train_and_test_on_gpu(train, test, 1, 32, 0.1f, 0, 1);
    MESSAGE("test accuracy after one epoch: " << 100.0 * accuracy << "% (at least "
            << 100.0 * threshold << "% needed)");
    CHECK(accuracy >= threshold);
}
