// graph_memory_kernels.h - the kernels and sizes of the graph memory tests
// (test_graph_nodes.cu, test_graph_memory.cu): count ints, filled with
// value + index, or added to. Plain kernels at namespace scope, so that kernel
// nodes can name them by address. One test file includes it per program.
#ifndef CUEMU_TESTS_GRAPH_MEMORY_KERNELS_H
#define CUEMU_TESTS_GRAPH_MEMORY_KERNELS_H

#include <cuda_runtime.h>

#include <cstddef>

__global__ void node_fill(int* p, int value, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) p[i] = value + i;
}

__global__ void node_add(int* p, int add, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) p[i] += add;
}

constexpr int count = 1000;
constexpr size_t bytes = count * sizeof(int);
constexpr int threads = 128;
constexpr int blocks = (count + threads - 1) / threads;

#endif
