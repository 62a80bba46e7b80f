// cuemu/runtime.h - the CUDA runtime API subset the emulator implements.
//
// Signatures follow the real runtime. Memory functions take two hidden
// trailing arguments, filled in by the compiler with the caller's file and
// line (__builtin_FILE/__builtin_LINE), so that a diagnostic can say where a
// buffer was allocated or freed, or which copy was refused. Implementations
// live in common/emu/src.
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
cudaError_t cudaFreeHost(void* ptr, CUEMU_CALLER);
// cudaMemcpy waits for earlier work and for the copy; the Async forms and
// cudaMemset only queue (cudaMemset is asynchronous on a GPU too). Their
// arguments are checked, and a refusal explained, at the call.
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

// ---- managed memory hints (managed_memory_hints.cpp) ---------------------------------
// Accepted and checked as the real runtime checks them; the data never moves,
// because host and "device" share one memory. CUDA 13's signatures (a
// cudaMemLocation where older releases took a device number).
cudaError_t cudaMemPrefetchAsync(const void* dev_ptr, size_t count, cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream = 0);
cudaError_t cudaMemAdvise(const void* dev_ptr, size_t count, cudaMemoryAdvise advice,
                          cudaMemLocation location);
// What the advice and prefetches above said of a range, page by page: a value
// where every page of the range agrees, "none" (cudaInvalidDeviceId,
// cudaMemLocationTypeInvalid, 0 for read-mostly) where they do not.
cudaError_t cudaMemRangeGetAttribute(void* data, size_t data_size, cudaMemRangeAttribute attribute,
                                     const void* dev_ptr, size_t count);
cudaError_t cudaMemRangeGetAttributes(void** data, size_t* data_sizes, cudaMemRangeAttribute* attributes,
                                      size_t num_attributes, const void* dev_ptr, size_t count);
// Which streams may touch managed memory: on a GPU without concurrent managed
// access, a kernel of another stream must not while it is attached to one.
// Checked and kept in stream order; every stream and the host may touch
// managed memory here, as on a GPU with concurrent managed access.
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* dev_ptr, size_t length = 0,
                                     unsigned int flags = cudaMemAttachSingle);

// ---- streams and events ----------------------------------------------------------
// Work is queued and done later by the device thread (queue.cpp), in the
// order it was issued: within a stream, as CUDA guarantees, and across
// streams too (every stream is served by the one queue).
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

// ---- __constant__ and __device__ variables ("symbols") ------------------------------
// On the emulator these are ordinary global variables. As in the real
// runtime's C++ API the symbol is passed by reference, so its size is known
// and offset + count is checked against it (cudaErrorInvalidValue). An
// argument that is not a global variable at all (a local, a heap pointer's
// target) gives cudaErrorInvalidSymbol; a host global without __device__
// cannot be told apart and is accepted.
namespace cuemu {
cudaError_t symbol_copy(void* symbol, std::size_t symbol_size, std::size_t offset, void* other,
                        std::size_t count, cudaMemcpyKind kind, bool to_symbol, bool async,
                        cudaStream_t stream);
cudaError_t symbol_address(void** address, std::size_t* size, const void* symbol,
                           std::size_t symbol_size);
}  // namespace cuemu

template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count,
                                      size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    return ::cuemu::symbol_copy(const_cast<T*>(&symbol), sizeof(T), offset,
                                const_cast<void*>(src), count, kind, true, false, 0);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count,
                                           size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                           cudaStream_t stream = 0) {
    return ::cuemu::symbol_copy(const_cast<T*>(&symbol), sizeof(T), offset,
                                const_cast<void*>(src), count, kind, true, true, stream);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count,
                                        size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    return ::cuemu::symbol_copy(const_cast<T*>(&symbol), sizeof(T), offset, dst, count, kind,
                                false, false, 0);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t count,
                                             size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                             cudaStream_t stream = 0) {
    return ::cuemu::symbol_copy(const_cast<T*>(&symbol), sizeof(T), offset, dst, count, kind,
                                false, true, stream);
}
template <class T>
inline cudaError_t cudaGetSymbolAddress(void** dev_ptr, const T& symbol) {
    return ::cuemu::symbol_address(dev_ptr, nullptr, &symbol, sizeof(T));
}
template <class T>
inline cudaError_t cudaGetSymbolSize(size_t* size, const T& symbol) {
    return ::cuemu::symbol_address(nullptr, size, &symbol, sizeof(T));
}

#undef CUEMU_CALLER
#endif
