// arch_guards.cu - __CUDA_ARCH__ as real code tests it: device code sees the
// device's compute capability, host code sees it undefined, and a
// __host__ __device__ function sees each on its own side. Patterns: a
// kernel body that exists only from sm_70 on, a __device__ helper with a
// faster path from sm_60 on, the double atomicAdd fallback for old GPUs, an
// #error guard, and #ifdef __CUDA_ARCH__ in a __host__ __device__ function.
// Every expectation is computed from the properties the device reports.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CUDA_CHECK(expr)                                                              \
    do {                                                                              \
        cudaError_t status_ = (expr);                                                 \
        if (status_ != cudaSuccess) {                                                 \
            printf("%s failed: %s (line %d)\n", #expr, cudaGetErrorString(status_), __LINE__); \
            return EXIT_FAILURE;                                                      \
        }                                                                             \
    } while (0)

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 350)
#error "arch_guards needs compute capability 3.5 or newer"
#endif

// Before sm_60 there is no atomicAdd on double: the classic fallback.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
#else
__device__ double atomicAdd(double* address, double value) {
    unsigned long long* bits = (unsigned long long*)address;
    unsigned long long old = *bits, assumed;
    do {
        assumed = old;
        old = atomicCAS(bits, assumed, __double_as_longlong(value + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}
#endif

// Which compiler pass runs this: the device's arch, or -1 on the host.
__host__ __device__ int compiled_for() {
#ifdef __CUDA_ARCH__
    return __CUDA_ARCH__;
#else
    return -1;
#endif
}

__device__ int path_taken() {
#if __CUDA_ARCH__ >= 600
    return 600;
#else
    return 0;
#endif
}

__global__ void report(int* out) {
    out[0] = compiled_for();
    out[1] = path_taken();
}

// The whole body needs sm_70 (as code using independent thread scheduling may).
__global__ void scale_sm70(const float* in, float* out, int n) {
#if __CUDA_ARCH__ >= 700
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 3.0f * in[i];
#endif
}

__global__ void sum(const float* in, int n, double* total) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, static_cast<double>(in[i]));
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 50021;
    if (n <= 0 || n > (1 << 24)) {
        printf("usage: arch_guards [1..%d]\n", 1 << 24);
        return 2;
    }
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    const int arch = prop.major * 100 + prop.minor * 10;

    std::vector<float> h_in(n);
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& x : h_in) x = dist(rng);

    float *d_in, *d_out;
    int* d_report;
    double* d_total;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_report, 2 * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_total, sizeof(double)));
    CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0, n * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_total, 0, sizeof(double)));

    report<<<1, 1>>>(d_report);
    scale_sm70<<<(n + 127) / 128, 128>>>(d_in, d_out, n);
    sum<<<(n + 255) / 256, 256>>>(d_in, n, d_total);
    CUDA_CHECK(cudaGetLastError());

    int h_report[2];
    double total = 0;
    std::vector<float> h_out(n);
    CUDA_CHECK(cudaMemcpy(h_report, d_report, sizeof h_report, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));

    int wrong = 0;
    double expected_total = 0;
    for (int i = 0; i < n; ++i) {
        const float expected = arch >= 700 ? 3.0f * h_in[i] : 0.0f;
        if (h_out[i] != expected) ++wrong;
        expected_total += h_in[i];
    }
    const bool ok = h_report[0] == arch && compiled_for() == -1 && h_report[1] == (arch >= 600 ? 600 : 0) &&
                    wrong == 0 && std::abs(total - expected_total) < 1e-6 * n;
    printf("arch_guards n=%d device arch=%d seen by device code=%d by host code=%d wrong=%d %s\n", n, arch,
           h_report[0], compiled_for(), wrong, ok ? "OK" : "FAILED");

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_report));
    CUDA_CHECK(cudaFree(d_total));
    return ok ? 0 : 1;
}
