// block_radix_sort.cuh - cub::BlockRadixSort: sorts the keys (and values) a
// block holds, ITEMS_PER_THREAD per thread in a blocked arrangement, by the
// bits [begin_bit, end_bit) of their radix order (detail/radix_order.cuh),
// stably, ascending or descending; the result is blocked (Sort) or striped
// (SortBlockedToStriped). Each item's place is counted rather than found
// digit by digit as a GPU does (the same stable order): every thread writes
// its items to TempStorage, a barrier, each counts the items that go before
// its own, a barrier, each writes its items to their places, a barrier, each
// reads its result. As in CUB, no barrier follows the last reads.
// RADIX_BITS and the tuning parameters are accepted and do not change the result.
#pragma once

#include <cub/block/block_scan.cuh>
#include <cub/detail/emu_common.cuh>
#include <cub/detail/radix_order.cuh>
#include <cub/util_type.cuh>

namespace cub {

enum BlockScanAlgorithm;  // from block_scan.cuh, for the parameter below

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
        for (int i = 0; i < N; ++i) shared_keys[tid_ * N + i] = keys[i];
        __syncthreads();
        int rank[N];
        for (int i = 0; i < N; ++i) {
            const int mine = tid_ * N + i;
            const std::uint64_t digit = order::digit(keys[i], begin_bit, end_bit, descending);
            int before = 0;
            for (int j = 0; j < TILE; ++j) {
                const std::uint64_t other = order::digit(shared_keys[j], begin_bit, end_bit, descending);
                before += other < digit || (other == digit && j < mine);
            }
            rank[i] = before;
        }
        __syncthreads();
        for (int i = 0; i < N; ++i) {
            shared_keys[rank[i]] = keys[i];
            if (!KEYS_ONLY && values) shared_values[rank[i]] = values[i];
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
