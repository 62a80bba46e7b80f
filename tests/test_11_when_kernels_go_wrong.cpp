// test_11_when_kernels_go_wrong.cpp - lesson 11: four classic bugs.
//
// Built against lessons/11-when-kernels-go-wrong/debug_me.cu (four bugs: it
// must fail here as shipped) and the fixed solution (which must pass), for the
// emulator and for nvcc. The cases run in the order of the TODO steps; a bug
// that corrupts the CUDA context (an illegal address is sticky) also fails
// the cases after it, exactly as it would in a real program.
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE

#include <cuda_runtime.h>

#include <vector>

// The launchers from the lesson file (the same declarations as there).
void scale_on_gpu(const float* h_x, float* h_y, int n, float factor);
void add_offset_on_gpu(const float* h_x, float* h_y, int n, float offset);
int block_count(int n);
void block_sums_on_gpu(const float* h_x, int n, float* h_sums);
void square_on_gpu(const float* h_x, float* h_y, int n);

// 1: one thread; 1000 and 1023: the last block of 256 sticks out past the
// end (the case bug 1 needs); 4096: an exact multiple; 100003: many blocks.
static const int kSizes[] = {1, 1000, 1023, 4096, 100003};

// Scaling, adding and squaring one float are correctly rounded on any device,
// so results agree exactly; the tolerance is a margin only.
static const double kAtol = 1e-6, kRtol = 1e-6;

TEST_CASE("11.1 scale_on_gpu: every element scaled, nothing written past the end") {
    for (int n : kSizes) {
        CAPTURE(n);
        auto x = random_floats(n);
        auto ref = poisoned_floats(n), got = poisoned_floats(n);
        const float factor = 3.0f;
        for (int i = 0; i < n; ++i) ref[i] = factor * x[i];
        scale_on_gpu(x.data(), got.data(), n, factor);
        REQUIRE_ALL_CLOSE("your output", got.data(), ref.data(), n, kAtol, kRtol);
    }
}

TEST_CASE("11.2 add_offset_on_gpu: the kernel reads the device copy of x") {
    for (int n : kSizes) {
        CAPTURE(n);
        auto x = random_floats(n);
        auto ref = poisoned_floats(n), got = poisoned_floats(n);
        const float offset = 0.5f;
        for (int i = 0; i < n; ++i) ref[i] = x[i] + offset;
        add_offset_on_gpu(x.data(), got.data(), n, offset);
        REQUIRE_ALL_CLOSE("your output", got.data(), ref.data(), n, kAtol, kRtol);
    }
}

TEST_CASE("11.3 block_sums_on_gpu: each block's sum matches a double-precision sum") {
    for (int n : kSizes) {
        CAPTURE(n);
        auto x = random_floats(n);
        // The lesson sums blocks of 256 elements (its kBlockSize).
        const int per_block = 256;
        const int num_blocks = block_count(n);
        REQUIRE(num_blocks == (n + per_block - 1) / per_block);
        std::vector<float> ref((size_t)num_blocks);
        auto got = poisoned_floats((size_t)num_blocks);
        for (int b = 0; b < num_blocks; ++b) {
            double sum = 0.0;
            for (int i = b * per_block; i < n && i < (b + 1) * per_block; ++i) sum += x[i];
            ref[(size_t)b] = (float)sum;
        }
        block_sums_on_gpu(x.data(), n, got.data());
        // A tree of up to 256 float additions of values in [-1, 1] rounds
        // differently from one double sum: errors of a few 1e-6 are normal,
        // and a missing barrier is off by far more (whole partial sums lost).
        REQUIRE_ALL_CLOSE("your block sums", got.data(), ref.data(), (size_t)num_blocks, 1e-4, 1e-5);
    }
}

TEST_CASE("11.4 square_on_gpu: the result comes back to the host") {
    for (int n : kSizes) {
        CAPTURE(n);
        auto x = random_floats(n);
        auto ref = poisoned_floats(n), got = poisoned_floats(n);
        for (int i = 0; i < n; ++i) ref[i] = x[i] * x[i];
        square_on_gpu(x.data(), got.data(), n);
        REQUIRE_ALL_CLOSE("your output", got.data(), ref.data(), n, kAtol, kRtol);
    }
}
