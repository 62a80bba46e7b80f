// gpu_probe.cu - can a program built with nvcc run on this machine?
//
// ./tutorial builds this with nvcc (target tutorial_gpu_probe) and runs it
// before it chooses the GPU build: with no driver, no device, or a driver
// older than the toolkit, the first CUDA call fails. Exit code 0 and the
// device's name when the GPU build can run; otherwise exit code 1 and one
// line saying why, which ./tutorial shows.
#include <cstdio>

#include <cuda_runtime.h>

int main() {
    int devices = 0;
    cudaError_t status = cudaGetDeviceCount(&devices);
    if (status != cudaSuccess) {
        std::printf("%s: %s\n", cudaGetErrorName(status), cudaGetErrorString(status));
        return 1;
    }
    if (devices == 0) {
        std::printf("the CUDA runtime sees no device\n");
        return 1;
    }
    // A device can be listed yet refuse work (a broken or busy driver):
    // creating a context on it is the real test.
    status = cudaFree(nullptr);
    if (status != cudaSuccess) {
        std::printf("%s: %s\n", cudaGetErrorName(status), cudaGetErrorString(status));
        return 1;
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) std::printf("%s\n", prop.name);
    return 0;
}
