// Thrust includes this for <thrust/future.h>: not emulated
// (detail/async/not_emulated.h).
#pragma once

#include <thrust/system/cuemu/detail/async/not_emulated.h>
