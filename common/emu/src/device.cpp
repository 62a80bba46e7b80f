// device.cpp - the "device": its count, its main properties (attributes.cpp
// has the rest, and cudaDeviceGetAttribute),
// synchronization and reset, and version queries. (The work queue is in
// queue.cpp, streams and events in streams.cpp and events.cpp.)
//
// The emulator has CUEMU_DEVICES devices (1 by default; devices.cpp), all
// alike but for their number, PCI location and memory. Their properties describe them honestly:
// the name says it is an emulator, the memory is the share of the machine's
// that the emulator can back (address_space.cpp), the
// multiprocessor count is the worker-thread count, and the launch limits are
// the real GPU ones (which launch_checks.cpp enforces). It reports compute
// capability 7.5, the oldest that nvcc 13 builds for, so programs that
// require a minimum architecture still run.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "cuemu/runtime.h"
#include "graph_internal.h"
#include "internal.h"

namespace cuemu::detail {
namespace {

constexpr int emulated_major = 7, emulated_minor = 5;

// A program written for several GPUs (one stream per device, peer copies)
// asks for device 1 first thing; the error alone would not say that the
// emulator can have more devices. Said once, on the first such ordinal.
void note_more_devices(int device) {
    static std::once_flag once;
    std::call_once(once, [device] {
        std::fprintf(stderr,
                     "cuemu: note: device %d was asked for, and this emulator has %d device%s, so "
                     "the call returns cudaErrorInvalidDevice (\"invalid device ordinal\"), as a "
                     "machine with %d GPU%s would; CUEMU_DEVICES=%d (at most %d) gives it more\n",
                     device, device_count(), device_count() == 1 ? "" : "s", device_count(),
                     device_count() == 1 ? "" : "s", device + 1, max_devices);
    });
}

cudaError_t check_device(int device) {
    if (is_valid_device(device)) return cudaSuccess;
    if (device >= device_count() && device < max_devices) note_more_devices(device);
    return record(cudaErrorInvalidDevice);
}

}  // namespace

std::string emulator_device_name() {
    return "cuemu CPU emulator (" + std::to_string(worker_count()) +
           " worker threads, not a GPU)";
}

}  // namespace cuemu::detail

using namespace cuemu::detail;

cudaError_t cudaGetDeviceCount(int* count) {
    if (!count) return record(cudaErrorInvalidValue);
    if (in_forked_child()) return forked_child_error();
    *count = device_count();
    return cudaSuccess;
}

// The calling host thread's device (0 until it calls cudaSetDevice).
cudaError_t cudaGetDevice(int* device) {
    if (!device) return record(cudaErrorInvalidValue);
    *device = current_device();
    return cudaSuccess;
}

// For the calling host thread only. Like CUDA's, it initializes the device's
// context, so a device whose context a fault corrupted answers with that error.
cudaError_t cudaSetDevice(int device) {
    if (cudaError_t e = check_device(device)) return e;
    set_current_device(device);
    return context_status();
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    if (!prop) return record(cudaErrorInvalidValue);
    if (in_forked_child()) return forked_child_error();
    if (cudaError_t e = check_device(device)) return e;
    std::memset(prop, 0, sizeof *prop);
    std::strncpy(prop->name, emulator_device_name().c_str(), sizeof prop->name - 1);
    prop->totalGlobalMem = device_memory_capacity();
    // Compute capability 7.5's shared memory: 48 KiB a block, up to 64 KiB for a
    // kernel that opts in (cudaFuncAttributeMaxDynamicSharedMemorySize), 64 KiB
    // a multiprocessor.
    prop->sharedMemPerBlock = shared_per_block;
    prop->sharedMemPerBlockOptin = shared_per_block_optin;
    prop->sharedMemPerMultiprocessor = 64 * 1024;
    prop->regsPerBlock = 65536;
    prop->regsPerMultiprocessor = 65536;
    prop->warpSize = 32;
    prop->memPitch = 2147483647;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = 1024;
    prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647;
    prop->maxGridSize[1] = 65535;
    prop->maxGridSize[2] = 65535;
    prop->totalConstMem = 64 * 1024;
    prop->major = emulated_major;
    prop->minor = emulated_minor;
    prop->multiProcessorCount = worker_count();
    prop->maxThreadsPerMultiProcessor = 1024;
    prop->maxBlocksPerMultiProcessor = 1;  // a worker runs one block at a time
    prop->integrated = 1;                  // "device" memory is host memory
    prop->canMapHostMemory = 1;
    prop->unifiedAddressing = 1;
    prop->managedMemory = 1;
    prop->concurrentManagedAccess = 1;
    prop->memoryPoolsSupported = 1;  // memory_pools.cpp
    fill_more_properties(*prop);  // the rest: attributes.cpp
    // Several devices: each on a PCI location of its own, as GPUs are.
    prop->pciDeviceID = device;
    return cudaSuccess;
}

// Waits for all queued work (queue.cpp); a fault in it is returned here,
// and stays (sticky).
// The current device only; other devices' work goes on.
cudaError_t cudaDeviceSynchronize() {
    if (cudaError_t e = capture_check_device_wait()) return record(e);  // graph_capture.cpp
    const cudaError_t e = synchronize_device();
    release_pool_memory();  // memory_pools.cpp
    return e;
}

// Waits for the device, then frees every allocation: a pointer kept across the
// reset is a use after free, reported as such. A sticky error stays: CUDA
// documents that after one the process must be restarted. Streams and events
// stay valid here (on a GPU they are gone; do not use them after a reset), and
// __device__ variables keep their values (a GPU would reinitialize them).
cudaError_t cudaDeviceReset() {
    cudaError_t e = synchronize_device("cudaDeviceReset");
    free_all_allocations(current_device());  // the current device's, as in CUDA
    return e;
}

cudaError_t cudaRuntimeGetVersion(int* version) {
    if (!version) return record(cudaErrorInvalidValue);
    *version = 13000;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) { return cudaRuntimeGetVersion(version); }

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
    if (!free_bytes || !total_bytes) return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    // What the emulator can back: the device's share of the machine's memory,
    // less what is allocated, and never more than the machine has free now.
    const std::size_t in_use = device_memory_in_use(current_device());
    *total_bytes = device_memory_capacity();
    *free_bytes = std::min(*total_bytes - std::min(in_use, *total_bytes),
                           machine_memory_available());
    return cudaSuccess;
}
