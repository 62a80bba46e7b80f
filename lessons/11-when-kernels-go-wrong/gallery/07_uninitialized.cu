// Bug 7: the kernel sums a buffer nothing ever wrote (the copy was forgotten).
#include "check.h"
#include <vector>

__global__ void sum(const float* data, int n, float* total) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float s = 0.0f;
        for (int i = 0; i < n; ++i) s += data[i];
        *total = s;
    }
}

int main() {
    const int n = 1000;
    std::vector<float> h_data(n, 1.0f);
    float *d_data, *d_total;
    CHECK(cudaMalloc(&d_data, n * sizeof(float)));
    CHECK(cudaMalloc(&d_total, sizeof(float)));
    // fix: cudaMemcpy(d_data, h_data.data(), n * sizeof(float), cudaMemcpyHostToDevice)
    sum<<<1, 1>>>(d_data, n, d_total);
    CHECK(cudaGetLastError());
    float total = 0.0f;
    CHECK(cudaMemcpy(&total, d_total, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("total = %g (expected %d)\n", total, n);
    CHECK(cudaFree(d_data));
    CHECK(cudaFree(d_total));
}
