// Bug 10: a large array in a kernel's local variables.
#include "check.h"

__global__ void big_local(float* out) {
    float scratch[1 << 20];  // 4 MB per thread; fix: use a cudaMalloc'd buffer
    for (int i = 0; i < (1 << 20); i += 4096) scratch[i] = (float)i;
    out[threadIdx.x] = scratch[threadIdx.x * 4096 % (1 << 20)];
}

int main() {
    float* d_out;
    CHECK(cudaMalloc(&d_out, 32 * sizeof(float)));
    big_local<<<1, 32>>>(d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d_out));
    std::printf("done\n");
}
