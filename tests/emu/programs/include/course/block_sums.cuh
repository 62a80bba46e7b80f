// block_sums.cuh - the course project's kernel and its launcher, in a header
// found through -I (tests/emu/programs/include): a block-wise sum through the
// launch's dynamic shared memory, declared once at file scope.
#pragma once

#include "check.cuh"

// Sized by the launch's third argument; every kernel of the file may use it.
extern __shared__ float partial[];

#define LAUNCH(kernel, grid, block, ...) kernel<<<grid, block>>>(__VA_ARGS__)

__global__ void block_sums(const float* in, int n, float* sums) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}

// How many blocks reported; cleared by a launch that takes no arguments.
__device__ unsigned int blocks_counted;
__global__ void clear_counter() { blocks_counted = 0; }

// The launch lives in the header, as course projects keep it.
inline void launch_block_sums(const float* in, int n, float* sums, int threads) {
    const int blocks = (n + threads - 1) / threads;
    block_sums<<<blocks, threads, threads * sizeof(float)>>>(in, n, sums);
    CHECK(cudaGetLastError());
}
