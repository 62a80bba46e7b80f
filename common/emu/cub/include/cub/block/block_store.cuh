// block_store.cuh - cub::BlockStore and the direct stores (StoreDirectBlocked,
// StoreDirectStriped, StoreDirectWarpStriped): a block writes a tile of
// BLOCK_THREADS * ITEMS_PER_THREAD items starting at block_itr; the guarded
// forms write only the first valid_items of the tile. The items are in a
// blocked arrangement, except for BLOCK_STORE_STRIPED (striped).
// BLOCK_STORE_VECTORIZE writes as BLOCK_STORE_DIRECT. The TRANSPOSE
// algorithms rearrange through TempStorage (BlockExchange), with its barrier,
// then write striped (or warp-striped).
#pragma once

#include <cub/block/block_exchange.cuh>
#include <cub/block/block_load.cuh>  // emu::all_valid

namespace cub {

enum BlockStoreAlgorithm {
    BLOCK_STORE_DIRECT,
    BLOCK_STORE_STRIPED,
    BLOCK_STORE_VECTORIZE,
    BLOCK_STORE_TRANSPOSE,
    BLOCK_STORE_WARP_TRANSPOSE,
    BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED,
};

namespace emu {
template <typename T, int N, typename OutputIt, typename Position>
__device__ void store_positions(OutputIt block_itr, const T (&items)[N], int valid, Position position) {
    for (int i = 0; i < N; ++i) {
        const int p = position(i);
        if (p < valid) block_itr[p] = items[i];
    }
}
}  // namespace emu

template <typename T, int N, typename OutputIt>
__device__ void StoreDirectBlocked(int linear_tid, OutputIt block_itr, T (&items)[N], int valid_items = emu::all_valid) {
    emu::store_positions(block_itr, items, valid_items, [&](int i) { return linear_tid * N + i; });
}
template <int BLOCK_THREADS, typename T, int N, typename OutputIt>
__device__ void StoreDirectStriped(int linear_tid, OutputIt block_itr, T (&items)[N], int valid_items = emu::all_valid) {
    emu::store_positions(block_itr, items, valid_items, [&](int i) { return i * BLOCK_THREADS + linear_tid; });
}
template <typename T, int N, typename OutputIt>
__device__ void StoreDirectWarpStriped(int linear_tid, OutputIt block_itr, T (&items)[N], int valid_items = emu::all_valid) {
    const int base = linear_tid / 32 * 32 * N, lane = linear_tid % 32;
    emu::store_positions(block_itr, items, valid_items, [&](int i) { return base + i * 32 + lane; });
}

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockStore {
    static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static constexpr bool WARP_TRANSPOSE =
        ALGORITHM == BLOCK_STORE_WARP_TRANSPOSE || ALGORITHM == BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED;
    static_assert(!WARP_TRANSPOSE || BLOCK_THREADS % 32 == 0,
                  "BLOCK_STORE_WARP_TRANSPOSE needs a block size that is a multiple of the warp size (32)");
    using Exchange = BlockExchange<T, BLOCK_DIM_X, ITEMS_PER_THREAD, false, BLOCK_DIM_Y, BLOCK_DIM_Z>;

public:
    using TempStorage = typename Exchange::TempStorage;

private:
    emu::block_context<TempStorage, BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z> ctx_;
    TempStorage& storage_ = ctx_.storage;
    const int tid_ = ctx_.tid;

    template <typename OutputIt>
    __device__ void store(OutputIt block_itr, T (&items)[ITEMS_PER_THREAD], int valid) {
        if constexpr (ALGORITHM == BLOCK_STORE_DIRECT || ALGORITHM == BLOCK_STORE_VECTORIZE) {
            emu::store_positions(block_itr, items, valid, [&](int i) { return tid_ * ITEMS_PER_THREAD + i; });
        } else if constexpr (ALGORITHM == BLOCK_STORE_STRIPED) {
            emu::store_positions(block_itr, items, valid, [&](int i) { return i * BLOCK_THREADS + tid_; });
        } else if constexpr (ALGORITHM == BLOCK_STORE_TRANSPOSE) {
            T striped[ITEMS_PER_THREAD];
            Exchange(storage_).BlockedToStriped(items, striped);
            emu::store_positions(block_itr, striped, valid, [&](int i) { return i * BLOCK_THREADS + tid_; });
        } else {
            T warp_striped[ITEMS_PER_THREAD];
            Exchange(storage_).BlockedToWarpStriped(items, warp_striped);
            const int base = tid_ / 32 * 32 * ITEMS_PER_THREAD, lane = tid_ % 32;
            emu::store_positions(block_itr, warp_striped, valid, [&](int i) { return base + i * 32 + lane; });
        }
    }

public:
    __device__ BlockStore() {}  // with a TempStorage of its own
    __device__ BlockStore(TempStorage& temp_storage) : ctx_(temp_storage) {}

    template <typename OutputIt>
    __device__ void Store(OutputIt block_itr, T (&items)[ITEMS_PER_THREAD]) {
        store(block_itr, items, emu::all_valid);
    }
    template <typename OutputIt>
    __device__ void Store(OutputIt block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) {
        store(block_itr, items, valid_items);
    }
};

}  // namespace cub
