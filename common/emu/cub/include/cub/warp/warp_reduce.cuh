// warp_reduce.cuh - cub::WarpReduce: a reduction over the lanes of a logical
// warp (LOGICAL_WARP_THREADS consecutive lanes, a power of two up to 32), by
// shuffles as CUB does for the types it can shuffle. The result is valid in
// the logical warp's first lane only, as CUB documents. TempStorage holds
// nothing (the values travel in registers), so reusing it needs no barrier.
#pragma once

#include <cub/detail/emu_common.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_ptx.cuh>

namespace cub {

template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpReduce {
    static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 32 &&
                      (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                  "the emulator's cub::WarpReduce takes LOGICAL_WARP_THREADS a power of two up to 32");

public:
    struct TempStorage {
        unsigned char unused;
    };

    __device__ WarpReduce(TempStorage&) {}

    __device__ T Sum(T input) { return Reduce(input, emu::sum(), LOGICAL_WARP_THREADS); }
    __device__ T Sum(T input, int valid_items) { return Reduce(input, emu::sum(), valid_items); }
    template <typename ReductionOp>
    __device__ T Reduce(T input, ReductionOp reduction_op) {
        return Reduce(input, reduction_op, LOGICAL_WARP_THREADS);
    }
    // Only the first valid_items lanes of the logical warp contribute.
    template <typename ReductionOp>
    __device__ T Reduce(T input, ReductionOp reduction_op, int valid_items) {
        const int hw_lane = emu::lane_id();
        const int lane = hw_lane % LOGICAL_WARP_THREADS;
        return emu::warp_reduce(input, reduction_op, lane, LOGICAL_WARP_THREADS, valid_items,
                                emu::logical_warp_mask(LOGICAL_WARP_THREADS, hw_lane));
    }
};

}  // namespace cub
