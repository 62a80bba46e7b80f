// Bug 6: a copy with the direction flag backwards, then one too long.
#include "check.h"
#include <vector>

int main() {
    const int n = 1000;
    std::vector<float> h_data(n, 1.0f);
    float* d_data;
    CHECK(cudaMalloc(&d_data, n * sizeof(float)));
    // Destination first: this copies the device buffer INTO h_data, so the
    // direction is device to host, not host to device.
    cudaError_t backwards = cudaMemcpy(h_data.data(), d_data, n * sizeof(float),
                                       cudaMemcpyHostToDevice);
    std::printf("backwards copy: %s (%s)\n", cudaGetErrorName(backwards),
                cudaGetErrorString(backwards));
    // Bytes, not elements: n * sizeof(float) is right, n * sizeof(double) is
    // twice the buffer.
    cudaError_t too_long = cudaMemcpy(d_data, h_data.data(), n * sizeof(double),
                                      cudaMemcpyHostToDevice);
    std::printf("too-long copy:  %s (%s)\n", cudaGetErrorName(too_long),
                cudaGetErrorString(too_long));
    CHECK(cudaFree(d_data));
    return backwards == cudaSuccess && too_long == cudaSuccess ? 0 : 1;
}
