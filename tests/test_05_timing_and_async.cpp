// test_05_timing_and_async.cpp - lesson 05: events, host timers, devices.
//
// Built twice, against lessons/05-timing-and-async/vector_add_timing.cu (the
// exercise, which must fail here as shipped) and
// solutions/05-timing-and-async/vector_add_timing.cu (which must pass), for
// the emulator and for nvcc.
//
// Timing tests can only check what holds on every machine and every run:
// how fast anything is depends on the machine and on what else runs on it,
// so no test here compares a time with a number, or the CPU with the GPU.
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

// The declarations from the lesson file (the same as there).
struct GpuTimes {
    float kernel_ms;
    float end_to_end_ms;
};
struct HostTimedLaunch {
    double host_ms;
    bool finished_when_clock_stopped;
};
int usable_device_count(cudaError_t* why_none = nullptr);
double median(std::vector<double> samples);
GpuTimes vector_add_timed(const float* h_a, const float* h_b, float* h_c, int n, int block_size);
GpuTimes vector_add_median_times(const float* h_a, const float* h_b, float* h_c, int n,
                                 int block_size, int repeats);
HostTimedLaunch vector_add_host_timed(const float* h_a, const float* h_b, float* h_c, int n,
                                      int block_size, bool synchronize);
double cpu_median_ms(const float* a, const float* b, float* c, int n, int repeats);

// One float addition is correctly rounded on both sides, so the answers should
// be identical; 1e-6 is a margin, not an expectation.
static const double kAtol = 1e-6, kRtol = 1e-6;

// A time is a finite number of milliseconds, not negative. (An event that was
// never recorded, or a time never read, is not one.)
static bool is_time(double ms) { return std::isfinite(ms) && ms >= 0; }

TEST_CASE("event-timed run: the right sum, and both times are real times") {
    // 1: one thread; 1000, 1023: not multiples of any block size below;
    // 100003: a large prime, many blocks.
    for (int n : {1, 1000, 1023, 100003}) {
        auto a = random_floats(n), b = random_floats(n);
        auto ref = poisoned_floats(n);
        cpu_vector_add(a.data(), b.data(), ref.data(), n);
        for (int block_size : {32, 256, 1024}) {
            CAPTURE(n);
            CAPTURE(block_size);
            auto got = poisoned_floats(n);
            GpuTimes t = vector_add_timed(a.data(), b.data(), got.data(), n, block_size);
            REQUIRE_ALL_CLOSE("your c", got.data(), ref.data(), n, kAtol, kRtol);
            CAPTURE(t.kernel_ms);
            CAPTURE(t.end_to_end_ms);
            REQUIRE(is_time(t.kernel_ms));
            REQUIRE(is_time(t.end_to_end_ms));
            // Robust within one run: the end-to-end events are queued before
            // and after the kernel's, in the same queue, and the device
            // reaches events in queue order. (Comparing times from two
            // different runs would not be: each run takes its own time.)
            REQUIRE(t.end_to_end_ms >= t.kernel_ms);
        }
    }
}

TEST_CASE("median of repeated runs after a warm-up") {
    const int n = 100003;
    auto a = random_floats(n), b = random_floats(n);
    auto ref = poisoned_floats(n), got = poisoned_floats(n);
    cpu_vector_add(a.data(), b.data(), ref.data(), n);
    for (int repeats : {1, 4, 5}) {
        CAPTURE(repeats);
        got = poisoned_floats(n);
        GpuTimes t = vector_add_median_times(a.data(), b.data(), got.data(), n, 256, repeats);
        REQUIRE_ALL_CLOSE("your c", got.data(), ref.data(), n, kAtol, kRtol);
        CAPTURE(t.kernel_ms);
        CAPTURE(t.end_to_end_ms);
        REQUIRE(is_time(t.kernel_ms));
        REQUIRE(is_time(t.end_to_end_ms));
        // Still robust: end to end >= kernel in every run, so the k-th
        // smallest end-to-end time >= the k-th smallest kernel time, and so
        // are the medians.
        REQUIRE(t.end_to_end_ms >= t.kernel_ms);
    }
    auto cpu_out = poisoned_floats(n);
    double cpu_ms = cpu_median_ms(a.data(), b.data(), cpu_out.data(), n, 3);
    CHECK(is_time(cpu_ms));
    REQUIRE_ALL_CLOSE("the timed CPU loop's c", cpu_out.data(), ref.data(), n, kAtol, kRtol);
}

TEST_CASE("median: the middle value, whatever the order; one outlier does not move it") {
    std::mt19937_64 shuffle_rng(test_seed());
    for (int count : {1, 2, 7, 10, 101}) {
        CAPTURE(count);
        // The values 1 .. count in a random order: the median is (count + 1) / 2.
        std::vector<double> samples(count);
        std::iota(samples.begin(), samples.end(), 1.0);
        std::shuffle(samples.begin(), samples.end(), shuffle_rng);
        CHECK(median(samples) == doctest::Approx((count + 1) / 2.0));
    }
    // Timing-like samples: ten similar runs and one that the system interrupted.
    auto similar = random_floats(11, 1.0f, 1.1f);
    std::vector<double> runs(similar.begin(), similar.end());
    runs[3] = 1000.0;
    double m = median(runs);
    CHECK(m >= 1.0);
    CHECK(m < 1.1);
    CHECK(std::isnan(median({})));
}

TEST_CASE("host clock: after cudaDeviceSynchronize the kernel has finished") {
    // Big enough that on a GPU the kernel is still running just after an
    // unsynchronized launch returns; odd, so the last block is partly idle.
    const int n = 3000017;
    auto a = random_floats(n), b = random_floats(n);
    auto ref = poisoned_floats(n);
    cpu_vector_add(a.data(), b.data(), ref.data(), n);

    auto got = poisoned_floats(n);
    HostTimedLaunch honest = vector_add_host_timed(a.data(), b.data(), got.data(), n, 256, true);
    REQUIRE_ALL_CLOSE("your c", got.data(), ref.data(), n, kAtol, kRtol);
    CHECK(is_time(honest.host_ms));
    CHECK_MESSAGE(honest.finished_when_clock_stopped,
                  "the host read its clock before the kernel had finished: it must wait "
                  "for the device first");

    // Without the synchronize the time means little, but the program is still
    // correct: the copy back waits for the kernel. Whether the kernel had
    // finished depends on the device (an emulator may run launches before
    // returning), so that is not checked.
    got = poisoned_floats(n);
    HostTimedLaunch naive = vector_add_host_timed(a.data(), b.data(), got.data(), n, 256, false);
    REQUIRE_ALL_CLOSE("your c", got.data(), ref.data(), n, kAtol, kRtol);
    CHECK(is_time(naive.host_ms));
}

TEST_CASE("devices: count them, choose one, and an out-of-range choice is refused") {
    (void)cudaGetLastError();  // a clean slate, whatever ran before

    cudaError_t why_none = cudaErrorUnknown;
    int count = usable_device_count(&why_none);
    // The test runs only where a device works (the nvcc build skips without
    // a GPU; the emulator is one device).
    CHECK(why_none == cudaSuccess);
    REQUIRE(count >= 1);

    CHECK(cudaSetDevice(0) == cudaSuccess);
    CHECK(cudaSetDevice(count) == cudaErrorInvalidDevice);
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice);  // reported once...
    CHECK(cudaGetLastError() == cudaSuccess);             // ...and not sticky
    int current = -1;
    CHECK(cudaGetDevice(&current) == cudaSuccess);
    CHECK(current == 0);  // the refused choice changed nothing

    cudaDeviceProp prop = {};
    REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
    CAPTURE(prop.name);
    CHECK(prop.name[0] != '\0');
    CHECK(cudaGetDeviceProperties(&prop, count) == cudaErrorInvalidDevice);
    (void)cudaGetLastError();
}
