// util_ptx.cuh - CUDA 13's CUB keeps this header, but not what CUB 1.x
// programs took from it (CTA_SYNC, WARP_SYNC, LaneId, WarpId): those are build
// errors naming their replacements (detail/removed_in_cuda_13.cuh).
#pragma once

#include <cub/detail/emu_common.cuh>
#include <cub/detail/removed_in_cuda_13.cuh>
