// util_macro.cuh - CUDA 13's CUB keeps this header, but not CUB_MAX, CUB_MIN,
// CUB_QUOTIENT_CEILING and CUB_ROUND_UP_NEAREST: each is a build error naming
// its replacement (detail/removed_in_cuda_13.cuh).
#pragma once

#include <cub/detail/emu_common.cuh>
#include <cub/detail/removed_in_cuda_13.cuh>
