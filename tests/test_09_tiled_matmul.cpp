// test_09_tiled_matmul.cpp - lesson 09: shared-memory tiles and __syncthreads.
//
// Built twice, against lessons/09-tiled-matmul/tiled_matmul.cu (the exercise,
// which must fail here as shipped) and solutions/09-tiled-matmul/tiled_matmul.cu
// (which must pass), for the emulator and for nvcc.
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

// The launchers from the lesson file (the same declarations as there).
bool tile_is_supported(int tile);
bool tiled_matmul_on_gpu(const float* h_a, const float* h_b, float* h_c, int m, int n, int k,
                         int tile);
bool tiled_matmul_without_second_barrier_on_gpu(const float* h_a, const float* h_b, float* h_c,
                                                int m, int n, int k, int tile);
void naive_matmul_on_gpu(const float* h_a, const float* h_b, float* h_c, int m, int n, int k,
                         int block_size);

namespace {

// C (m x n) = A (m x k) * B (k x n). Only 1x1 and 129x129 are square, and no
// size is a multiple of 8, so every tile size meets partial tiles at the
// right and bottom edges of C and at the end of k. k = 1 and k = 5 are
// shorter than one tile; k = 129 is four tiles of 32 and one element.
struct Shape {
    int m, n, k;
};
const Shape kShapes[] = {
    {1, 1, 1},        // one thread of one block does anything at all
    {17, 5, 33},      // 17x33 * 33x5
    {100, 129, 37},   // 100x37 * 37x129
    {3, 70, 5},       // k shorter than any tile
    {129, 129, 129},  // square, one more than a multiple of 32
};
const int kTiles[] = {8, 16, 32};

// Tolerance. Each element of C is a float sum of k products, rounded at every
// step, so its error grows with k; the reference sums in double and is the
// more exact side. With inputs in [-1, 1] the products add up to at most k in
// size, so the absolute part grows with k: it covers elements near zero, where
// terms cancel and a relative tolerance alone would be too strict. 1e-5 * k is
// well above the rounding seen in practice and far below what a bug gives
// (an element off by 0.1 or more, or NaN where nothing was written).
double atol_for(int k) { return 1e-5 * k; }
const double kRtol = 1e-5;

size_t count_mismatches(const std::vector<float>& got, const std::vector<float>& ref, int k) {
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
        if (!tutorial_close_enough(got[i], ref[i], atol_for(k), kRtol)) ++bad;
    return bad;
}

}  // namespace

TEST_CASE("tiled matmul matches the CPU for shapes that are not a multiple of the tile") {
    for (const Shape& s : kShapes) {
        auto a = random_floats((size_t)s.m * s.k), b = random_floats((size_t)s.k * s.n);
        auto ref = poisoned_floats((size_t)s.m * s.n);
        cpu_matmul(a.data(), b.data(), ref.data(), s.m, s.n, s.k);
        for (int tile : kTiles) {
            CAPTURE(s.m);
            CAPTURE(s.n);
            CAPTURE(s.k);
            CAPTURE(tile);
            auto got = poisoned_floats((size_t)s.m * s.n);  // an unwritten element is NaN
            REQUIRE(tiled_matmul_on_gpu(a.data(), b.data(), got.data(), s.m, s.n, s.k, tile));
            REQUIRE_MATRIX_CLOSE("your C", got.data(), ref.data(), s.m, s.n, atol_for(s.k), kRtol);
        }
    }
}

TEST_CASE("the naive kernel the timing compares against is right too") {
    for (const Shape& s : kShapes) {
        CAPTURE(s.m);
        CAPTURE(s.n);
        CAPTURE(s.k);
        auto a = random_floats((size_t)s.m * s.k), b = random_floats((size_t)s.k * s.n);
        auto ref = poisoned_floats((size_t)s.m * s.n), got = poisoned_floats((size_t)s.m * s.n);
        cpu_matmul(a.data(), b.data(), ref.data(), s.m, s.n, s.k);
        naive_matmul_on_gpu(a.data(), b.data(), got.data(), s.m, s.n, s.k, 16);
        REQUIRE_MATRIX_CLOSE("your C", got.data(), ref.data(), s.m, s.n, atol_for(s.k), kRtol);
    }
}

TEST_CASE("only tiles of 8, 16 and 32 are supported; another size launches nothing") {
    CHECK(tile_is_supported(8));
    CHECK(tile_is_supported(16));
    CHECK(tile_is_supported(32));
    for (int tile : {0, 1, 12, 24, 64}) {
        CAPTURE(tile);
        CHECK_FALSE(tile_is_supported(tile));
        auto a = random_floats(20 * 30), b = random_floats(30 * 40);
        auto got = poisoned_floats(20 * 40);
        CHECK_FALSE(tiled_matmul_on_gpu(a.data(), b.data(), got.data(), 20, 40, 30, tile));
        CHECK(std::isnan(got[0]));  // untouched
    }
}

// A race on purpose: the test suite "deliberate-race" is left out where a race
// checker runs over the tests (tools/gpu-check.sh's racecheck).
TEST_CASE("without the second __syncthreads the tiles are overwritten while still in use" *
          doctest::test_suite("deliberate-race")) {
    // 100x70 * 70x129 with 16 x 16 tiles: 5 tile steps along k, so fast
    // threads have four chances to overwrite a tile that slower threads of
    // their block are still reading.
    const int m = 100, n = 129, k = 70, tile = 16;
    auto a = random_floats((size_t)m * k), b = random_floats((size_t)k * n);
    auto ref = poisoned_floats((size_t)m * n);
    cpu_matmul(a.data(), b.data(), ref.data(), m, n, k);

    // With both barriers the same inputs give the right answer: whatever goes
    // wrong below is the missing barrier's doing.
    auto with_barrier = poisoned_floats((size_t)m * n);
    REQUIRE(tiled_matmul_on_gpu(a.data(), b.data(), with_barrier.data(), m, n, k, tile));
    REQUIRE_MATRIX_CLOSE("your C", with_barrier.data(), ref.data(), m, n, atol_for(k), kRtol);

#ifdef TUTORIAL_BACKEND_EMU
    // Under the emulator's race check (on by default for a program with
    // __shared__, and named by ./tutorial check) the launch would stop with a
    // race report and a sticky error: tests/emu (emu.race.lesson09-*) checks
    // that report instead. The ctest lesson09.solution.emu.without-race-check
    // runs this case with CUEMU_CHECK=none.
    if (const char* check = std::getenv("CUEMU_CHECK"); !check || std::strcmp(check, "none") != 0) {
        MESSAGE("the run without the second barrier needs CUEMU_CHECK=none (the race check would stop it)");
        return;
    }
    // The emulator resumes a block's threads in threadIdx order after each
    // barrier, each running to its next barrier. Thread (0,0) finishes its
    // sums over the current tiles and at once stores its element of the NEXT
    // tiles; thread (1,0), resumed after it, then reads a_tile[0][0] and gets
    // the new value. The schedule never changes, so neither does the wrong
    // answer: the race is reproducible, and this test pins it down.
    std::vector<float> first_run;
    for (int run = 0; run < 5; ++run) {
        CAPTURE(run);
        auto got = poisoned_floats((size_t)m * n);
        REQUIRE(tiled_matmul_without_second_barrier_on_gpu(a.data(), b.data(), got.data(), m, n,
                                                           k, tile));
        size_t bad = count_mismatches(got, ref, k);
        CAPTURE(bad);
        CHECK_MESSAGE(bad > 0, "the missing barrier went unnoticed on the emulator");
        if (run == 0) {
            first_run = got;
        } else {
            CHECK_MESSAGE(std::memcmp(got.data(), first_run.data(), got.size() * sizeof(float)) == 0,
                          "the wrong answer changed from one run to the next");
        }
    }
#else
    // A GPU runs the threads of a block in warps whose order nobody promises:
    // the race may show, or the threads may happen to keep in step. Report
    // what happened; assert nothing about it.
    auto got = poisoned_floats((size_t)m * n);
    REQUIRE(tiled_matmul_without_second_barrier_on_gpu(a.data(), b.data(), got.data(), m, n, k,
                                                       tile));
    size_t bad = count_mismatches(got, ref, k);
    MESSAGE("without the second barrier, ", bad, " of ", m * n,
            " elements were wrong on this GPU this time (the race may or may not show)");
#endif
}
