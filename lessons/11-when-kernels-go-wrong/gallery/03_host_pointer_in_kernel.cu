// Bug 3: the kernel gets the host array instead of its device copy.
#include "check.h"
#include <vector>

__global__ void scale(float* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= 2.0f;
}

int main() {
    const int n = 1000;
    std::vector<float> h_data(n, 1.0f);
    float* d_data;
    CHECK(cudaMalloc(&d_data, n * sizeof(float)));
    CHECK(cudaMemcpy(d_data, h_data.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    scale<<<(n + 255) / 256, 256>>>(h_data.data(), n);  // fix: pass d_data
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d_data));
    std::printf("done\n");
}
