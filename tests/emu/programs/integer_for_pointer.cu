// integer_for_pointer.cu - an integer variable passed for a pointer parameter.
// nvcc refuses this launch (only a null pointer constant converts to a
// pointer); the emulator, which receives every integer argument the same way,
// must stop with one line saying so, not run the kernel on a made-up pointer.
// (tests/emu/CMakeLists.txt leaves it out of the nvcc compile check.)
#include <cstdio>

__global__ void write_one(float* out) {
    if (out) out[threadIdx.x] = 1.0f;
}

int main() {
    long offset = 5;
    write_one<<<1, 1>>>(offset);
    cudaError_t status = cudaDeviceSynchronize();
    std::printf("the launch ran: %s\n", cudaGetErrorString(status));
    return 0;
}
