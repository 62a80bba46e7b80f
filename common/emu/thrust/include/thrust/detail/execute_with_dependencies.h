// <thrust/detail/execute_with_dependencies.h> on the emulator: Thrust 1.17's
// own header, read with thrust::remove_cvref_t renamed to the name 1.17's code
// keeps (remove_cvref_renamed_begin.h; the name itself is a stand-in that
// refuses a program using it, as nvcc 13 does). Its includes come first, so
// the renaming covers only its own text. An include guard, not #pragma once
// (see thrust/functional.h).
#ifndef CUEMU_THRUST_DETAIL_EXECUTE_WITH_DEPENDENCIES_H
#define CUEMU_THRUST_DETAIL_EXECUTE_WITH_DEPENDENCIES_H

#include <tuple>
#include <type_traits>

#include <thrust/detail/config.h>
#include <thrust/detail/cpp11_required.h>
#include <thrust/detail/type_deduction.h>
#include <thrust/type_traits/remove_cvref.h>

#include <thrust/detail/remove_cvref_renamed_begin.h>
#include_next <thrust/detail/execute_with_dependencies.h>
#include <thrust/detail/remove_cvref_renamed_end.h>

#endif
