// cuemu/not_emulated.h - runtime calls that must not build: those CUDA 13
// removed (nvcc 13 refuses them too; the message names the replacement), and
// well-known ones the emulator does not have (3D arrays and copies,
// IPC, ...). Each is a function template whose
// body fails to compile with a message naming the call, so a program that
// uses one stops at build time instead of running with a call that silently
// does nothing. A runtime name found nowhere in the emulator is an undeclared
// identifier, which names it too.
#ifndef CUEMU_NOT_EMULATED_H
#define CUEMU_NOT_EMULATED_H

#include <cstddef>
#include <type_traits>

#include "types.h"

namespace cuemu {
template <class...>
constexpr bool refused = false;
}  // namespace cuemu

#define CUEMU_REMOVED_IN_CUDA_13(name, replacement)                                       \
    template <class... A>                                                                 \
    cudaError_t name(A&&...) {                                                            \
        static_assert(::cuemu::refused<A...>,                                             \
                      #name " was removed in CUDA 13 (nvcc 13 refuses it too): use "      \
                      replacement);                                                       \
        return cudaErrorNotSupported;                                                     \
    }
#define CUEMU_NOT_EMULATED(name, what)                                                    \
    template <class... A>                                                                 \
    cudaError_t name(A&&...) {                                                            \
        static_assert(::cuemu::refused<A...>,                                             \
                      "cuemu does not emulate " #name " (" what "); build this program "  \
                      "with nvcc for a GPU");                                             \
        return cudaErrorNotSupported;                                                     \
    }

// ---- removed in CUDA 13 ----------------------------------------------------------
CUEMU_REMOVED_IN_CUDA_13(cudaThreadSynchronize, "cudaDeviceSynchronize()")
CUEMU_REMOVED_IN_CUDA_13(cudaThreadExit, "cudaDeviceReset()")
CUEMU_REMOVED_IN_CUDA_13(cudaThreadSetLimit, "cudaDeviceSetLimit()")
CUEMU_REMOVED_IN_CUDA_13(cudaThreadGetLimit, "cudaDeviceGetLimit()")
CUEMU_REMOVED_IN_CUDA_13(cudaThreadSetCacheConfig, "cudaDeviceSetCacheConfig()")
CUEMU_REMOVED_IN_CUDA_13(cudaThreadGetCacheConfig, "cudaDeviceGetCacheConfig()")
CUEMU_REMOVED_IN_CUDA_13(cudaLaunchCooperativeKernelMultiDevice,
                         "one cudaLaunchCooperativeKernel per device")
CUEMU_REMOVED_IN_CUDA_13(cudaGetDeviceProperties_v2, "cudaGetDeviceProperties()")
CUEMU_REMOVED_IN_CUDA_13(cudaBindTexture, "texture objects (cudaCreateTextureObject)")
CUEMU_REMOVED_IN_CUDA_13(cudaBindTexture2D, "texture objects (cudaCreateTextureObject)")
CUEMU_REMOVED_IN_CUDA_13(cudaUnbindTexture, "texture objects (cudaDestroyTextureObject)")

// CUDA 13 takes a cudaMemLocation where older releases took a device number.
template <class Device, class... Rest, class = std::enable_if_t<std::is_integral_v<Device>>>
cudaError_t cudaMemPrefetchAsync(const void*, size_t, Device, Rest&&...) {
    static_assert(::cuemu::refused<Device>,
                  "cudaMemPrefetchAsync(ptr, bytes, int device, stream) was removed in CUDA 13 "
                  "(nvcc 13 refuses it too): use cudaMemPrefetchAsync(ptr, bytes, location, "
                  "0 /* flags */, stream) with cudaMemLocation location = "
                  "{cudaMemLocationTypeDevice, device} (or {cudaMemLocationTypeHost, 0})");
    return cudaErrorNotSupported;
}
template <class Device, class = std::enable_if_t<std::is_integral_v<Device>>>
cudaError_t cudaMemAdvise(const void*, size_t, cudaMemoryAdvise, Device) {
    static_assert(::cuemu::refused<Device>,
                  "cudaMemAdvise(ptr, bytes, advice, int device) was removed in CUDA 13 (nvcc "
                  "13 refuses it too): use cudaMemAdvise(ptr, bytes, advice, location) with "
                  "cudaMemLocation location = {cudaMemLocationTypeDevice, device}");
    return cudaErrorNotSupported;
}

// ---- not emulated ------------------------------------------------------------------
CUEMU_NOT_EMULATED(cudaIpcGetMemHandle, "sharing memory between processes")
CUEMU_NOT_EMULATED(cudaIpcOpenMemHandle, "sharing memory between processes")
CUEMU_NOT_EMULATED(cudaIpcGetEventHandle, "sharing events between processes")
CUEMU_NOT_EMULATED(cudaLaunchKernelExC, "launch attributes and clusters")
CUEMU_NOT_EMULATED(cudaGetDriverEntryPoint, "the driver API")

#undef CUEMU_REMOVED_IN_CUDA_13
#undef CUEMU_NOT_EMULATED
#endif
