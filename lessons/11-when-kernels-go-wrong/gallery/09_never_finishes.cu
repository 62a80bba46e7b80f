// Bug 9: block 0 waits for a flag that no block ever sets (the writer was
// meant to be block 1, but the launch has only one block).
#include "check.h"

__global__ void wait_for_partner(volatile int* flag) {
    if (blockIdx.x == 1 && threadIdx.x == 0) *flag = 1;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        while (*flag == 0) {
        }  // spins forever: nobody will write the flag
}

int main() {
    int* d_flag;
    CHECK(cudaMalloc(&d_flag, sizeof(int)));
    CHECK(cudaMemset(d_flag, 0, sizeof(int)));
    wait_for_partner<<<1, 32>>>(d_flag);  // fix: launch 2 blocks (and never rely on
                                          // one block waiting for another)
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d_flag));
    std::printf("done\n");
}
