// test_06_2d_indexing.cpp - lesson 06: a matrix add on a 2D grid of 2D blocks.
//
// Built twice, against lessons/06-2d-indexing/matrix_add.cu (the exercise,
// which must fail here as shipped) and solutions/06-2d-indexing/matrix_add.cu
// (which must pass), for the emulator and for nvcc.
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference.h"

#include <cuda_runtime.h>

#include <stdexcept>

// From the lesson file (the same declarations as there).
void matrix_add_on_gpu(const float* h_a, const float* h_b, float* h_c, int rows, int cols,
                       int block_x, int block_y);
dim3 grid_for(int rows, int cols, dim3 block);

namespace {

struct Shape {
    int rows, cols;
};

// 1023 x 517 and 517 x 1023: neither side a multiple of any block side below,
// and the two are each other's transpose, so swapping rows and columns (or x
// and y) anywhere shows. 1 x 1: one thread of one block does everything.
// 1 x 1000 and 1000 x 1: a single row and a single column, where one grid
// dimension is a single block. 33 x 65: just past a multiple of 32 on both
// sides, so the last row and column of blocks each hold one real element.
const Shape kShapes[] = {{1023, 517}, {517, 1023}, {1, 1}, {1, 1000}, {1000, 1}, {33, 65}};

// Square and non-square blocks, blocks flat in x and in y, odd sides (7 x 3),
// and the full 1024 threads (32 x 32).
const dim3 kBlocks[] = {dim3(32, 8), dim3(16, 16), dim3(8, 32), dim3(7, 3),
                        dim3(256, 1), dim3(1, 256), dim3(32, 32)};

// A float addition is correctly rounded (IEEE 754) on the CPU and on the GPU,
// so every sum must be bit-identical to the reference: no tolerance at all.
const double kAtol = 0.0, kRtol = 0.0;

}  // namespace

TEST_CASE("grid_for covers the matrix with whole blocks, rounding up on each side") {
    // 517 columns / 32 = 16.2 -> 17 blocks across; 1023 rows / 8 = 127.9 -> 128 down.
    dim3 grid = grid_for(1023, 517, dim3(32, 8));
    CHECK(grid.x == 17u);
    CHECK(grid.y == 128u);
    CHECK(grid.z == 1u);
    // Exact multiples need no extra block: 64 / 16 = 4, 48 / 16 = 3.
    grid = grid_for(48, 64, dim3(16, 16));
    CHECK(grid.x == 4u);
    CHECK(grid.y == 3u);
    // x follows the columns and y the rows, whatever the block's shape.
    for (const Shape& s : kShapes)
        for (const dim3& block : kBlocks) {
            CAPTURE(s.rows);
            CAPTURE(s.cols);
            CAPTURE(block.x);
            CAPTURE(block.y);
            grid = grid_for(s.rows, s.cols, block);
            // Enough threads on each side, and not a whole block too many.
            // REQUIRE: the first shape that fails says it all; the others
            // would repeat it.
            REQUIRE((long long)grid.x * block.x >= s.cols);
            REQUIRE((long long)(grid.x - 1) * block.x < s.cols);
            REQUIRE((long long)grid.y * block.y >= s.rows);
            REQUIRE((long long)(grid.y - 1) * block.y < s.rows);
        }
}

TEST_CASE("matrix add matches the CPU for shapes off the block multiple and any block shape") {
    for (const Shape& s : kShapes) {
        const int n = s.rows * s.cols;
        auto a = random_floats(n), b = random_floats(n);
        auto ref = poisoned_floats(n);
        cpu_matrix_add(a.data(), b.data(), ref.data(), s.rows, s.cols);
        for (const dim3& block : kBlocks) {
            CAPTURE(s.rows);
            CAPTURE(s.cols);
            CAPTURE(block.x);
            CAPTURE(block.y);
            auto got = poisoned_floats(n);  // NaN: an element no thread wrote cannot pass
            matrix_add_on_gpu(a.data(), b.data(), got.data(), s.rows, s.cols, (int)block.x,
                              (int)block.y);
            REQUIRE_MATRIX_CLOSE("your C", got.data(), ref.data(), s.rows, s.cols, kAtol, kRtol);
        }
    }
}

TEST_CASE("a block of more than 1024 threads is refused even when each side fits") {
    (void)cudaGetLastError();  // start clean
    const int rows = 100, cols = 100;
    auto a = random_floats(rows * cols), b = random_floats(rows * cols);
    auto got = poisoned_floats(rows * cols);
    // 64 x 32 = 2048 threads: each side is within 1024 but the product is not.
    // The launch fails (cudaErrorInvalidValue under CUDA 13), which CUDA_CHECK
    // turns into an exception in test builds.
    CHECK_THROWS_AS(matrix_add_on_gpu(a.data(), b.data(), got.data(), rows, cols, 64, 32),
                    std::runtime_error);
    // The error is not sticky: the device still works, and a block of exactly
    // 1024 threads (32 x 32) is accepted.
    CHECK(cudaGetLastError() == cudaSuccess);
    auto ref = poisoned_floats(rows * cols);
    cpu_matrix_add(a.data(), b.data(), ref.data(), rows, cols);
    matrix_add_on_gpu(a.data(), b.data(), got.data(), rows, cols, 32, 32);
    REQUIRE_MATRIX_CLOSE("your C", got.data(), ref.data(), rows, cols, kAtol, kRtol);
}
