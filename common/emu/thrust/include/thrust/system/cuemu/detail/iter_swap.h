// Thrust includes this for thrust::iter_swap, which assign_value.h has.
#pragma once

#include <thrust/system/cuemu/detail/assign_value.h>
