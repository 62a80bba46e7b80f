// Bug 11: launch configurations the hardware refuses, one after another.
// None of them runs; each is reported by cudaGetLastError right after it.
#include "check.h"

__global__ void nothing() {}

static int report(const char* what) {
    cudaError_t e = cudaGetLastError();
    std::printf("%-34s -> %s (%s)\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}

int main() {
    int refused = 0;
    nothing<<<1, 0>>>();
    refused += report("<<<1, 0>>>  no threads");
    nothing<<<0, 32>>>();
    refused += report("<<<0, 32>>>  no blocks");
    nothing<<<1, 2000>>>();
    refused += report("<<<1, 2000>>>  over 1024 per block");
    nothing<<<1, dim3(1, 1, 128)>>>();
    refused += report("<<<1, (1,1,128)>>>  z over 64");
    nothing<<<dim3(1, 70000), 32>>>();
    refused += report("<<<(1,70000), 32>>>  grid y over 65535");
    nothing<<<1, 32, 100 * 1024>>>();
    refused += report("<<<1, 32, 100 KiB shared>>>");
    nothing<<<1, 32>>>();
    report("<<<1, 32>>>  fine");
    CHECK(cudaDeviceSynchronize());
    return refused == 6 ? 0 : 1;
}
