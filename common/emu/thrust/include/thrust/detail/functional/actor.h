// <thrust/detail/functional/actor.h> on the emulator: Thrust 1.17's own header (and the actor.inl it includes), read
// with thrust::null_type renamed to the name 1.17's code keeps
// (detail/null_type_renamed_begin.h; the name itself is a stand-in that
// refuses a program using it, as nvcc 13 does). Its includes come first, so
// the renaming covers only its own text. An include guard, not #pragma once
// (see thrust/functional.h).
#ifndef CUEMU_THRUST_DETAIL_FUNCTIONAL_ACTOR_H
#define CUEMU_THRUST_DETAIL_FUNCTIONAL_ACTOR_H

#include <type_traits>

#include <thrust/detail/config.h>
#include <thrust/tuple.h>
#include <thrust/detail/functional/value.h>
#include <thrust/detail/functional/composite.h>
#include <thrust/detail/functional/operators/assignment_operator.h>
#include <thrust/detail/raw_reference_cast.h>
#include <thrust/detail/type_traits/result_of_adaptable_function.h>
#include <thrust/functional.h>
#include <thrust/type_traits/logical_metafunctions.h>

#include <thrust/detail/null_type_renamed_begin.h>
#include_next <thrust/detail/functional/actor.h>
#include <thrust/detail/null_type_renamed_end.h>

#include <thrust/system/cuemu/detail/removed_null_type.h>

#endif
