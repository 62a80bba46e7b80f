// Writing one element through a device pointer (`d[i] = x;`), and swapping
// two. Either side may be host or device memory (Thrust also assigns between
// the two systems), so the work is done as device work, where both are
// reachable.
#pragma once

#include <utility>

#include <thrust/system/cuemu/detail/on_device.h>

THRUST_NAMESPACE_BEGIN
namespace system::cuemu::detail {

template <typename Derived, typename Pointer1, typename Pointer2>
void assign_value(execution_policy<Derived>& policy, Pointer1 destination, Pointer2 source) {
    run_on_device(stream_of(policy), "writing a thrust::device_reference", [&] {
        *thrust::raw_pointer_cast(destination) = *thrust::raw_pointer_cast(source);
    });
}

template <typename Derived, typename Pointer1, typename Pointer2>
void iter_swap(execution_policy<Derived>& policy, Pointer1 a, Pointer2 b) {
    run_on_device(stream_of(policy), "thrust::iter_swap", [&] {
        using std::swap;
        swap(*thrust::raw_pointer_cast(a), *thrust::raw_pointer_cast(b));
    });
}

}  // namespace system::cuemu::detail
THRUST_NAMESPACE_END
