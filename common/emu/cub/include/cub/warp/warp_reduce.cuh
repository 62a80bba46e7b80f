// warp_reduce.cuh - cub::WarpReduce: a reduction over the lanes of a logical
// warp (LOGICAL_WARP_THREADS consecutive lanes, a power of two up to 32), by
// shuffles as CUB does for the types it can shuffle. The result is valid in
// the logical warp's first lane only, as CUB documents; the segmented forms
// give each run of lanes' reduction to its first lane. TempStorage holds
// nothing (the values travel in registers), so reusing it needs no barrier.
#pragma once

#include <cub/detail/emu_common.cuh>
#include <cub/detail/warp_segmented.cuh>
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

    // Runs of lanes, each started by a nonzero head_flag (lane 0 always
    // starts one) or ended by a nonzero tail_flag: the first lane of each run
    // gets its reduction (detail/warp_segmented.cuh).
    template <typename FlagT>
    __device__ T HeadSegmentedSum(T input, FlagT head_flag) {
        return HeadSegmentedReduce(input, head_flag, emu::sum());
    }
    template <typename FlagT>
    __device__ T TailSegmentedSum(T input, FlagT tail_flag) {
        return TailSegmentedReduce(input, tail_flag, emu::sum());
    }
    template <typename ReductionOp, typename FlagT>
    __device__ T HeadSegmentedReduce(T input, FlagT head_flag, ReductionOp reduction_op) {
        return segmented(input, head_flag != FlagT(0), reduction_op, true);
    }
    template <typename ReductionOp, typename FlagT>
    __device__ T TailSegmentedReduce(T input, FlagT tail_flag, ReductionOp reduction_op) {
        return segmented(input, tail_flag != FlagT(0), reduction_op, false);
    }

private:
    template <typename ReductionOp>
    __device__ T segmented(T input, bool flag, ReductionOp reduction_op, bool head_flags) {
        const int hw_lane = emu::lane_id();
        return emu::warp_segmented_reduce(input, flag, reduction_op, hw_lane % LOGICAL_WARP_THREADS,
                                          LOGICAL_WARP_THREADS,
                                          emu::logical_warp_mask(LOGICAL_WARP_THREADS, hw_lane), head_flags);
    }
};

}  // namespace cub
