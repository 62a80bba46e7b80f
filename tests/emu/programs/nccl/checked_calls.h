// checked_calls.h - CUDA_OK and NCCL_OK for the NCCL example programs beside
// it: a failed call prints one line naming it and stops the program the way
// the program says (its stop_program: exit, or MPI_Abort under MPI).
#ifndef NCCL_PROGRAMS_CHECKED_CALLS_H
#define NCCL_PROGRAMS_CHECKED_CALLS_H

#include <cstdio>

#include <cuda_runtime.h>
#include <nccl.h>

[[noreturn]] void stop_program();

inline void check_cuda(cudaError_t e, const char* call, const char* file, int line) {
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "CUDA error %s: %s at %s:%d\n", cudaGetErrorString(e), call, file, line);
    stop_program();
}
inline void check_nccl(ncclResult_t r, const char* call, const char* file, int line) {
    if (r == ncclSuccess) return;
    std::fprintf(stderr, "NCCL error %s: %s at %s:%d\n", ncclGetErrorString(r), call, file, line);
    stop_program();
}
#define CUDA_OK(call) check_cuda((call), #call, __FILE__, __LINE__)
#define NCCL_OK(call) check_nccl((call), #call, __FILE__, __LINE__)

#endif
