// test_sync_faults.cu - bugs a GPU would hang on, or silently get wrong, and
// the message the emulator gives instead: a __syncthreads that not every
// thread reaches, a deadlock between a warp function and __syncthreads, a
// kernel that never finishes (the watchdog), and refused launch
// configurations. Each message names the kernel, its launch line, the block
// and a thread; there is one message per bug, and then every later call
// fails with the sticky error, as after a failed kernel on a GPU.
// Sticky errors last for the whole process, so CTest runs each test case as a
// process of its own (--test-case=<name>). The bugs' reports and the watchdog
// are the emulator's: those cases are in the test suite "emulator-only"; in
// launch-configurations only the notes are.
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <string>

#include "stderr_capture.h"

// ---- buggy kernels ---------------------------------------------------------------
// Threads past n leave before the barrier the others wait at.
__global__ void early_return_before_barrier(float* data, int n) {
    __shared__ float tile[64];
    int t = threadIdx.x;
    if (t >= n) return;
    tile[t] = data[t];
    __syncthreads();
    data[t] = tile[n - 1 - t];
}
constexpr int early_return_barrier_line = __LINE__ - 3;

// The two halves of the block wait at different barriers.
__global__ void barrier_in_branch(float* data) {
    if (threadIdx.x < 32) {
        data[threadIdx.x] = 1.0f;
        __syncthreads();
    } else {
        __syncthreads();
        data[threadIdx.x] = 2.0f;
    }
}
constexpr int first_branch_barrier_line = __LINE__ - 6;
constexpr int second_branch_barrier_line = __LINE__ - 5;

// Lane 0 of each warp shuffles with the whole warp, but the other lanes have
// gone on to the barrier, which waits for lane 0.
__global__ void shuffle_then_barrier(int* out) {
    int v = threadIdx.x;
    if (threadIdx.x % 32 == 0) v = __shfl_sync(0xffffffffu, v, 1);
    __syncthreads();
    out[threadIdx.x] = v;
}
constexpr int deadlock_shuffle_line = __LINE__ - 4;
constexpr int deadlock_barrier_line = __LINE__ - 4;

// Block 0 waits for a flag that block 1 sets. With one worker, block 1 runs
// only after block 0 has finished, which it never does.
__global__ void wait_for_other_block(volatile int* flag) {
    if (blockIdx.x == 0) {
        while (*flag == 0) {
        }
    } else {
        *flag = 1;
    }
}
constexpr int spin_line = __LINE__ - 6;

__global__ void noop() {}

// Slow but working: every thread works for a while, then finishes. On the
// emulator clock64() counts nanoseconds, so each thread takes `ticks` ns.
__global__ void busy_threads(long long* out, long long ticks) {
    long long start = clock64(), now = start;
    while (now - start < ticks) now = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = now - start;
}

static bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

static std::string at(int line) { return std::string(__FILE__) + ":" + std::to_string(line); }

// The shared checks, and a launch refused with the same error.
static void check_sticky_and_launch(cudaError_t expected) {
    check_sticky(expected);
    noop<<<1, 1>>>();
    CHECK(cudaGetLastError() == expected);
}

static void check_one_report(const std::string& report) {
    CHECK(report.find("cuemu:") != std::string::npos);
    CHECK(report.find("cuemu:") == report.rfind("cuemu:"));  // one per bug, not per thread
}

// ---- tests ---------------------------------------------------------------------
TEST_CASE("barrier-after-exit" * doctest::test_suite("emulator-only")) {
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 64 * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemset(d, 0, 64 * sizeof(float)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    const int launch_line = __LINE__ + 1;
    early_return_before_barrier<<<dim3(2, 1, 1), 48>>>(d, 40);
    std::string report = capture.finish();
    CHECK(contains(report, "cuemu: __syncthreads() not reached by every thread of the block in kernel "
                           "'early_return_before_barrier' (launched at " + at(launch_line) + ")"));
    CHECK(contains(report, "block (0,0,0) of grid (2,1,1), block size (48,1,1)"));
    CHECK(contains(report, "thread (0,0,0) waits at the __syncthreads() at " + at(early_return_barrier_line) +
                               ", but thread (40,0,0) has exited without reaching it"));
    CHECK(contains(report, "waiting there: 40 threads: (0,0,0) to (39,0,0)"));
    CHECK(contains(report, "exited:        8 threads: (40,0,0) to (47,0,0)"));
    CHECK(contains(report, "cudaErrorLaunchFailure (\"unspecified launch failure\")"));
    check_one_report(report);
    check_sticky_and_launch(cudaErrorLaunchFailure);
}

TEST_CASE("barriers-at-different-lines" * doctest::test_suite("emulator-only")) {
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 64 * sizeof(float)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    const int launch_line = __LINE__ + 1;
    barrier_in_branch<<<1, 64>>>(d);
    std::string report = capture.finish();
    CHECK(contains(report, "cuemu: threads of one block wait at different __syncthreads() in kernel "
                           "'barrier_in_branch' (launched at " + at(launch_line) + ")"));
    CHECK(contains(report, "thread (0,0,0) waits at the __syncthreads() at " + at(first_branch_barrier_line) +
                               ", thread (32,0,0) at the one at " + at(second_branch_barrier_line)));
    CHECK(contains(report, "32 threads: (0,0,0) to (31,0,0)"));
    CHECK(contains(report, "32 threads: (32,0,0) to (63,0,0)"));
    check_one_report(report);
    check_sticky_and_launch(cudaErrorLaunchFailure);
}

TEST_CASE("warp-barrier-deadlock" * doctest::test_suite("emulator-only")) {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, 64 * sizeof(int)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    const int launch_line = __LINE__ + 1;
    shuffle_then_barrier<<<1, 64>>>(d);
    std::string report = capture.finish();
    CHECK(contains(report, "cuemu: deadlock between a warp function and __syncthreads() in kernel "
                           "'shuffle_then_barrier' (launched at " + at(launch_line) + ")"));
    CHECK(contains(report, "thread (0,0,0) (lane 0 of warp 0) waits in a warp function at"));
    CHECK(contains(report, "but thread (1,0,0) (lane 1) waits at the __syncthreads() at " + at(deadlock_barrier_line)));
    CHECK(contains(report, "waits in a warp function at " + at(deadlock_shuffle_line)));
    CHECK(contains(report, "the kernel hangs"));
    check_one_report(report);
    check_sticky_and_launch(cudaErrorLaunchFailure);
}

// One worker, so that the block which would set the flag never starts, and a
// one-second limit. Set before the first CUDA call (which starts the workers);
// each test case is a process of its own.
static void one_worker_one_second_watchdog() {
    setenv("CUEMU_WORKERS", "1", 1);
    setenv("CUEMU_WATCHDOG_SECONDS", "1", 1);
}

TEST_CASE("watchdog" * doctest::test_suite("emulator-only")) {
    one_worker_one_second_watchdog();
    int* flag = nullptr;
    REQUIRE(cudaMalloc(&flag, sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMemset(flag, 0, sizeof(int)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    auto start = std::chrono::steady_clock::now();
    const int launch_line = __LINE__ + 1;
    wait_for_other_block<<<2, 32>>>(flag);
    std::string report = capture.finish();
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(seconds >= 0.9);
    CHECK(seconds < 30);
    CHECK(contains(report, "cuemu: no progress for 1 second in kernel 'wait_for_other_block' "
                           "(launched at " + at(launch_line) + ")"));
    CHECK(contains(report, "block (0,0,0) of grid (2,1,1), thread ("));
    CHECK(contains(report, "CUEMU_WATCHDOG_SECONDS"));
    CHECK(contains(report, "cudaErrorLaunchTimeout (\"the launch timed out and was terminated\")"));
    // the source line of the spin, from the debug line table
    CHECK(contains(report, "at " + at(spin_line)));
    check_one_report(report);
    check_sticky_and_launch(cudaErrorLaunchTimeout);
}

// A kernel that takes longer than the limit in all, while its threads keep
// finishing, is left alone.
TEST_CASE("slow-kernel-is-not-stopped" * doctest::test_suite("emulator-only")) {
    one_worker_one_second_watchdog();
    const int blocks = 8, threads = 100;  // 800 threads of 2 ms: 1.6 s on one worker
    long long* d = nullptr;
    REQUIRE(cudaMalloc(&d, blocks * threads * sizeof(long long)) == cudaSuccess);
    auto start = std::chrono::steady_clock::now();
    busy_threads<<<blocks, threads>>>(d, 2000000);
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MESSAGE("the slow kernel took " << seconds << " s");
    CHECK(seconds > 1.0);  // longer than the watchdog's limit, or this test proves nothing
    CHECK(cudaFree(d) == cudaSuccess);
}

static cudaError_t launch_noop(dim3 grid, dim3 block, size_t shmem = 0) {
    noop<<<grid, block, shmem>>>();
    return cudaGetLastError();
}

TEST_CASE("launch-configurations") {
    struct bad_launch {
        dim3 grid, block;
        size_t shmem;
        cudaError_t expected;
        const char* why;
    };
    const bad_launch cases[] = {
        {1, 0, 0, cudaErrorInvalidValue, "block size x is 0"},
        {0, 32, 0, cudaErrorInvalidValue, "grid size x is 0"},
        {1, 1025, 0, cudaErrorInvalidValue, "block size x is 1025, the limit is 1024"},
        {1, dim3(64, 32), 0, cudaErrorInvalidValue, "a block of 2048 threads, the limit is 1024"},
        {1, dim3(1, 1025), 0, cudaErrorInvalidValue, "block size y is 1025, the limit is 1024"},
        {1, dim3(1, 1, 65), 0, cudaErrorInvalidValue, "block size z is 65, the limit is 64"},
        {dim3(1, 65536), 1, 0, cudaErrorInvalidValue, "grid size y is 65536, the limit is 65535"},
        {dim3(1, 1, 65536), 1, 0, cudaErrorInvalidValue, "grid size z is 65536, the limit is 65535"},
        // More than 48 KiB of dynamic shared memory without the opt-in attribute:
        // the real driver answers CUDA_ERROR_INVALID_VALUE.
        {1, 32, 48 * 1024 + 1, cudaErrorInvalidValue, "49153 bytes of dynamic shared memory, the limit is 49152"},
    };
    for (const bad_launch& c : cases) {
        CAPTURE(c.why);
        // Checked at once, as it should be: the emulator adds no note.
        stderr_capture quiet(capture_until::device_idle);
        CHECK(launch_noop(c.grid, c.block, c.shmem) == c.expected);
        CHECK(cudaGetLastError() == cudaSuccess);  // not sticky
        CHECK(launch_noop(1, 1) == cudaSuccess);
        CHECK(quiet.finish().empty());
        // Not checked: the next launch prints a note naming the refused one.
        stderr_capture capture(capture_until::device_idle);
        const int launch_line = __LINE__ + 1;
        noop<<<c.grid, c.block, c.shmem>>>();
        noop<<<1, 1>>>();
        std::string note = capture.finish();
#ifdef CUEMU  // the note is the emulator's
        CHECK(contains(note, "cuemu: note: the launch of kernel 'noop' at " + at(launch_line) +
                                 " was refused and never ran:"));
        CHECK(contains(note, c.why));
        CHECK(contains(note, std::string(cudaGetErrorName(c.expected)) + " (\"" +
                                 cudaGetErrorString(c.expected) + "\")"));
        check_one_report(note);
#else
        (void)launch_line;
#endif
        CHECK(cudaGetLastError() == c.expected);  // the error itself is still there once
        CHECK(cudaGetLastError() == cudaSuccess);
    }
    CHECK(std::string(cudaGetErrorString(cudaErrorInvalidConfiguration)) == "invalid configuration argument");
    CHECK(std::string(cudaGetErrorString(cudaErrorInvalidValue)) == "invalid argument");
    CHECK(launch_noop(dim3(1, 65535), 1) == cudaSuccess);  // the limits themselves are fine
    CHECK(launch_noop(dim3(1, 1, 65535), 1) == cudaSuccess);
    CHECK(launch_noop(1, dim3(1, 1, 64), 48 * 1024) == cudaSuccess);
}
