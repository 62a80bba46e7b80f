// Thrust 1.17's generic copy_if.inl, read with identity renamed as
// <thrust/functional.h> renames it (see that header, and
// system/cuemu/detail/removed_names_begin.h): thrust::copy_if keeps an element where
// the stencil, read through thrust::identity, is true, and thrust::identity itself is
// a stand-in that refuses programs using it (CUDA 13 removed it). What the original
// includes is included first, so the renaming covers its text only.
// An include guard, not #pragma once: GCC takes this file and Thrust's own,
// which it includes by #include_next, for one file under #pragma once.
#ifndef CUEMU_THRUST_GENERIC_COPY_IF_INL
#define CUEMU_THRUST_GENERIC_COPY_IF_INL

#include <limits>

#include <thrust/detail/config.h>
#include <thrust/system/detail/generic/copy_if.h>
#include <thrust/detail/copy_if.h>
#include <thrust/iterator/iterator_traits.h>
#include <thrust/iterator/detail/minimum_system.h>
#include <thrust/functional.h>
#include <thrust/distance.h>
#include <thrust/transform.h>
#include <thrust/detail/internal_functional.h>
#include <thrust/detail/integer_traits.h>
#include <thrust/detail/temporary_array.h>
#include <thrust/detail/type_traits.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>

#include <thrust/system/cuemu/detail/removed_names_begin.h>
#include_next <thrust/system/detail/generic/copy_if.inl>
#include <thrust/system/cuemu/detail/removed_names_end.h>

#endif
