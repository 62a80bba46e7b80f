// The device system's allocators (thrust::device_allocator is built on
// memory_resource.h) and its malloc/free by name.
#pragma once

#include <cstddef>

#include <thrust/detail/config.h>
#include <thrust/memory.h>
#include <thrust/mr/allocator.h>
#include <thrust/system/cuemu/execution_policy.h>
#include <thrust/system/cuemu/memory_resource.h>

THRUST_NAMESPACE_BEGIN
namespace system::cuemu {

inline pointer<void> malloc(std::size_t bytes) {
    tag device;
    return pointer<void>(thrust::raw_pointer_cast(detail::malloc(device, bytes)));
}
template <typename T>
pointer<T> malloc(std::size_t count) {
    return pointer<T>(static_cast<T*>(thrust::raw_pointer_cast(malloc(count * sizeof(T)))));
}
inline void free(pointer<void> memory) {
    tag device;
    detail::free(device, memory);
}

template <typename T>
using allocator = thrust::mr::stateless_resource_allocator<T, memory_resource>;
template <typename T>
using universal_allocator = thrust::mr::stateless_resource_allocator<T, universal_memory_resource>;

}  // namespace system::cuemu
THRUST_NAMESPACE_END
