// <thrust/detail/pointer.h> on the emulator: Thrust 1.17's own header (and the
// pointer.inl it includes), read with thrust::remove_cvref renamed to the name
// 1.17's code keeps (remove_cvref_renamed_begin.h; the name itself is a
// stand-in that refuses a program using it, as nvcc 13 does). Its includes
// come first, so the renaming covers only its own text. An include guard, not
// #pragma once (see thrust/functional.h).
#ifndef CUEMU_THRUST_DETAIL_POINTER_H
#define CUEMU_THRUST_DETAIL_POINTER_H

#include <cstddef>
#include <ostream>

#include <thrust/detail/config.h>
#include <thrust/detail/reference_forward_declaration.h>
#include <thrust/detail/type_traits.h>
#include <thrust/detail/type_traits/pointer_traits.h>
#include <thrust/iterator/detail/iterator_traversal_tags.h>
#include <thrust/iterator/iterator_adaptor.h>
#include <thrust/type_traits/remove_cvref.h>

#include <thrust/detail/remove_cvref_renamed_begin.h>
#include_next <thrust/detail/pointer.h>
#include <thrust/detail/remove_cvref_renamed_end.h>

#endif
