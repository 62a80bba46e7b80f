// saxpy.cu - an ordinary CUDA program in the usual style, not written for
// this tutorial's helpers: its own error macro, cudaMalloc/cudaMemcpy, a
// checked launch, cudaFree. The emulator tests build it with bin/nvcc-emu and
// check what it prints.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#define CHECK(call)                                                         \
    do {                                                                    \
        cudaError_t err_ = (call);                                          \
        if (err_ != cudaSuccess) {                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,              \
                    cudaGetErrorString(err_));                              \
            exit(EXIT_FAILURE);                                             \
        }                                                                   \
    } while (0)

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : (1 << 20) + 3;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
        x[i] = sinf(i * 0.001f);
        y[i] = cosf(i * 0.002f);
    }
    float *d_x, *d_y;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    int threads = 256, blocks = (n + threads - 1) / threads;
    if (blocks > 1024) blocks = 1024;  // grid-stride loop covers the rest
    saxpy<<<blocks, threads>>>(n, 2.5f, d_x, d_y);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    std::vector<float> out(n);
    CHECK(cudaMemcpy(out.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (fabsf(out[i] - (2.5f * x[i] + y[i])) > 1e-5f) ++errors;
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    printf("saxpy n=%d errors=%d %s\n", n, errors, errors ? "FAILED" : "OK");
    return errors ? 1 : 0;
}
