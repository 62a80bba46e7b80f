// null_pointer_args.cu - optional inputs passed as 0, NULL or nullptr, as
// public code does (a bias that may be absent, a mask that may be absent):
// y = x * scale (+ bias) for the elements the mask keeps. nvcc takes a null
// pointer constant for a pointer parameter; so must the emulator.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t status = (call);                                                  \
        if (status != cudaSuccess) {                                                  \
            std::printf("%s failed at line %d: %s\n", #call, __LINE__,                \
                        cudaGetErrorString(status));                                  \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

__global__ void scale_add(float* y, const float* x, const float* bias, const int* mask, int n,
                          float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (mask && !mask[i]) {
        y[i] = 0.0f;
        return;
    }
    y[i] = x[i] * scale + (bias ? bias[i] : 0.0f);
}

// A template whose parameter is deduced from a literal 0: it must stay an int.
template <typename T>
__global__ void fill(T* out, T value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value + T(i);
}

static int failures = 0;

static void expect(const char* what, const std::vector<float>& got, const std::vector<float>& want) {
    for (size_t i = 0; i < got.size(); ++i) {
        if (got[i] != want[i]) {
            std::printf("%s: element %zu is %g, expected %g\n", what, i, got[i], want[i]);
            ++failures;
            return;
        }
    }
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 10007;
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    std::vector<float> h_x(n), h_bias(n), h_y(n);
    std::vector<int> h_mask(n);
    for (int i = 0; i < n; ++i) {
        h_x[i] = dist(rng);
        h_bias[i] = dist(rng);
        h_mask[i] = (rng() % 3) != 0;
    }
    float *d_x, *d_bias, *d_y;
    int* d_mask;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_bias, n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK(cudaMalloc(&d_mask, n * sizeof(int)));
    CHECK(cudaMemcpy(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_bias, h_bias.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_mask, h_mask.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    const int block = 128, grid = (n + block - 1) / block;
    const float scale = 0.5f;

    std::vector<float> want(n);
    // No bias, no mask: 0 and NULL.
    scale_add<<<grid, block>>>(d_y, d_x, 0, NULL, n, scale);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) want[i] = h_x[i] * scale;
    expect("0, NULL", h_y, want);
    // A bias, no mask: nullptr, and an int literal for the float scale.
    scale_add<<<grid, block>>>(d_y, d_x, d_bias, nullptr, n, 2);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) want[i] = h_x[i] * 2.0f + h_bias[i];
    expect("bias, nullptr", h_y, want);
    // A mask, no bias: NULL first.
    scale_add<<<grid, block, 0, 0>>>(d_y, d_x, NULL, d_mask, n, scale);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) want[i] = h_mask[i] ? h_x[i] * scale : 0.0f;
    expect("NULL, mask", h_y, want);
    // A deduced template with a literal 0 for its value: T is int.
    int* d_ints;
    CHECK(cudaMalloc(&d_ints, n * sizeof(int)));
    fill<<<grid, block>>>(d_ints, 0, n);
    CHECK(cudaGetLastError());
    std::vector<int> h_ints(n);
    CHECK(cudaMemcpy(h_ints.data(), d_ints, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        if (h_ints[i] != i) {
            std::printf("fill: element %d is %d\n", i, h_ints[i]);
            ++failures;
            break;
        }
    }
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_bias));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_mask));
    CHECK(cudaFree(d_ints));
    if (failures) return 1;
    std::printf("null_pointer_args (n = %d, four launches) OK\n", n);
    return 0;
}
