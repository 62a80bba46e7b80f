// Names of Thrust 1.17 (Debian's libthrust-dev, whose headers the emulator
// uses) that CUDA 13's Thrust removed: nvcc 13 refuses a program that uses
// one, so the emulator must too. Thrust 1.17's own definitions are renamed
// where its headers are read (removed_names_begin.h, included by
// thrust/functional.h, thrust/system/detail/sequential/stable_radix_sort.inl
// and the generic copy, copy_if, gather and scatter .inl beside this folder,
// the only headers of 1.17 that use them); the names themselves are these
// stand-ins, which stop the build with a message naming the replacement when
// a program derives from, makes or calls one. (Found by compiling a use of
// each of 1.17's names with nvcc 13. thrust::void_t, thrust::remove_cvref(_t)
// and thrust::null_type are refused by the emulator's own
// type_traits/void_t.h, type_traits/remove_cvref.h and removed_null_type.h.
// Still building here though nvcc 13 refuses it: THRUST_NODISCARD, which 1.17
// uses throughout its own headers.)
#ifndef CUEMU_THRUST_REMOVED_IN_CUDA_13_H
#define CUEMU_THRUST_REMOVED_IN_CUDA_13_H

#include <thrust/system/cuemu/detail/removed_marker.h>

THRUST_NAMESPACE_BEGIN

template <typename Argument, typename Result>
struct unary_function {
    static_assert(system::cuemu::detail::removed_in_cuda_13<Argument, Result>,
                  "thrust::unary_function was removed in CUDA 13's Thrust (nvcc 13 refuses it too): "
                  "drop the base class; Thrust takes a functor's types from its operator()");
};
template <typename Argument1, typename Argument2, typename Result>
struct binary_function {
    static_assert(system::cuemu::detail::removed_in_cuda_13<Argument1, Argument2, Result>,
                  "thrust::binary_function was removed in CUDA 13's Thrust (nvcc 13 refuses it too): "
                  "drop the base class; Thrust takes a functor's types from its operator()");
};
#define CUEMU_THRUST_REMOVED_TEMPLATE(name, replacement)                                                  \
    template <typename Argument>                                                                         \
    struct name {                                                                                        \
        static_assert(system::cuemu::detail::removed_in_cuda_13<Argument>,                               \
                      "thrust::" #name " was removed in CUDA 13's Thrust (nvcc 13 refuses it too): use " \
                      replacement);                                                                      \
    };
#define CUEMU_THRUST_REMOVED_FUNCTION(name, replacement)                                                 \
    template <typename Predicate>                                                                        \
    void name(const Predicate&) {                                                                        \
        static_assert(system::cuemu::detail::removed_in_cuda_13<Predicate>,                              \
                      "thrust::" #name " was removed in CUDA 13's Thrust (nvcc 13 refuses it too): use " \
                      replacement);                                                                      \
    }
// CUDA 13's replacement is not a template: cuda::std::identity{}.
template <typename T = void>
struct identity {
    static_assert(system::cuemu::detail::removed_in_cuda_13<T>,
                  "thrust::identity was removed in CUDA 13's Thrust (nvcc 13 refuses it too): use "
                  "cuda::std::identity from <cuda/std/functional> (not a template: "
                  "cuda::std::identity{})");
};
CUEMU_THRUST_REMOVED_TEMPLATE(unary_negate, "cuda::std::not_fn(predicate) from <cuda/std/functional>")
CUEMU_THRUST_REMOVED_TEMPLATE(binary_negate, "cuda::std::not_fn(predicate) from <cuda/std/functional>")
CUEMU_THRUST_REMOVED_TEMPLATE(unary_traits, "cuda::std::invoke_result_t from <cuda/std/type_traits>")
CUEMU_THRUST_REMOVED_TEMPLATE(binary_traits, "cuda::std::invoke_result_t from <cuda/std/type_traits>")
CUEMU_THRUST_REMOVED_FUNCTION(not1, "cuda::std::not_fn(predicate) from <cuda/std/functional>")
CUEMU_THRUST_REMOVED_FUNCTION(not2, "cuda::std::not_fn(predicate) from <cuda/std/functional>")
#undef CUEMU_THRUST_REMOVED_TEMPLATE
#undef CUEMU_THRUST_REMOVED_FUNCTION
THRUST_NAMESPACE_END

#endif
