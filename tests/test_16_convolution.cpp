// test_16_convolution.cpp - lesson 16: 1D and 2D convolution, __constant__
// filters, shared-memory tiles with halos, and the pictures in the README.
//
// Built twice, against lessons/16-convolution/convolution.cu (the exercise,
// which must fail here as shipped) and solutions/16-convolution/convolution.cu
// (which must pass), for the emulator and for nvcc.
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference_convolution.h"
#include "png_image.h"

#include <cstdio>  // std::remove
#include <cstdlib>
#include <string>

// The launchers from the lesson file (the same declarations as there).
bool convolve_1d_global_on_gpu(const float* in, const float* filter, float* out, int n,
                               int radius);
bool convolve_1d_constant_on_gpu(const float* in, const float* filter, float* out, int n,
                                 int radius);
bool convolve_2d_global_on_gpu(const float* in, const float* filter, float* out, int width,
                               int height, int radius);
bool convolve_2d_constant_on_gpu(const float* in, const float* filter, float* out, int width,
                                 int height, int radius);
bool convolve_2d_tiled_on_gpu(const float* in, const float* filter, float* out, int width,
                              int height, int radius);
GreyPicture make_scene(int width, int height);
bool blur_and_edges_on_gpu(const GreyPicture& in, int radius, GreyPicture* blur,
                           GreyPicture* edges);

namespace {

// Tolerance: cpu_convolution_tolerance (cpu_reference_convolution.h) bounds
// the rounding of a float sum of `taps` products against the double
// reference, for any order of summation, with or without fused multiply-adds.
// Inputs and weights here are in [-1, 1].
double atol_for(const std::vector<float>& filter) {
    return cpu_convolution_tolerance(filter.data(), (int)filter.size(), 1.0);
}

// Pictures: no size is a multiple of the 16 x 16 tile, so every grid has
// partial tiles on the right and at the bottom; 1 x 1 and 5 x 3 are smaller
// than one tile and than a 7 x 7 filter (the halo is clamped on all sides).
struct Size2D {
    int width, height;
};
const Size2D kSizes[] = {{1, 1}, {5, 3}, {17, 33}, {100, 37}, {129, 67}};

using Launcher2D = bool (*)(const float*, const float*, float*, int, int, int);

void check_2d(const char* name, Launcher2D launcher) {
    for (const Size2D& s : kSizes)
        for (int radius : {1, 2, 3}) {
            CAPTURE(s.width);
            CAPTURE(s.height);
            CAPTURE(radius);
            const size_t n = (size_t)s.width * s.height;
            auto in = random_floats(n);
            auto filter = random_floats((size_t)(2 * radius + 1) * (2 * radius + 1));
            auto ref = poisoned_floats(n), got = poisoned_floats(n);
            cpu_convolve_2d(in.data(), filter.data(), ref.data(), s.width, s.height, radius);
            REQUIRE(launcher(in.data(), filter.data(), got.data(), s.width, s.height, radius));
            REQUIRE_MATRIX_CLOSE(name, got.data(), ref.data(), s.height, s.width,
                                 atol_for(filter), 0.0);
        }
}

// Where the committed pictures the README shows are: lessons/16-convolution/img
// under the tree the build was configured from (an exported assignment too).
std::string picture_dir() {
    return std::string(TUTORIAL_SOURCE_DIR) + "/lessons/16-convolution/img/";
}

// The committed PNG against a freshly computed picture: every pixel within
// one grey level. Rounding to levels is exact for the CPU's floats, but a
// GPU (nvcc contracts a * b + c into one fused rounding) may land a sum a
// hair on the other side of a level's boundary: one level, never more.
void require_same_picture(const char* file, const GreyPicture& fresh) {
    const std::string picture = file;
    CAPTURE(picture);
    GreyPicture committed;
    std::string error;
    REQUIRE_MESSAGE(read_png_grey((picture_dir() + file).c_str(), &committed, &error), error);
    REQUIRE(committed.width == fresh.width);
    REQUIRE(committed.height == fresh.height);
    size_t off = 0, first = 0;
    for (size_t i = 0; i < fresh.pixels.size(); ++i) {
        int diff = (int)grey_level(committed.pixels[i]) - (int)grey_level(fresh.pixels[i]);
        if (diff > 1 || diff < -1) first = off++ ? first : i;
    }
    INFO(off << " pixels differ by more than one grey level, the first at ("
              << first % fresh.width << ", " << first / fresh.width
              << "). Make the kernel tests above pass first; if they do and the change is "
                 "intended, regenerate the pictures with ./tutorial solution 16 --out-dir "
                 "lessons/16-convolution/img");
    REQUIRE(off == 0);
}

}  // namespace

TEST_CASE("1D convolution matches the CPU, filter in global and in __constant__ memory") {
    for (int n : {1, 1000, 1023, 100003})
        for (int radius : {1, 4, 16}) {
            CAPTURE(n);
            CAPTURE(radius);
            auto in = random_floats((size_t)n);
            auto filter = random_floats((size_t)(2 * radius + 1));
            auto ref = poisoned_floats((size_t)n), got = poisoned_floats((size_t)n);
            cpu_convolve_1d(in.data(), filter.data(), ref.data(), n, radius);
            REQUIRE(convolve_1d_global_on_gpu(in.data(), filter.data(), got.data(), n, radius));
            REQUIRE_ALL_CLOSE("your 1D output (global filter)", got.data(), ref.data(), (size_t)n,
                              atol_for(filter), 0.0);
            got = poisoned_floats((size_t)n);
            REQUIRE(convolve_1d_constant_on_gpu(in.data(), filter.data(), got.data(), n, radius));
            REQUIRE_ALL_CLOSE("your 1D output (__constant__ filter)", got.data(), ref.data(),
                              (size_t)n, atol_for(filter), 0.0);
        }
}

TEST_CASE("naive 2D convolution, filter in global memory, matches the CPU") {
    check_2d("your picture (naive, global filter)", convolve_2d_global_on_gpu);
}

TEST_CASE("2D convolution with the filter in __constant__ memory matches the CPU") {
    check_2d("your picture (__constant__ filter)", convolve_2d_constant_on_gpu);
}

TEST_CASE("tiled 2D convolution (shared memory, halo, clamped edges) matches the CPU") {
    check_2d("your picture (tiled)", convolve_2d_tiled_on_gpu);
}

TEST_CASE("the launchers refuse a radius over the limit and leave the output alone") {
    std::vector<float> in(16, 1.0f), filter(81, 1.0f), out(16, 5.0f);
    CHECK_FALSE(convolve_2d_tiled_on_gpu(in.data(), filter.data(), out.data(), 4, 4, 4));
    CHECK_FALSE(convolve_1d_constant_on_gpu(in.data(), filter.data(), out.data(), 16, 17));
    CHECK(out[0] == 5.0f);
}

TEST_CASE("the README's pictures are what the program makes now") {
    // The committed PNGs were written by ./tutorial solution 16 --out-dir
    // lessons/16-convolution/img (default scene, 250 x 200, radius 2): the same inputs
    // here must give the same pictures, or the README shows stale ones.
    GreyPicture scene = make_scene(250, 200), blur, edges;
    REQUIRE(blur_and_edges_on_gpu(scene, 2, &blur, &edges));
    require_same_picture("input.png", scene);
    require_same_picture("blur.png", blur);
    require_same_picture("edges.png", edges);
}

TEST_CASE("PNG files: a picture comes back as written; what is not a picture is refused") {
    // Written into the test's working folder (its build folder), then removed.
    const std::string path = "test_16_round_trip.png";
    GreyPicture picture;
    picture.width = 3;
    picture.height = 2;
    picture.pixels = {0.0f, 0.5f, 1.0f, -0.25f, 1.5f, 0.2f};  // out-of-range values clamp
    std::string error;
    REQUIRE_MESSAGE(write_png_grey(path.c_str(), picture, &error), error);
    GreyPicture back;
    REQUIRE_MESSAGE(read_png_grey(path.c_str(), &back, &error), error);
    std::remove(path.c_str());
    REQUIRE(back.width == 3);
    REQUIRE(back.height == 2);
    const int levels[] = {0, 128, 255, 0, 255, 51};
    for (int i = 0; i < 6; ++i) {
        CAPTURE(i);
        CHECK((int)grey_level(back.pixels[i]) == levels[i]);
    }

    // A missing file and a file that is not a PNG: false and one line, no exit.
    error.clear();
    CHECK_FALSE(read_png_grey("no-such-picture.png", &back, &error));
    CHECK(error.rfind("cannot read no-such-picture.png", 0) == 0);
    error.clear();
    const std::string readme = picture_dir() + "../README.md";
    CHECK_FALSE(read_png_grey(readme.c_str(), &back, &error));
    CHECK(error.rfind("cannot read " + readme + ": ", 0) == 0);  // then libpng's reason
    CHECK(error.find('\n') == std::string::npos);

    // Wider than the tutorial takes: refused before anything is decoded.
    GreyPicture wide;
    wide.width = kMaxPictureSide + 1;
    wide.height = 1;
    wide.pixels.assign((size_t)wide.width, 0.5f);
    REQUIRE_MESSAGE(write_png_grey(path.c_str(), wide, &error), error);
    error.clear();
    CHECK_FALSE(read_png_grey(path.c_str(), &back, &error));
    std::remove(path.c_str());
    CHECK(error.find("16385 x 1 pixels; this program takes sides of 1 to 16384") !=
          std::string::npos);
}
