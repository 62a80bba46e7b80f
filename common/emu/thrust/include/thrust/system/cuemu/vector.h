// The device system's vectors: what thrust::universal_vector is here
// (managed memory); thrust::device_vector is Thrust's own, on memory.h's
// allocator.
#pragma once

#include <thrust/detail/config.h>
#include <thrust/detail/vector_base.h>
#include <thrust/system/cuemu/memory.h>

THRUST_NAMESPACE_BEGIN
namespace system::cuemu {

template <typename T, typename Allocator = allocator<T>>
using vector = thrust::detail::vector_base<T, Allocator>;
template <typename T, typename Allocator = universal_allocator<T>>
using universal_vector = thrust::detail::vector_base<T, Allocator>;

}  // namespace system::cuemu
THRUST_NAMESPACE_END
