// managed.cu - unified memory: one pointer from cudaMallocManaged is written
// by the host, updated by a kernel and read back by the host, with no
// cudaMemcpy at all. Also a __managed__ global counter that the kernel
// increments and the host reads after cudaDeviceSynchronize.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char* file, int line, bool abort = true) {
    if (code != cudaSuccess) {
        fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
        if (abort) exit(code);
    }
}

__managed__ int elements_touched = 0;

__global__ void scale_and_shift(float* data, int n, float scale, float shift) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        data[idx] = data[idx] * scale + shift;
        atomicAdd(&elements_touched, 1);
    }
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 300007;
    if (n < 1) { fprintf(stderr, "n must be at least 1\n"); return 2; }
    srand((unsigned)time(NULL));
    float scale = 0.5f + (float)rand() / RAND_MAX;
    float shift = (float)rand() / RAND_MAX - 0.5f;

    float *data, *original;
    gpuErrchk(cudaMallocManaged(&data, n * sizeof(float)));
    original = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        data[i] = (float)rand() / RAND_MAX * 200.0f - 100.0f;  // the host writes managed memory
        original[i] = data[i];
    }

    int blockSize = 512;
    int numBlocks = (n + blockSize - 1) / blockSize;
    scale_and_shift<<<numBlocks, blockSize>>>(data, n, scale, shift);
    gpuErrchk(cudaPeekAtLastError());
    gpuErrchk(cudaDeviceSynchronize());  // required before the host touches data again

    int errors = 0;
    for (int i = 0; i < n; i++) {
        float expected = original[i] * scale + shift;
        // The GPU may fuse the multiply and add (one rounding instead of two):
        // allow a few ulps of a value up to 150 in size.
        if (fabsf(data[i] - expected) > 1e-5f * (1.0f + fabsf(expected))) errors++;
    }
    if (elements_touched != n) errors++;
    printf("managed n=%d touched=%d errors=%d %s\n", n, elements_touched, errors,
           errors ? "FAILED" : "OK");
    gpuErrchk(cudaFree(data));
    free(original);
    return errors ? 1 : 0;
}
