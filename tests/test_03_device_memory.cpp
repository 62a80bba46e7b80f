// test_03_device_memory.cpp - lesson 03: device memory.
//
// Built twice, against lessons/03-device-memory/vector_add.cu (the exercise,
// which must fail here as shipped) and solutions/03-device-memory/vector_add.cu
// (which must pass), for the emulator and for nvcc.
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference.h"

#include <cuda_runtime.h>

#include <string>
#include <vector>

// The launcher from the lesson file (the same declaration as there).
void vector_add_on_gpu(const float* h_a, const float* h_b, float* h_c, int n);

TEST_CASE("vector add through device memory matches the CPU, from 1 to 1024 elements") {
    // 1 and 1024 are the ends of what one block can hold; 100 and 1000 are
    // sizes in between. The output starts as NaN, so an element that was never
    // copied back fails the comparison.
    for (int n : {1, 100, 1000, 1024}) {
        CAPTURE(n);
        auto a = random_floats(n), b = random_floats(n);
        auto ref = poisoned_floats(n), got = poisoned_floats(n);
        cpu_vector_add(a.data(), b.data(), ref.data(), n);
        vector_add_on_gpu(a.data(), b.data(), got.data(), n);
        // One float addition is correctly rounded on both sides, so the
        // answers should be identical; 1e-6 is a margin, not an expectation.
        REQUIRE_ALL_CLOSE("your c", got.data(), ref.data(), n, 1e-6, 1e-6);
    }
}

TEST_CASE("a failed CUDA call only returns an error code: nothing else tells you") {
    // Start from a clean slate, whatever an earlier test case left behind.
    (void)cudaGetLastError();

    // The classic mistake: copying into a device pointer that was never
    // allocated. The call fails, and the only sign of it is its return value.
    std::vector<float> h_data = random_floats(16);
    float* d_never_allocated = nullptr;
    cudaError_t status = cudaMemcpy(d_never_allocated, h_data.data(),
                                    h_data.size() * sizeof(float), cudaMemcpyHostToDevice);
    CHECK(status == cudaErrorInvalidValue);
    CHECK(std::string(cudaGetErrorName(status)) == "cudaErrorInvalidValue");
    CHECK(std::string(cudaGetErrorString(status)) == "invalid argument");

    // The runtime also remembers the last error. cudaGetLastError() hands it
    // over once and resets it: ask twice and the second answer is cudaSuccess.
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaSuccess);

    // The error is not sticky: the device still works. (A kernel that touches
    // a bad address is different: that error is sticky and every later call
    // fails until the process ends.)
    float* d_data = nullptr;
    REQUIRE(cudaMalloc(&d_data, h_data.size() * sizeof(float)) == cudaSuccess);
    CHECK(cudaMemcpy(d_data, h_data.data(), h_data.size() * sizeof(float),
                     cudaMemcpyHostToDevice) == cudaSuccess);
    std::vector<float> h_back = poisoned_floats(h_data.size());
    CHECK(cudaMemcpy(h_back.data(), d_data, h_back.size() * sizeof(float),
                     cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE_ALL_CLOSE("the data copied there and back", h_back.data(), h_data.data(), h_data.size(), 0.0, 0.0);  // a copy is exact
    CHECK(cudaFree(d_data) == cudaSuccess);
}
