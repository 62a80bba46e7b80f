// thrust::null_type, which CUDA 13's Thrust removed (its tuples take any
// number of types, so no placeholder is needed): a stand-in that stops the
// build with a message where a program makes or stores one, as nvcc 13 stops
// a program that names it. Thrust 1.17's own null_type, on which its tuples
// are built, is renamed where its headers are read (null_type_renamed_begin.h).
#ifndef CUEMU_THRUST_REMOVED_NULL_TYPE_H
#define CUEMU_THRUST_REMOVED_NULL_TYPE_H

#include <thrust/system/cuemu/detail/removed_marker.h>

THRUST_NAMESPACE_BEGIN
namespace system::cuemu::detail {
template <typename T = void>
struct removed_null_type {
    static_assert(removed_in_cuda_13<T>,
                  "thrust::null_type was removed in CUDA 13's Thrust (nvcc 13 refuses it too): "
                  "thrust::tuple takes any number of types, so leave the unused ones out");
};
}  // namespace system::cuemu::detail

using null_type = system::cuemu::detail::removed_null_type<>;
THRUST_NAMESPACE_END

#endif
