// warp_scan.cuh - cub::WarpScan: prefix scans over the lanes of a logical warp
// (LOGICAL_WARP_THREADS consecutive lanes, a power of two up to 32), by
// shuffles. TempStorage holds nothing (values travel in registers).
// ExclusiveScan without an initial value leaves lane 0's output as it was
// (CUB: undefined).
#pragma once

#include <cub/detail/emu_common.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_ptx.cuh>

namespace cub {

template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpScan {
    static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 32 &&
                      (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                  "the emulator's cub::WarpScan takes LOGICAL_WARP_THREADS a power of two up to 32");
    static constexpr int W = LOGICAL_WARP_THREADS;
    int lane_;
    unsigned mask_;

    // inclusive for every lane; exclusive (and has_exclusive) from the lane
    // before; aggregate over the whole logical warp.
    template <typename Op>
    __device__ void scan(const T& input, Op op, T& inclusive, T& exclusive, T& aggregate) {
        inclusive = emu::warp_inclusive_scan(input, op, lane_, W, mask_);
        exclusive = emu::shuffle_up(inclusive, 1, W, mask_);
        aggregate = emu::shuffle_index(inclusive, W - 1, W, mask_);
    }

public:
    struct TempStorage {
        unsigned char unused;
    };

    __device__ WarpScan(TempStorage&)
        : lane_(emu::lane_id() % W), mask_(emu::logical_warp_mask(W, emu::lane_id())) {}

    __device__ void InclusiveSum(T input, T& output) {
        T aggregate;
        InclusiveScan(input, output, emu::sum(), aggregate);
    }
    __device__ void InclusiveSum(T input, T& output, T& warp_aggregate) {
        InclusiveScan(input, output, emu::sum(), warp_aggregate);
    }
    __device__ void ExclusiveSum(T input, T& output) {
        T aggregate;
        ExclusiveScan(input, output, T{}, emu::sum(), aggregate);
    }
    __device__ void ExclusiveSum(T input, T& output, T& warp_aggregate) {
        ExclusiveScan(input, output, T{}, emu::sum(), warp_aggregate);
    }
    template <typename ScanOp>
    __device__ void InclusiveScan(T input, T& output, ScanOp scan_op) {
        T aggregate;
        InclusiveScan(input, output, scan_op, aggregate);
    }
    template <typename ScanOp>
    __device__ void InclusiveScan(T input, T& output, ScanOp scan_op, T& warp_aggregate) {
        T exclusive;
        scan(input, scan_op, output, exclusive, warp_aggregate);
    }
    template <typename ScanOp>
    __device__ void ExclusiveScan(T input, T& output, ScanOp scan_op) {
        T aggregate;
        ExclusiveScan(input, output, scan_op, aggregate);
    }
    template <typename ScanOp>
    __device__ void ExclusiveScan(T input, T& output, ScanOp scan_op, T& warp_aggregate) {
        T inclusive, exclusive;
        scan(input, scan_op, inclusive, exclusive, warp_aggregate);
        if (lane_ > 0) output = exclusive;
    }
    template <typename ScanOp>
    __device__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op) {
        T aggregate;
        ExclusiveScan(input, output, initial_value, scan_op, aggregate);
    }
    template <typename ScanOp>
    __device__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op, T& warp_aggregate) {
        T inclusive, exclusive;
        scan(input, scan_op, inclusive, exclusive, warp_aggregate);
        output = lane_ == 0 ? initial_value : scan_op(initial_value, exclusive);
    }
    // Both scans at once; lane 0's exclusive output is undefined (left as it was).
    template <typename ScanOp>
    __device__ void Scan(T input, T& inclusive_output, T& exclusive_output, ScanOp scan_op) {
        T exclusive, aggregate;
        scan(input, scan_op, inclusive_output, exclusive, aggregate);
        if (lane_ > 0) exclusive_output = exclusive;
    }
    template <typename ScanOp>
    __device__ void Scan(T input, T& inclusive_output, T& exclusive_output, T initial_value, ScanOp scan_op) {
        T exclusive, aggregate;
        scan(input, scan_op, inclusive_output, exclusive, aggregate);
        exclusive_output = lane_ == 0 ? initial_value : scan_op(initial_value, exclusive);
        inclusive_output = scan_op(initial_value, inclusive_output);
    }
    // Every lane of the logical warp gets src_lane's input.
    __device__ T Broadcast(T input, unsigned int src_lane) { return emu::shuffle_index(input, static_cast<int>(src_lane), W, mask_); }
};

}  // namespace cub
