// cuemu/runtime_extra.h - the runtime API beyond runtime.h's core: device
// flags, limits and cache settings, every device attribute, host registration
// and mapped memory, pitched (2D) memory, pointer attributes, one-device peer
// calls, stream callbacks and priorities, kernel attributes, occupancy,
// launches without <<<...>>> (cudaLaunchKernel, cudaLaunchCooperativeKernel),
// and the C++ API's typed templates for them.
//
// Implementations: src/attributes.cpp (device, occupancy), src/kernel_facts.cpp (kernels),
// src/host_memory.cpp (host registration, pitched memory, pointers, peers),
// src/streams_extra.cpp (callbacks, priorities), src/cooperative.cpp
// (cooperative launches). What CUDA 13 removed, and what the emulator does not
// have, is refused at build time by not_emulated.h.
#ifndef CUEMU_RUNTIME_EXTRA_H
#define CUEMU_RUNTIME_EXTRA_H

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "launch.h"
#include "types.h"

#define CUEMU_CALLER const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()

// ---- the device: flags, limits, cache and shared-memory settings ----------------
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int* flags);
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config);
cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig* config);
cudaError_t cudaDeviceGetStreamPriorityRange(int* least_priority, int* greatest_priority);
cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer_device);
cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peer_device);
cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop);
// Each emulated device sits at PCI location 0000:00:NN.0, NN its number
// (device_identity.cpp), as cudaGetDeviceProperties reports it.
cudaError_t cudaDeviceGetPCIBusId(char* pci_bus_id, int len, int device);
cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* pci_bus_id);
cudaError_t cudaInitDevice(int device, unsigned int device_flags, unsigned int flags);
cudaError_t cudaSetValidDevices(int* devices, int len);
cudaError_t cudaDeviceGetP2PAttribute(int* value, cudaDeviceP2PAttr attribute, int src_device,
                                      int dst_device);
// No L2 cache lines persist here (cudaLimitPersistingL2CacheSize is 0): nothing to reset.
cudaError_t cudaCtxResetPersistingL2Cache();

// ---- host memory: registration and mapping ----------------------------------------
// Host memory is the device's memory here, so a mapped host pointer's device
// pointer is the host pointer itself (as with unified addressing on a GPU).
// Registered and cudaHostAlloc memory may be passed to a kernel.
cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags, CUEMU_CALLER);
cudaError_t cudaHostUnregister(void* ptr);
cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags);
cudaError_t cudaHostGetFlags(unsigned int* flags, void* host_ptr);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr);

template <class T>
inline cudaError_t cudaHostAlloc(T** ptr, size_t size, unsigned int flags, CUEMU_CALLER) {
    return cudaHostAlloc(reinterpret_cast<void**>(ptr), size, flags, cuemu_file, cuemu_line);
}
template <class T>
inline cudaError_t cudaMallocHost(T** ptr, size_t size, unsigned int flags, CUEMU_CALLER) {
    return cudaHostAlloc(reinterpret_cast<void**>(ptr), size, flags, cuemu_file, cuemu_line);
}
template <class T>
inline cudaError_t cudaHostGetDevicePointer(T** device_ptr, void* host_ptr, unsigned int flags) {
    return cudaHostGetDevicePointer(reinterpret_cast<void**>(device_ptr), host_ptr, flags);
}

// ---- pitched (2D) memory --------------------------------------------------------------
// A row of width bytes starts every pitch bytes; the copies and fills check
// the whole rectangle, then queue one copy or fill per row (memory.cpp).
cudaError_t cudaMallocPitch(void** dev_ptr, size_t* pitch, size_t width, size_t height,
                            CUEMU_CALLER);
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind, CUEMU_CALLER);
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream = 0, CUEMU_CALLER);
cudaError_t cudaMemset2D(void* dev_ptr, size_t pitch, int value, size_t width, size_t height,
                         CUEMU_CALLER);
cudaError_t cudaMemset2DAsync(void* dev_ptr, size_t pitch, int value, size_t width,
                              size_t height, cudaStream_t stream = 0, CUEMU_CALLER);
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                           size_t count, CUEMU_CALLER);
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                size_t count, cudaStream_t stream = 0, CUEMU_CALLER);

template <class T>
inline cudaError_t cudaMallocPitch(T** dev_ptr, size_t* pitch, size_t width, size_t height,
                                   CUEMU_CALLER) {
    return cudaMallocPitch(reinterpret_cast<void**>(dev_ptr), pitch, width, height, cuemu_file,
                           cuemu_line);
}

// ---- streams: callbacks and priorities ------------------------------------------------
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void* user_data, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority);
cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device);
// Unique for the life of the program; the NULL stream and cudaStreamLegacy
// (and cudaStreamPerThread, which is the legacy stream here) share one.
cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* stream_id);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream = 0,
                                     unsigned int flags = 0);

// ---- profiler (cuda_profiler_api.h) -------------------------------------------------
// No profiler is attached to the emulator; as on a GPU without one, both succeed.
cudaError_t cudaProfilerStart();
cudaError_t cudaProfilerStop();

// ---- kernels: attributes and cache settings ----------------------------------------
// A kernel is named by its address, as in the C API (const void*) or the C++
// API's templates below. What the compiler knows about a kernel (registers,
// static shared and local memory) the emulator does not: those fields are 0.
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, const void* func);
cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attribute, int value);
cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache config);
cudaError_t cudaFuncSetSharedMemConfig(const void* func, cudaSharedMemConfig config);

namespace cuemu {
// A kernel's address as the C API takes it.
template <class F>
inline const void* kernel_address(F* func) {
    return reinterpret_cast<const void*>(func);
}
}  // namespace cuemu

template <class T>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, T* func) {
    return cudaFuncGetAttributes(attributes, ::cuemu::kernel_address(func));
}
template <class T>
inline cudaError_t cudaFuncSetAttribute(T* func, cudaFuncAttribute attribute, int value) {
    return cudaFuncSetAttribute(::cuemu::kernel_address(func), attribute, value);
}
template <class T>
inline cudaError_t cudaFuncSetCacheConfig(T* func, cudaFuncCache config) {
    return cudaFuncSetCacheConfig(::cuemu::kernel_address(func), config);
}

// ---- occupancy -----------------------------------------------------------------------
// Worked out from the emulated device's properties: a worker (a
// "multiprocessor") runs one block at a time, of up to 1024 threads, with up to
// 48 KiB of dynamic shared memory.
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, const void* func,
                                                          int block_size,
                                                          size_t dynamic_smem_size);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* num_blocks,
                                                                   const void* func,
                                                                   int block_size,
                                                                   size_t dynamic_smem_size,
                                                                   unsigned int flags);
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamic_smem_size, const void* func,
                                                      int num_blocks, int block_size);

template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, T func,
                                                                 int block_size,
                                                                 size_t dynamic_smem_size) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        num_blocks, ::cuemu::kernel_address(func), block_size, dynamic_smem_size,
        cudaOccupancyDefault);
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* num_blocks, T func, int block_size, size_t dynamic_smem_size, unsigned int flags) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        num_blocks, ::cuemu::kernel_address(func), block_size, dynamic_smem_size, flags);
}
template <class T>
inline cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamic_smem_size, T func,
                                                             int num_blocks, int block_size) {
    return cudaOccupancyAvailableDynamicSMemPerBlock(
        dynamic_smem_size, ::cuemu::kernel_address(func), num_blocks, block_size);
}

namespace cuemu {
// The block size that keeps the most threads of a multiprocessor busy, and
// the grid that fills the device with it; the largest such block size when
// several tie (the search goes down from the largest, one warp at a time).
template <class Smem>
cudaError_t max_potential_block_size(int* min_grid_size, int* block_size, const void* func,
                                     Smem smem_for_block_size, int block_size_limit,
                                     unsigned int flags) {
    if (!min_grid_size || !block_size) return cudaErrorInvalidValue;
    cudaFuncAttributes attributes;
    if (cudaError_t e = cudaFuncGetAttributes(&attributes, func)) return e;
    int device = 0, sms = 0, warp = 0, per_sm_threads = 0;
    if (cudaError_t e = cudaGetDevice(&device)) return e;
    if (cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) return e;
    if (cudaError_t e = cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device)) return e;
    if (cudaError_t e = cudaDeviceGetAttribute(&per_sm_threads,
                                               cudaDevAttrMaxThreadsPerMultiProcessor, device))
        return e;
    int limit = attributes.maxThreadsPerBlock;
    if (block_size_limit > 0 && block_size_limit < limit) limit = block_size_limit;
    int best_size = 0, best_blocks = 0, best_threads = 0;
    for (int size = (limit + warp - 1) / warp * warp; size > 0; size -= warp) {
        const int candidate = size > limit ? limit : size;
        int blocks = 0;
        if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                &blocks, func, candidate, smem_for_block_size(candidate), flags))
            return e;
        if (blocks * candidate > best_threads) {
            best_threads = blocks * candidate;
            best_blocks = blocks;
            best_size = candidate;
        }
        if (best_threads == per_sm_threads) break;  // nothing can do better
    }
    *block_size = best_size;
    *min_grid_size = best_blocks * sms;
    return cudaSuccess;
}
}  // namespace cuemu

template <class UnaryFunction, class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int* min_grid_size, int* block_size, T func, UnaryFunction block_size_to_dynamic_smem_size,
    int block_size_limit = 0, unsigned int flags = 0) {
    return ::cuemu::max_potential_block_size(
        min_grid_size, block_size, ::cuemu::kernel_address(func),
        [&](int size) { return static_cast<size_t>(block_size_to_dynamic_smem_size(size)); },
        block_size_limit, flags);
}
template <class UnaryFunction, class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(
    int* min_grid_size, int* block_size, T func, UnaryFunction block_size_to_dynamic_smem_size,
    int block_size_limit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        min_grid_size, block_size, func, block_size_to_dynamic_smem_size, block_size_limit, 0);
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int* min_grid_size, int* block_size,
                                                               T func,
                                                               size_t dynamic_smem_size = 0,
                                                               int block_size_limit = 0,
                                                               unsigned int flags = 0) {
    return ::cuemu::max_potential_block_size(
        min_grid_size, block_size, ::cuemu::kernel_address(func),
        [=](int) { return dynamic_smem_size; }, block_size_limit, flags);
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid_size, int* block_size, T func,
                                                      size_t dynamic_smem_size = 0,
                                                      int block_size_limit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeWithFlags(min_grid_size, block_size, func,
                                                       dynamic_smem_size, block_size_limit, 0);
}

// ---- stream-ordered allocation and memory pools (src/memory_pools.cpp) -------------
// cudaMallocAsync hands back device memory at once (as cudaMalloc's, with the
// same checks); cudaFreeAsync frees it when the stream reaches the free. A
// pool counts what is allocated from it; it keeps no freed memory for later,
// so its reserved bytes are its used bytes and its release threshold and
// reuse settings are kept and given back without effect.
typedef struct CUmemPoolHandle_st* cudaMemPool_t;
enum cudaMemPoolAttr {
    cudaMemPoolReuseFollowEventDependencies = 0x1,
    cudaMemPoolReuseAllowOpportunistic = 0x2,
    cudaMemPoolReuseAllowInternalDependencies = 0x3,
    cudaMemPoolAttrReleaseThreshold = 0x4,
    cudaMemPoolAttrReservedMemCurrent = 0x5,
    cudaMemPoolAttrReservedMemHigh = 0x6,
    cudaMemPoolAttrUsedMemCurrent = 0x7,
    cudaMemPoolAttrUsedMemHigh = 0x8
};
enum cudaMemAllocationType {
    cudaMemAllocationTypeInvalid = 0x0,
    cudaMemAllocationTypePinned = 0x1,
    cudaMemAllocationTypeManaged = 0x2,
    cudaMemAllocationTypeMax = 0x7FFFFFFF
};
enum cudaMemAllocationHandleType {
    cudaMemHandleTypeNone = 0x0,
    cudaMemHandleTypePosixFileDescriptor = 0x1,
    cudaMemHandleTypeWin32 = 0x2,
    cudaMemHandleTypeWin32Kmt = 0x4,
    cudaMemHandleTypeFabric = 0x8
};
struct cudaMemPoolProps {
    enum cudaMemAllocationType allocType;
    enum cudaMemAllocationHandleType handleTypes;
    struct cudaMemLocation location;
    void* win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
};
enum cudaMemAccessFlags {
    cudaMemAccessFlagsProtNone = 0,
    cudaMemAccessFlagsProtRead = 1,
    cudaMemAccessFlagsProtReadWrite = 3
};
struct cudaMemAccessDesc {
    struct cudaMemLocation location;
    enum cudaMemAccessFlags flags;
};

cudaError_t cudaMallocAsync(void** dev_ptr, size_t size, cudaStream_t stream, CUEMU_CALLER);
cudaError_t cudaMallocFromPoolAsync(void** dev_ptr, size_t size, cudaMemPool_t pool,
                                    cudaStream_t stream, CUEMU_CALLER);
cudaError_t cudaFreeAsync(void* dev_ptr, cudaStream_t stream, CUEMU_CALLER);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device);
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device);
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool);
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const struct cudaMemPoolProps* props);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void* value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void* value);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t min_bytes_to_keep);
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const struct cudaMemAccessDesc* desc_list,
                                 size_t count);
cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags* flags, cudaMemPool_t pool,
                                 struct cudaMemLocation* location);
// The C++ API's typed forms, and cudaMallocAsync from a pool.
template <class T>
inline cudaError_t cudaMallocAsync(T** dev_ptr, size_t size, cudaStream_t stream, CUEMU_CALLER) {
    return cudaMallocAsync(reinterpret_cast<void**>(dev_ptr), size, stream, cuemu_file, cuemu_line);
}
template <class T>
inline cudaError_t cudaMallocAsync(T** dev_ptr, size_t size, cudaMemPool_t pool,
                                   cudaStream_t stream, CUEMU_CALLER) {
    return cudaMallocFromPoolAsync(reinterpret_cast<void**>(dev_ptr), size, pool, stream,
                                   cuemu_file, cuemu_line);
}
template <class T>
inline cudaError_t cudaMallocFromPoolAsync(T** dev_ptr, size_t size, cudaMemPool_t pool,
                                           cudaStream_t stream, CUEMU_CALLER) {
    return cudaMallocFromPoolAsync(reinterpret_cast<void**>(dev_ptr), size, pool, stream,
                                   cuemu_file, cuemu_line);
}

// ---- launches without <<<...>>> ---------------------------------------------------------
// cudaLaunchKernel(func, grid, block, args, shmem, stream): args[i] points at
// the i-th argument, as in CUDA. The kernel's parameter types say how many
// there are and what each points at. The launch is checked at once and its
// error returned (and recorded, as for <<<...>>>).
// cudaLaunchCooperativeKernel also guarantees that every block of the grid
// runs at the same time, so this_grid().sync() works; a grid larger than the
// device holds at once is refused with cudaErrorCooperativeLaunchTooLarge.
template <class... Params>
inline cudaError_t cudaLaunchKernel(void (*func)(Params...), dim3 grid, dim3 block, void** args,
                                    size_t shared_bytes = 0, cudaStream_t stream = 0,
                                    CUEMU_CALLER) {
    ::cuemu::launch_config config(grid, block, shared_bytes, stream);
    return ::cuemu::launch_kernel_pointer(
        ::cuemu::launch_site{"(a kernel launched with cudaLaunchKernel)", cuemu_file, cuemu_line},
        config, func, args);
}
template <class... Params>
inline cudaError_t cudaLaunchCooperativeKernel(void (*func)(Params...), dim3 grid, dim3 block,
                                               void** args, size_t shared_bytes = 0,
                                               cudaStream_t stream = 0, CUEMU_CALLER) {
    ::cuemu::launch_config config(grid, block, shared_bytes, stream);
    config.cooperative = true;
    return ::cuemu::launch_kernel_pointer(
        ::cuemu::launch_site{"(a kernel launched with cudaLaunchCooperativeKernel)", cuemu_file,
                             cuemu_line},
        config, func, args);
}
// The C API's form, cudaLaunchKernel((void*)kernel, ...), as NVIDIA's samples
// write it: the address has lost the kernel's parameter types, so the kernel
// is found by its address among those cuemu-rewrite registered
// (kernel_registry.h: every kernel defined once at namespace scope of a file
// built for the emulator, and each instantiation of such a template). Any
// other address returns cudaErrorInvalidResourceHandle, as an H200 does for a
// host function's address (CUDA 13.0), with a line saying why
// (src/kernel_registry.cpp).
namespace cuemu {
cudaError_t launch_by_address(const char* api, const void* func, const launch_config& config,
                              void** args, const char* file, int line);
}  // namespace cuemu
template <class T, class = std::enable_if_t<std::is_void_v<T>>>
inline cudaError_t cudaLaunchKernel(const T* func, dim3 grid, dim3 block, void** args,
                                    size_t shared_bytes = 0, cudaStream_t stream = 0,
                                    CUEMU_CALLER) {
    ::cuemu::launch_config config(grid, block, shared_bytes, stream);
    return ::cuemu::launch_by_address("cudaLaunchKernel", func, config, args, cuemu_file,
                                      cuemu_line);
}
template <class T, class = std::enable_if_t<std::is_void_v<T>>>
inline cudaError_t cudaLaunchCooperativeKernel(const T* func, dim3 grid, dim3 block, void** args,
                                               size_t shared_bytes = 0, cudaStream_t stream = 0,
                                               CUEMU_CALLER) {
    ::cuemu::launch_config config(grid, block, shared_bytes, stream);
    config.cooperative = true;
    return ::cuemu::launch_by_address("cudaLaunchCooperativeKernel", func, config, args,
                                      cuemu_file, cuemu_line);
}

#undef CUEMU_CALLER
#endif
