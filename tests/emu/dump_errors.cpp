// dump_errors.cpp - prints every error code's name and string, one per line.
// Built twice: against the real libcudart (which answers these without a GPU)
// and against the emulator; the test emu.error-table diffs the two outputs.
#include <cuda_runtime.h>

#include <cstdio>

int main() {
    for (int code = 0; code <= 1100; ++code) {
        cudaError_t e = static_cast<cudaError_t>(code);
        std::printf("%d\t%s\t%s\n", code, cudaGetErrorName(e), cudaGetErrorString(e));
    }
    return 0;
}
