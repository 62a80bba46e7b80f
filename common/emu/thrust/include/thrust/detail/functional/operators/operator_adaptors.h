// <thrust/detail/functional/operators/operator_adaptors.h> on the emulator: Thrust 1.17's own header, read
// with thrust::null_type renamed to the name 1.17's code keeps
// (detail/null_type_renamed_begin.h; the name itself is a stand-in that
// refuses a program using it, as nvcc 13 does). Its includes come first, so
// the renaming covers only its own text. An include guard, not #pragma once
// (see thrust/functional.h).
#ifndef CUEMU_THRUST_DETAIL_FUNCTIONAL_OPERATORS_OPERATOR_ADAPTORS_H
#define CUEMU_THRUST_DETAIL_FUNCTIONAL_OPERATORS_OPERATOR_ADAPTORS_H

#include <type_traits>

#include <thrust/detail/config.h>
#include <thrust/detail/functional/argument.h>
#include <thrust/detail/type_deduction.h>
#include <thrust/detail/type_traits.h>
#include <thrust/tuple.h>
#include <thrust/type_traits/void_t.h>

#include <thrust/detail/null_type_renamed_begin.h>
#include_next <thrust/detail/functional/operators/operator_adaptors.h>
#include <thrust/detail/null_type_renamed_end.h>

#include <thrust/system/cuemu/detail/removed_null_type.h>

#endif
