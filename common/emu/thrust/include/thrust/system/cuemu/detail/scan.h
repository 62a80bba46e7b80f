// Thrust includes this for <thrust/scan.h>'s algorithms: they run as device work
// (on_device.h). It also adds the inclusive_scan with an initial value of newer Thrust.
#pragma once

#include <thrust/system/cuemu/detail/on_device.h>

CUEMU_THRUST_ON_DEVICE(inclusive_scan)
CUEMU_THRUST_ON_DEVICE(exclusive_scan)

// thrust::inclusive_scan with an initial value (CUDA 13's Thrust
// has it, Debian's 1.17 does not): a scan as if init came before the first
// element.
#include <thrust/iterator/iterator_traits.h>
#include <thrust/system/detail/generic/select_system.h>
#include <thrust/transform.h>

THRUST_NAMESPACE_BEGIN

template <typename DerivedPolicy, typename InputIterator, typename OutputIterator, typename T,
          typename AssociativeOperator>
OutputIterator inclusive_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                              InputIterator first, InputIterator last, OutputIterator result,
                              T init, AssociativeOperator binary_op) {
    // The operator is associative: init op (x0 op ... op xi) is the scan with
    // init in front.
    OutputIterator end = thrust::inclusive_scan(exec, first, last, result, binary_op);
    thrust::transform(exec, result, end, result,
                      [=](const typename thrust::iterator_value<OutputIterator>::type& partial) {
                          return binary_op(init, partial);
                      });
    return end;
}

template <typename InputIterator, typename OutputIterator, typename T, typename AssociativeOperator>
OutputIterator inclusive_scan(InputIterator first, InputIterator last, OutputIterator result,
                              T init, AssociativeOperator binary_op) {
    using thrust::system::detail::generic::select_system;
    typename thrust::iterator_system<InputIterator>::type input_system;
    typename thrust::iterator_system<OutputIterator>::type output_system;
    return thrust::inclusive_scan(select_system(input_system, output_system), first, last, result,
                                  init, binary_op);
}

THRUST_NAMESPACE_END

// thrust::device and thrust::cuda::par: programs name them after including
// only an algorithm's header, as the CUDA backend's headers allow.
#include <thrust/execution_policy.h>
