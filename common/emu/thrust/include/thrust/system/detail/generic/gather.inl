// Thrust 1.17's generic gather.inl, read with identity renamed as
// <thrust/functional.h> renames it (see that header, and
// system/cuemu/detail/removed_names_begin.h): thrust::gather_if tests its stencil with
// thrust::identity, and thrust::identity itself is a stand-in that refuses programs
// using it (CUDA 13 removed it). What the original includes is included first, so the
// renaming covers its text only.
// An include guard, not #pragma once: GCC takes this file and Thrust's own,
// which it includes by #include_next, for one file under #pragma once.
#ifndef CUEMU_THRUST_GENERIC_GATHER_INL
#define CUEMU_THRUST_GENERIC_GATHER_INL

#include <thrust/detail/config.h>
#include <thrust/system/detail/generic/gather.h>
#include <thrust/iterator/iterator_traits.h>
#include <thrust/functional.h>
#include <thrust/transform.h>
#include <thrust/iterator/permutation_iterator.h>

#include <thrust/system/cuemu/detail/removed_names_begin.h>
#include_next <thrust/system/detail/generic/gather.inl>
#include <thrust/system/cuemu/detail/removed_names_end.h>

#endif
