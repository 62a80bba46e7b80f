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

#include "external_semaphores.h"
#include "graphs.h"
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

// ---- graph calls whose arguments changed --------------------------------------------
// CUDA 12 dropped cudaGraphInstantiate's error-node and log-buffer arguments
// and gave cudaGraphExecUpdate a result struct; CUDA 13 gave the dependency
// calls an edge-data array. Programs written for CUDA 11 (the OLCF series,
// many blog posts) still use the old forms, which nvcc 13 refuses. Without
// these, g++ would answer "too many arguments" pointing into this header;
// each overload below matches only the old arity, so it never competes with
// the current call.
#define CUEMU_CHANGED_SIGNATURE(name, count, message)                                     \
    template <class... A, class = std::enable_if_t<sizeof...(A) == (count)>>              \
    cudaError_t name(A&&...) {                                                            \
        static_assert(::cuemu::refused<A...>, message);                                   \
        return cudaErrorNotSupported;                                                     \
    }
CUEMU_CHANGED_SIGNATURE(cudaGraphInstantiate, 5,
    "cudaGraphInstantiate(exec, graph, errorNode, logBuffer, bufferSize) was removed in CUDA 12 "
    "(nvcc 13 refuses it too): use cudaGraphInstantiate(&exec, graph, 0 /* flags */)")
CUEMU_CHANGED_SIGNATURE(cudaGraphExecUpdate, 4,
    "cudaGraphExecUpdate(exec, graph, &errorNode, &result) was removed in CUDA 12 (nvcc 13 "
    "refuses it too): use cudaGraphExecUpdate(exec, graph, &info) with "
    "cudaGraphExecUpdateResultInfo info (info.result, info.errorNode)")
CUEMU_CHANGED_SIGNATURE(cudaGraphAddDependencies, 4,
    "cudaGraphAddDependencies(graph, from, to, count) was removed in CUDA 13 (nvcc 13 refuses "
    "it too): use cudaGraphAddDependencies(graph, from, to, nullptr /* edge data */, count)")
CUEMU_CHANGED_SIGNATURE(cudaGraphRemoveDependencies, 4,
    "cudaGraphRemoveDependencies(graph, from, to, count) was removed in CUDA 13 (nvcc 13 "
    "refuses it too): use cudaGraphRemoveDependencies(graph, from, to, nullptr /* edge data */, "
    "count)")
CUEMU_CHANGED_SIGNATURE(cudaGraphGetEdges, 4,
    "cudaGraphGetEdges(graph, from, to, &count) was removed in CUDA 13 (nvcc 13 refuses it "
    "too): use cudaGraphGetEdges(graph, from, to, nullptr /* edge data */, &count)")
CUEMU_CHANGED_SIGNATURE(cudaGraphNodeGetDependencies, 3,
    "cudaGraphNodeGetDependencies(node, nodes, &count) was removed in CUDA 13 (nvcc 13 refuses "
    "it too): use cudaGraphNodeGetDependencies(node, nodes, nullptr /* edge data */, &count)")
CUEMU_CHANGED_SIGNATURE(cudaGraphNodeGetDependentNodes, 3,
    "cudaGraphNodeGetDependentNodes(node, nodes, &count) was removed in CUDA 13 (nvcc 13 "
    "refuses it too): use cudaGraphNodeGetDependentNodes(node, nodes, nullptr /* edge data */, "
    "&count)")
// CUDA 12's six-argument form ends in a size_t* where CUDA 13 has the edge data.
template <class Count, class = std::enable_if_t<std::is_same_v<std::decay_t<Count>, size_t*>>>
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t, cudaStreamCaptureStatus*, unsigned long long*,
                                     cudaGraph_t*, const cudaGraphNode_t**, Count&&) {
    static_assert(::cuemu::refused<Count>,
                  "cudaStreamGetCaptureInfo(stream, &status, &id, &graph, &nodes, &count) was "
                  "removed in CUDA 13 (nvcc 13 refuses it too): pass the edge data before the "
                  "count, cudaStreamGetCaptureInfo(stream, &status, &id, &graph, &nodes, "
                  "nullptr, &count)");
    return cudaErrorNotSupported;
}

// ---- not emulated ------------------------------------------------------------------
CUEMU_NOT_EMULATED(cudaIpcGetMemHandle, "sharing memory between processes")
CUEMU_NOT_EMULATED(cudaIpcOpenMemHandle, "sharing memory between processes")
CUEMU_NOT_EMULATED(cudaIpcGetEventHandle, "sharing events between processes")
CUEMU_NOT_EMULATED(cudaGetDriverEntryPoint, "the driver API")
// the device runtime's low-level launch, which <<<...>>> in a kernel becomes on a GPU
CUEMU_NOT_EMULATED(cudaGetParameterBuffer, "the device runtime's low-level launch: launch with <<<...>>> in the kernel")
CUEMU_NOT_EMULATED(cudaGetParameterBufferV2, "the device runtime's low-level launch: launch with <<<...>>> in the kernel")
CUEMU_NOT_EMULATED(cudaLaunchDevice, "the device runtime's low-level launch: launch with <<<...>>> in the kernel")
CUEMU_NOT_EMULATED(cudaLaunchDeviceV2, "the device runtime's low-level launch: launch with <<<...>>> in the kernel")
// device
CUEMU_NOT_EMULATED(cudaDeviceGetTexture1DLinearMaxWidth, "1D linear texture limits")
CUEMU_NOT_EMULATED(cudaDeviceFlushGPUDirectRDMAWrites, "GPUDirect RDMA")
CUEMU_NOT_EMULATED(cudaDeviceGetHostAtomicCapabilities, "atomic capability queries")
CUEMU_NOT_EMULATED(cudaDeviceGetP2PAtomicCapabilities, "atomic capability queries")
CUEMU_NOT_EMULATED(cudaDeviceGetNvSciSyncAttributes, "NvSciSync interop")
CUEMU_NOT_EMULATED(cudaDeviceRegisterAsyncNotification, "asynchronous device notifications")
CUEMU_NOT_EMULATED(cudaDeviceUnregisterAsyncNotification, "asynchronous device notifications")
// peers
CUEMU_NOT_EMULATED(cudaIpcCloseMemHandle, "sharing memory between processes")
CUEMU_NOT_EMULATED(cudaIpcOpenEventHandle, "sharing events between processes")
CUEMU_NOT_EMULATED(cudaMemcpy3DPeer, "3D copies between devices")
CUEMU_NOT_EMULATED(cudaMemcpy3DPeerAsync, "3D copies between devices")
// device memory
CUEMU_NOT_EMULATED(cudaMemcpyBatchAsync, "batched copies")
CUEMU_NOT_EMULATED(cudaMemcpy3DBatchAsync, "batched copies")
CUEMU_NOT_EMULATED(cudaMemPrefetchBatchAsync, "batched prefetches")
CUEMU_NOT_EMULATED(cudaMemDiscardBatchAsync, "batched discards")
CUEMU_NOT_EMULATED(cudaMemDiscardAndPrefetchBatchAsync, "batched discards")
// stream-ordered memory
CUEMU_NOT_EMULATED(cudaMemGetDefaultMemPool, "memory pools by location")
CUEMU_NOT_EMULATED(cudaMemGetMemPool, "memory pools by location")
CUEMU_NOT_EMULATED(cudaMemSetMemPool, "memory pools by location")
CUEMU_NOT_EMULATED(cudaMemPoolExportPointer, "sharing memory pools between processes")
CUEMU_NOT_EMULATED(cudaMemPoolImportPointer, "sharing memory pools between processes")
CUEMU_NOT_EMULATED(cudaMemPoolExportToShareableHandle, "sharing memory pools between processes")
CUEMU_NOT_EMULATED(cudaMemPoolImportFromShareableHandle, "sharing memory pools between processes")
// streams and events
CUEMU_NOT_EMULATED(cudaStreamGetAttribute, "stream attributes such as L2 access policy windows")
CUEMU_NOT_EMULATED(cudaStreamSetAttribute, "stream attributes such as L2 access policy windows")
CUEMU_NOT_EMULATED(cudaStreamCopyAttributes, "stream attributes such as L2 access policy windows")
// kernels
CUEMU_NOT_EMULATED(cudaFuncGetName, "kernel names and parameter layouts")
CUEMU_NOT_EMULATED(cudaFuncGetParamInfo, "kernel names and parameter layouts")
CUEMU_NOT_EMULATED(cudaGetFuncBySymbol, "kernel handles (cudaKernel_t)")
CUEMU_NOT_EMULATED(cudaGetKernel, "kernel handles (cudaKernel_t)")
CUEMU_NOT_EMULATED(cudaKernelSetAttributeForDevice, "kernel handles (cudaKernel_t)")
CUEMU_NOT_EMULATED(cudaLibraryLoadData, "loading device code at run time")
CUEMU_NOT_EMULATED(cudaLibraryLoadFromFile, "loading device code at run time")
CUEMU_NOT_EMULATED(cudaLibraryUnload, "loading device code at run time")
CUEMU_NOT_EMULATED(cudaLibraryGetKernel, "loading device code at run time")
CUEMU_NOT_EMULATED(cudaLibraryGetKernelCount, "loading device code at run time")
CUEMU_NOT_EMULATED(cudaLibraryEnumerateKernels, "loading device code at run time")
CUEMU_NOT_EMULATED(cudaLibraryGetGlobal, "loading device code at run time")
CUEMU_NOT_EMULATED(cudaLibraryGetManaged, "loading device code at run time")
CUEMU_NOT_EMULATED(cudaLibraryGetUnifiedFunction, "loading device code at run time")
// occupancy
CUEMU_NOT_EMULATED(cudaOccupancyMaxActiveClusters, "thread block clusters")
CUEMU_NOT_EMULATED(cudaOccupancyMaxPotentialClusterSize, "thread block clusters")
// textures
CUEMU_NOT_EMULATED(cudaMemcpy2DArrayToArray, "copies between CUDA arrays")
CUEMU_NOT_EMULATED(cudaMemcpyArrayToArray, "copies between CUDA arrays")
CUEMU_NOT_EMULATED(cudaMemcpyToArrayAsync, "deprecated asynchronous array copies")
CUEMU_NOT_EMULATED(cudaMemcpyFromArrayAsync, "deprecated asynchronous array copies")
CUEMU_NOT_EMULATED(cudaArrayGetMemoryRequirements, "sparse and multi-planar arrays")
CUEMU_NOT_EMULATED(cudaArrayGetPlane, "sparse and multi-planar arrays")
CUEMU_NOT_EMULATED(cudaArrayGetSparseProperties, "sparse and multi-planar arrays")
CUEMU_NOT_EMULATED(cudaMallocMipmappedArray, "mipmapped arrays")
CUEMU_NOT_EMULATED(cudaFreeMipmappedArray, "mipmapped arrays")
CUEMU_NOT_EMULATED(cudaGetMipmappedArrayLevel, "mipmapped arrays")
CUEMU_NOT_EMULATED(cudaMipmappedArrayGetMemoryRequirements, "mipmapped arrays")
CUEMU_NOT_EMULATED(cudaMipmappedArrayGetSparseProperties, "mipmapped arrays")
CUEMU_NOT_EMULATED(cudaGetTextureObjectResourceViewDesc, "texture resource views")
// interop
CUEMU_NOT_EMULATED(cudaImportExternalMemory, "external memory and semaphores (Vulkan, Direct3D)")
CUEMU_NOT_EMULATED(cudaExternalMemoryGetMappedBuffer, "external memory and semaphores (Vulkan, Direct3D)")
CUEMU_NOT_EMULATED(cudaExternalMemoryGetMappedMipmappedArray, "external memory and semaphores (Vulkan, Direct3D)")
CUEMU_NOT_EMULATED(cudaDestroyExternalMemory, "external memory and semaphores (Vulkan, Direct3D)")
CUEMU_NOT_EMULATED(cudaImportExternalSemaphore, "external memory and semaphores (Vulkan, Direct3D)")
CUEMU_NOT_EMULATED(cudaSignalExternalSemaphoresAsync, "external memory and semaphores (Vulkan, Direct3D)")
CUEMU_NOT_EMULATED(cudaWaitExternalSemaphoresAsync, "external memory and semaphores (Vulkan, Direct3D)")
CUEMU_NOT_EMULATED(cudaDestroyExternalSemaphore, "external memory and semaphores (Vulkan, Direct3D)")
CUEMU_NOT_EMULATED(cudaGraphicsMapResources, "graphics interop (OpenGL, Direct3D)")
CUEMU_NOT_EMULATED(cudaGraphicsUnmapResources, "graphics interop (OpenGL, Direct3D)")
CUEMU_NOT_EMULATED(cudaGraphicsUnregisterResource, "graphics interop (OpenGL, Direct3D)")
CUEMU_NOT_EMULATED(cudaGraphicsResourceGetMappedPointer, "graphics interop (OpenGL, Direct3D)")
CUEMU_NOT_EMULATED(cudaGraphicsResourceGetMappedMipmappedArray, "graphics interop (OpenGL, Direct3D)")
CUEMU_NOT_EMULATED(cudaGraphicsResourceSetMapFlags, "graphics interop (OpenGL, Direct3D)")
CUEMU_NOT_EMULATED(cudaGraphicsSubResourceGetMappedArray, "graphics interop (OpenGL, Direct3D)")
CUEMU_NOT_EMULATED(cudaLogsCurrent, "the runtime's error log")
CUEMU_NOT_EMULATED(cudaLogsDumpToFile, "the runtime's error log")
CUEMU_NOT_EMULATED(cudaLogsDumpToMemory, "the runtime's error log")
CUEMU_NOT_EMULATED(cudaLogsRegisterCallback, "the runtime's error log")
CUEMU_NOT_EMULATED(cudaLogsUnregisterCallback, "the runtime's error log")
// driver
CUEMU_NOT_EMULATED(cudaGetDriverEntryPointByVersion, "the driver API")
CUEMU_NOT_EMULATED(cudaGetExportTable, "the driver API")

#undef CUEMU_REMOVED_IN_CUDA_13
#undef CUEMU_NOT_EMULATED
#undef CUEMU_CHANGED_SIGNATURE
#endif
