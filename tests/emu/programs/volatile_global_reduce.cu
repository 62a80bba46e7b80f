// volatile_global_reduce.cu - book style: a sum reduced in place in GLOBAL
// memory. Each block halves its own slice of the input with __syncthreads()
// between steps until 64 values are left; then the first warp finishes with
// no barrier at all, through a volatile pointer into the same global slice,
// counting on its 32 lanes running in lockstep (the "unrolled last warp" of
// pre-Volta textbooks). Done twice: written out in the kernel, and in a
// __device__ helper taking the volatile pointer. Exits 0 only when every
// block's sum equals the CPU's.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#define CHECK(call)                                                              \
    {                                                                            \
        const cudaError_t error = call;                                          \
        if (error != cudaSuccess) {                                              \
            printf("Error: %s:%d, code %d, reason: %s\n", __FILE__, __LINE__,    \
                   error, cudaGetErrorString(error));                            \
            exit(1);                                                             \
        }                                                                        \
    }

const int BLOCK = 256;

__global__ void reduceGlobalUnrolledWarp(int* g_data, int* g_blockSums) {
    unsigned int tid = threadIdx.x;
    int* slice = g_data + blockIdx.x * blockDim.x;
    for (unsigned int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (tid < stride) slice[tid] += slice[tid + stride];
        __syncthreads();
    }
    if (tid < 32) {
        volatile int* last = slice;
        last[tid] += last[tid + 32];
        last[tid] += last[tid + 16];
        last[tid] += last[tid + 8];
        last[tid] += last[tid + 4];
        last[tid] += last[tid + 2];
        last[tid] += last[tid + 1];
    }
    if (tid == 0) g_blockSums[blockIdx.x] = slice[0];
}

__device__ void lastWarpSum(volatile int* p, unsigned int lane) {
    p[lane] += p[lane + 32];
    p[lane] += p[lane + 16];
    p[lane] += p[lane + 8];
    p[lane] += p[lane + 4];
    p[lane] += p[lane + 2];
    p[lane] += p[lane + 1];
}

__global__ void reduceGlobalWarpHelper(int* g_data, int* g_blockSums) {
    unsigned int tid = threadIdx.x;
    int* slice = g_data + blockIdx.x * blockDim.x;
    for (unsigned int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (tid < stride) slice[tid] += slice[tid + stride];
        __syncthreads();
    }
    if (tid < 32) lastWarpSum(slice, tid);
    if (tid == 0) g_blockSums[blockIdx.x] = slice[0];
}

// Runs one of the kernels on a fresh copy of the input; counts the blocks
// whose sum differs from the CPU's.
int runAndCompare(bool useHelper, const std::vector<int>& input, int blocks) {
    const char* name = useHelper ? "helper" : "inline";
    int *d_data, *d_sums;
    CHECK(cudaMalloc((void**)&d_data, input.size() * sizeof(int)));
    CHECK(cudaMalloc((void**)&d_sums, blocks * sizeof(int)));
    CHECK(cudaMemcpy(d_data, input.data(), input.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_sums, 0xff, blocks * sizeof(int)));
    if (useHelper)
        reduceGlobalWarpHelper<<<blocks, BLOCK>>>(d_data, d_sums);
    else
        reduceGlobalUnrolledWarp<<<blocks, BLOCK>>>(d_data, d_sums);
    CHECK(cudaGetLastError());
    std::vector<int> sums(blocks);
    CHECK(cudaMemcpy(sums.data(), d_sums, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_data));
    CHECK(cudaFree(d_sums));

    int wrong = 0;
    long long total = 0, expectedTotal = 0;
    for (int b = 0; b < blocks; b++) {
        int expected = 0;
        for (int i = 0; i < BLOCK; i++) expected += input[b * BLOCK + i];
        if (sums[b] != expected && wrong++ < 3)
            printf("  %s: block %d sum %d, expected %d\n", name, b, sums[b], expected);
        total += sums[b];
        expectedTotal += expected;
    }
    printf("  %s: total %lld, CPU %lld\n", name, total, expectedTotal);
    return wrong;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100003;
    if (n < 1) { printf("usage: %s [n >= 1]\n", argv[0]); return 2; }
    srand((unsigned)time(NULL));
    // The tail of the last block is padded with zeros, so n need not be a
    // multiple of the block size.
    int blocks = (n + BLOCK - 1) / BLOCK;
    std::vector<int> input(blocks * BLOCK, 0);
    for (int i = 0; i < n; i++) input[i] = rand() % 1999 - 999;

    int wrong = runAndCompare(false, input, blocks) + runAndCompare(true, input, blocks);
    printf("volatile_global_reduce n=%d blocks=%d wrong=%d %s\n", n, blocks, wrong,
           wrong == 0 ? "OK" : "FAILED");
    return wrong == 0 ? 0 : 1;
}
