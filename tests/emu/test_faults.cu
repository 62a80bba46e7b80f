// test_faults.cu - a kernel that touches memory it must not: the emulator
// Every case checks the emulator's report of the fault (what a GPU leaves to
// compute-sanitizer), so all are in the test suite "emulator-only".
// names the kernel, block, thread, source line and buffer, stops the kernel,
// and the error is sticky (every later call fails with it), as on a GPU.
// Launches are asynchronous: the launch itself succeeds, the kernel faults
// later, and the next synchronizing call is the first to return the error.
// A sticky error lasts for the whole process, so CTest runs each test case
// as a process of its own (--test-case=<name>).
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "stderr_capture.h"

// ---- buggy kernels ---------------------------------------------------------------
__global__ void add_without_bounds_check(const float* a, const float* b, float* c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];  // no `if (i < n)`
}
constexpr int bad_access_line = __LINE__ - 2;

__global__ void write_through(float* p) { p[threadIdx.x] = 1.0f; }

__global__ void deep_local_array(float* out) {
    volatile float big[1 << 17];  // 512 KiB: more than a CUDA thread's stack here
    for (int i = 0; i < (1 << 17); i += 1024) big[i] = static_cast<float>(i);
    out[threadIdx.x] = big[threadIdx.x * 1024];
}

// Blocks 3 and up write past the end of a 3-block buffer. Block 3 dawdles
// first, so with several workers a later block reaches its bad write sooner.
__global__ void late_blocks_write_past_end(float* out, long long dawdle_ns) {
    if (blockIdx.x == 3 && threadIdx.x == 0) {
        long long start = clock64();  // on the emulator clock64() counts nanoseconds
        while (clock64() - start < dawdle_ns) {
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;  // no bounds check
}

// One thread writes just past the end of a 64-float buffer; the others stay
// inside. The report must name that thread: the launch's loop over a block's
// threads stores only threadIdx.x for each thread of a row (y and z once a
// row), and after a barrier every thread resumes on a fiber of its own.
__global__ void thread_3_2_1_of_block_1_writes_past_end(float* out) {
    const bool culprit = blockIdx.x == 1 && threadIdx.x == 3 && threadIdx.y == 2 && threadIdx.z == 1;
    out[culprit ? 64 : threadIdx.x] = 1.0f;
}
__global__ void thread_5_3_0_writes_past_end_after_barrier(float* out) {
    out[threadIdx.y * blockDim.x + threadIdx.x] = 0.0f;
    __syncthreads();
    if (threadIdx.x == 5 && threadIdx.y == 3) out[64] = 1.0f;
}
// Between two barriers: each thread leaving the first is resumed by the one
// before it, arriving at the second, which switches straight to it
// (scheduler.cpp: hand_on_at_barrier), not by the block's loop.
__global__ void thread_6_2_0_writes_past_end_between_barriers(float* out) {
    out[threadIdx.y * blockDim.x + threadIdx.x] = 0.0f;
    __syncthreads();
    if (threadIdx.x == 6 && threadIdx.y == 2) out[64] = 1.0f;
    __syncthreads();
    out[threadIdx.y * blockDim.x + threadIdx.x] += 1.0f;
}

// A kernel longer than GCC would inline on its own, with a device function
// and library math, run through its uninstrumented twin: a fault in it must
// still name the thread and the line, however the launch's loop over the
// block's threads calls or inlines the twin.
__device__ float logistic(float x) { return 1.0f / (1.0f + expf(-x)); }
__global__ void long_kernel_thread_77_of_block_2_reads_past_end(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const bool culprit = blockIdx.x == 2 && threadIdx.x == 77;
    const float x = in[culprit ? n : i];
    float sum = 0.0f;
    for (int k = 1; k <= 4; ++k) sum += logistic(x * k) * sqrtf(static_cast<float>(k)) + logf(1.0f + x * x / k);
    out[i] = sum;
}
constexpr int long_kernel_access_line = __LINE__ - 5;

// The launch is accepted; the fault is only known once the host waits.
static void launch_accepted_then_fails_at_sync(cudaError_t expected) {
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == expected);
}

// ---- tests ---------------------------------------------------------------------
TEST_CASE("out-of-bounds" * doctest::test_suite("emulator-only")) {
    const int n = 1000;  // 4 blocks of 256 threads cover 1024 elements
    float *d_a, *d_b, *d_c;
    REQUIRE(cudaMalloc(&d_a, n * sizeof(float)) == cudaSuccess);
    const int alloc_line = __LINE__ - 1;  // a[1000] is the first access past an end
    REQUIRE(cudaMalloc(&d_b, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_c, n * sizeof(float)) == cudaSuccess);
    stderr_capture capture;
    const int launch_line = __LINE__ + 1;
    add_without_bounds_check<<<4, 256>>>(d_a, d_b, d_c);
    launch_accepted_then_fails_at_sync(cudaErrorIllegalAddress);
    std::string report = capture.finish();
    CHECK(report.find("out-of-bounds read in kernel 'add_without_bounds_check'") != std::string::npos);
    CHECK(report.find("(launched at " __FILE__ ":" + std::to_string(launch_line) + ")") != std::string::npos);
    CHECK(report.find("block (3,0,0) of grid (4,1,1), thread (232,0,0)") != std::string::npos);
    CHECK(report.find("at " __FILE__ ":" + std::to_string(bad_access_line) + " in add_without_bounds_check") != std::string::npos);
    CHECK(report.find("0 bytes past the end of a 4000-byte buffer from cudaMalloc at " __FILE__ ":" +
                      std::to_string(alloc_line)) != std::string::npos);
    CHECK(report.find("element 1000") != std::string::npos);
    CHECK(report.find("cudaErrorIllegalAddress") != std::string::npos);
    // one report per launch, not one per thread
    CHECK(report.find("cuemu:") == report.rfind("cuemu:"));
    check_sticky(cudaErrorIllegalAddress);
}

// Runs `launch` on a fresh 64-float buffer; the fault report must name `thread`.
template <class Launch>
static void check_report_names(Launch launch, const char* thread) {
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 64 * sizeof(float)) == cudaSuccess);
    stderr_capture capture;
    launch(d);
    launch_accepted_then_fails_at_sync(cudaErrorIllegalAddress);
    CHECK(capture.finish().find(thread) != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

TEST_CASE("names-thread-in-3d-block" * doctest::test_suite("emulator-only")) {
    check_report_names([](float* d) { thread_3_2_1_of_block_1_writes_past_end<<<2, dim3(4, 3, 2)>>>(d); },
                       "block (1,0,0) of grid (2,1,1), thread (3,2,1)");
}

TEST_CASE("names-thread-after-barrier" * doctest::test_suite("emulator-only")) {
    check_report_names([](float* d) { thread_5_3_0_writes_past_end_after_barrier<<<1, dim3(8, 4)>>>(d); },
                       "block (0,0,0) of grid (1,1,1), thread (5,3,0)");
}

TEST_CASE("names-thread-between-barriers" * doctest::test_suite("emulator-only")) {
    check_report_names([](float* d) { thread_6_2_0_writes_past_end_between_barriers<<<1, dim3(8, 4)>>>(d); },
                       "block (0,0,0) of grid (1,1,1), thread (6,2,0)");
}

TEST_CASE("names-thread-in-long-kernel" * doctest::test_suite("emulator-only")) {
    const int n = 4 * 128;
    float *d_in = nullptr, *d_out = nullptr;
    REQUIRE(cudaMalloc(&d_in, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_out, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemset(d_in, 0, n * sizeof(float)) == cudaSuccess);
    stderr_capture capture;
    long_kernel_thread_77_of_block_2_reads_past_end<<<4, 128>>>(d_in, d_out, n);
    launch_accepted_then_fails_at_sync(cudaErrorIllegalAddress);
    std::string report = capture.finish();
    CHECK(report.find("out-of-bounds read in kernel 'long_kernel_thread_77_of_block_2_reads_past_end'") !=
          std::string::npos);
    CHECK(report.find("block (2,0,0) of grid (4,1,1), thread (77,0,0)") != std::string::npos);
    CHECK(report.find("at " __FILE__ ":" + std::to_string(long_kernel_access_line)) != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

TEST_CASE("null-pointer" * doctest::test_suite("emulator-only")) {
    stderr_capture capture;
    write_through<<<1, 32>>>(nullptr);
    launch_accepted_then_fails_at_sync(cudaErrorIllegalAddress);
    std::string report = capture.finish();
    CHECK(report.find("null pointer write in kernel 'write_through'") != std::string::npos);
    CHECK(report.find("cudaMalloc go missing") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

TEST_CASE("use-after-free" * doctest::test_suite("emulator-only")) {
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 64 * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaFree(d) == cudaSuccess);
    stderr_capture capture;
    write_through<<<1, 32>>>(d);
    launch_accepted_then_fails_at_sync(cudaErrorIllegalAddress);
    std::string report = capture.finish();
    CHECK(report.find("use after cudaFree") != std::string::npos);
    CHECK(report.find("256-byte buffer from cudaMalloc") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

TEST_CASE("stack-overflow" * doctest::test_suite("emulator-only")) {
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 32 * sizeof(float)) == cudaSuccess);
    stderr_capture capture;
    deep_local_array<<<1, 32>>>(d);
    launch_accepted_then_fails_at_sync(cudaErrorIllegalAddress);
    std::string report = capture.finish();
    CHECK(report.find("stack overflow in kernel 'deep_local_array'") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

// Which faulting block is reported must not depend on timing or on the
// number of workers: a learner (or a grading script) sees the same report on
// every run and every machine. It is the first failing block in launch order,
// the one a single worker running the blocks in order would meet first.
static void launch_where_block_3_fails_last() {
    setenv("CUEMU_WORKERS", "4", 1);  // read when the child's emulator starts
    float* d_out = nullptr;
    cudaMalloc(&d_out, 3 * 64 * sizeof(float));
    late_blocks_write_past_end<<<16, 64>>>(d_out, 20 * 1000 * 1000);
    cudaError_t e = cudaDeviceSynchronize();
    std::fprintf(stderr, "synchronize: %s\n", cudaGetErrorName(e));
}
TEST_CASE("first-failing-block-is-reported" * doctest::test_suite("emulator-only")) {
    for (int run = 0; run < 5; ++run) {
        child_result r = run_in_child(launch_where_block_3_fails_last);
        CHECK(r.status == 0);
        CHECK(r.err.find("out-of-bounds write in kernel 'late_blocks_write_past_end'") != std::string::npos);
        CHECK(r.err.find("block (3,0,0) of grid (16,1,1), thread (0,0,0)") != std::string::npos);
        CHECK(r.err.find("0 bytes past the end of a 768-byte buffer") != std::string::npos);
        CHECK(r.err.find("cuemu:") == r.err.rfind("cuemu:"));
        CHECK(r.err.find("synchronize: cudaErrorIllegalAddress") != std::string::npos);
    }
}
