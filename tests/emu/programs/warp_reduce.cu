// warp_reduce.cu - sum and maximum of an int array, the "fast reduction" way:
// each thread walks the array with a grid-stride loop, each warp combines its
// 32 partial results with register shuffles, and lane 0 of every warp adds the
// warp's result to the total with one atomic. Exits 0 only when the GPU's
// answer equals the CPU's.
#include <cstdio>
#include <cstdlib>
#include <climits>
#include <ctime>

#define cudaCheck(expr)                                                       \
    do {                                                                      \
        cudaError_t status = (expr);                                          \
        if (status != cudaSuccess) {                                          \
            printf("CUDA error \"%s\" in %s at %s:%d\n",                      \
                   cudaGetErrorString(status), #expr, __FILE__, __LINE__);    \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

#define FULL_MASK 0xffffffffu

// After the loop lane 0 holds the sum of all 32 lanes.
__inline__ __device__ int warpReduceSum(int val) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        val += __shfl_down_sync(FULL_MASK, val, offset);
    return val;
}

// Butterfly: afterwards every lane holds the maximum.
__inline__ __device__ int warpAllReduceMax(int val) {
    for (int mask = warpSize / 2; mask > 0; mask >>= 1)
        val = max(val, __shfl_xor_sync(FULL_MASK, val, mask));
    return val;
}

__global__ void reduceKernel(const int* in, int n, int* sum, int* maximum, int* lanesDisagree) {
    int mySum = 0, myMax = INT_MIN;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        mySum += in[i];
        myMax = max(myMax, in[i]);
    }
    mySum = warpReduceSum(mySum);
    int warpMax = warpAllReduceMax(myMax);
    // Every lane must see the same maximum as lane 0.
    if (warpMax != __shfl_sync(FULL_MASK, warpMax, 0)) atomicAdd(lanesDisagree, 1);
    if ((threadIdx.x & (warpSize - 1)) == 0) {
        atomicAdd(sum, mySum);
        atomicMax(maximum, warpMax);
    }
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000003;
    if (n < 1) { printf("usage: %s [n >= 1]\n", argv[0]); return 2; }
    unsigned seed = (unsigned)time(NULL);
    srand(seed);

    int* h_in = (int*)malloc(n * sizeof(int));
    long long expectedSum = 0;
    int expectedMax = INT_MIN;
    for (int i = 0; i < n; i++) {
        h_in[i] = rand() % 2001 - 1000;  // small values: the int sum cannot overflow
        expectedSum += h_in[i];
        if (h_in[i] > expectedMax) expectedMax = h_in[i];
    }

    int *d_in, *d_sum, *d_max, *d_disagree;
    cudaCheck(cudaMalloc((void**)&d_in, n * sizeof(int)));
    cudaCheck(cudaMalloc((void**)&d_sum, sizeof(int)));
    cudaCheck(cudaMalloc((void**)&d_max, sizeof(int)));
    cudaCheck(cudaMalloc((void**)&d_disagree, sizeof(int)));
    cudaCheck(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
    int zero = 0, lowest = INT_MIN;
    cudaCheck(cudaMemcpy(d_sum, &zero, sizeof(int), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_max, &lowest, sizeof(int), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemset(d_disagree, 0, sizeof(int)));

    int threads = 256;  // a multiple of 32, so every warp is full and FULL_MASK is right
    int blocks = 120;   // fewer threads than elements: the grid-stride loop does the rest
    reduceKernel<<<blocks, threads>>>(d_in, n, d_sum, d_max, d_disagree);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());

    int gpuSum, gpuMax, disagree;
    cudaCheck(cudaMemcpy(&gpuSum, d_sum, sizeof(int), cudaMemcpyDeviceToHost));
    cudaCheck(cudaMemcpy(&gpuMax, d_max, sizeof(int), cudaMemcpyDeviceToHost));
    cudaCheck(cudaMemcpy(&disagree, d_disagree, sizeof(int), cudaMemcpyDeviceToHost));
    cudaCheck(cudaFree(d_in));
    cudaCheck(cudaFree(d_sum));
    cudaCheck(cudaFree(d_max));
    cudaCheck(cudaFree(d_disagree));
    free(h_in);

    int ok = gpuSum == expectedSum && gpuMax == expectedMax && disagree == 0;
    printf("warp_reduce n=%d seed=%u sum=%d (cpu %lld) max=%d (cpu %d) lanes disagreeing=%d %s\n",
           n, seed, gpuSum, expectedSum, gpuMax, expectedMax, disagree, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
