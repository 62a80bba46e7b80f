// Thrust 1.17's sequential radix sort, read with unary_function and identity
// renamed as <thrust/functional.h> renames them (see that header, beside this
// folder): its key encoders derive from them, and the names themselves are
// stand-ins that refuse programs using them (CUDA 13 removed them). What the
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

#include <thrust/system/cuemu/detail/removed_names_begin.h>
#include_next <thrust/system/detail/sequential/stable_radix_sort.inl>
#include <thrust/system/cuemu/detail/removed_names_end.h>

#endif
