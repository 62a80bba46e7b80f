// Thrust includes this for <thrust/sort.h>'s algorithms: they run as device work
// (on_device.h).
#pragma once

#include <thrust/system/cuemu/detail/on_device.h>

CUEMU_THRUST_ON_DEVICE(sort)
CUEMU_THRUST_ON_DEVICE(stable_sort)
CUEMU_THRUST_ON_DEVICE(sort_by_key)
CUEMU_THRUST_ON_DEVICE(stable_sort_by_key)
CUEMU_THRUST_ON_DEVICE(is_sorted)
CUEMU_THRUST_ON_DEVICE(is_sorted_until)

// thrust::device and thrust::cuda::par: programs name them after including
// only an algorithm's header, as the CUDA backend's headers allow.
#include <thrust/execution_policy.h>
