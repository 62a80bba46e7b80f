// device_buffer.h - what the warp and cooperative-groups tests share: a
// device array that is poisoned when made and freed (checked) when it goes,
// and fresh random inputs.
#ifndef CUEMU_TESTS_DEVICE_BUFFER_H
#define CUEMU_TESTS_DEVICE_BUFFER_H

#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cstddef>
#include <random>
#include <vector>

template <class T>
struct device_buffer {
    T* ptr = nullptr;
    size_t n;
    explicit device_buffer(size_t count) : n(count) {
        REQUIRE(cudaMalloc(&ptr, n * sizeof(T)) == cudaSuccess);
        REQUIRE(cudaMemset(ptr, 0xA5, n * sizeof(T)) == cudaSuccess);  // poison
    }
    ~device_buffer() { CHECK(cudaFree(ptr) == cudaSuccess); }
    std::vector<T> read() const {
        std::vector<T> h(n);
        REQUIRE(cudaMemcpy(h.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
        return h;
    }
    void write(const std::vector<T>& h) {
        REQUIRE(cudaMemcpy(ptr, h.data(), n * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
    }
};

// Seeded from the system once per process: every run tries new inputs.
inline std::mt19937& rng() {
    static std::mt19937 engine(std::random_device{}());
    return engine;
}

inline std::vector<int> random_ints(int n, int lo = -1000000, int hi = 1000000) {
    std::uniform_int_distribution<int> dist(lo, hi);
    std::vector<int> v(n);
    for (int& x : v) x = dist(rng());
    return v;
}

#endif
