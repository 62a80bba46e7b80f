// device_work.cpp - the emulator's side of Thrust's device system
// (thrust/include/thrust/system/cuemu/): a Thrust algorithm called with a
// device policy becomes one piece of device work on the compute engine, in
// its stream's order, and the calling host thread waits for it, as the CUDA
// backend's algorithms do. Device memory is open while the device works, so
// the algorithm (Thrust's sequential one) may read and write cudaMalloc
// buffers; host memory it reads or writes (a host_vector copied in) is
// ordinary memory to the engine thread.
#include <exception>
#include <string>

#include "../src/diagnostics.h"
#include "../src/internal.h"
#include "include/thrust/system/cuemu/detail/device_work.h"

namespace cuemu::thrust_glue {
namespace {

// While an algorithm runs, its functors are device code, as in the Thrust
// kernels a GPU would run: an #ifdef __CUDA_ARCH__ in a __host__ __device__
// functor takes its device branch, and what they read of threadIdx, blockIdx,
// blockDim and gridDim is a grid of one block of one thread (the algorithm is
// one sequential loop), not what the engine thread's last kernel left there.
class as_device_code {
public:
    as_device_code()
        : thread_(tls_thread_idx), block_(tls_block_idx), block_dim_(tls_block_dim), grid_dim_(tls_grid_dim) {
        tls_thread_idx = uint3{0, 0, 0};
        tls_block_idx = uint3{0, 0, 0};
        tls_block_dim = dim3(1, 1, 1);
        tls_grid_dim = dim3(1, 1, 1);
        detail::tls_library_device_work = true;
    }
    ~as_device_code() {
        detail::tls_library_device_work = false;
        tls_thread_idx = thread_;
        tls_block_idx = block_;
        tls_block_dim = block_dim_;
        tls_grid_dim = grid_dim_;
    }
    as_device_code(const as_device_code&) = delete;
    as_device_code& operator=(const as_device_code&) = delete;

private:
    uint3 thread_, block_;
    dim3 block_dim_, grid_dim_;
};

}  // namespace

bool on_device_side() { return detail::engine_device() >= 0 || ::cuemu::in_device_code(); }

cudaError_t run_as_device_work(cudaStream_t stream, const char* algorithm, void (*body)(void*),
                               void* context, std::exception_ptr* thrown) {
    if (cudaError_t sticky = detail::context_status(); sticky != cudaSuccess) return sticky;
    if (!detail::is_valid_stream(stream)) return cudaErrorInvalidResourceHandle;
    detail::work_label label;
    label.name = algorithm;
    const std::uint64_t ticket = detail::enqueue(
        stream,
        [=](std::uint64_t) {
            detail::set_library_work(algorithm);  // a fault is reported as this call's
            try {
                const as_device_code device_code;
                body(context);
            } catch (...) {
                // Thrown on the engine thread (a bad_alloc, a functor's own
                // exception): carried back to the waiting host thread.
                *thrown = std::current_exception();
            }
            detail::set_library_work(nullptr);
            detail::note_unlisted_device_writes();  // for CUEMU_CHECK=uninit
            return cudaSuccess;
        },
        std::move(label));
    return detail::wait_for(ticket, algorithm);
}

}  // namespace cuemu::thrust_glue
