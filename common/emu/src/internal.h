// internal.h - what the emulator's source files share and programs never see:
// the error state, the allocation registry and the worker count.
#ifndef CUEMU_INTERNAL_H
#define CUEMU_INTERNAL_H

#include <cstddef>
#include <string>

#include "cuemu/types.h"

namespace cuemu::detail {

// ---- errors (errors.cpp) ---------------------------------------------------------
// Records e as this host thread's last error when it is not cudaSuccess and
// returns it, so API functions can end with `return record(code);`.
cudaError_t record(cudaError_t e);
// A sticky error (an illegal address, a failed launch) corrupts the CUDA
// context: every later call returns it, and cudaGetLastError does not clear it.
void make_sticky(cudaError_t e);
// cudaSuccess, or the sticky error (recorded as the last error). Every API
// call that talks to the "device" starts with this.
cudaError_t context_status();

// ---- memory (memory.cpp) ---------------------------------------------------------
struct allocation_info {
    const char* begin = nullptr;  // what the program got back
    std::size_t size = 0;
    const char* file = "";
    int line = 0;
    const char* how = "";  // "cudaMalloc", "cudaMallocManaged"
    bool freed = false;
};
// The allocation whose buffer or guard page holds addr, live or freed.
bool find_allocation(const void* addr, allocation_info* out);
// True when [p, p + n) lies inside one live device (or managed) allocation.
bool is_device_range(const void* p, std::size_t n);
// True when p points into a live device allocation at all.
bool is_device_pointer(const void* p);
// Device memory is open to the host only while the emulated device works on it
// (a kernel, an async copy): the device queue calls open before it runs work and
// close when it goes idle, so a host dereference of a device pointer faults and
// can be reported. Both may be called repeatedly; they nest by nothing.
void device_memory_open();
void device_memory_close();

// ---- scheduler (scheduler.cpp) ---------------------------------------------------
int worker_count();
std::string emulator_device_name();
// The program has read its last error (cudaGetLastError, cudaPeekAtLastError):
// a refused launch needs no note from the emulator.
void last_error_was_read();

}  // namespace cuemu::detail

#endif
