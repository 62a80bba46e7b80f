// Bug 12: a race on shared memory. Each block reverses its 256 elements
// through a shared tile, but nothing makes the writes finish before the reads.
#include "check.h"
#include <vector>

__global__ void reverse_blocks(const int* in, int* out) {
    __shared__ int tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = in[i];
    // fix: __syncthreads(); here
    out[i] = tile[blockDim.x - 1 - threadIdx.x];
}

int main() {
    const int blocks = 4, n = blocks * 256;
    std::vector<int> h_in(n), h_out(n);
    for (int i = 0; i < n; ++i) h_in[i] = i;
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    reverse_blocks<<<blocks, 256>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
        int block_start = i / 256 * 256;
        wrong += h_out[i] != block_start + 255 - (i - block_start);
    }
    std::printf("%d of %d elements wrong\n", wrong, n);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return wrong == 0 ? 0 : 1;
}
