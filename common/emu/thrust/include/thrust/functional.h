// <thrust/functional.h> on the emulator: Thrust 1.17's own header, read with
// the names CUDA 13's Thrust removed renamed (unary_function, binary_function,
// unary_negate, binary_negate, not1, not2, unary_traits, binary_traits,
// identity: nvcc 13 refuses programs that use them;
// system/cuemu/detail/removed_names_begin.h); the names are then stand-ins that
// refuse such a program with a message (system/cuemu/detail/removed_in_cuda_13.h). The renaming covers only this
// header's own text: what it includes is included first.
// An include guard, not #pragma once: GCC takes this file and Thrust's own,
// which it includes by #include_next, for one file under #pragma once.
#ifndef CUEMU_THRUST_FUNCTIONAL_H
#define CUEMU_THRUST_FUNCTIONAL_H

#include <functional>

#include <thrust/detail/config.h>
#include <thrust/detail/functional/placeholder.h>

// thrust::detail's own not1, not2, unary_negate and binary_negate, which
// Thrust's algorithms use, keep their names: included before the renaming.
#include <thrust/detail/internal_functional.h>

#include <thrust/system/cuemu/detail/removed_names_begin.h>
#include_next <thrust/functional.h>
#include <thrust/system/cuemu/detail/removed_names_end.h>

#include <thrust/system/cuemu/detail/removed_in_cuda_13.h>

#endif
