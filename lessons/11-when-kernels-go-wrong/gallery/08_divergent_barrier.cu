// Bug 8: __syncthreads inside a branch only some threads take.
#include "check.h"

__global__ void shift_left(const float* in, float* out, int n) {
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        tile[threadIdx.x] = in[i];
        __syncthreads();  // fix: load 0 when i >= n, and put the barrier outside the if
        out[i] = threadIdx.x + 1 < blockDim.x ? tile[threadIdx.x + 1] : tile[threadIdx.x];
    }
}

int main() {
    const int n = 1000;  // the last block has 232 threads inside and 24 outside
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    shift_left<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    std::printf("done\n");
}
