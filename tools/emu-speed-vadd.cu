// emu-speed-vadd.cu - the benchmark's kernels without shared memory (the vector
// add and the empty kernel), in a file of their own. bin/nvcc-emu instruments a
// source for the race check only when it declares shared memory, as
// tools/emu-speed.cu does for its tiled matmul (it looks for the keyword, even
// in a comment: this file never spells it). A learner's vector add has none, so
// here it is built, and timed, as a lesson builds it.
#include <cuda_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void empty_kernel() {}

// Launched here, where the kernels are; errors are the caller's to check.
void launch_vector_add(const float* a, const float* b, float* c, int n, int block) {
    vector_add<<<(n + block - 1) / block, block>>>(a, b, c, n);
}

void launch_empty_kernel() { empty_kernel<<<1, 1>>>(); }
