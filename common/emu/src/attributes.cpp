// attributes.cpp - what the emulated device says about itself beyond
// device.cpp's main properties: every cudaDeviceAttr (answered from the same
// cudaDeviceProp, so the two always agree), device flags, limits, cache and
// shared-memory settings, occupancy (from the kernel's attributes,
// kernel_facts.cpp), and the profiler calls. The answers describe the emulator honestly: no textures, no
// overlap of copies and kernels, one block at a time per worker thread.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "cuemu/runtime.h"
#include "cuemu/runtime_extra.h"
#include "internal.h"

namespace cuemu::detail {
namespace {

// The emulator has no clock of its own; cudaDevAttrClockRate and
// cudaDevAttrMemoryClockRate answer this nominal 1 GHz (in kHz), which is
// not a measurement of anything.
constexpr int nominal_clock_khz = 1000000;
constexpr int fiber_stack_bytes = 256 * 1024;  // block_loop.cpp's fiber stacks

std::mutex settings_mutex;
unsigned int device_flags = 0;
cudaFuncCache device_cache_config = cudaFuncCachePreferNone;
cudaSharedMemConfig device_shared_config = cudaSharedMemBankSizeFourByte;
// The real runtime's defaults for the limits it has.
std::map<cudaLimit, size_t> limits = {
    {cudaLimitStackSize, 1024},
    {cudaLimitPrintfFifoSize, 1 << 20},
    {cudaLimitMallocHeapSize, 8 << 20},
    {cudaLimitDevRuntimeSyncDepth, 2},
    {cudaLimitDevRuntimePendingLaunchCount, 2048},
    {cudaLimitMaxL2FetchGranularity, 32},
    {cudaLimitPersistingL2CacheSize, 0},
};
bool valid_cache_config(cudaFuncCache c) {
    return c >= cudaFuncCachePreferNone && c <= cudaFuncCachePreferEqual;
}

}  // namespace

void fill_more_properties(cudaDeviceProp& p) {
    p.textureAlignment = 512;
    p.texturePitchAlignment = 32;
    p.memoryBusWidth = 64;
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);  // the CPU's own
    p.l2CacheSize = l2 > 0 ? static_cast<int>(l2) : 0;
    p.globalL1CacheSupported = 1;
    p.localL1CacheSupported = 1;
    p.hostNativeAtomicSupported = 1;  // kernels and host share memory and atomics
    p.canUseHostPointerForRegisteredMem = 1;
    p.cooperativeLaunch = 1;
    p.directManagedMemAccessFromHost = 1;
    p.hostRegisterSupported = 1;
    p.hostRegisterReadOnlySupported = 1;
    p.deviceNumaId = -1;
    p.hostNumaId = -1;
    // One copy engine per direction, each beside the compute engine
    // (queue.cpp); kernels themselves never run at the same time here.
    p.asyncEngineCount = 2;
    p.concurrentKernels = 0;
}

}  // namespace cuemu::detail

using namespace cuemu::detail;

// ---- device attributes -------------------------------------------------------------
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
    if (!value) return record(cudaErrorInvalidValue);
    cudaDeviceProp p;
    if (cudaError_t e = cudaGetDeviceProperties(&p, device)) return e;
    switch (attr) {
#define CUEMU_DEVICE_ATTRIBUTE(name, number, answer) \
    case name: *value = static_cast<int>(answer); return cudaSuccess;
#include "cuemu/device_attributes.inc"
#undef CUEMU_DEVICE_ATTRIBUTE
        // Numbers that only the driver's CUdevice_attribute names, which the
        // runtime answers too (measured on an H200, CUDA 13.0): features the
        // emulator does not have, so 0.
        case static_cast<cudaDeviceAttr>(44):   // texture gather (deprecated)
        case static_cast<cudaDeviceAttr>(102):  // virtual memory management (cuMemCreate, cuMemMap)
        case static_cast<cudaDeviceAttr>(103):  // memory shared as a POSIX file descriptor
        case static_cast<cudaDeviceAttr>(104):  // ... as a Win32 handle
        case static_cast<cudaDeviceAttr>(105):  // ... as a Win32 KMT handle
        case static_cast<cudaDeviceAttr>(107):  // compressed memory
        case static_cast<cudaDeviceAttr>(110):  // GPUDirect RDMA with virtual memory management
        case static_cast<cudaDeviceAttr>(136):  // decompression algorithms (a bit mask)
        case static_cast<cudaDeviceAttr>(137):  // the longest decompression
        case static_cast<cudaDeviceAttr>(146):  // host memory shared through dma_buf
            *value = 0;
            return cudaSuccess;
        default: return record(cudaErrorInvalidValue);
    }
}

cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
    if (!device || !prop) return record(cudaErrorInvalidValue);
    *device = 0;  // the only one
    return cudaSuccess;
}

// ---- device flags ----------------------------------------------------------------------
cudaError_t cudaSetDeviceFlags(unsigned int flags) {
    const unsigned int schedule = flags & cudaDeviceScheduleMask;
    if ((flags & ~static_cast<unsigned int>(cudaDeviceMask)) != 0 ||
        (schedule != cudaDeviceScheduleAuto && schedule != cudaDeviceScheduleSpin &&
         schedule != cudaDeviceScheduleYield && schedule != cudaDeviceScheduleBlockingSync))
        return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    std::lock_guard<std::mutex> lock(settings_mutex);
    device_flags = flags;
    return cudaSuccess;
}

// As the real runtime documents: cudaDeviceMapHost is always among the
// flags, because the runtime maps pinned host memory implicitly.
cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
    if (!flags) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(settings_mutex);
    *flags = device_flags | cudaDeviceMapHost;
    return cudaSuccess;
}

// It does not make the context current: as the first CUDA call of an H200's
// process (CUDA 13.0, measured 2026-11-30) it was cudaErrorDeviceUninitialized
// (201, "invalid device context"), and cudaSuccess after cudaFree(0).
cudaError_t cudaCtxResetPersistingL2Cache() {
    if (!context_is_current()) return record(cudaErrorDeviceUninitialized);
    return context_status();
}

// ---- limits ------------------------------------------------------------------------------
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
    if (cudaError_t e = context_status()) return e;
    std::lock_guard<std::mutex> lock(settings_mutex);
    auto it = limits.find(limit);
    if (it == limits.end()) return record(cudaErrorUnsupportedLimit);
    if (limit == cudaLimitStackSize && value > static_cast<size_t>(fiber_stack_bytes) / 2) {
        std::fprintf(stderr,
                     "cuemu: cudaDeviceSetLimit(cudaLimitStackSize, %zu) refused: each CUDA "
                     "thread of the emulator has a fixed %d KiB stack, of which at most half "
                     "can be promised to the kernel\n",
                     value, fiber_stack_bytes / 1024);
        return record(cudaErrorUnsupportedLimit);
    }
    it->second = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
    if (!value) return record(cudaErrorInvalidValue);
    // The number, read without loading the enum: 8 and 9 lie past the range
    // of cudaLimit's enumerators (a load of them is undefined behaviour).
    int which = 0;
    std::memcpy(&which, &limit, sizeof which);
    // Limits that only the driver's CUlimit names, read as an H200 answers
    // them (CUDA 13.0): 7, CU_LIMIT_SHMEM_SIZE (the shared memory a kernel
    // may use: the block's opt-in maximum), 8, CU_LIMIT_CIG_ENABLED (0: no
    // context shared with graphics); 9 is cudaErrorUnsupportedLimit, as a
    // limit not in the table; a number past the driver's last is no limit.
    if (which == 7) {
        int shared = 0;
        if (cudaError_t e = cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                                   current_device()))
            return e;
        *value = static_cast<size_t>(shared);
        return cudaSuccess;
    }
    if (which == 8) {
        *value = 0;
        return cudaSuccess;
    }
    if (which < 0 || which >= 10) return record(cudaErrorInvalidValue);
    if (which == 9) return record(cudaErrorUnsupportedLimit);
    std::lock_guard<std::mutex> lock(settings_mutex);
    auto it = limits.find(limit);
    if (it == limits.end()) return record(cudaErrorUnsupportedLimit);
    *value = it->second;
    return cudaSuccess;
}

// ---- cache and shared-memory settings: recorded, with no effect on a CPU ----------
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config) {
    if (!valid_cache_config(config)) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(settings_mutex);
    device_cache_config = config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
    if (!config) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(settings_mutex);
    *config = device_cache_config;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config) {
    if (config < cudaSharedMemBankSizeDefault || config > cudaSharedMemBankSizeEightByte)
        return record(cudaErrorInvalidValue);
    return cudaSuccess;  // as on GPUs since Volta: accepted, banks stay four bytes wide
}

cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig* config) {
    if (!config) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(settings_mutex);
    *config = device_shared_config;
    return cudaSuccess;
}

// ---- kernels -------------------------------------------------------------------------------
cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache config) {
    if (!func) return record(cudaErrorInvalidDeviceFunction);
    if (!valid_cache_config(config)) return record(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaFuncSetSharedMemConfig(const void* func, cudaSharedMemConfig config) {
    if (!func) return record(cudaErrorInvalidDeviceFunction);
    if (config < cudaSharedMemBankSizeDefault || config > cudaSharedMemBankSizeEightByte)
        return record(cudaErrorInvalidValue);
    return cudaSuccess;
}

// ---- occupancy --------------------------------------------------------------------------
// From the device's properties: a worker runs one block at a time
// (maxBlocksPerMultiProcessor 1) of at most 1024 threads, with at most the
// kernel's dynamic shared memory limit.
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* num_blocks,
                                                                   const void* func,
                                                                   int block_size,
                                                                   size_t dynamic_smem_size,
                                                                   unsigned int flags) {
    if (!num_blocks || flags > cudaOccupancyDisableCachingOverride)
        return record(cudaErrorInvalidValue);
    cudaFuncAttributes a;
    if (cudaError_t e = cudaFuncGetAttributes(&a, func)) return e;
    if (block_size <= 0) return record(cudaErrorInvalidValue);
    cudaDeviceProp p;
    if (cudaError_t e = cudaGetDeviceProperties(&p, 0)) return e;
    const bool fits = block_size <= a.maxThreadsPerBlock &&
                      dynamic_smem_size <= static_cast<size_t>(a.maxDynamicSharedSizeBytes);
    *num_blocks = fits ? p.maxBlocksPerMultiProcessor : 0;
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, const void* func,
                                                          int block_size,
                                                          size_t dynamic_smem_size) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        num_blocks, func, block_size, dynamic_smem_size, cudaOccupancyDefault);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamic_smem_size, const void* func,
                                                      int num_blocks, int block_size) {
    if (!dynamic_smem_size) return record(cudaErrorInvalidValue);
    cudaFuncAttributes a;
    if (cudaError_t e = cudaFuncGetAttributes(&a, func)) return e;
    if (num_blocks <= 0 || block_size <= 0) return record(cudaErrorInvalidValue);
    cudaDeviceProp p;
    if (cudaError_t e = cudaGetDeviceProperties(&p, 0)) return e;
    const bool fits = block_size <= a.maxThreadsPerBlock && num_blocks <= p.maxBlocksPerMultiProcessor;
    *dynamic_smem_size = fits ? static_cast<size_t>(a.maxDynamicSharedSizeBytes) : 0;
    return cudaSuccess;
}

// ---- profiler ------------------------------------------------------------------------------
cudaError_t cudaProfilerStart() { return context_status(); }
cudaError_t cudaProfilerStop() { return context_status(); }
