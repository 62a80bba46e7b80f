// Thrust includes this for thrust::async::transform: not emulated (not_emulated.h).
#pragma once

#include <thrust/system/cuemu/detail/async/not_emulated.h>
