// check.h - the one helper the gallery programs share: CHECK(call) prints the
// failing call, its error and line, and exits 1 (these programs stand alone,
// without the lessons' common/ folder, so they build with any nvcc line).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t err_ = (call);                                               \
        if (err_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s:%d: %s -> %s (%s)\n", __FILE__, __LINE__,    \
                         #call, cudaGetErrorName(err_), cudaGetErrorString(err_)); \
            std::exit(1);                                                        \
        }                                                                        \
    } while (0)
