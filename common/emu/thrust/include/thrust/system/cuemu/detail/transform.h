// Thrust includes this for <thrust/transform.h>'s algorithms: they run as device work
// (on_device.h).
#pragma once

#include <thrust/system/cuemu/detail/on_device.h>

CUEMU_THRUST_ON_DEVICE(transform)
CUEMU_THRUST_ON_DEVICE(transform_if)

// thrust::device and thrust::cuda::par: programs name them after including
// only an algorithm's header, as the CUDA backend's headers allow.
#include <thrust/execution_policy.h>
