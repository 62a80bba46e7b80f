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

#include "types.h"
#include "runtime.h"
#include "builtins.h"
#include "../vector_functions.h"
#include "intrinsics_int.h"
#include "intrinsics_round.h"
#include "math_api.h"
#include "launch.h"

#endif
