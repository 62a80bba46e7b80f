// Bug 4: the host reads a result straight from device memory.
#include "check.h"

__global__ void count_to(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i;
}

int main() {
    const int n = 100;
    int* d_out;
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    count_to<<<1, 128>>>(d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::printf("last = %d\n", d_out[n - 1]);  // fix: cudaMemcpy into a host array first
    CHECK(cudaFree(d_out));
}
