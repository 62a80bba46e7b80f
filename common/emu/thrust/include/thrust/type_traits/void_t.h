// <thrust/type_traits/void_t.h> on the emulator, in place of Thrust 1.17's:
// CUDA 13's Thrust removed thrust::void_t (use cuda::std::void_t), and nvcc 13
// refuses a program that uses it, so thrust::void_t here is a stand-in that
// stops the build with a message naming the replacement. 1.17's own headers
// include this one (iterator_traits.h, operator_adaptors.h) for thrust::voider,
// which they use and which is kept as 1.17 has it, so the header itself must
// stay: a program that only includes it builds here, where nvcc 13 cannot
// find it.
#ifndef CUEMU_THRUST_TYPE_TRAITS_VOID_T_H
#define CUEMU_THRUST_TYPE_TRAITS_VOID_T_H

#include <thrust/system/cuemu/detail/removed_marker.h>

THRUST_NAMESPACE_BEGIN
template <typename...>
struct voider {
    using type = void;
};

namespace system::cuemu::detail {
template <typename... Ts>
struct removed_void_t {
    static_assert(removed_in_cuda_13<Ts...>,
                  "thrust::void_t was removed in CUDA 13's Thrust (nvcc 13 refuses it too): use "
                  "cuda::std::void_t from <cuda/std/type_traits>");
    using type = void;
};
}  // namespace system::cuemu::detail

template <typename... Ts>
using void_t = typename system::cuemu::detail::removed_void_t<Ts...>::type;
THRUST_NAMESPACE_END

#endif
