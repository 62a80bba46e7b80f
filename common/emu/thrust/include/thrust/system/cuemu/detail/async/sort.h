// Thrust includes this for thrust::async::sort: not emulated (not_emulated.h).
#pragma once

#include <thrust/system/cuemu/detail/async/not_emulated.h>
