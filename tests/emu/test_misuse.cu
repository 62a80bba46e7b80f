// test_misuse.cu - a program that misuses CUDA must end with the behaviour
// real CUDA documents, or with a clear report: never an abort of the whole
// process, a hang, or a silent success. Device-side assert, fork after CUDA,
// handles used after they were destroyed, pinned memory freed wrongly.
// Sticky errors last for the whole process, so CTest runs each test case as a
// process of its own (--test-case=<name>). The cases that check the
// emulator's own reports, watchdog and progress note are in the test suite
// "emulator-only"; the others are meant to hold on a GPU too.
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

// The build type may define NDEBUG (RelWithDebInfo does); these tests need
// assert() to be active. <assert.h> redefines assert at each inclusion.
#undef NDEBUG
#include <assert.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "stderr_capture.h"

static bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}
static std::string at_line(int line) { return std::string(__FILE__) + ":" + std::to_string(line); }

// ---- device-side assert ---------------------------------------------------------------
// Every value must be non-negative; thread 3 of block 1 finds one that is not.
__global__ void check_non_negative(const int* values, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) assert(values[i] >= 0);
}
constexpr int assert_line = __LINE__ - 2;

TEST_CASE("device-assert") {
    const int n = 256;
    int h[n];
    for (int i = 0; i < n; ++i) h[i] = i;
    h[64 + 3] = -5;  // block 1 (of 64 threads), thread 3
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, sizeof h) == cudaSuccess);
    REQUIRE(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess);
    stderr_capture capture;
    const int launch_line = __LINE__ + 1;
    check_non_negative<<<n / 64, 64>>>(d, n);
    CHECK(cudaGetLastError() == cudaSuccess);  // the launch itself was fine
    CHECK(cudaDeviceSynchronize() == cudaErrorAssert);
    std::string report = capture.finish();
    // The line a GPU prints, then the emulator's report.
    CHECK(has(report, at_line(assert_line) + ": void check_non_negative(const int*, int): "
                      "block: [1,0,0], thread: [3,0,0] Assertion `values[i] >= 0` failed."));
    CHECK(has(report, "cuemu: device-side assert() failed in kernel 'check_non_negative' "
                      "(launched at " + at_line(launch_line) + ")"));
    CHECK(has(report, "cudaErrorAssert (\"device-side assert triggered\")"));
    check_sticky(cudaErrorAssert);
}

// Host code keeps the C library's assert: the message and the abort.
static void failing_host_assert() {
    int* d = nullptr;
    cudaMalloc(&d, 16);  // the emulator is running
    int answer = 41;
    assert(answer == 42);
}
TEST_CASE("host-assert-aborts") {
    child_result r = run_in_child(failing_host_assert);
    CHECK(WIFSIGNALED(r.status));
    if (WIFSIGNALED(r.status)) CHECK(WTERMSIG(r.status) == SIGABRT);
    CHECK(has(r.err, "Assertion `answer == 42' failed."));
    CHECK(!has(r.err, "cuemu:"));
}

// ---- fork after CUDA was used ---------------------------------------------------------
__global__ void add_one(int* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 1;
}

// Uses CUDA in this process (a kernel and a copy), then forks. The child runs
// child_body and exits through exit(), which runs the exit handlers; its exit
// status is returned. A child still running after 30 s has hung.
static int fork_after_cuda(int (*child_body)()) {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, 100 * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMemset(d, 0, 100 * sizeof(int)) == cudaSuccess);
    add_one<<<1, 128>>>(d, 100);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::fflush(stdout);
    std::fflush(stderr);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) std::exit(child_body());
    int status = 0;
    for (int tenths = 0; tenths < 300; ++tenths) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            // The parent's emulator still works.
            add_one<<<1, 128>>>(d, 100);
            int h[100];
            CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
            CHECK(h[99] == 2);
            CHECK(cudaFree(d) == cudaSuccess);
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL("the child made with fork() did not exit within 30 s");
    return -1;
}

TEST_CASE("fork-child-without-cuda-exits") {
    CHECK(fork_after_cuda([] { return 7; }) == 7);
}

TEST_CASE("fork-child-using-cuda-gets-initialization-error") {
    int result = fork_after_cuda([] {
        int* d = nullptr;
        if (cudaMalloc(&d, 64) != cudaErrorInitializationError) return 1;
        if (cudaDeviceSynchronize() != cudaErrorInitializationError) return 2;
        return 0;
    });
    CHECK(result == 0);
}

// ---- handles --------------------------------------------------------------------------
TEST_CASE("event-destroyed-twice") {
    cudaEvent_t event;
    REQUIRE(cudaEventCreate(&event) == cudaSuccess);
    REQUIRE(cudaEventRecord(event) == cudaSuccess);
    REQUIRE(cudaEventSynchronize(event) == cudaSuccess);
    CHECK(cudaEventDestroy(event) == cudaSuccess);
    CHECK(cudaEventDestroy(event) == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventRecord(event) == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventQuery(event) == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventSynchronize(event) == cudaErrorInvalidResourceHandle);
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, event, event) == cudaErrorInvalidResourceHandle);
    CHECK(cudaStreamWaitEvent(0, event, 0) == cudaErrorInvalidResourceHandle);
    // Not sticky: it is this call's error only.
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

TEST_CASE("stream-destroyed-twice") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    CHECK(cudaStreamDestroy(stream) == cudaErrorInvalidResourceHandle);
    CHECK(cudaStreamSynchronize(stream) == cudaErrorInvalidResourceHandle);
    CHECK(cudaStreamQuery(stream) == cudaErrorInvalidResourceHandle);
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, 64 * sizeof(int)) == cudaSuccess);
    add_one<<<1, 64, 0, stream>>>(d, 64);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    CHECK(cudaMemsetAsync(d, 0, 64, stream) == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaFree(d) == cudaSuccess);
}

TEST_CASE("free-host-not-pinned" * doctest::test_suite("emulator-only")) {
    void* from_malloc = std::malloc(256);
    void* pinned = nullptr;
    REQUIRE(cudaMallocHost(&pinned, 256) == cudaSuccess);
    int* device = nullptr;
    REQUIRE(cudaMalloc(&device, 256) == cudaSuccess);
    stderr_capture capture;
    const int malloc_line = __LINE__ + 1;
    CHECK(cudaFreeHost(from_malloc) == cudaErrorInvalidValue);
    CHECK(cudaFreeHost(device) == cudaErrorInvalidValue);
    CHECK(cudaFreeHost(pinned) == cudaSuccess);
    CHECK(cudaFreeHost(pinned) == cudaErrorInvalidValue);  // a second time
    CHECK(cudaFree(from_malloc) == cudaErrorInvalidValue);
    std::string report = capture.finish();
    CHECK(has(report, "cuemu: cudaFreeHost at " + at_line(malloc_line) + " was given "));
    CHECK(has(report, "not the start of a live buffer\n  from cudaMallocHost"));
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);  // not sticky
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(cudaFree(device) == cudaSuccess);
    std::free(from_malloc);
}

// ---- memory the machine cannot back ---------------------------------------------------
// Refused at once with cudaErrorMemoryAllocation (not sticky), with a line
// saying why; the device's size and free memory agree with what it accepts.
TEST_CASE("allocation-beyond-device-memory" * doctest::test_suite("emulator-only")) {
    cudaDeviceProp prop;
    REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
    size_t free_bytes = 0, total_bytes = 0;
    REQUIRE(cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess);
    CHECK(total_bytes == prop.totalGlobalMem);
    CHECK(free_bytes <= total_bytes);
    CHECK(free_bytes > 0);
    stderr_capture capture;
    auto start = std::chrono::steady_clock::now();
    char* huge = nullptr;
    const int huge_line = __LINE__ + 1;
    CHECK(cudaMalloc(&huge, prop.totalGlobalMem + 1) == cudaErrorMemoryAllocation);
    CHECK(cudaMalloc(&huge, size_t(1) << 46) == cudaErrorMemoryAllocation);  // 64 TiB
    CHECK(cudaMallocManaged(&huge, size_t(1) << 46) == cudaErrorMemoryAllocation);
    // Fits in the device's share but not in what the machine has free: the
    // free memory is never more than what the machine has available.
    CHECK(cudaMalloc(&huge, free_bytes + (size_t(1) << 30)) == cudaErrorMemoryAllocation);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string report = capture.finish();
    CHECK(seconds < 1.0);  // refused, not filled page by page
    CHECK(has(report, "cuemu: cudaMalloc at " + at_line(huge_line) + " of "));
    CHECK(has(report, "cudaMalloc returns cudaErrorMemoryAllocation"));
    CHECK(cudaGetLastError() == cudaErrorMemoryAllocation);
    CHECK(cudaGetLastError() == cudaSuccess);  // not sticky
    int* small = nullptr;
    CHECK(cudaMalloc(&small, 1024) == cudaSuccess);
    size_t free_after = 0;
    CHECK(cudaMemGetInfo(&free_after, &total_bytes) == cudaSuccess);
    CHECK(cudaFree(small) == cudaSuccess);
}

// ---- device memory in an address range of its own ---------------------------------------
// A write far past the end of a buffer faults and is reported against that
// buffer, however far: it never lands in host memory.
__global__ void write_at(float* data, long long index) { data[index] = 1.0f; }
constexpr int write_at_line = __LINE__ - 1;

static long long far_index = 0;
static void write_far_past_the_end() {
    float* d = nullptr;
    if (cudaMalloc(&d, 1000 * sizeof(float)) != cudaSuccess) return;
    write_at<<<1, 1>>>(d, far_index);
    cudaError_t e = cudaDeviceSynchronize();
    std::fprintf(stderr, "result: %s\n", cudaGetErrorName(e));
}
TEST_CASE("far-past-the-end" * doctest::test_suite("emulator-only")) {
    // A page and a bit past the end (beyond the guard page), 1 MiB, 1 GiB,
    // and the farthest a 32-bit int index reaches with 4-byte elements.
    for (long long index : {2048LL, 1LL << 18, 1LL << 28, (1LL << 31) - 1}) {
        CAPTURE(index);
        far_index = index;
        child_result r = run_in_child(write_far_past_the_end);
        CHECK(WIFEXITED(r.status));
        CHECK(has(r.err, "result: cudaErrorIllegalAddress"));
        CHECK(has(r.err, "cuemu: out-of-bounds write in kernel 'write_at'"));
        CHECK(has(r.err, "bytes past the end of a 4000-byte buffer from cudaMalloc"));
        CHECK(has(r.err, "at " + at_line(write_at_line)));
    }
}

// ---- a copy into a host buffer that is too small ----------------------------------------
// The host buffer is one page followed by an inaccessible one, so the copy
// faults on every run; the report names the cudaMemcpy and the buffer.
static void copy_into_small_host_buffer() {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    char* host = static_cast<char*>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE,
                                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    mprotect(host + page, page, PROT_NONE);
    float* d = nullptr;
    cudaMalloc(&d, 2 * page);
    cudaMemset(d, 0, 2 * page);
    cudaMemcpy(host, d, 2 * page, cudaMemcpyDeviceToHost);  // twice what the buffer holds
}
constexpr int small_copy_line = __LINE__ - 2;
TEST_CASE("copy-into-small-host-buffer" * doctest::test_suite("emulator-only")) {
    const std::string two_pages = std::to_string(2 * sysconf(_SC_PAGESIZE));
    child_result r = run_in_child(copy_into_small_host_buffer);
    CHECK(WIFSIGNALED(r.status));
    CHECK(has(r.err, "cuemu: cudaMemcpy at " + at_line(small_copy_line) + " (cudaMemcpyDeviceToHost, " +
                     two_pages + " bytes) faulted writing address "));
    // The first byte of the second page, or (where memmove copies from the
    // end, as AddressSanitizer's does) the last.
    const size_t at = r.err.find(" of the destination");
    const size_t number = r.err.rfind("byte ", at);
    REQUIRE(at != std::string::npos);
    REQUIRE(number != std::string::npos);
    const long failed_byte = std::stol(r.err.substr(number + 5, at - number - 5));
    CHECK(failed_byte >= sysconf(_SC_PAGESIZE));
    CHECK(failed_byte < 2 * sysconf(_SC_PAGESIZE));
    CHECK(has(r.err, "that host buffer is smaller than the " + two_pages + " bytes the copy moves"));
    CHECK(!has(r.err, "asynchronous"));
}

// ---- the watchdog stops only what is stuck ------------------------------------------------
// A half-second limit and one worker, set before the first CUDA call (each
// case is a process of its own). The kernels below run for longer than the
// limit and keep working, each in its own way.
static void half_second_watchdog() {
    setenv("CUEMU_WORKERS", "1", 1);
    setenv("CUEMU_WATCHDOG_SECONDS", "0.5", 1);
}

// One block passes barriers for `nanoseconds`; no thread finishes before the end.
__global__ void barriers_for(long long nanoseconds, int* rounds) {
    __shared__ int go_on;
    __shared__ long long start;
    if (threadIdx.x == 0) start = clock64();
    __syncthreads();
    int round = 0;
    for (;;) {
        if (threadIdx.x == 0) go_on = clock64() - start < nanoseconds;
        __syncthreads();
        const bool more = go_on;
        ++round;
        __syncthreads();  // everyone has read go_on before thread 0 writes it again
        if (!more) break;
    }
    if (threadIdx.x == 0) *rounds = round;
}

// One thread computes (a 64-bit linear congruential sequence) for
// `nanoseconds`, or for ever when it is 0.
__global__ void compute_for(long long nanoseconds, unsigned long long* out) {
    const long long start = clock64();
    unsigned long long x = 12345;
    for (long long i = 0;; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        if ((i & 1023) == 0 && nanoseconds != 0 && clock64() - start >= nanoseconds) break;
    }
    *out = x;
}
constexpr int compute_loop_line = __LINE__ - 5;

static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_CASE("watchdog-counts-barriers" * doctest::test_suite("emulator-only")) {
    half_second_watchdog();
    int* rounds = nullptr;
    REQUIRE(cudaMalloc(&rounds, sizeof(int)) == cudaSuccess);
    auto start = std::chrono::steady_clock::now();
    barriers_for<<<1, 64>>>(1500000000LL, rounds);  // 1.5 s, three times the limit
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(seconds_since(start) > 1.4);
    int h = 0;
    CHECK(cudaMemcpy(&h, rounds, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(h > 1);
}

TEST_CASE("watchdog-leaves-a-computing-thread-alone" * doctest::test_suite("emulator-only")) {
    half_second_watchdog();
    unsigned long long* out = nullptr;
    REQUIRE(cudaMalloc(&out, sizeof *out) == cudaSuccess);
    auto start = std::chrono::steady_clock::now();
    compute_for<<<1, 1>>>(1500000000LL, out);  // 1.5 s, three times the limit
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(seconds_since(start) > 1.4);
}

// A program whose kernels run long says, now and then, that it is still
// working (src/progress_note.h): after CUEMU_PROGRESS_SECONDS of kernel time in
// all, and again each time that doubles.
TEST_CASE("progress-note-while-kernels-run-long" * doctest::test_suite("emulator-only")) {
    half_second_watchdog();
    setenv("CUEMU_PROGRESS_SECONDS", "0.4", 1);
    unsigned long long* out = nullptr;
    REQUIRE(cudaMalloc(&out, sizeof *out) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    const int launch_line = __LINE__ + 1;
    compute_for<<<1, 1>>>(1000000000LL, out);  // 1 s: notes at 0.4 and 0.8 s
    std::string report = capture.finish();
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(has(report, "cuemu: still working: kernels have run for "));
    CHECK(has(report, "(1 launches so far; 'compute_for' at " + at_line(launch_line) +
                      " has started 1 of its 1 blocks)"));
    CHECK(has(report, "the next note comes at 0.8 s"));  // 0.4, 0.8, then 1.6
    CHECK(!has(report, "still running after"));  // the watchdog's own report: not stopped
}

// Computing for ever: stopped at six times the limit, with a message that
// says it was still running, not that it hung, and how to give it longer.
TEST_CASE("watchdog-stops-an-endless-computation" * doctest::test_suite("emulator-only")) {
    half_second_watchdog();
    unsigned long long* out = nullptr;
    REQUIRE(cudaMalloc(&out, sizeof *out) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    auto start = std::chrono::steady_clock::now();
    const int launch_line = __LINE__ + 1;
    compute_for<<<1, 1>>>(0, out);
    std::string report = capture.finish();
    const double seconds = seconds_since(start);
    CHECK(seconds > 2.9);
    CHECK(seconds < 30);
    CHECK(has(report, "cuemu: still running after 3 seconds in kernel 'compute_for' (launched at " +
                      at_line(launch_line) + ")"));
    CHECK(has(report, "this one was still computing"));
    CHECK(has(report, "CUEMU_WATCHDOG_SECONDS=5 gives it 30 seconds"));
    // Where the signal found it: any line of the loop.
    CHECK((has(report, "at " + at_line(compute_loop_line - 1)) ||
           has(report, "at " + at_line(compute_loop_line)) ||
           has(report, "at " + at_line(compute_loop_line + 1))));
    CHECK(!has(report, "no progress"));
    CHECK(!has(report, " hang"));
    check_sticky(cudaErrorLaunchTimeout);
}

// ---- fault reports name the learner's line at -O2 -----------------------------------------
// The same kernel launched from two places (the copies the compiler makes of
// it are identical), and an atomic (an emulator function, inlined into the
// kernel) on a bad index: the report names the kernel's own line.
__global__ void add_arrays_unchecked(const float* a, const float* b, float* c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];  // no bounds check
}
constexpr int add_arrays_line = __LINE__ - 2;

__global__ void count_unchecked(int* counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&counts[i], n);  // no bounds check
}
constexpr int count_line = __LINE__ - 2;

static void launch_add(float* a, float* b, float* c, int blocks) {
    add_arrays_unchecked<<<blocks, 256>>>(a, b, c);
}
static void launch_add_again(float* a, float* b, float* c, int blocks) {
    add_arrays_unchecked<<<blocks, 256>>>(a, b, c);
}
static void add_past_the_end() {
    float *a, *b, *c;
    cudaMalloc(&a, 1000 * sizeof(float));
    cudaMalloc(&b, 1000 * sizeof(float));
    cudaMalloc(&c, 1000 * sizeof(float));
    launch_add(a, b, c, 3);        // 768 threads: fine
    launch_add_again(a, b, c, 4);  // 1024 threads: 24 too many
    cudaDeviceSynchronize();
}
static void count_past_the_end() {
    int* counts;
    cudaMalloc(&counts, 1000 * sizeof(int));
    count_unchecked<<<4, 256>>>(counts, 1);
    cudaDeviceSynchronize();
}
TEST_CASE("fault-line-when-optimised" * doctest::test_suite("emulator-only")) {
    child_result r = run_in_child(add_past_the_end);
    CHECK(has(r.err, "cuemu: out-of-bounds read in kernel 'add_arrays_unchecked'"));
    CHECK(has(r.err, "  at " + at_line(add_arrays_line) + " in add_arrays_unchecked("));
    CHECK(!has(r.err, "launch.h"));
    r = run_in_child(count_past_the_end);
    CHECK(has(r.err, "in kernel 'count_unchecked'"));
    CHECK(has(r.err, "  at " + at_line(count_line) + " in count_unchecked("));
    CHECK(!has(r.err, "builtins.h"));
}

// ---- misaligned vector access ----------------------------------------------------------------
// Reads float4s starting one float into the buffer: 4 bytes past a multiple of 16.
__global__ void sum_float4_from(const float* data, int first, float* out) {
    const float4 v = *reinterpret_cast<const float4*>(data + first + 4 * threadIdx.x);
    out[threadIdx.x] = v.x + v.y + v.z + v.w;
}
constexpr int float4_line = __LINE__ - 3;

TEST_CASE("misaligned-float4" * doctest::test_suite("emulator-only")) {
    float *data, *out;
    REQUIRE(cudaMalloc(&data, 1024 * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&out, 64 * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemset(data, 0, 1024 * sizeof(float)) == cudaSuccess);
    sum_float4_from<<<1, 64>>>(data, 0, out);  // aligned: fine
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    stderr_capture capture;
    const int launch_line = __LINE__ + 1;
    sum_float4_from<<<1, 64>>>(data, 1, out);
    CHECK(cudaDeviceSynchronize() == cudaErrorMisalignedAddress);
    std::string report = capture.finish();
    CHECK(has(report, "cuemu: misaligned memory access in kernel 'sum_float4_from' (launched at " +
                      at_line(launch_line) + ")"));
    CHECK(has(report, "thread (0,0,0) made the access at " + at_line(float4_line)));
    CHECK(has(report, "'const struct float4' at address "));
    CHECK(has(report, "it must be 16-byte aligned, and this address is 4 bytes\n  past a multiple of 16"));
    CHECK(has(report, "cudaErrorMisalignedAddress (\"misaligned address\")"));
    check_sticky(cudaErrorMisalignedAddress);
}
