// dump_nccl_results.cpp - prints the NCCL version (ncclGetVersion and the
// header's NCCL_VERSION_CODE) and every result code's string, -1 to 10
// (unused codes included). Built twice: against the real libnccl (which
// answers these without a GPU) and against the emulator's NCCL; the test
// emu.nccl.result-strings diffs the two outputs.
#include <nccl.h>

#include <cstdio>

int main() {
    int version = 0;
    ncclGetVersion(&version);
    std::printf("version %d, header %d\n", version, NCCL_VERSION_CODE);
    for (int code = -1; code <= 10; ++code)
        std::printf("%d\t%s\n", code, ncclGetErrorString(static_cast<ncclResult_t>(code)));
    return 0;
}
