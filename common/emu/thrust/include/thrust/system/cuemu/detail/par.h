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

// A policy that carries a stream: .on(stream) gives the same policy on that
// stream. par(allocator) is one too (Thrust's allocator-aware policies derive
// from it), so thrust::cuda::par(alloc).on(stream) works; the allocator is not
// used, since the sequential algorithms need no device temporaries.
template <typename Derived>
struct stream_policy : execution_policy<Derived> {
    constexpr stream_policy() = default;
    Derived on(cudaStream_t stream) const {
        Derived on_stream(static_cast<const Derived&>(*this));
        on_stream.stream_ = stream;
        return on_stream;
    }
    cudaStream_t stream() const { return stream_; }

private:
    cudaStream_t stream_ = 0;
};

struct par_t : stream_policy<par_t>,
               thrust::detail::allocator_aware_execution_policy<stream_policy> {
    constexpr par_t() = default;
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
