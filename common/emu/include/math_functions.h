// <math_functions.h> for emulator builds: the CUDA Math API is the emulator's
// (cuemu/math_api.h, through cuemu/cuemu.h).
// nvcc 13 warns when a program includes it directly (an internal header of
// the toolkit); so does the emulator.
#define __MATH_FUNCTIONS_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#warning "math_functions.h is an internal header of CUDA (nvcc 13 warns about it too): include cuda_runtime.h instead"
#include "cuemu/cuemu.h"
