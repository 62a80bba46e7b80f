// Where device_vector's memory comes from: the emulator's cudaMalloc (device
// memory, with its bounds, host-access and use-after-free checks),
// cudaMallocManaged for universal_vector, cudaMallocHost for pinned memory.
// A failed allocation throws thrust::system::detail::bad_alloc, as Thrust's
// CUDA backend does.
#pragma once

#include <cstddef>

#include <thrust/detail/config.h>
#include <thrust/mr/memory_resource.h>
#include <thrust/system/cuemu/detail/on_device.h>
#include <thrust/system/cuemu/pointer.h>
#include <thrust/system/detail/bad_alloc.h>

THRUST_NAMESPACE_BEGIN
namespace system::cuemu {
namespace detail {

inline cudaError_t allocate_managed(void** memory, std::size_t bytes) {
    return cudaMallocManaged(memory, bytes, cudaMemAttachGlobal);
}
inline cudaError_t allocate_device(void** memory, std::size_t bytes) {
    return cudaMalloc(memory, bytes);
}
inline cudaError_t allocate_pinned(void** memory, std::size_t bytes) {
    return cudaMallocHost(memory, bytes);
}
inline cudaError_t release_device(void* memory) { return cudaFree(memory); }
inline cudaError_t release_pinned(void* memory) { return cudaFreeHost(memory); }

template <cudaError_t (*Allocate)(void**, std::size_t), cudaError_t (*Release)(void*),
          typename Pointer>
class runtime_memory_resource final : public thrust::mr::memory_resource<Pointer> {
public:
    Pointer do_allocate(std::size_t bytes, std::size_t /*alignment*/) override {
        void* memory = nullptr;
        if (cudaError_t error = Allocate(&memory, bytes); error != cudaSuccess) {
            cudaGetLastError();  // not sticky: the failure is the exception's
            throw thrust::system::detail::bad_alloc(cudaGetErrorString(error));
        }
        return Pointer(memory);
    }
    void do_deallocate(Pointer pointer, std::size_t, std::size_t) override {
        if (cudaError_t error = Release(thrust::raw_pointer_cast(pointer)); error != cudaSuccess)
            throw_device_error(error, "freeing a Thrust allocation");
    }
};

}  // namespace detail

typedef detail::runtime_memory_resource<detail::allocate_device, detail::release_device,
                                        pointer<void>>
    memory_resource;
typedef detail::runtime_memory_resource<detail::allocate_managed, detail::release_device,
                                        universal_pointer<void>>
    universal_memory_resource;
typedef detail::runtime_memory_resource<detail::allocate_pinned, detail::release_pinned,
                                        universal_pointer<void>>
    universal_host_pinned_memory_resource;

}  // namespace system::cuemu
THRUST_NAMESPACE_END
