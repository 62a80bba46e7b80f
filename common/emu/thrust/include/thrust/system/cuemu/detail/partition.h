// Thrust includes this for <thrust/partition.h>'s algorithms: they run as device work
// (on_device.h).
#pragma once

#include <thrust/system/cuemu/detail/on_device.h>

CUEMU_THRUST_ON_DEVICE(partition)
CUEMU_THRUST_ON_DEVICE(partition_copy)
CUEMU_THRUST_ON_DEVICE(stable_partition)
CUEMU_THRUST_ON_DEVICE(stable_partition_copy)
CUEMU_THRUST_ON_DEVICE(partition_point)
CUEMU_THRUST_ON_DEVICE(is_partitioned)

// thrust::device and thrust::cuda::par: programs name them after including
// only an algorithm's header, as the CUDA backend's headers allow.
#include <thrust/execution_policy.h>
