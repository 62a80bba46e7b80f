// test_07_device_functions.cpp - lesson 07: __device__ and __host__ __device__
// functions: a sigmoid (with expf and with __expf) and a ReLU.
//
// Built twice, against lessons/07-device-functions/activations.cu (the
// exercise, whose ReLU is unfinished, so it must fail here as shipped) and
// solutions/07-device-functions/activations.cu (which must pass), for the
// emulator and for nvcc.
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference.h"

#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <cstdio>

// From the lesson file (the same declarations as there).
enum class Activation { sigmoid, sigmoid_fast, relu };
void activation_on_gpu(Activation f, const float* h_x, float* h_y, int n, int block_size);
void sigmoid_on_cpu(const float* x, float* y, int n);

namespace {

// 1: one thread; 1000 and 1023: not multiples of any block size below;
// 100003: a large prime, many blocks.
const int kSizes[] = {1, 1000, 1023, 100003};
const int kBlockSizes[] = {32, 96, 256, 1024};

// The sigmoid's inputs: e^-x stays a normal float over [-80, 80], and so does
// the sigmoid itself (about 1.8e-35 at x = -80), so relative errors mean the
// same thing everywhere. Past about -87, e^-x overflows to infinity and the
// float sigmoid becomes 0 while the exact one is a tiny denormal.
const float kRange = 80.0f;

// The sigmoid spans 35 orders of magnitude on these inputs, so it needs a
// relative tolerance: an absolute one of 1e-6 would accept any answer at all
// for x below -14, where the sigmoid is under 1e-6.
//
// expf is accurate to 2 ulp on the GPU (CUDA's documented bound; glibc's is
// under 1). The addition and the division each round once more (half an ulp
// each), and an error in e^-x is damped, never amplified, by 1 / (1 + e^-x).
// One ulp of a float is at most FLT_EPSILON relative, so 3 ulp of error fit
// within 5 FLT_EPSILON with room to spare, and a real bug (a wrong formula, a
// float rounded to half precision) does not.
const double kRtolExpf = 5.0 * FLT_EPSILON;

// __expf is documented as accurate to 2 + floor(1.173 |x|) ulp: its error
// grows with |x| (the GPU computes 2^(x * log2 e), and the product's rounding
// error is magnified by the exponential). Allow that, plus the two roundings
// of the sigmoid and one more ulp of margin: (4 + 1.173 |x|) FLT_EPSILON,
// about 1.1e-5 at |x| = 80 and 5e-7 near 0.
double rtol_fast(double x) { return (4.0 + 1.173 * std::fabs(x)) * FLT_EPSILON; }

// Compares got[i] with the exact (double) sigmoid of x[i] under a relative
// tolerance that may depend on x; prints the first few misses. Returns how
// many elements miss.
template <class Tolerance>
int count_beyond_tolerance(const float* x, const float* got, int n, Tolerance rtol) {
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        double exact = cpu_sigmoid_exact(x[i]);
        double err = std::fabs((double)got[i] - exact);
        if (err <= rtol(x[i]) * std::fabs(exact)) continue;  // false for NaN too
        if (bad++ < 5)
            std::printf("  index %d: x = %.9g, got %.9g, exact %.9g, relative error %.3g "
                        "(allowed %.3g)\n",
                        i, x[i], got[i], exact, err / std::fabs(exact), rtol(x[i]));
    }
    return bad;
}

}  // namespace

TEST_CASE("the kernel's sigmoid (expf) is within 5 FLT_EPSILON of the double-precision sigmoid") {
    for (int n : kSizes) {
        auto x = random_floats(n, -kRange, kRange);
        for (int block_size : kBlockSizes) {
            CAPTURE(n);
            CAPTURE(block_size);
            auto got = poisoned_floats(n);  // NaN: an element no thread wrote cannot pass
            activation_on_gpu(Activation::sigmoid, x.data(), got.data(), n, block_size);
            CHECK(count_beyond_tolerance(x.data(), got.data(), n,
                                         [](double) { return kRtolExpf; }) == 0);
        }
    }
}

TEST_CASE("the kernel's fast sigmoid (__expf) stays within the documented, |x|-dependent bound") {
    for (int n : kSizes) {
        auto x = random_floats(n, -kRange, kRange);
        for (int block_size : kBlockSizes) {
            CAPTURE(n);
            CAPTURE(block_size);
            auto got = poisoned_floats(n);
            activation_on_gpu(Activation::sigmoid_fast, x.data(), got.data(), n, block_size);
            CHECK(count_beyond_tolerance(x.data(), got.data(), n, rtol_fast) == 0);
        }
    }
}

TEST_CASE("the __host__ __device__ sigmoid, called on the CPU, meets the same tight bound") {
    const int n = 100003;
    auto x = random_floats(n, -kRange, kRange);
    auto got = poisoned_floats(n);
    sigmoid_on_cpu(x.data(), got.data(), n);
    CHECK(count_beyond_tolerance(x.data(), got.data(), n, [](double) { return kRtolExpf; }) == 0);
}

TEST_CASE("the ReLU kernel matches the CPU exactly") {
    // max(x, 0) is a comparison and a copy: no rounding anywhere, so the GPU
    // must return exactly the CPU's floats. Inputs in [-1, 1): half negative.
    for (int n : kSizes) {
        auto x = random_floats(n);
        auto ref = poisoned_floats(n);
        cpu_relu(x.data(), ref.data(), n);
        for (int block_size : kBlockSizes) {
            CAPTURE(n);
            CAPTURE(block_size);
            auto got = poisoned_floats(n);
            activation_on_gpu(Activation::relu, x.data(), got.data(), n, block_size);
            REQUIRE_ALL_CLOSE("your y", got.data(), ref.data(), n, 0.0, 0.0);
        }
    }
}
