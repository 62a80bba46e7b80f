// util_allocator.cuh - cub::CachingDeviceAllocator, as CUB's examples use it:
// DeviceAllocate and DeviceFree. Here every allocation is a cudaMalloc of its
// own and every free a cudaFree (no cache): the emulator's checks then see
// each buffer's true size, and a report names the line that called
// DeviceAllocate. The constructors' caching settings are accepted and unused.
#pragma once

#include <cstddef>

#include <cub/detail/device_work.cuh>

namespace cub {

struct CachingDeviceAllocator {
    static constexpr unsigned int INVALID_BIN = static_cast<unsigned int>(-1);
    static constexpr std::size_t INVALID_SIZE = static_cast<std::size_t>(-1);
    static constexpr int INVALID_DEVICE_ORDINAL = -1;

    bool skip_cleanup = false;
    bool debug = false;

    CachingDeviceAllocator(unsigned int /*bin_growth*/, unsigned int /*min_bin*/ = 1,
                           unsigned int /*max_bin*/ = INVALID_BIN, std::size_t /*max_cached_bytes*/ = INVALID_SIZE,
                           bool skip_cleanup_ = false)
        : skip_cleanup(skip_cleanup_) {}
    CachingDeviceAllocator(bool skip_cleanup_ = false, bool debug_ = false)
        : skip_cleanup(skip_cleanup_), debug(debug_) {}

    cudaError_t SetMaxCachedBytes(std::size_t) { return cudaSuccess; }

    cudaError_t DeviceAllocate(int device, void** d_ptr, std::size_t bytes, cudaStream_t /*active_stream*/ = 0,
                               CUB_EMU_CALLER) {
        int previous = 0;
        if (cudaError_t e = cudaGetDevice(&previous); e != cudaSuccess) return e;
        if (device != INVALID_DEVICE_ORDINAL && device != previous)
            if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess) return e;
        const cudaError_t result = cudaMalloc(d_ptr, bytes, cub_emu_file, cub_emu_line);
        if (device != INVALID_DEVICE_ORDINAL && device != previous) cudaSetDevice(previous);
        return result;
    }
    cudaError_t DeviceAllocate(void** d_ptr, std::size_t bytes, cudaStream_t active_stream = 0, CUB_EMU_CALLER) {
        return DeviceAllocate(INVALID_DEVICE_ORDINAL, d_ptr, bytes, active_stream, cub_emu_file, cub_emu_line);
    }
    cudaError_t DeviceFree(int /*device*/, void* d_ptr, CUB_EMU_CALLER) {
        return cudaFree(d_ptr, cub_emu_file, cub_emu_line);
    }
    cudaError_t DeviceFree(void* d_ptr, CUB_EMU_CALLER) { return cudaFree(d_ptr, cub_emu_file, cub_emu_line); }
    cudaError_t FreeAllCached() { return cudaSuccess; }  // nothing is cached
};

}  // namespace cub
