// Thrust includes this for thrust::async::copy: not emulated (not_emulated.h).
#pragma once

#include <thrust/system/cuemu/detail/async/not_emulated.h>
