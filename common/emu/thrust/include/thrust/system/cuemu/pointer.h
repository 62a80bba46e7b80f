// Pointers into the emulator's device memory, as Thrust's device system
// names them: thrust::device_ptr is built on them. universal_pointer
// (managed memory) reads and writes as plain memory, as on a GPU.
#pragma once

#include <type_traits>

#include <thrust/detail/config.h>
#include <thrust/detail/pointer.h>
#include <thrust/detail/reference.h>
#include <thrust/system/cuemu/detail/execution_policy.h>

THRUST_NAMESPACE_BEGIN
namespace system::cuemu {

template <typename T>
using pointer = thrust::pointer<T, tag, thrust::tagged_reference<T, tag>>;
template <typename T>
using universal_pointer = thrust::pointer<T, tag, typename std::add_lvalue_reference<T>::type>;
template <typename T>
using reference = thrust::tagged_reference<T, tag>;

}  // namespace system::cuemu
THRUST_NAMESPACE_END
