// Bug 5: a buffer is freed, then launched on (and, below, freed again).
#include "check.h"

__global__ void zero(float* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = 0.0f;
}

int main() {
    const int n = 1000;
    float* d_data;
    CHECK(cudaMalloc(&d_data, n * sizeof(float)));
    CHECK(cudaFree(d_data));
    zero<<<(n + 255) / 256, 256>>>(d_data, n);  // fix: launch before the cudaFree
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::printf("done\n");
}
