// Thrust 1.17's sequential radix sort, read with its unary_function renamed
// as <thrust/functional.h> renames it (see that header, beside this folder):
// its key encoders derive from it, and thrust::unary_function itself is a
// stand-in that refuses programs using it (CUDA 13 removed it). What the
// original includes is included first, so the renaming covers its text only.
// An include guard, not #pragma once: GCC takes this file and Thrust's own,
// which it includes by #include_next, for one file under #pragma once.
#ifndef CUEMU_THRUST_STABLE_RADIX_SORT_INL
#define CUEMU_THRUST_STABLE_RADIX_SORT_INL

#include <limits>

#include <thrust/copy.h>
#include <thrust/detail/config.h>
#include <thrust/detail/cstdint.h>
#include <thrust/detail/temporary_array.h>
#include <thrust/functional.h>
#include <thrust/iterator/iterator_traits.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/scatter.h>

#define unary_function cuemu_thrust_1_17_unary_function
#include_next <thrust/system/detail/sequential/stable_radix_sort.inl>
#undef unary_function

#endif
