// Lesson 17: the chunked pipeline gives the CPU's answer for every element,
// whatever the number of streams and chunks, from pinned and from pageable
// host memory. (That its copies and kernels overlap is checked on the
// emulator's timeline: the lesson17.trace test, tools/cuemu_trace.py.)
#include "test_support.h"
#include "cpu_reference_streams.h"

#include <cuda_runtime.h>

#include <stdexcept>

// The launcher from the lesson file.
void transform_in_streams(const float* h_in, float* h_out, int n, int num_streams,
                          int num_chunks);

// Device and CPU compute in float: sqrtf is correctly rounded on both; a
// fused multiply-add (one rounding less) may differ by an ulp, which 1e-6
// relative covers. A missed chunk stays NaN and fails at once.
static const double kAtol = 1e-6, kRtol = 1e-6;

// Host buffers from cudaMallocHost, freed at the end of the scope.
struct PinnedFloats {
    float* data = nullptr;
    explicit PinnedFloats(size_t n) {
        if (cudaMallocHost(&data, n * sizeof(float)) != cudaSuccess)
            throw std::runtime_error("cudaMallocHost failed");
    }
    ~PinnedFloats() { cudaFreeHost(data); }
    PinnedFloats(const PinnedFloats&) = delete;
    PinnedFloats& operator=(const PinnedFloats&) = delete;
};

static void check_pipeline(int n, int streams, int chunks, bool pinned) {
    CAPTURE(n);
    CAPTURE(streams);
    CAPTURE(chunks);
    CAPTURE(pinned);
    auto in = random_floats((size_t)n, -4.0f, 4.0f);
    auto ref = poisoned_floats((size_t)n), got = poisoned_floats((size_t)n);
    cpu_stream_transform(in.data(), ref.data(), n);
    if (pinned) {
        PinnedFloats pin_in((size_t)n), pin_out((size_t)n);
        std::copy(in.begin(), in.end(), pin_in.data);
        std::copy(got.begin(), got.end(), pin_out.data);  // the poison
        transform_in_streams(pin_in.data, pin_out.data, n, streams, chunks);
        std::copy(pin_out.data, pin_out.data + n, got.begin());
    } else {
        transform_in_streams(in.data(), got.data(), n, streams, chunks);
    }
    REQUIRE_ALL_CLOSE("your out", got.data(), ref.data(), (size_t)n, kAtol, kRtol);
}

TEST_CASE("the pipeline matches the CPU from pinned memory, chunks not a multiple of the block") {
    for (int n : {1, 1000, 1023, 300007})
        for (int streams : {1, 3})
            for (int chunks : {1, 4, 7}) check_pipeline(n, streams, chunks, true);
}

TEST_CASE("the pipeline matches the CPU from pageable memory too") {
    for (int n : {1023, 100003}) check_pipeline(n, 4, 5, false);
}

TEST_CASE("more chunks than elements: the empty chunks are skipped") {
    check_pipeline(3, 2, 8, true);
}
