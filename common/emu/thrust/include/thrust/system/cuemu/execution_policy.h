// The emulator's Thrust device system: its policies (thrust::device,
// thrust::cuda::par) and what an element access through a device pointer
// does. The algorithms are taken over one header at a time (detail/*.h), as
// Thrust includes each.
#pragma once

#include <thrust/detail/raw_pointer_cast.h>
#include <thrust/system/cuemu/detail/assign_value.h>
#include <thrust/system/cuemu/detail/execution_policy.h>
#include <thrust/system/cuemu/detail/get_value.h>
#include <thrust/system/cuemu/detail/malloc_and_free.h>
#include <thrust/system/cuemu/detail/par.h>
