// trap_on_bad_size.cu - a kernel that calls __trap() on a size it cannot
// handle, as llm.c's kernels do rather than run into a deadlock: a launch
// with a good size runs, one with a bad size fails, and the error stays
// (sticky) for every later call, as after any kernel fault on a GPU.
// Prints "trap_on_bad_size ... OK" when the calls return what CUDA documents.
//
// usage: trap_on_bad_size [channels]   (channels not a multiple of 32 traps)
#include <cstdio>
#include <cstdlib>

__global__ void scale_channels(float* data, int channels) {
    if (channels % 32 != 0) {
        if (threadIdx.x == 0 && blockIdx.x == 0) printf("channels (%d) is not a multiple of 32\n", channels);
        __trap();  // better to stop here than to read past the rows
    }
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < channels) data[i] *= 2.0f;
}

int main(int argc, char** argv) {
    const int bad = argc > 1 ? atoi(argv[1]) : 33;
    if (bad <= 0 || bad > 1024) {
        fprintf(stderr, "usage: %s [channels: 1 to 1024]\n", argv[0]);
        return 2;
    }
    float* d_data = nullptr;
    if (cudaMalloc(&d_data, 1024 * sizeof(float)) != cudaSuccess) return 1;
    cudaMemset(d_data, 0, 1024 * sizeof(float));
    scale_channels<<<4, 256>>>(d_data, 1024);
    const cudaError_t good = cudaDeviceSynchronize();
    scale_channels<<<4, 256>>>(d_data, bad);
    const cudaError_t trapped = cudaDeviceSynchronize();
    const cudaError_t after = cudaMemset(d_data, 0, 4);
    printf("good size: %s; bad size: %s; then cudaMemset: %s\n", cudaGetErrorName(good),
           cudaGetErrorName(trapped), cudaGetErrorName(after));
    const bool as_documented = good == cudaSuccess &&
                               (bad % 32 == 0 ? trapped == cudaSuccess
                                              : trapped == cudaErrorLaunchFailure && after == trapped);
    printf("trap_on_bad_size channels=%d %s\n", bad, as_documented ? "OK" : "WRONG");
    return as_documented ? 0 : 1;
}
