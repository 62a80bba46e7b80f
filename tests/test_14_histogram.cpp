// test_14_histogram.cpp - lesson 14: atomics and privatised shared-memory bins.
//
// Built twice, against lessons/14-histogram/histogram.cu (the exercise, which
// must fail here as shipped) and solutions/14-histogram/histogram.cu (which
// must pass), for the emulator and for nvcc.
#include "test_support.h"  // doctest, test_seed
#include "cpu_reference_histogram.h"

#include <algorithm>
#include <string>
#include <vector>

// The launchers from the lesson file (the same declarations as there).
void histogram_global_atomics_on_gpu(const unsigned char* h_pixels, int n,
                                     unsigned int* h_bins, int block);
void histogram_shared_on_gpu(const unsigned char* h_pixels, int n, unsigned int* h_bins,
                             int block, int blocks);

namespace {

// Sizes that are not a multiple of any block size used below, a size smaller
// than one block, and a large odd one.
const int kSizes[] = {1, 1000, 1023, 100003};

// Blocks smaller than the 256 bins (each thread zeroes and merges several),
// a usual size, and one that is not a multiple of the warp (some threads own
// no bin at all).
const int kBlocks[] = {64, 256, 1000};

std::vector<unsigned char> random_picture(int n, bool skewed) {
    static std::uint64_t stream = 0;
    std::vector<unsigned char> pixels((size_t)n);
    fill_grey_image(pixels.data(), pixels.size(), test_seed() + 0x9E3779B97F4A7C15ull * ++stream,
                    skewed);
    return pixels;
}

// Counts are whole numbers, so there is no tolerance: a bin is right or wrong.
// Poisoned bins (0xFFFFFFFF) that nothing wrote can never match, and the total
// of all bins must be the number of pixels: a lost or doubled count shows up
// there even when it hides among many bins.
#define REQUIRE_HISTOGRAM(got, ref, n)                                                   \
    do {                                                                                 \
        std::string report_(4096, '\0');                                                 \
        tutorial_text out_ = {&report_[0], report_.size(), 0};                           \
        if (histogram_compare_report(&out_, "your bins", (got), (ref), 8) != 0) {        \
            report_.resize(out_.length);                                                 \
            if (!report_.empty() && report_.back() == '\n') report_.pop_back();          \
            FAIL(report_);                                                               \
        }                                                                                \
        REQUIRE(histogram_total(got) == (unsigned long long)(n));                        \
    } while (0)

struct Bins {
    unsigned int count[HISTOGRAM_BINS];
    Bins() {
        for (unsigned int& c : count) c = 0xFFFFFFFFu;  // poison
    }
};

}  // namespace

TEST_CASE("shared-memory bins, one pixel per thread, match the CPU exactly") {
    for (bool skewed : {false, true})
        for (int n : kSizes)
            for (int block : kBlocks) {
                CAPTURE(skewed);
                CAPTURE(n);
                CAPTURE(block);
                auto pixels = random_picture(n, skewed);
                Bins ref, got;
                cpu_histogram(pixels.data(), pixels.size(), ref.count);
                histogram_shared_on_gpu(pixels.data(), n, got.count, block, 0);
                REQUIRE_HISTOGRAM(got.count, ref.count, n);
            }
}

TEST_CASE("shared-memory bins with a fixed grid (grid-stride loop) match the CPU exactly") {
    // 1 block counts everything; 7 blocks of 1000 threads leave most threads
    // idle for n = 1000; 37 blocks of 64 make each thread count about 42
    // pixels of 100003.
    for (bool skewed : {false, true})
        for (int n : kSizes)
            for (int blocks : {1, 7, 37}) {
                int block = blocks == 37 ? 64 : 1000;
                CAPTURE(skewed);
                CAPTURE(n);
                CAPTURE(blocks);
                CAPTURE(block);
                auto pixels = random_picture(n, skewed);
                Bins ref, got;
                cpu_histogram(pixels.data(), pixels.size(), ref.count);
                histogram_shared_on_gpu(pixels.data(), n, got.count, block, blocks);
                REQUIRE_HISTOGRAM(got.count, ref.count, n);
            }
}

TEST_CASE("global atomics, the kernel the timing compares against, match the CPU exactly") {
    for (bool skewed : {false, true})
        for (int n : kSizes) {
            CAPTURE(skewed);
            CAPTURE(n);
            auto pixels = random_picture(n, skewed);
            Bins ref, got;
            cpu_histogram(pixels.data(), pixels.size(), ref.count);
            histogram_global_atomics_on_gpu(pixels.data(), n, got.count, 256);
            REQUIRE_HISTOGRAM(got.count, ref.count, n);
        }
}

TEST_CASE("the skewed picture is skewed and the uniform one is not") {
    // The timing table's claim rests on these inputs: check them.
    const int n = 100003;
    Bins uniform, skewed;
    auto a = random_picture(n, false), b = random_picture(n, true);
    cpu_histogram(a.data(), a.size(), uniform.count);
    cpu_histogram(b.data(), b.size(), skewed.count);
    unsigned int most_uniform = 0;
    for (unsigned int c : uniform.count) most_uniform = std::max(most_uniform, c);
    CHECK(most_uniform < n / 100);  // about n / 256 each
    CHECK(skewed.count[HISTOGRAM_BACKGROUND] > n * 85 / 100);  // about 90%
}
