// Thrust's CUDA backend headers other than execution_policy.h: the emulator is
// Thrust's device system instead of the CUDA backend, so their names
// (thrust::cuda::vector, thrust::cuda::pointer, thrust::cuda_category,
// thrust::cuda::memory_resource ...) do not exist here.
#pragma once

#error "Thrust's CUDA backend headers (<thrust/system/cuda/...>) are not emulated: use thrust::device_vector, thrust::device_ptr and the policies of <thrust/execution_policy.h> (thrust::device, thrust::cuda::par)"
