// <cuda.h> for emulator builds. The real header is the CUDA driver API
// (cuInit, cuMemAlloc, CUdeviceptr, ...), which the emulator does not have:
// this one only gives CUDA_VERSION (13000 for CUDA 13.0, as the real header),
// which runtime-API programs include it for. Any driver API name is an
// undeclared identifier, so a program that uses one stops at build time
// naming it.
#ifndef CUEMU_CUDA_H
#define CUEMU_CUDA_H
#define __cuda_cuda_h__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#include "cuemu/cuemu.h"
#define CUDA_VERSION 13000
#endif
