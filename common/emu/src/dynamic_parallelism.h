// dynamic_parallelism.h - kernels launched from kernels (CUDA Dynamic
// Parallelism, as CUDA 12 and later define it: no waiting for a child in
// device code). What queue.cpp, block_loop.cpp and streams.cpp call; the
// rules are in dynamic_parallelism.cpp.
#ifndef CUEMU_DYNAMIC_PARALLELISM_H
#define CUEMU_DYNAMIC_PARALLELISM_H

#include <memory>

#include "cuemu/launch.h"
#include "cuemu/runtime.h"

namespace cuemu::detail {

struct launch_job;

// The grids one grid launched, kept in its launch_job until its blocks are done.
struct child_grids;

// A launch made by a CUDA thread (queue.cpp's enqueue_launch, inside a kernel):
// checked as a GPU's device runtime checks it, then kept for after the
// launching grid's blocks (run_child_grids). Errors go to the thread's
// cudaGetLastError, as on a GPU.
void launch_from_device(const launch_site& site, const launch_config& config,
                        void (*run_thread)(void*), std::shared_ptr<void> ctx,
                        std::shared_ptr<void> aliases);

// Runs, on the device thread, the grids `job` launched, each with its own
// descendants, once the job's blocks are done: first those of the NULL
// stream, device-made streams and cudaStreamFireAndForget, then the
// cudaStreamTailLaunch ones, each group in the order of (launching block,
// launch). The first error (sticky) or cudaSuccess.
cudaError_t run_child_grids(launch_job& job);

// "shared memory" or "local memory" where p is the calling CUDA thread's
// own (its block's shared memory, its fiber's stack), which a child grid
// cannot reach; nullptr for any other address. For screening the arguments
// of a launch from a kernel (kernel_pointers.cpp).
const char* launching_thread_memory(const void* p);

// cudaStreamCreateWithFlags / cudaStreamDestroy called in a kernel: a stream
// of the device runtime, which only orders device launches.
cudaError_t create_device_stream(cudaStream_t* stream, unsigned int flags);
cudaError_t destroy_device_stream(cudaStream_t stream);

// A device-runtime call the emulator does not have in kernels (the copies
// and fills: cudaMemcpyAsync ...): one line the first time, then
// cudaErrorNotSupported for the thread's cudaGetLastError.
cudaError_t refuse_in_kernel(const char* call);

}  // namespace cuemu::detail

#endif
