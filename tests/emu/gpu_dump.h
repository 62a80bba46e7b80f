// gpu_dump.h - what the *_dump.cu programs share: they print what CUDA answers
// (as bit patterns) so that one run on a GPU can be kept in docs/gpu-runs/ and
// the emulator's build of the same program compared with it. Each CUDA call
// is checked; a failure prints the call, file and line and exits.
#ifndef TESTS_EMU_GPU_DUMP_H
#define TESTS_EMU_GPU_DUMP_H

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,        \
                         cudaGetErrorString(err_));                                   \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

#endif  // TESTS_EMU_GPU_DUMP_H
