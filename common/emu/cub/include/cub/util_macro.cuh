// util_macro.cuh - CUB_MIN, CUB_MAX, CUB_QUOTIENT_CEILING, CUB_ROUND_UP_NEAREST.
#pragma once

#include <cub/detail/emu_common.cuh>

#define CUB_MAX(a, b) (((b) > (a)) ? (b) : (a))
#define CUB_MIN(a, b) (((b) < (a)) ? (b) : (a))
#define CUB_QUOTIENT_CEILING(x, y) (((x) + (y) - 1) / (y))
#define CUB_ROUND_UP_NEAREST(x, y) ((((x) + (y) - 1) / (y)) * (y))
