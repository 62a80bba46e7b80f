// util_ptx.cuh - CUB 1.x's barrier and lane helpers (CTA_SYNC, WARP_SYNC,
// LaneId, WarpId), built on the emulator's __syncthreads and __syncwarp.
// CUDA 13's CUB removed them; they build here and nvcc 13 refuses them.
#pragma once

#include <cub/detail/emu_common.cuh>

namespace cub {

__device__ inline void CTA_SYNC() { __syncthreads(); }
__device__ inline int CTA_SYNC_AND(int p) { return __syncthreads_and(p); }
__device__ inline int CTA_SYNC_OR(int p) { return __syncthreads_or(p); }
__device__ inline void WARP_SYNC(unsigned member_mask) { __syncwarp(member_mask); }
// The calling thread's lane in its hardware warp, and that warp's index in the block.
__device__ inline unsigned int LaneId() {
    const unsigned tid = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
    return tid % 32u;
}
__device__ inline unsigned int WarpId() {
    const unsigned tid = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
    return tid / 32u;
}

}  // namespace cub
