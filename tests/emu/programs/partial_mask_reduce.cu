// partial_mask_reduce.cu - block sums whose last step shuffles among fewer
// than 32 lanes, written two ways. In both, each warp first sums its lanes
// with shuffles, lane 0 of each warp parks the warp's sum in shared memory,
// and then only the first (blockDim.x / 32) lanes of warp 0 add those up,
// with the ballot of those lanes as the shuffles' mask.
//
//   sumUnsafe: the last step still shuffles down from offset 16, so lane 0
//     reads lanes 16 and 8, which are not in the mask: undefined on a GPU (a
//     bug a well-known reduction example carries; it often goes unseen on a
//     GPU). The emulator names the first such read in a note and goes on.
//   sumSafe: the last step shuffles within segments as wide as the lanes
//     taking part (width kWarps), so a source past them is outside the
//     segment and gives the lane its own value, as CUDA defines: every read
//     is defined and the sums must be exact.
//
// usage: partial_mask_reduce [n] [unsafe|safe|exited]
//   unsafe (the default) runs both; sumSafe must match the CPU. The unsafe
//     sums are printed, not checked: their value is what is undefined.
//   safe: sumSafe alone.
//   exited: a kernel whose upper half-warp returns before the lower half
//     shuffles down from it with the full mask, also undefined; the lower
//     lanes' sums are printed, not checked.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                 \
    do {                                                                            \
        cudaError_t err_ = (call);                                                  \
        if (err_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,           \
                    cudaGetErrorString(err_));                                      \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

const int kThreads = 256;               // 8 warps a block
const int kWarps = kThreads / 32;

__device__ int warpSum(unsigned mask, int v, int firstOffset, int width) {
    for (int offset = firstOffset; offset > 0; offset /= 2)
        v += __shfl_down_sync(mask, v, offset, width);
    return v;
}

__device__ void blockSum(const int* in, int* out, int n, bool safe) {
    __shared__ int warpSums[kWarps];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    v = warpSum(0xffffffffu, v, 16, 32);
    if (threadIdx.x % 32 == 0) warpSums[threadIdx.x / 32] = v;
    __syncthreads();
    unsigned lanes = __ballot_sync(0xffffffffu, threadIdx.x < kWarps);
    if (threadIdx.x < kWarps) {
        v = warpSums[threadIdx.x];
        v = safe ? warpSum(lanes, v, kWarps / 2, kWarps) : warpSum(lanes, v, 16, 32);
        if (threadIdx.x == 0) out[blockIdx.x] = v;
    }
}

__global__ void sumUnsafe(const int* in, int* out, int n) { blockSum(in, out, n, false); }
__global__ void sumSafe(const int* in, int* out, int n) { blockSum(in, out, n, true); }

// Lanes 16..31 of every warp return; lanes 0..15 then read them.
__global__ void sumAfterExit(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    if (threadIdx.x % 32 >= 16) return;
    v += __shfl_down_sync(0xffffffffu, v, 16);
    if (i < n) out[i] = v;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 10007;
    const char* mode = argc > 2 ? argv[2] : "unsafe";
    if (n < 1 || (strcmp(mode, "unsafe") != 0 && strcmp(mode, "safe") != 0 && strcmp(mode, "exited") != 0)) {
        fprintf(stderr, "usage: %s [n >= 1] [unsafe|safe|exited]\n", argv[0]);
        return 2;
    }
    int blocks = (n + kThreads - 1) / kThreads;
    int* h_in = (int*)malloc(n * sizeof(int));
    int* h_out = (int*)malloc((size_t)(blocks > n ? blocks : n) * sizeof(int));
    srand(12345);
    for (int i = 0; i < n; ++i) h_in[i] = rand() % 100;
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, (size_t)(blocks > n ? blocks : n) * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));

    if (strcmp(mode, "exited") == 0) {
        sumAfterExit<<<blocks, kThreads>>>(d_in, d_out, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(h_out, d_out, sizeof(int), cudaMemcpyDeviceToHost));
        printf("partial_mask_reduce exited: lane 0 of block 0 got %d (undefined: not checked) OK\n", h_out[0]);
    } else {
        if (strcmp(mode, "unsafe") == 0) {
            sumUnsafe<<<blocks, kThreads>>>(d_in, d_out, n);
            CHECK(cudaGetLastError());
            CHECK(cudaMemcpy(h_out, d_out, sizeof(int), cudaMemcpyDeviceToHost));
            printf("sumUnsafe: block 0 got %d (undefined: not checked)\n", h_out[0]);
        }
        sumSafe<<<blocks, kThreads>>>(d_in, d_out, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(h_out, d_out, blocks * sizeof(int), cudaMemcpyDeviceToHost));
        int wrong = 0;
        for (int b = 0; b < blocks; ++b) {
            int expected = 0;
            for (int i = b * kThreads; i < n && i < (b + 1) * kThreads; ++i) expected += h_in[i];
            if (h_out[b] != expected) ++wrong;
        }
        if (wrong) {
            printf("partial_mask_reduce: sumSafe got %d of %d block sums wrong\n", wrong, blocks);
            return 1;
        }
        printf("partial_mask_reduce n=%d blocks=%d: sumSafe exact OK\n", n, blocks);
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    return 0;
}
