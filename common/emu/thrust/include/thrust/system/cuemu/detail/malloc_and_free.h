// thrust::malloc / thrust::free (and so thrust::device_malloc and Thrust's
// temporary buffers) for the emulator's device system: the emulator's
// cudaMalloc and cudaFree, so the memory is device memory with its checks.
#pragma once

#include <cstddef>

#include <thrust/detail/pointer.h>
#include <thrust/system/cuemu/detail/on_device.h>

THRUST_NAMESPACE_BEGIN
namespace system::cuemu::detail {

template <typename Derived>
thrust::pointer<void, Derived> malloc(execution_policy<Derived>&, std::size_t bytes) {
    void* memory = nullptr;
    if (cudaMalloc(&memory, bytes) != cudaSuccess) {
        cudaGetLastError();  // not sticky: the failure is the exception's
        return thrust::pointer<void, Derived>(nullptr);
    }
    return thrust::pointer<void, Derived>(memory);
}

template <typename Derived, typename Pointer>
void free(execution_policy<Derived>&, Pointer pointer) {
    cudaError_t error = cudaFree(thrust::raw_pointer_cast(pointer));
    if (error != cudaSuccess) throw_device_error(error, "thrust::free");
}

}  // namespace system::cuemu::detail
THRUST_NAMESPACE_END
