// Bug 1: no bounds check. 1000 elements, 4 blocks of 256 threads: threads
// 1000..1023 write past the end of the buffer.
#include "check.h"

__global__ void fill(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 2.0f * i;  // fix: if (i < n) out[i] = 2.0f * i;
}

int main() {
    const int n = 1000;
    float* d_out;
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    fill<<<(n + 255) / 256, 256>>>(d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d_out));
    std::printf("done\n");
}
