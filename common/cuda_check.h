// cuda_check.h - CUDA_CHECK: wrap every CUDA runtime call.
//
// A CUDA call that fails returns an error code; nothing stops the program, so
// an unchecked failure shows up much later as a wrong number. CUDA_CHECK turns
// the code into one line naming the call, its error and where it was made:
//
//   CUDA error: cudaMalloc(&d_a, bytes) -> cudaErrorMemoryAllocation (out of memory)
//     at vector_add.cu:42
//
// Kernel launches return nothing, so after each launch check the last error:
//   my_kernel<<<grid, block>>>(...);
//   CUDA_CHECK(cudaGetLastError());
//
// In lesson programs a failure ends the program (exit code 1). In the lessons'
// tests it throws std::runtime_error instead, so one failing test case is
// reported by the test runner instead of ending the whole run (check_mode.h).
#ifndef TUTORIAL_CUDA_CHECK_H
#define TUTORIAL_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "check_mode.h"

inline void tutorial_cuda_check(cudaError_t code, const char* call,
                                const char* file, int line) {
    if (code == cudaSuccess) return;
    if (tutorial_checks_throw()) {
        throw std::runtime_error(std::string("CUDA error: ") + call + " -> " +
                                 cudaGetErrorName(code) + " (" +
                                 cudaGetErrorString(code) + ") at " + file + ":" +
                                 std::to_string(line));
    }
    std::fflush(stdout);  // what the program printed so far comes first, piped or not
    std::fprintf(stderr, "CUDA error: %s -> %s (%s)\n  at %s:%d\n", call,
                 cudaGetErrorName(code), cudaGetErrorString(code), file, line);
    std::exit(1);
}

#define CUDA_CHECK(call) tutorial_cuda_check((call), #call, __FILE__, __LINE__)

#endif
