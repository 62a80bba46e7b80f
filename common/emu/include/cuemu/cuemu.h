// cuemu/cuemu.h - the CPU emulator's umbrella header, force-included into
// every .cu compiled for the emulator (and reached through the
// <cuda_runtime.h> shim by ordinary .cpp files).
//
// Standard headers come first, before any CUDA keyword is defined as a macro,
// so that no library header sees those macros.
#ifndef CUEMU_CUEMU_H
#define CUEMU_CUEMU_H

#include <cassert>
#include <cfloat>
#include <climits>
// The float overloads of <cmath> are the emulator's own, always inlined
// (cuemu/cmath_float.h), where no <cmath> came before this header.
#if !defined(_GLIBCXX_CMATH) && !defined(_GLIBCXX_BITS_STD_ABS_H) && !defined(_MATH_H) && \
    defined(__GLIBCXX__) && !defined(__CORRECT_ISO_CPP_MATH_H_PROTO) && !defined(__CORRECT_ISO_CPP11_MATH_H_PROTO_FP)
#define __CORRECT_ISO_CPP_MATH_H_PROTO 1
#define __CORRECT_ISO_CPP11_MATH_H_PROTO_FP 1
#include "cmath_float.h"
#endif
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <math.h>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

// Code may ask which compiler it is under: CUEMU means "the CPU emulator".
// __CUDACC__ is defined too, as nvcc does, so CUDA-only code paths are taken.
// __CUDA_ARCH__ is not defined here: cuemu-rewrite resolves each test of it
// per function, the device value in device code (rewriter/arch.h).
#ifndef CUEMU
#define CUEMU 1
#endif
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif

// The guards and versions of the real headers, which programs test (NVIDIA's
// samples define their error-checking helpers only when __CUDA_RUNTIME_H__ or
// __DRIVER_TYPES_H__ is defined). Like nvcc, which includes cuda_runtime.h in
// every .cu, the emulator defines them in every program; CUDA_VERSION belongs
// to the driver API's <cuda.h> and is defined only there (include/cuda.h).
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
#define __DRIVER_TYPES_H__
#define CUDART_VERSION 13000
#define __CUDART_API_VERSION CUDART_VERSION
// nvcc's own version, which programs test beside __CUDA_ARCH__ (llm.c): the
// emulator follows CUDA 13.0 (nvcc 13.0.88).
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 88
#endif

// Thrust's device system is the emulator's own (common/emu/thrust): Thrust
// looks for it in <thrust/system/cuemu/...>. A program that chooses another
// system (-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP) keeps its choice.
#ifndef THRUST_DEVICE_SYSTEM
#define THRUST_DEVICE_SYSTEM 5
#define __THRUST_DEVICE_SYSTEM_NAMESPACE cuemu
#endif

// libcu++ (common/emu/libcudacxx): cuda::std::atomic<T>::wait polls, and
// between polls calls two functions libcu++ lets a thread library supply;
// the emulator's (libcudacxx/block_waits.cpp) let the other CUDA threads of
// the block run, where libcu++'s own would sleep or futex-wait the worker.
#define _LIBCUDACXX_HAS_THREAD_LIBRARY_EXTERNAL
#define _LIBCUDACXX_HAS_NO_THREAD_CONTENTION_TABLE

#include "types.h"
#include "runtime.h"
#include "builtins.h"
#include "ptx_registers.h"
#include "../vector_functions.h"
#include "intrinsics_int.h"
#include "intrinsics_round.h"
#include "math_api.h"
#include "launch.h"
#include "runtime_extra.h"
#include "graphs.h"
#include "launch_attributes.h"
#include "textures.h"
#include "not_emulated.h"

#endif
