// block_scan.cuh - cub::BlockScan: prefix scans over the threads of a block
// (one item per thread, or an array of items per thread in a blocked
// arrangement), with the block's aggregate or a prefix callback.
// Each warp scans by shuffles, its last lane writes the warp's total into
// TempStorage, a __syncthreads() follows, and each thread combines the totals
// of the warps before its own (CUB's BLOCK_SCAN_WARP_SCANS; the raking
// algorithms give the same results for associative operators and are done
// the same way). With a prefix callback, the first warp calls it with the
// block's aggregate and lane 0's answer goes to every thread through
// TempStorage after a second barrier. As in CUB, no barrier follows the last
// reads: reusing TempStorage needs a __syncthreads() first (a race that
// CUEMU_CHECK=race reports). ExclusiveScan without an initial value leaves
// thread 0's output as it was (CUB: undefined).
#pragma once

#include <cub/detail/emu_common.cuh>
#include <cub/thread/thread_operators.cuh>

namespace cub {

enum BlockScanAlgorithm {
    BLOCK_SCAN_RAKING,
    BLOCK_SCAN_RAKING_MEMOIZE,
    BLOCK_SCAN_WARP_SCANS,
};

template <typename T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockScan {
    static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static constexpr int WARPS = (BLOCK_THREADS + 31) / 32;

public:
    struct TempStorage {
        emu::raw_array<T, WARPS> warp_totals;
        emu::raw_array<T, 1> callback_prefix;
    };

private:
    emu::block_context<TempStorage, BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z> ctx_;
    TempStorage& storage_ = ctx_.storage;
    const int tid_ = ctx_.tid;

    struct no_callback {
        __device__ T operator()(const T& aggregate) const { return aggregate; }
    };

    // What comes before this thread: `prefix` (valid when has_prefix) is the
    // combination of the initial value or callback prefix (if any) and the
    // inputs of the threads before it; `aggregate` combines every input.
    template <typename ScanOp, typename Callback>
    __device__ void exclusive_core(const T& input, ScanOp op, const T* initial, Callback* callback,
                                   bool& has_prefix, T& prefix, T& aggregate) {
        const int warp = tid_ / 32, lane = tid_ % 32;
        const int last_lane = (warp == WARPS - 1 ? (BLOCK_THREADS - 1) % 32 : 31);
        const T inclusive = emu::warp_inclusive_scan(input, op, lane, 32, 0xffffffffu);
        const T before_in_warp = emu::shuffle_up(inclusive, 1, 32, 0xffffffffu);
        T* totals = storage_.warp_totals.get();
        if (lane == last_lane) totals[warp] = inclusive;
        __syncthreads();
        has_prefix = false;
        aggregate = totals[0];
        for (int w = 0; w < WARPS; ++w) {
            if (w > 0) aggregate = op(aggregate, totals[w]);
            if (w + 1 == warp) {
                prefix = aggregate;
                has_prefix = true;
            }
        }
        if (lane > 0) {
            prefix = has_prefix ? op(prefix, before_in_warp) : before_in_warp;
            has_prefix = true;
        }
        T seed;
        bool has_seed = false;
        if (initial) {
            seed = *initial;
            has_seed = true;
        }
        if (callback) {
            T* shared_prefix = storage_.callback_prefix.get();
            if (warp == 0) {
                T from_callback = (*callback)(aggregate);
                if (lane == 0) *shared_prefix = from_callback;
            }
            __syncthreads();
            seed = *shared_prefix;
            has_seed = true;
        }
        if (has_seed) {
            prefix = has_prefix ? op(seed, prefix) : seed;
            has_prefix = true;
        }
    }

    template <typename ScanOp, typename Callback>
    __device__ void inclusive_one(T input, T& output, ScanOp op, Callback* callback, T& aggregate) {
        bool has_prefix;
        T prefix;
        exclusive_core(input, op, static_cast<const T*>(nullptr), callback, has_prefix, prefix, aggregate);
        output = has_prefix ? op(prefix, input) : input;
    }
    template <typename ScanOp, typename Callback>
    __device__ void exclusive_one(T input, T& output, const T* initial, ScanOp op, Callback* callback, T& aggregate) {
        bool has_prefix;
        T prefix;
        exclusive_core(input, op, initial, callback, has_prefix, prefix, aggregate);
        if (has_prefix) output = prefix;
    }
    // Arrays: each thread's items in order, its total scanned across the block.
    template <int N, typename ScanOp, typename Callback>
    __device__ void inclusive_array(T (&input)[N], T (&output)[N], ScanOp op, Callback* callback, T& aggregate) {
        T total = input[0];
        for (int i = 1; i < N; ++i) total = op(total, input[i]);
        bool has_prefix;
        T running;
        exclusive_core(total, op, static_cast<const T*>(nullptr), callback, has_prefix, running, aggregate);
        for (int i = 0; i < N; ++i) {
            running = has_prefix ? op(running, input[i]) : input[i];
            has_prefix = true;
            output[i] = running;
        }
    }
    template <int N, typename ScanOp, typename Callback>
    __device__ void exclusive_array(T (&input)[N], T (&output)[N], const T* initial, ScanOp op, Callback* callback,
                                    T& aggregate) {
        T total = input[0];
        for (int i = 1; i < N; ++i) total = op(total, input[i]);
        bool has_prefix;
        T running;
        exclusive_core(total, op, initial, callback, has_prefix, running, aggregate);
        for (int i = 0; i < N; ++i) {
            const T item = input[i];  // output may be input
            if (has_prefix) output[i] = running;
            running = has_prefix ? op(running, item) : item;
            has_prefix = true;
        }
    }

public:
    __device__ BlockScan() {}  // with a TempStorage of its own
    __device__ BlockScan(TempStorage& temp_storage) : ctx_(temp_storage) {}

    // ---- sums ----
    __device__ void ExclusiveSum(T input, T& output) {
        T aggregate;
        ExclusiveSum(input, output, aggregate);
    }
    __device__ void ExclusiveSum(T input, T& output, T& block_aggregate) {
        const T zero{};
        exclusive_one(input, output, &zero, emu::sum(), static_cast<no_callback*>(nullptr), block_aggregate);
    }
    template <typename BlockPrefixCallbackOp>
    __device__ void ExclusiveSum(T input, T& output, BlockPrefixCallbackOp& block_prefix_callback_op) {
        T aggregate;
        exclusive_one(input, output, static_cast<const T*>(nullptr), emu::sum(), &block_prefix_callback_op, aggregate);
    }
    template <int N>
    __device__ void ExclusiveSum(T (&input)[N], T (&output)[N]) {
        T aggregate;
        ExclusiveSum(input, output, aggregate);
    }
    template <int N>
    __device__ void ExclusiveSum(T (&input)[N], T (&output)[N], T& block_aggregate) {
        const T zero{};
        exclusive_array(input, output, &zero, emu::sum(), static_cast<no_callback*>(nullptr), block_aggregate);
    }
    template <int N, typename BlockPrefixCallbackOp>
    __device__ void ExclusiveSum(T (&input)[N], T (&output)[N], BlockPrefixCallbackOp& block_prefix_callback_op) {
        T aggregate;
        exclusive_array(input, output, static_cast<const T*>(nullptr), emu::sum(), &block_prefix_callback_op, aggregate);
    }
    __device__ void InclusiveSum(T input, T& output) {
        T aggregate;
        InclusiveScan(input, output, emu::sum(), aggregate);
    }
    __device__ void InclusiveSum(T input, T& output, T& block_aggregate) {
        InclusiveScan(input, output, emu::sum(), block_aggregate);
    }
    template <typename BlockPrefixCallbackOp>
    __device__ void InclusiveSum(T input, T& output, BlockPrefixCallbackOp& block_prefix_callback_op) {
        InclusiveScan(input, output, emu::sum(), block_prefix_callback_op);
    }
    template <int N>
    __device__ void InclusiveSum(T (&input)[N], T (&output)[N]) {
        T aggregate;
        InclusiveScan(input, output, emu::sum(), aggregate);
    }
    template <int N>
    __device__ void InclusiveSum(T (&input)[N], T (&output)[N], T& block_aggregate) {
        InclusiveScan(input, output, emu::sum(), block_aggregate);
    }
    template <int N, typename BlockPrefixCallbackOp>
    __device__ void InclusiveSum(T (&input)[N], T (&output)[N], BlockPrefixCallbackOp& block_prefix_callback_op) {
        InclusiveScan(input, output, emu::sum(), block_prefix_callback_op);
    }

    // ---- scans with an operator ----
    template <typename ScanOp>
    __device__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op) {
        T aggregate;
        exclusive_one(input, output, &initial_value, scan_op, static_cast<no_callback*>(nullptr), aggregate);
    }
    template <typename ScanOp>
    __device__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op, T& block_aggregate) {
        exclusive_one(input, output, &initial_value, scan_op, static_cast<no_callback*>(nullptr), block_aggregate);
    }
    template <typename ScanOp, typename BlockPrefixCallbackOp>
    __device__ void ExclusiveScan(T input, T& output, ScanOp scan_op, BlockPrefixCallbackOp& block_prefix_callback_op) {
        T aggregate;
        exclusive_one(input, output, static_cast<const T*>(nullptr), scan_op, &block_prefix_callback_op, aggregate);
    }
    template <typename ScanOp>
    __device__ void ExclusiveScan(T input, T& output, ScanOp scan_op) {
        T aggregate;
        exclusive_one(input, output, static_cast<const T*>(nullptr), scan_op, static_cast<no_callback*>(nullptr), aggregate);
    }
    template <typename ScanOp>
    __device__ void ExclusiveScan(T input, T& output, ScanOp scan_op, T& block_aggregate) {
        exclusive_one(input, output, static_cast<const T*>(nullptr), scan_op, static_cast<no_callback*>(nullptr),
                      block_aggregate);
    }
    template <int N, typename ScanOp>
    __device__ void ExclusiveScan(T (&input)[N], T (&output)[N], T initial_value, ScanOp scan_op) {
        T aggregate;
        exclusive_array(input, output, &initial_value, scan_op, static_cast<no_callback*>(nullptr), aggregate);
    }
    template <int N, typename ScanOp>
    __device__ void ExclusiveScan(T (&input)[N], T (&output)[N], T initial_value, ScanOp scan_op, T& block_aggregate) {
        exclusive_array(input, output, &initial_value, scan_op, static_cast<no_callback*>(nullptr), block_aggregate);
    }
    template <int N, typename ScanOp, typename BlockPrefixCallbackOp>
    __device__ void ExclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op,
                                  BlockPrefixCallbackOp& block_prefix_callback_op) {
        T aggregate;
        exclusive_array(input, output, static_cast<const T*>(nullptr), scan_op, &block_prefix_callback_op, aggregate);
    }
    template <typename ScanOp>
    __device__ void InclusiveScan(T input, T& output, ScanOp scan_op) {
        T aggregate;
        inclusive_one(input, output, scan_op, static_cast<no_callback*>(nullptr), aggregate);
    }
    template <typename ScanOp>
    __device__ void InclusiveScan(T input, T& output, ScanOp scan_op, T& block_aggregate) {
        inclusive_one(input, output, scan_op, static_cast<no_callback*>(nullptr), block_aggregate);
    }
    template <typename ScanOp, typename BlockPrefixCallbackOp>
    __device__ void InclusiveScan(T input, T& output, ScanOp scan_op, BlockPrefixCallbackOp& block_prefix_callback_op) {
        T aggregate;
        inclusive_one(input, output, scan_op, &block_prefix_callback_op, aggregate);
    }
    template <int N, typename ScanOp>
    __device__ void InclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op) {
        T aggregate;
        inclusive_array(input, output, scan_op, static_cast<no_callback*>(nullptr), aggregate);
    }
    template <int N, typename ScanOp>
    __device__ void InclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op, T& block_aggregate) {
        inclusive_array(input, output, scan_op, static_cast<no_callback*>(nullptr), block_aggregate);
    }
    template <int N, typename ScanOp, typename BlockPrefixCallbackOp>
    __device__ void InclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op,
                                  BlockPrefixCallbackOp& block_prefix_callback_op) {
        T aggregate;
        inclusive_array(input, output, scan_op, &block_prefix_callback_op, aggregate);
    }
};

}  // namespace cub
