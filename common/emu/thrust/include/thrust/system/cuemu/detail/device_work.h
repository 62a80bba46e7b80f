// device_work.h - what the Thrust glue's headers call in the emulator
// library (common/emu/thrust/device_work.cpp): running an algorithm as device work.
#ifndef CUEMU_THRUST_DEVICE_WORK_H
#define CUEMU_THRUST_DEVICE_WORK_H

#include <exception>

#include <cuda_runtime.h>

namespace cuemu::thrust_glue {

// True on a device engine's thread (inside device work) and in a kernel:
// there device memory may be used directly.
bool on_device_side();

// Queues body(context) on `stream` as one piece of compute work named
// `algorithm`, and waits for it. An exception body throws is stored in
// *thrown. Returns the sticky error of a fault in the work (or before it),
// cudaErrorInvalidResourceHandle for a stream that is not live, or cudaSuccess.
cudaError_t run_as_device_work(cudaStream_t stream, const char* algorithm, void (*body)(void*),
                               void* context, std::exception_ptr* thrown);

}  // namespace cuemu::thrust_glue

#endif
