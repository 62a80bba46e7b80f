// <thrust/detail/reference.h> on the emulator: Thrust 1.17's own header, read
// with thrust::remove_cvref renamed to the name 1.17's code keeps
// (remove_cvref_renamed_begin.h; the name itself is a stand-in that refuses a
// program using it, as nvcc 13 does). Its includes come first, so the renaming
// covers only its own text. An include guard, not #pragma once (see
// thrust/functional.h).
#ifndef CUEMU_THRUST_DETAIL_REFERENCE_H
#define CUEMU_THRUST_DETAIL_REFERENCE_H

#include <ostream>
#include <type_traits>

#include <thrust/detail/config.h>
#include <thrust/detail/reference_forward_declaration.h>
#include <thrust/iterator/iterator_traits.h>
#include <thrust/system/detail/adl/assign_value.h>
#include <thrust/system/detail/adl/get_value.h>
#include <thrust/system/detail/adl/iter_swap.h>
#include <thrust/system/detail/generic/memory.h>
#include <thrust/system/detail/generic/select_system.h>
#include <thrust/type_traits/remove_cvref.h>

#include <thrust/detail/remove_cvref_renamed_begin.h>
#include_next <thrust/detail/reference.h>
#include <thrust/detail/remove_cvref_renamed_end.h>

#endif
