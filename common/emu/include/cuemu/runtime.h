// cuemu/runtime.h - the CUDA runtime API subset the emulator implements.
//
// Signatures follow the real runtime. Memory functions take two hidden
// trailing arguments, filled in by the compiler with the caller's file and
// line (__builtin_FILE/__builtin_LINE), so that a diagnostic can say where a
// buffer was allocated or freed, or which copy was refused. Implementations live in common/emu/src.
#ifndef CUEMU_RUNTIME_H
#define CUEMU_RUNTIME_H

#include <cstddef>

#include "types.h"

#define CUEMU_CALLER const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()

// ---- errors ------------------------------------------------------------------
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);

// ---- device --------------------------------------------------------------------
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);

// ---- memory --------------------------------------------------------------------
cudaError_t cudaMalloc(void** dev_ptr, size_t size, CUEMU_CALLER);
cudaError_t cudaMallocManaged(void** dev_ptr, size_t size, unsigned int flags = cudaMemAttachGlobal,
                              CUEMU_CALLER);
cudaError_t cudaMallocHost(void** ptr, size_t size, CUEMU_CALLER);
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags, CUEMU_CALLER);
cudaError_t cudaFree(void* dev_ptr, CUEMU_CALLER);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                       CUEMU_CALLER);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream = 0, CUEMU_CALLER);
cudaError_t cudaMemset(void* dev_ptr, int value, size_t count, CUEMU_CALLER);
cudaError_t cudaMemsetAsync(void* dev_ptr, int value, size_t count, cudaStream_t stream = 0,
                            CUEMU_CALLER);

// The typed overloads of the real runtime's C++ API: cudaMalloc(&d_a, bytes)
// with float* d_a works without a (void**) cast.
template <class T>
inline cudaError_t cudaMalloc(T** dev_ptr, size_t size, CUEMU_CALLER) {
    return cudaMalloc(reinterpret_cast<void**>(dev_ptr), size, cuemu_file, cuemu_line);
}
template <class T>
inline cudaError_t cudaMallocManaged(T** dev_ptr, size_t size,
                                     unsigned int flags = cudaMemAttachGlobal, CUEMU_CALLER) {
    return cudaMallocManaged(reinterpret_cast<void**>(dev_ptr), size, flags, cuemu_file,
                             cuemu_line);
}
template <class T>
inline cudaError_t cudaMallocHost(T** ptr, size_t size, CUEMU_CALLER) {
    return cudaMallocHost(reinterpret_cast<void**>(ptr), size, cuemu_file, cuemu_line);
}

// ---- streams and events ----------------------------------------------------------
// The emulator runs each launch to completion before returning, so streams
// are ordered trivially and synchronizing on them returns at once.
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

#undef CUEMU_CALLER
#endif
