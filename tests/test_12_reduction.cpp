// test_12_reduction.cpp - lesson 12: the sum ladder, max and argmax, softmax.
//
// Built twice, against lessons/12-reduction/reduction.cu (the exercise, whose
// max/argmax must fail here as shipped) and solutions/12-reduction/reduction.cu
// (which must pass), for the emulator and for nvcc.
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference_reduction.h"

#include <cmath>
#include <vector>

// The launchers from the lesson file (the same declarations as there).
int sum_step_count();
const char* sum_step_name(int step);
bool sum_on_gpu(const float* h_x, int n, int step, int block_size, float* h_sum);
bool max_argmax_on_gpu(const float* h_x, int n, int block_size, float* h_max, int* h_index);
bool softmax_on_gpu(const float* h_x, float* h_y, int n, int block_size);

// Sizes: 1, less than a block, one short of a multiple of every block size,
// and a large odd one that needs at least two passes at every block size
// (three at 256, four at 32).
static const int kSizes[] = {1, 1000, 1023, 100003};

// Random whole numbers from -limit to limit, as floats.
static std::vector<float> random_integers(int n, float limit) {
    std::vector<float> v = random_floats((size_t)n, -limit - 0.5f, limit + 0.5f);
    for (float& x : v) x = std::round(x);
    return v;
}

TEST_CASE("every step of the sum ladder is exact when no addition has to round") {
    // Whole numbers of at most 100 in magnitude, at most 100003 of them: every
    // partial sum, in any order, is a whole number below 2^24 = 16777216,
    // which float holds exactly. So no addition rounds and every order gives
    // exactly the CPU's sum: the tolerance is 0, and a single element lost,
    // added twice or read from the wrong place shows.
    for (int n : kSizes) {
        auto x = random_integers(n, 100.0f);
        const double exact = cpu_sum_exact(x.data(), n);
        for (int block : {32, 256, 1024}) {
            for (int step = 0; step < sum_step_count(); ++step) {
                CAPTURE(n);
                CAPTURE(block);
                CAPTURE(sum_step_name(step));
                float got = NAN;
                REQUIRE(sum_on_gpu(x.data(), n, step, block, &got));
                REQUIRE((double)got == exact);
            }
        }
    }
}

TEST_CASE("every step's float sum is within the rounding bound for its length") {
    // Tolerance from the length. A float addition rounds its result to the
    // nearest float: an error of at most u = 2^-24 (half of FLT_EPSILON)
    // times the result. A sum of n numbers makes n - 1 additions, whatever the
    // order, and no partial sum exceeds sum |x|, so
    //     |float sum - exact sum| <= (n - 1) * u * sum |x|
    // (Higham, "Accuracy and Stability of Numerical Algorithms", ch. 4). The
    // bound holds for every order, so it holds for atomics, whose order a GPU
    // chooses at run time. The exact sum is the CPU's sum in double (its own
    // error is ~2^-29 times smaller). The bound is loose (a tree's error grows
    // like log2(n), random errors partly cancel), which is why the case above,
    // with no rounding at all, is the one that catches a lost element.
    for (int n : kSizes) {
        auto x = random_floats((size_t)n);
        const double exact = cpu_sum_exact(x.data(), n);
        const double bound = (double)(n - 1) * std::ldexp(1.0, -24) * cpu_sum_abs(x.data(), n);
        for (int step = 0; step < sum_step_count(); ++step) {
            CAPTURE(n);
            CAPTURE(sum_step_name(step));
            float got = NAN;
            REQUIRE(sum_on_gpu(x.data(), n, step, 256, &got));
            REQUIRE(std::fabs((double)got - exact) <= bound);  // false for NaN
        }
    }
}

// The test of the exercise: max is exact (it only compares, never rounds),
// so the value and the index must both be the CPU's.
static void require_max_argmax(const std::vector<float>& x, int block) {
    const int n = (int)x.size();
    float ref_max = 0.0f, got_max = NAN;
    int ref_index = 0, got_index = -1;
    cpu_max_argmax(x.data(), n, &ref_max, &ref_index);
    REQUIRE(max_argmax_on_gpu(x.data(), n, block, &got_max, &got_index));
    INFO("your max is x[" << got_index << "] = " << got_max << ", the CPU's is x[" << ref_index
                          << "] = " << ref_max);
    REQUIRE(got_max == ref_max);
    REQUIRE(got_index == ref_index);
}

TEST_CASE("max and argmax: the largest element and its index") {
    for (int n : kSizes)
        for (int block : {32, 256, 1024}) {
            CAPTURE(n);
            CAPTURE(block);
            require_max_argmax(random_floats((size_t)n), block);
        }
}

TEST_CASE("max and argmax of numbers that are all negative") {
    // The threads past the end of the array still take part in the tree; what
    // they hold must lose to every element, and 0 would not.
    for (int n : {1000, 1023}) {
        CAPTURE(n);
        require_max_argmax(random_floats((size_t)n, -2.0f, -1.0f), 256);
    }
}

TEST_CASE("max and argmax: of equal largest elements, the lowest index wins") {
    // Whole numbers from 0 to 3: about a quarter of the elements tie for the
    // maximum, spread over every block, so only the tie rule gives one answer.
    for (int n : {1000, 100003}) {
        CAPTURE(n);
        auto x = random_integers(n, 3.0f);
        for (float& v : x) v = std::fabs(v);
        require_max_argmax(x, 256);
    }
    // Ties only in the last block, and the maximum in the very last element.
    std::vector<float> x = random_floats(1000, -1.0f, 1.0f);
    x[999] = 5.0f;
    require_max_argmax(x, 32);
    x[990] = 5.0f;
    require_max_argmax(x, 32);
}

TEST_CASE("softmax: exp(x - max) over the sum of them matches cpu_softmax") {
    // Logits from 60 to 100: expf of anything over 88.7 is inf in float, so
    // only a softmax that subtracts a maximum gets finite outputs. Each
    // output is exp (a few ulp of error) divided by a float sum of n positive
    // terms (relative error at most (n - 1) * 2^-24, as for any float sum):
    // so a relative tolerance of (n + 4) * 2^-24. The absolute 1e-30 only
    // absorbs outputs so small (below 1e-38) that float loses digits.
    for (int n : {1, 1000, 100003}) {
        CAPTURE(n);
        auto logits = random_floats((size_t)n, 60.0f, 100.0f);
        auto ref = poisoned_floats((size_t)n), got = poisoned_floats((size_t)n);
        cpu_softmax(logits.data(), ref.data(), n);
        REQUIRE(softmax_on_gpu(logits.data(), got.data(), n, 256));
        REQUIRE_ALL_CLOSE("your softmax", got.data(), ref.data(), n, 1e-30,
                          ((double)n + 4.0) * std::ldexp(1.0, -24));
    }
}

TEST_CASE("block sizes other than a power of two from 32 to 1024 are refused") {
    std::vector<float> x = random_floats(100);
    float sum = NAN, max = NAN;
    int index = -1;
    for (int block : {0, 16, 31, 96, 1000, 2048}) {
        CAPTURE(block);
        CHECK_FALSE(sum_on_gpu(x.data(), 100, 2, block, &sum));
        CHECK_FALSE(max_argmax_on_gpu(x.data(), 100, block, &max, &index));
        CHECK_FALSE(softmax_on_gpu(x.data(), x.data(), 100, block));
    }
    CHECK(std::isnan(sum));  // nothing was computed
}
