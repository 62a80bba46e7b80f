// test_faults.cu - a kernel that touches memory it must not: the emulator
// names the kernel, block, thread, source line and buffer, stops the kernel,
// and the error is sticky (every later call returns it), as on a GPU.
// Launches are asynchronous: the launch itself succeeds, the kernel faults
// later, and the next synchronizing call is the first to return the error.
// A sticky error lasts for the whole process, so CTest runs each test case
// as a process of its own (--test-case=<name>).
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
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

// The launch is accepted; the fault is only known once the host waits.
static void launch_accepted_then_fails_at_sync(cudaError_t expected) {
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == expected);
}

static void check_sticky(cudaError_t expected) {
    CHECK(cudaGetLastError() == expected);
    CHECK(cudaGetLastError() == expected);  // not cleared by reading it
    CHECK(cudaDeviceSynchronize() == expected);
    float* more = nullptr;
    CHECK(cudaMalloc(&more, 16) == expected);
}

// ---- tests ---------------------------------------------------------------------
TEST_CASE("out-of-bounds") {
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

TEST_CASE("null-pointer") {
    stderr_capture capture;
    write_through<<<1, 32>>>(nullptr);
    launch_accepted_then_fails_at_sync(cudaErrorIllegalAddress);
    std::string report = capture.finish();
    CHECK(report.find("null pointer write in kernel 'write_through'") != std::string::npos);
    CHECK(report.find("cudaMalloc go missing") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

TEST_CASE("use-after-free") {
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

TEST_CASE("stack-overflow") {
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 32 * sizeof(float)) == cudaSuccess);
    stderr_capture capture;
    deep_local_array<<<1, 32>>>(d);
    launch_accepted_then_fails_at_sync(cudaErrorIllegalAddress);
    std::string report = capture.finish();
    CHECK(report.find("stack overflow in kernel 'deep_local_array'") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}
