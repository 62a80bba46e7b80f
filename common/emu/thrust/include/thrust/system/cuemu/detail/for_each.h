// Thrust includes this for <thrust/for_each.h>'s algorithms: they run as device work
// (on_device.h).
#pragma once

#include <thrust/system/cuemu/detail/on_device.h>

CUEMU_THRUST_ON_DEVICE(for_each)
CUEMU_THRUST_ON_DEVICE(for_each_n)

// thrust::device and thrust::cuda::par: programs name them after including
// only an algorithm's header, as the CUDA backend's headers allow.
#include <thrust/execution_policy.h>
