// Thrust includes this for <thrust/set_operations.h>'s algorithms: they run as device work
// (on_device.h).
#pragma once

#include <thrust/system/cuemu/detail/on_device.h>

CUEMU_THRUST_ON_DEVICE(set_difference)
CUEMU_THRUST_ON_DEVICE(set_intersection)
CUEMU_THRUST_ON_DEVICE(set_symmetric_difference)
CUEMU_THRUST_ON_DEVICE(set_union)
CUEMU_THRUST_ON_DEVICE(set_difference_by_key)
CUEMU_THRUST_ON_DEVICE(set_intersection_by_key)
CUEMU_THRUST_ON_DEVICE(set_symmetric_difference_by_key)
CUEMU_THRUST_ON_DEVICE(set_union_by_key)

// thrust::device and thrust::cuda::par: programs name them after including
// only an algorithm's header, as the CUDA backend's headers allow.
#include <thrust/execution_policy.h>
