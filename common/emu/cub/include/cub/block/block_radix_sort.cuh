// block_radix_sort.cuh - cub::BlockRadixSort: sorts the keys (and values) a
// block holds, ITEMS_PER_THREAD per thread in a blocked arrangement, by the
// bits [begin_bit, end_bit) of their radix order (detail/radix_order.cuh),
// stably, ascending or descending; the result is blocked (Sort) or striped
// (SortBlockedToStriped). The tile is not ranked digit by digit as on a GPU
// (the same stable order, for far more steps on one CPU): every thread
// writes its items to TempStorage, a barrier, thread 0 puts the tile in
// order there, a barrier, each thread reads its result. As in CUB, no
// barrier follows the last reads.
// RADIX_BITS and the tuning parameters are accepted and do not change the result.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include <cub/block/block_scan.cuh>
#include <cub/detail/emu_common.cuh>
#include <cub/detail/radix_order.cuh>
#include <cub/util_type.cuh>

namespace cub {

template <typename KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, typename ValueT = NullType, int RADIX_BITS = 4,
          bool MEMOIZE_OUTER_SCAN = true, BlockScanAlgorithm INNER_SCAN_ALGORITHM = BLOCK_SCAN_WARP_SCANS,
          cudaSharedMemConfig SMEM_CONFIG = cudaSharedMemBankSizeFourByte, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1,
          int LEGACY_PTX_ARCH = 0>
class BlockRadixSort {
    static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static constexpr int N = ITEMS_PER_THREAD;
    static constexpr int TILE = BLOCK_THREADS * N;
    static constexpr bool KEYS_ONLY = std::is_same<ValueT, NullType>::value;
    using order = emu::radix_order<KeyT>;

public:
    struct TempStorage {
        emu::raw_array<KeyT, TILE> keys;
        emu::raw_array<ValueT, KEYS_ONLY ? 1 : TILE> values;
    };

private:
    emu::block_context<TempStorage, BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z> ctx_;
    TempStorage& storage_ = ctx_.storage;
    const int tid_ = ctx_.tid;

    template <bool STRIPED_OUTPUT>
    __device__ void sort(KeyT (&keys)[N], ValueT* values, int begin_bit, int end_bit, bool descending) {
        KeyT* shared_keys = storage_.keys.get();
        ValueT* shared_values = storage_.values.get();
        for (int i = 0; i < N; ++i) {
            shared_keys[tid_ * N + i] = keys[i];
            if (!KEYS_ONLY && values) shared_values[tid_ * N + i] = values[i];
        }
        __syncthreads();
        if (tid_ == 0) {  // the tile in order, one thread: the same work as the block's, far fewer steps here
            std::vector<std::pair<std::uint64_t, int>> order(TILE);
            for (int j = 0; j < TILE; ++j) order[j] = {order::digit(shared_keys[j], begin_bit, end_bit, descending), j};
            std::stable_sort(order.begin(), order.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
            const std::vector<KeyT> unsorted_keys(shared_keys, shared_keys + TILE);
            for (int j = 0; j < TILE; ++j) shared_keys[j] = unsorted_keys[order[j].second];
            if (!KEYS_ONLY && values) {
                const std::vector<ValueT> unsorted_values(shared_values, shared_values + TILE);
                for (int j = 0; j < TILE; ++j) shared_values[j] = unsorted_values[order[j].second];
            }
        }
        __syncthreads();
        for (int i = 0; i < N; ++i) {
            const int from = STRIPED_OUTPUT ? i * BLOCK_THREADS + tid_ : tid_ * N + i;
            keys[i] = shared_keys[from];
            if (!KEYS_ONLY && values) values[i] = shared_values[from];
        }
    }

    // As CUB: a sort declared with a value type sorts pairs only.
    static __device__ void keys_only_check() {
        static_assert(KEYS_ONLY, "this cub::BlockRadixSort has a ValueT: sort keys with their values, "
                                 "Sort(keys, values), or declare it without a ValueT to sort keys alone");
    }

public:
    __device__ BlockRadixSort() {}  // with a TempStorage of its own
    __device__ BlockRadixSort(TempStorage& temp_storage) : ctx_(temp_storage) {}

    __device__ void Sort(KeyT (&keys)[N], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
        keys_only_check();
        sort<false>(keys, nullptr, begin_bit, end_bit, false);
    }
    __device__ void Sort(KeyT (&keys)[N], ValueT (&values)[N], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
        sort<false>(keys, values, begin_bit, end_bit, false);
    }
    __device__ void SortDescending(KeyT (&keys)[N], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
        keys_only_check();
        sort<false>(keys, nullptr, begin_bit, end_bit, true);
    }
    __device__ void SortDescending(KeyT (&keys)[N], ValueT (&values)[N], int begin_bit = 0,
                                   int end_bit = sizeof(KeyT) * 8) {
        sort<false>(keys, values, begin_bit, end_bit, true);
    }
    __device__ void SortBlockedToStriped(KeyT (&keys)[N], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
        keys_only_check();
        sort<true>(keys, nullptr, begin_bit, end_bit, false);
    }
    __device__ void SortBlockedToStriped(KeyT (&keys)[N], ValueT (&values)[N], int begin_bit = 0,
                                         int end_bit = sizeof(KeyT) * 8) {
        sort<true>(keys, values, begin_bit, end_bit, false);
    }
    __device__ void SortDescendingBlockedToStriped(KeyT (&keys)[N], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
        keys_only_check();
        sort<true>(keys, nullptr, begin_bit, end_bit, true);
    }
    __device__ void SortDescendingBlockedToStriped(KeyT (&keys)[N], ValueT (&values)[N], int begin_bit = 0,
                                                   int end_bit = sizeof(KeyT) * 8) {
        sort<true>(keys, values, begin_bit, end_bit, true);
    }
};

}  // namespace cub
