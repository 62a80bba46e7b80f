// saxpy_template.cu - y = a*x + y for float and double from one kernel
// template, with a grid-stride loop sized from the device's multiprocessor
// count (so the same grid fits any GPU, whatever n is). The block size is a
// template argument too, chosen at run time through a generic lambda whose
// parameter carries it as a type, as llm.c dispatches its kernels.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

static void throwOnError(cudaError_t err, const char* what, int line) {
    if (err != cudaSuccess)
        throw std::runtime_error(std::string(what) + " failed at line " +
                                 std::to_string(line) + ": " + cudaGetErrorString(err));
}
#define CUDA_TRY(x) throwOnError((x), #x, __LINE__)

template <typename T, int block_size>
__global__ void axpy(int n, T a, const T* x, T* y) {
    for (int i = blockIdx.x * block_size + threadIdx.x; i < n; i += block_size * gridDim.x)
        y[i] = a * x[i] + y[i];
}

// Calls launch with std::integral_constant<int, B> for the block size B asked for.
template <class Launch>
void withBlockSize(int block_size, Launch&& launch) {
    switch (block_size) {
        case 128: launch(std::integral_constant<int, 128>{}); break;
        case 256: launch(std::integral_constant<int, 256>{}); break;
        default: throw std::invalid_argument("block size must be 128 or 256");
    }
}

template <typename T>
int runAxpy(const char* typeName, int n, std::mt19937& rng) {
    std::uniform_real_distribution<T> dist(-10, 10);
    std::vector<T> x(n), y(n), result(n);
    for (int i = 0; i < n; ++i) { x[i] = dist(rng); y[i] = dist(rng); }
    const T a = dist(rng);

    T *dx = nullptr, *dy = nullptr;
    CUDA_TRY(cudaMalloc(&dx, n * sizeof(T)));
    CUDA_TRY(cudaMalloc(&dy, n * sizeof(T)));
    CUDA_TRY(cudaMemcpy(dx, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(dy, y.data(), n * sizeof(T), cudaMemcpyHostToDevice));

    int device = 0, numSMs = 0;
    CUDA_TRY(cudaGetDevice(&device));
    CUDA_TRY(cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, device));
    auto launch = [&](auto block) { axpy<T, block.value><<<32 * numSMs, block.value>>>(n, a, dx, dy); };
    withBlockSize(sizeof(T) == 4 ? 256 : 128, launch);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaMemcpy(result.data(), dy, n * sizeof(T), cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaFree(dx));
    CUDA_TRY(cudaFree(dy));

    // |a*x + y| <= 110: the GPU may fuse multiply and add, so allow a few ulps
    // of the largest term in the type's own precision.
    const T tolerance = 200 * 4 * std::numeric_limits<T>::epsilon();
    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (std::abs(result[i] - (a * x[i] + y[i])) > tolerance) ++errors;
    std::cout << "axpy<" << typeName << "> n=" << n << " errors=" << errors << "\n";
    return errors;
}

int main(int argc, char** argv) {
    try {
        const int n = argc > 1 ? std::stoi(argv[1]) : 777777;
        if (n < 1) throw std::invalid_argument("n must be at least 1");
        std::random_device device;
        const unsigned seed = device();
        std::mt19937 rng(seed);
        int errors = runAxpy<float>("float", n, rng) + runAxpy<double>("double", n, rng);
        std::cout << "saxpy_template seed=" << seed << (errors ? " FAILED" : " OK") << std::endl;
        return errors ? 1 : 0;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }
}
