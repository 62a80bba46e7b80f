// The emulator's Thrust device system (see common/emu/README.md, "Thrust"):
// its tag and policies. Thrust names the device system's folder through
// __THRUST_DEVICE_SYSTEM_NAMESPACE, which cuemu.h sets to `cuemu`, so
// thrust::device_vector, thrust::device_ptr and thrust::device belong here.
//
// The tag is a system of its own, not derived from the host's (cpp): Thrust
// then sees host and device iterators as two systems, and a copy between them
// comes to select_system below instead of running as a host loop over device
// memory. An algorithm this system does not take over (thrust::shuffle) runs
// through Thrust's generic code, which calls the ones it does.
#pragma once

#include <type_traits>

#include <thrust/detail/config.h>
#include <thrust/detail/execution_policy.h>
#include <thrust/system/cpp/detail/execution_policy.h>
// Here because every program that uses Thrust's device system reaches this header.
#include <thrust/system/cuemu/detail/tuple_bindings.h>
// So are libcu++'s function objects (cuda::std::plus ...) and
// cuda::proclaim_return_type, which CUDA 13's <thrust/functional.h> brings in
// (common/emu/libcudacxx; README, "libcu++").
#if __has_include(<cuda/std/functional>)
#include <cuda/std/functional>
#endif
#include <cuda/functional>

THRUST_NAMESPACE_BEGIN
namespace system::cuemu {
namespace detail {

struct tag;

template <typename Derived>
struct execution_policy : thrust::execution_policy<Derived> {
    typedef tag tag_type;
    operator tag() const;
};

struct tag : execution_policy<tag> {};

template <typename Derived>
execution_policy<Derived>::operator tag() const {
    return tag();
}

// The stream a policy runs on: the one given with .on(stream), else the
// default stream (as thrust::cuda::par uses it).
template <typename Policy, typename = void>
struct has_stream : std::false_type {};
template <typename Policy>
struct has_stream<Policy, decltype(void(std::declval<const Policy&>().stream()))>
    : std::true_type {};

template <typename Derived>
cudaStream_t stream_of(const execution_policy<Derived>& policy) {
    if constexpr (has_stream<Derived>::value)
        return static_cast<const Derived&>(policy).stream();
    else
        return 0;
}

// A copy between host memory (or anything of the host system: a raw
// pointer, a std::vector's iterator) and device memory is this system's
// work: it runs as device work, where both are reachable.
template <typename DeviceSystem, typename HostSystem>
DeviceSystem& select_system(execution_policy<DeviceSystem>& device,
                            thrust::system::cpp::detail::execution_policy<HostSystem>&) {
    return static_cast<DeviceSystem&>(device);
}
template <typename HostSystem, typename DeviceSystem>
DeviceSystem& select_system(thrust::system::cpp::detail::execution_policy<HostSystem>&,
                            execution_policy<DeviceSystem>& device) {
    return static_cast<DeviceSystem&>(device);
}

}  // namespace detail

using detail::execution_policy;
using detail::tag;

}  // namespace system::cuemu
THRUST_NAMESPACE_END
