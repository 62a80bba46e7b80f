// test_02_first_kernel.cpp - lesson 02: one block of n threads, managed memory.
// Built against lessons/02-first-kernel (must fail as shipped) and
// solutions/02-first-kernel (must pass), for the emulator and for nvcc.
#include "test_support.h"   // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference.h"
#include "cuda_check.h"     // in test builds a failed call throws, failing one test case

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

// The launcher from the lesson file (the same declaration as there).
// a, b, c: managed pointers; n: 1 to 1024 (all threads in one block).
void vector_add_managed(const float* a, const float* b, float* c, int n);

namespace {

// n floats from cudaMallocManaged, freed when the test case ends, even when a
// check fails or a CUDA call throws half-way through.
struct ManagedFloats {
    float* data = nullptr;
    explicit ManagedFloats(int n) {
        CUDA_CHECK(cudaMallocManaged(&data, static_cast<std::size_t>(n) * sizeof(float)));
    }
    ~ManagedFloats() { cudaFree(data); }
    ManagedFloats(const ManagedFloats&) = delete;
    ManagedFloats& operator=(const ManagedFloats&) = delete;
};

// Tolerance 0: one float addition is rounded the same way (IEEE 754, round to
// nearest) on the CPU and on the GPU, so every element must match exactly.
const double exact = 0.0;

}  // namespace

TEST_CASE("one thread per element: vector_add_managed matches the CPU") {
    // 1: a single thread; 517 and 1000: sizes that are not a power of two
    // (the GPU runs threads in groups of 32, so these leave a group part-full);
    // 1024: the largest block there is.
    for (int n : {1, 517, 1000, 1024}) {
        CAPTURE(n);
        const std::vector<float> a = random_floats(n), b = random_floats(n);
        std::vector<float> ref(n);
        cpu_vector_add(a.data(), b.data(), ref.data(), n);

        ManagedFloats d_a(n), d_b(n), d_c(n);
        std::copy(a.begin(), a.end(), d_a.data);
        std::copy(b.begin(), b.end(), d_b.data);
        fill_poison(d_c.data, static_cast<std::size_t>(n));

        vector_add_managed(d_a.data, d_b.data, d_c.data, n);

        REQUIRE_ALL_CLOSE("your c", d_c.data, ref.data(), n, exact, exact);
    }
}

TEST_CASE("a block of 1025 threads is refused, and the launcher reports it") {
    // One block holds at most 1024 threads. The launch itself returns
    // nothing; the launcher's CUDA_CHECK(cudaGetLastError()) must catch the
    // refusal (in test builds CUDA_CHECK throws). The arrays are big enough
    // that an accepted launch could not write out of bounds.
    const int n = 1025;
    ManagedFloats d_a(n), d_b(n), d_c(n);
    fill_random(d_a.data, n, test_seed(), -1.0f, 1.0f);
    fill_random(d_b.data, n, test_seed() + 1, -1.0f, 1.0f);
    fill_poison(d_c.data, n);

    CHECK_THROWS_AS(vector_add_managed(d_a.data, d_b.data, d_c.data, n), std::runtime_error);

    // The refusal is not a sticky error: the next launch works as usual.
    std::vector<float> ref(1000);
    cpu_vector_add(d_a.data, d_b.data, ref.data(), 1000);
    vector_add_managed(d_a.data, d_b.data, d_c.data, 1000);
    REQUIRE_ALL_CLOSE("your c", d_c.data, ref.data(), 1000, exact, exact);
}
