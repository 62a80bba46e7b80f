// half_axpy.cu - the blog-post pattern for mixed precision: y = a*x + y on
// half-precision data, two values per thread as __half2 with __hfma2, and a
// scalar __half tail for an odd length. The CPU reference rounds the same way
// (one fused multiply-add, rounded to half), so the answers must be equal.
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

__global__ void haxpy(int n, __half a, const __half* x, __half* y) {
    int pairs = n / 2;
    const __half2* x2 = reinterpret_cast<const __half2*>(x);
    __half2* y2 = reinterpret_cast<__half2*>(y);
    __half2 a2 = __half2half2(a);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += gridDim.x * blockDim.x)
        y2[i] = __hfma2(a2, x2[i], y2[i]);
    if (n % 2 == 1 && blockIdx.x == 0 && threadIdx.x == 0)
        y[n - 1] = __hfma(a, x[n - 1], y[n - 1]);
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100001;
    if (n <= 0 || n > (1 << 28)) {
        fprintf(stderr, "usage: %s [n], 1..2^28\n", argv[0]);
        return 1;
    }
    std::mt19937 gen(std::random_device{}());
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    std::vector<__half> x(n), y(n), expected(n);
    const float a_value = dist(gen);
    const __half a = __float2half(a_value);
    for (int i = 0; i < n; i++) {
        x[i] = __float2half(dist(gen));
        y[i] = __float2half(dist(gen));
        // a*x + y exactly (the product of two halves is exact in float; the
        // sum is formed in double), rounded once to half
        double exact = (double)__half2float(a) * __half2float(x[i]) + __half2float(y[i]);
        expected[i] = __double2half(exact);
    }

    __half *dx, *dy;
    check(cudaMalloc(&dx, n * sizeof(__half)), "cudaMalloc x");
    check(cudaMalloc(&dy, n * sizeof(__half)), "cudaMalloc y");
    check(cudaMemcpy(dx, x.data(), n * sizeof(__half), cudaMemcpyHostToDevice), "copy x");
    check(cudaMemcpy(dy, y.data(), n * sizeof(__half), cudaMemcpyHostToDevice), "copy y");
    haxpy<<<64, 256>>>(n, a, dx, dy);
    check(cudaGetLastError(), "haxpy launch");
    check(cudaMemcpy(y.data(), dy, n * sizeof(__half), cudaMemcpyDeviceToHost), "copy back");

    int errors = 0;
    for (int i = 0; i < n; i++)
        if (__half_as_ushort(y[i]) != __half_as_ushort(expected[i])) errors++;
    printf("half_axpy n=%d a=%g errors=%d %s\n", n, __half2float(a), errors, errors ? "FAILED" : "OK");
    check(cudaFree(dx), "cudaFree x");
    check(cudaFree(dy), "cudaFree y");
    return errors ? 1 : 0;
}
