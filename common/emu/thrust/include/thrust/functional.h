// <thrust/functional.h> on the emulator: Thrust 1.17's own header, read with
// its unary_function and binary_function renamed, because CUDA 13's Thrust
// removed them and nvcc 13 refuses programs that use them; those two names
// are then stand-ins that refuse such a program with a message
// (system/cuemu/detail/removed_in_cuda_13.h). The renaming covers only this
// header's own text: what it includes is included first.
// An include guard, not #pragma once: GCC takes this file and Thrust's own,
// which it includes by #include_next, for one file under #pragma once.
#ifndef CUEMU_THRUST_FUNCTIONAL_H
#define CUEMU_THRUST_FUNCTIONAL_H

#include <functional>

#include <thrust/detail/config.h>
#include <thrust/detail/functional/placeholder.h>

#define unary_function cuemu_thrust_1_17_unary_function
#define binary_function cuemu_thrust_1_17_binary_function
#include_next <thrust/functional.h>
#undef unary_function
#undef binary_function

#include <thrust/system/cuemu/detail/removed_in_cuda_13.h>

#endif
