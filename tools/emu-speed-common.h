// emu-speed-common.h - what the emulator's benchmark (tools/emu-speed.cu) and
// PoCL's (tools/emu-speed-opencl.cpp) share, so that both time the same work on
// the same inputs the same way: the problem sizes, the inputs, the yardstick
// loops of tools/emu-speed-cpu.cpp, and the wall-clock helpers.
#ifndef EMU_SPEED_COMMON_H
#define EMU_SPEED_COMMON_H

#include <algorithm>
#include <chrono>
#include <vector>

#include "random_data.h"

// tools/emu-speed-cpu.cpp
void serial_vector_add(const float* a, const float* b, float* c, int n);
void openmp_vector_add(const float* a, const float* b, float* c, int n, int threads);
void serial_matmul(const float* a, const float* b, float* c, int n);
void openmp_matmul(const float* a, const float* b, float* c, int n, int threads);
void tiled_serial_matmul(const float* a, const float* b, float* c, int n);
int serial_sum(const int* x, int n);
int openmp_sum(const int* x, int n, int threads);
void serial_histogram(const unsigned char* x, int n, unsigned* counts);
void openmp_histogram(const unsigned char* x, int n, unsigned* counts, int threads);

// --small makes every problem small enough for a smoke run.
struct Sizes {
    int vector;  // elements of the vector add, the sum and the histogram
    int matrix;  // the matmul's matrices are matrix x matrix
};
inline Sizes problem_sizes(bool small) { return small ? Sizes{1 << 16, 128} : Sizes{1 << 22, 512}; }

constexpr int BLOCK = 256;         // threads per block (work-group) in every kernel but the matmul's
constexpr int TILE = 16;           // the matmul's tiles, and its blocks, are TILE x TILE
constexpr int HISTOGRAM_ITEMS = 16;  // bytes each histogram thread counts (a grid-stride loop)
constexpr int BINS = 256;          // one per byte value; BLOCK threads clear and publish them

// The sum's inputs are small ints, so that no order of addition can overflow or
// round: every implementation must return exactly the serial loop's sum.
inline std::vector<int> sum_input(int n) {
    tutorial_rng rng = {5};
    std::vector<int> x(n);
    for (int& v : x) v = int(tutorial_rng_next(&rng) % 201) - 100;
    return x;
}

// Uniform bytes: every bin is hit, and the shared-memory atomics contend as
// they do on real data that is not all alike.
inline std::vector<unsigned char> histogram_input(int n) {
    tutorial_rng rng = {6};
    std::vector<unsigned char> x(n);
    for (unsigned char& v : x) v = static_cast<unsigned char>(tutorial_rng_next(&rng) >> 56);
    return x;
}

template <class Work>
inline double seconds_of(Work work) {
    auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Seconds per launch, two ways: "sync", each launch followed by finish() as a
// lesson does it, and "batch", the launches back to back and one finish().
template <class Launch, class Finish>
inline double sync_seconds(int batch, Launch launch, Finish finish) {
    return seconds_of([&] {
               for (int i = 0; i < batch; ++i) {
                   launch();
                   finish();
               }
           }) / batch;
}

template <class Launch, class Finish>
inline double batch_seconds(int batch, Launch launch, Finish finish) {
    return seconds_of([&] {
               for (int i = 0; i < batch; ++i) launch();
               finish();
           }) / batch;
}

#endif
