// row_sums.cpp - a course assignment's shape: CUDA in a .cpp file, built by
// a Makefile with `nvcc -std=c++14 -x cu row_sums.cpp -lcuda -lcudart`.
// C++14 as such code writes it (a generic lambda, std::make_unique, the
// `register` keyword C++17 removed); the result is checked on the CPU and
// printed as "course_cpp14 ... OK".
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>

#define CHECK_CUDA(call)                                                            \
    do {                                                                            \
        cudaError_t status_ = (call);                                               \
        if (status_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(status_));                              \
            std::exit(1);                                                           \
        }                                                                           \
    } while (0)

// One thread per row: the sum of its columns.
__global__ void row_sums(const float* matrix, float* sums, int rows, int cols) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float total = 0.0f;
    for (int c = 0; c < cols; ++c) total += matrix[row * cols + c];
    sums[row] = total;
}

int main(int argc, char** argv) {
    const int rows = argc > 1 ? std::atoi(argv[1]) : 1000;
    const int cols = 37;
    auto matrix = std::make_unique<float[]>(rows * cols);
    auto sums = std::make_unique<float[]>(rows);
    std::mt19937 generator(std::random_device{}());
    std::uniform_int_distribution<int> small(-8, 8);
    for (int i = 0; i < rows * cols; ++i) matrix[i] = static_cast<float>(small(generator));

    float *d_matrix = nullptr, *d_sums = nullptr;
    CHECK_CUDA(cudaMalloc(&d_matrix, sizeof(float) * rows * cols));
    CHECK_CUDA(cudaMalloc(&d_sums, sizeof(float) * rows));
    CHECK_CUDA(cudaMemcpy(d_matrix, matrix.get(), sizeof(float) * rows * cols, cudaMemcpyHostToDevice));
    const int block = 128;
    row_sums<<<(rows + block - 1) / block, block>>>(d_matrix, d_sums, rows, cols);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(sums.get(), d_sums, sizeof(float) * rows, cudaMemcpyDeviceToHost));

    auto row_total = [&](auto row) {  // C++14: a generic lambda
        register float total = 0.0f;
        for (int c = 0; c < cols; ++c) total += matrix[row * cols + c];
        return total;
    };
    int errors = 0;
    for (int r = 0; r < rows; ++r)
        if (sums[r] != row_total(r)) ++errors;  // small integers: exact in float
    CHECK_CUDA(cudaFree(d_matrix));
    CHECK_CUDA(cudaFree(d_sums));
    std::printf("course_cpp14 rows=%d errors=%d %s\n", rows, errors, errors == 0 ? "OK" : "FAILED");
    return errors == 0 ? 0 : 1;
}
