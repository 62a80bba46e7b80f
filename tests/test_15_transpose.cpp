// test_15_transpose.cpp - lesson 15: transpose, coalescing, shared-memory banks.
//
// Built twice, against lessons/15-transpose/transpose.cu (the exercise, which
// must fail here as shipped) and solutions/15-transpose/transpose.cu (which
// must pass), for the emulator and for nvcc.
//
// Tolerance: none. A transpose moves floats and computes nothing, so every
// element of the output must equal its element of the input exactly; the
// comparisons use atol = rtol = 0 (and a NaN, the poison, never compares equal).
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_MATRIX_CLOSE
#include "cpu_reference_transpose.h"

#include <set>

// The launchers from the lesson file (the same declarations as there).
void copy_matrix_on_gpu(const float* h_in, float* h_out, int rows, int cols);
void naive_transpose_on_gpu(const float* h_in, float* h_out, int rows, int cols);
void tiled_transpose_on_gpu(const float* h_in, float* h_out, int rows, int cols, bool padded);
int tile_pitch(bool padded);

namespace {

// rows x cols of the input. Tiles are 32 x 32: only 1 x 1 fits in one tile,
// and no other size is a multiple of 32 in both directions, so every kernel
// meets partial tiles at the right and bottom edges. The tall and the wide
// shapes catch rows and cols swapped in the output index, which a square
// matrix hides.
struct Shape {
    int rows, cols;
};
const Shape kShapes[] = {
    {1, 1},        // one thread of one block does anything at all
    {1000, 1023},  // almost square, partial tiles on both edges
    {2050, 33},    // tall: 65 x 2 tiles, the last column of tiles one float wide
    {31, 1500},    // wide: one row of tiles, each one row short
};

void check_transpose(bool padded) {
    for (const Shape& s : kShapes) {
        CAPTURE(s.rows);
        CAPTURE(s.cols);
        CAPTURE(padded);
        const size_t count = (size_t)s.rows * s.cols;
        auto in = random_floats(count);
        auto ref = poisoned_floats(count), got = poisoned_floats(count);
        cpu_transpose(in.data(), ref.data(), s.rows, s.cols);
        tiled_transpose_on_gpu(in.data(), got.data(), s.rows, s.cols, padded);
        // The output is cols x rows.
        REQUIRE_MATRIX_CLOSE("your transpose", got.data(), ref.data(), s.cols, s.rows, 0.0, 0.0);
    }
}

}  // namespace

TEST_CASE("tiled transpose, 32 x 32 tile: exact, for square, tall and wide matrices") {
    check_transpose(false);
}

TEST_CASE("tiled transpose, padded tile: exact, for square, tall and wide matrices") {
    check_transpose(true);
}

TEST_CASE("the padded tile's column read touches all 32 banks, one word each") {
    // The bank rule of NVIDIA GPUs: 32 banks of 4 bytes, word w in bank w % 32.
    // The write-out of the tiled kernel has lane tx of a warp read tile[tx][ty],
    // word tx * pitch + ty. With a pitch of 32 floats every lane lands in the
    // same bank; one float more per row and each lane lands in its own.
    auto banks_of_column_read = [](int pitch) {
        std::set<int> banks;
        const int ty = 5;  // any row of threads gives the same count
        for (int lane = 0; lane < 32; ++lane) banks.insert((lane * pitch + ty) % 32);
        return banks.size();
    };
    CHECK(tile_pitch(false) == 32);
    CHECK_MESSAGE(banks_of_column_read(tile_pitch(true)) == 32,
                  "with rows of ", tile_pitch(true), " floats, the 32 lanes of a warp reading "
                  "down a column of the tile share ", banks_of_column_read(tile_pitch(true)),
                  " bank(s): the padding is missing");
}

TEST_CASE("the kernels the timing compares against are right too") {
    for (const Shape& s : kShapes) {
        CAPTURE(s.rows);
        CAPTURE(s.cols);
        const size_t count = (size_t)s.rows * s.cols;
        auto in = random_floats(count);
        auto ref = poisoned_floats(count);
        cpu_transpose(in.data(), ref.data(), s.rows, s.cols);

        auto copied = poisoned_floats(count);
        copy_matrix_on_gpu(in.data(), copied.data(), s.rows, s.cols);
        REQUIRE_MATRIX_CLOSE("the copy", copied.data(), in.data(), s.rows, s.cols, 0.0, 0.0);

        auto naive = poisoned_floats(count);
        naive_transpose_on_gpu(in.data(), naive.data(), s.rows, s.cols);
        REQUIRE_MATRIX_CLOSE("the naive transpose", naive.data(), ref.data(), s.cols, s.rows, 0.0,
                             0.0);
    }
}
