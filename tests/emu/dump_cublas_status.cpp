// dump_cublas_status.cpp - prints every cuBLAS status's name and string, one
// per line, for -1 to 40 (unused codes included). Built twice: against the
// real libcublas (which answers these without a GPU) and against the
// emulator's cuBLAS; the test emu.cublas.status-table diffs the two outputs.
#include <cublas_v2.h>

#include <cstdio>

int main() {
    for (int code = -1; code <= 40; ++code) {
        cublasStatus_t s = static_cast<cublasStatus_t>(code);
        std::printf("%d\t%s\t%s\n", code, cublasGetStatusName(s), cublasGetStatusString(s));
    }
    return 0;
}
