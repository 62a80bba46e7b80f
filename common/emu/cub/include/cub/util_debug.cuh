// util_debug.cuh - CubDebug(e) and CubDebugExit(e), as CUB's examples use
// them: the call's error, or else the last error the runtime holds; with
// CUB_STDERR (or DEBUG, _DEBUG) defined, a failure is printed with the file
// and line; CubDebugExit then ends the program with exit status 1.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cub/detail/emu_common.cuh>

#if (defined(DEBUG) || defined(_DEBUG)) && !defined(CUB_STDERR)
#define CUB_STDERR
#endif

namespace cub {

__host__ __device__ inline cudaError_t Debug(cudaError_t error, const char* filename, int line) {
    const cudaError_t last_error = cudaGetLastError();
    if (error == cudaSuccess) error = last_error;
#ifdef CUB_STDERR
    if (error != cudaSuccess) {
        std::fprintf(stderr, "CUDA error %d (%s) at %s:%d\n", static_cast<int>(error), cudaGetErrorString(error),
                     filename, line);
        std::fflush(stderr);
    }
#else
    (void)filename;
    (void)line;
#endif
    return error;
}

}  // namespace cub

#ifndef CubDebug
#define CubDebug(e) ::cub::Debug(static_cast<cudaError_t>(e), __FILE__, __LINE__)
#endif
#ifndef CubDebugExit
#define CubDebugExit(e)                                                          \
    if (::cub::Debug(static_cast<cudaError_t>(e), __FILE__, __LINE__)) {        \
        std::exit(1);                                                            \
    }
#endif
