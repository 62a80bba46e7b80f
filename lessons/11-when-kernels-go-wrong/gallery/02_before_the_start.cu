// Bug 2: reading element -1. Each thread averages its element with the one
// before it, and thread 0 forgets that it has no left neighbour.
#include "check.h"

__global__ void smooth(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 0.5f * (in[i] + in[i - 1]);  // fix: i > 0 ? in[i - 1] : in[i]
}

int main() {
    const int n = 1000;
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    smooth<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    std::printf("done\n");
}
