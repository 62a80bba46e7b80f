// Reading one element through a device pointer (a device_reference turned
// into a value: `float x = d[i];`, `*d_ptr`). On the host this is a
// cudaMemcpy, checked as the emulator checks every copy (a pointer outside
// any live buffer is refused with a line saying so); inside device work and
// in kernels, a plain read.
#pragma once

#include <type_traits>

#include <thrust/iterator/iterator_traits.h>
#include <thrust/system/cuemu/detail/on_device.h>

THRUST_NAMESPACE_BEGIN
namespace system::cuemu::detail {

template <typename Derived, typename Pointer>
typename thrust::iterator_value<Pointer>::type get_value(execution_policy<Derived>& policy,
                                                         Pointer pointer) {
    using value_type = typename thrust::iterator_value<Pointer>::type;
    if (::cuemu::thrust_glue::on_device_side()) return *thrust::raw_pointer_cast(pointer);
    if constexpr (std::is_trivially_copyable_v<value_type> &&
                  std::is_default_constructible_v<value_type>) {
        value_type value;
        cudaError_t error = cudaMemcpyAsync(&value, thrust::raw_pointer_cast(pointer),
                                            sizeof(value_type), cudaMemcpyDeviceToHost,
                                            stream_of(policy));
        if (error == cudaSuccess) error = cudaStreamSynchronize(stream_of(policy));
        if (error != cudaSuccess) throw_device_error(error, "reading a thrust::device_reference");
        return value;
    } else {
        return run_on_device(stream_of(policy), "reading a thrust::device_reference",
                             [&] { return value_type(*thrust::raw_pointer_cast(pointer)); });
    }
}

}  // namespace system::cuemu::detail
THRUST_NAMESPACE_END
