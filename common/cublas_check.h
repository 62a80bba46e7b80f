// cublas_check.h - CUBLAS_CHECK: wrap every cuBLAS call, as CUDA_CHECK wraps
// every runtime call (cuda_check.h).
//
// cuBLAS calls return a cublasStatus_t, not a cudaError_t, so they need a
// check of their own. A failure becomes one line naming the call, the status
// and where it was made:
//
//   cuBLAS error: cublasSgemm(...) -> CUBLAS_STATUS_INVALID_VALUE (an unsupported
//     value or parameter was passed to the function)
//     at cublas_layer.cu:88
//
// A cuBLAS call, like a kernel launch, only queues its work: a fault inside it
// shows up as a cudaError_t from a later runtime call, which CUDA_CHECK reports.
// As with CUDA_CHECK, lesson programs exit (code 1) and the lessons' tests
// throw std::runtime_error (check_mode.h).
#ifndef TUTORIAL_CUBLAS_CHECK_H
#define TUTORIAL_CUBLAS_CHECK_H

#include <cublas_v2.h>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "check_mode.h"

inline void tutorial_cublas_check(cublasStatus_t status, const char* call, const char* file,
                                  int line) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    if (tutorial_checks_throw()) {
        throw std::runtime_error(std::string("cuBLAS error: ") + call + " -> " +
                                 cublasGetStatusName(status) + " (" + cublasGetStatusString(status) +
                                 ") at " + file + ":" + std::to_string(line));
    }
    std::fflush(stdout);  // what the program printed so far comes first, piped or not
    std::fprintf(stderr, "cuBLAS error: %s -> %s (%s)\n  at %s:%d\n", call,
                 cublasGetStatusName(status), cublasGetStatusString(status), file, line);
    std::exit(1);
}

#define CUBLAS_CHECK(call) tutorial_cublas_check((call), #call, __FILE__, __LINE__)

#endif
