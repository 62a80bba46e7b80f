// The emulator's Thrust policies: thrust::device, and thrust::cuda::par,
// par_nosync and their .on(stream), which programs written for the CUDA
// backend name. Every algorithm waits for its work, par_nosync's included:
// a program cannot tell, except by timing.
#pragma once

#include <thrust/detail/allocator_aware_execution_policy.h>
#include <thrust/system/cuemu/detail/execution_policy.h>

THRUST_NAMESPACE_BEGIN
namespace system::cuemu {
namespace detail {

struct on_stream_t : execution_policy<on_stream_t> {
    constexpr explicit on_stream_t(cudaStream_t stream) : stream_(stream) {}
    cudaStream_t stream() const { return stream_; }

private:
    cudaStream_t stream_;
};

struct par_t : execution_policy<par_t>,
               thrust::detail::allocator_aware_execution_policy<execution_policy> {
    constexpr par_t() : execution_policy<par_t>() {}
    on_stream_t on(cudaStream_t stream) const { return on_stream_t(stream); }
};

}  // namespace detail

THRUST_INLINE_CONSTANT detail::par_t par;
THRUST_INLINE_CONSTANT detail::par_t par_nosync;

}  // namespace system::cuemu

// The names a CUDA program uses for the device system's policies.
namespace system::cuda {
using thrust::system::cuemu::par;
using thrust::system::cuemu::par_nosync;
using thrust::system::cuemu::tag;
}  // namespace system::cuda
namespace cuda {
using thrust::system::cuemu::par;
using thrust::system::cuemu::par_nosync;
using thrust::system::cuemu::tag;
}  // namespace cuda
THRUST_NAMESPACE_END
