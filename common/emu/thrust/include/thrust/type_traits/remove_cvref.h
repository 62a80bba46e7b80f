// <thrust/type_traits/remove_cvref.h> on the emulator, in place of Thrust
// 1.17's: CUDA 13's Thrust removed thrust::remove_cvref and remove_cvref_t
// (use cuda::std::remove_cvref_t), and nvcc 13 refuses a program that uses
// them, so those names here are stand-ins that stop the build with a message
// naming the replacement. 1.17's own uses (detail/reference.h,
// detail/pointer.h, detail/execute_with_dependencies.h) are renamed where those
// headers are read (the emulator's headers of the same names) to the
// cuemu_thrust_1_17_ names below, which do what 1.17's did. A program that only
// includes this header builds here, where nvcc 13 cannot find it.
#ifndef CUEMU_THRUST_TYPE_TRAITS_REMOVE_CVREF_H
#define CUEMU_THRUST_TYPE_TRAITS_REMOVE_CVREF_H

#include <type_traits>

#include <thrust/system/cuemu/detail/removed_marker.h>

THRUST_NAMESPACE_BEGIN
template <typename T>
struct cuemu_thrust_1_17_remove_cvref {
    using type = std::remove_cv_t<std::remove_reference_t<T>>;
};
template <typename T>
using cuemu_thrust_1_17_remove_cvref_t = typename cuemu_thrust_1_17_remove_cvref<T>::type;

template <typename T>
struct remove_cvref {
    static_assert(system::cuemu::detail::removed_in_cuda_13<T>,
                  "thrust::remove_cvref and thrust::remove_cvref_t were removed in CUDA 13's "
                  "Thrust (nvcc 13 refuses them too): use cuda::std::remove_cvref_t from "
                  "<cuda/std/type_traits>");
    using type = std::remove_cv_t<std::remove_reference_t<T>>;
};
template <typename T>
using remove_cvref_t = typename remove_cvref<T>::type;
THRUST_NAMESPACE_END

#endif
