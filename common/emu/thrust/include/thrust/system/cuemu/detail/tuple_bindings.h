// Structured bindings of thrust::tuple and of a zip_iterator's element
// (`auto [x, y] = t;`), which programs written for CUDA 13's Thrust use (its
// tuple is cuda::std::tuple) and Debian's Thrust 1.17 lacks: the standard's
// tuple_size and tuple_element for them (the get is thrust::tuple's own).
#pragma once

#include <cstddef>
#include <tuple>
#include <utility>

#include <thrust/detail/config.h>
#include <thrust/iterator/detail/tuple_of_iterator_references.h>
#include <thrust/tuple.h>

namespace std {
template <typename... Ts>
struct tuple_size<THRUST_NS_QUALIFIER::tuple<Ts...>>
    : integral_constant<size_t, THRUST_NS_QUALIFIER::tuple_size<THRUST_NS_QUALIFIER::tuple<Ts...>>::value> {};
template <size_t I, typename... Ts>
struct tuple_element<I, THRUST_NS_QUALIFIER::tuple<Ts...>>
    : THRUST_NS_QUALIFIER::tuple_element<I, THRUST_NS_QUALIFIER::tuple<Ts...>> {};
template <typename... Ts>
struct tuple_size<THRUST_NS_QUALIFIER::detail::tuple_of_iterator_references<Ts...>>
    : tuple_size<THRUST_NS_QUALIFIER::tuple<Ts...>> {};
template <size_t I, typename... Ts>
struct tuple_element<I, THRUST_NS_QUALIFIER::detail::tuple_of_iterator_references<Ts...>>
    : tuple_element<I, THRUST_NS_QUALIFIER::tuple<Ts...>> {};
}  // namespace std
