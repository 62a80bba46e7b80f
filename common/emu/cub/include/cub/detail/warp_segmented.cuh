// warp_segmented.cuh - the segmented reduction under cub::WarpReduce's
// HeadSegmented* and TailSegmented* forms: the lanes of a logical warp split
// into runs by flags (a head flag starts a run, a tail flag ends one; lane 0
// always starts one), and each run's first lane gets the run's reduction, as
// CUB documents (other lanes get a partial).
//
// Each lane learns where its run ends from a ballot of the flags, then
// log2(width) rounds of shuffles give lane i the reduction of lanes
// [i, min(i + 2^k, run end)) after round k, combined left to right (the
// operator need not be commutative).
#pragma once

#include <cub/detail/emu_common.cuh>

namespace cub {
namespace emu {

// The first lane past lane `lane`'s run, given the logical warp's flags as
// bits (bit i: lane i's flag).
inline int run_end(unsigned flags, int lane, int width, bool head_flags) {
    const unsigned above = head_flags ? (lane + 1 < 32 ? flags & ~((2u << lane) - 1u) : 0u)
                                      : flags & ~((1u << lane) - 1u);
    if (above == 0) return width;
    const int flagged = __builtin_ctz(above);
    return head_flags ? flagged : flagged + 1;
}

template <typename T, typename Op>
inline T warp_segmented_reduce(T value, bool flag, Op op, int lane, int width, unsigned mask, bool head_flags) {
    const unsigned hw_lane = static_cast<unsigned>(lane_id());
    const unsigned warp_flags = __ballot_sync(mask, flag);
    const unsigned base = hw_lane - static_cast<unsigned>(lane);
    const unsigned lanes = width >= 32 ? 0xffffffffu : (1u << width) - 1u;
    const unsigned flags = (warp_flags >> base) & lanes;
    const int end = run_end(flags, lane, width, head_flags);
    for (int offset = 1; offset < width; offset *= 2) {
        T other = shuffle_down(value, offset, width, mask);
        if (lane + offset < end) value = op(value, other);
    }
    return value;
}

}  // namespace emu
}  // namespace cub
