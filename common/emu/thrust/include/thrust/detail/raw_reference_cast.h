// <thrust/detail/raw_reference_cast.h> on the emulator: Thrust 1.17's own header, read
// with thrust::null_type renamed to the name 1.17's code keeps
// (detail/null_type_renamed_begin.h; the name itself is a stand-in that
// refuses a program using it, as nvcc 13 does). Its includes come first, so
// the renaming covers only its own text. An include guard, not #pragma once
// (see thrust/functional.h).
#ifndef CUEMU_THRUST_DETAIL_RAW_REFERENCE_CAST_H
#define CUEMU_THRUST_DETAIL_RAW_REFERENCE_CAST_H

#include <thrust/detail/config.h>
#include <thrust/detail/raw_pointer_cast.h>
#include <thrust/detail/type_traits/has_nested_type.h>
#include <thrust/detail/type_traits.h>
#include <thrust/detail/tuple_transform.h>
#include <thrust/iterator/detail/tuple_of_iterator_references.h>

#include <thrust/detail/null_type_renamed_begin.h>
#include_next <thrust/detail/raw_reference_cast.h>
#include <thrust/detail/null_type_renamed_end.h>

#include <thrust/system/cuemu/detail/removed_null_type.h>

#endif
