// printf_hello.cu - printf from inside a kernel: every eighth thread of each
// block prints one line. The order of lines between threads is not defined on
// a GPU, and the text appears when the host synchronizes; the test sorts the
// lines and compares them with what it expects.
//
//   ./printf_hello MULTIPLIER
#include <stdio.h>
#include <stdlib.h>

#define CHECK_CUDA(call)                                                        \
    {                                                                           \
        cudaError_t err = (call);                                               \
        if (err != cudaSuccess) {                                               \
            fprintf(stderr, "CUDA failure at line %d: %s\n", __LINE__,          \
                    cudaGetErrorString(err));                                   \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    }

__global__ void hello(int multiplier) {
    int tid = threadIdx.x;
    if (tid % 8 == 0) {
        float share = 100.0f * tid / blockDim.x;
        printf("block %d thread %2d: %d x %d = %d (%.1f%% of the block) %s\n", blockIdx.x, tid,
               tid, multiplier, tid * multiplier, share, blockIdx.x == 0 ? "first" : "second");
    }
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s MULTIPLIER\n", argv[0]);
        return 2;
    }
    int multiplier = atoi(argv[1]);
    hello<<<2, 32>>>(multiplier);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());  // flushes the kernel's printf buffer on a GPU
    printf("printf_hello done\n");
    return 0;
}
