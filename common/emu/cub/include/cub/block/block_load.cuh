// block_load.cuh - cub::BlockLoad and the direct loads (LoadDirectBlocked,
// LoadDirectStriped, LoadDirectWarpStriped): a block reads a tile of
// BLOCK_THREADS * ITEMS_PER_THREAD items starting at block_itr. The guarded
// forms read only the first valid_items of the tile; the other items get
// oob_default when one is given and are left as they were otherwise.
// Results: a blocked arrangement, except BLOCK_LOAD_STRIPED (striped).
// BLOCK_LOAD_VECTORIZE reads as BLOCK_LOAD_DIRECT (the same values; a GPU
// uses wider loads where the pointer is aligned). The TRANSPOSE algorithms
// read striped (or warp-striped) and rearrange through TempStorage
// (BlockExchange), with its barrier.
#pragma once

#include <cub/block/block_exchange.cuh>

namespace cub {

enum BlockLoadAlgorithm {
    BLOCK_LOAD_DIRECT,
    BLOCK_LOAD_STRIPED,
    BLOCK_LOAD_VECTORIZE,
    BLOCK_LOAD_TRANSPOSE,
    BLOCK_LOAD_WARP_TRANSPOSE,
    BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED,
};

namespace emu {
// Item i of the calling thread is tile position position(i); reads those < valid.
template <typename T, int N, typename InputIt, typename Position>
__device__ void load_positions(InputIt block_itr, T (&items)[N], int valid, const T* oob_default, Position position) {
    for (int i = 0; i < N; ++i) {
        const int p = position(i);
        if (p < valid)
            items[i] = block_itr[p];
        else if (oob_default)
            items[i] = *oob_default;
    }
}
constexpr int all_valid = 0x7fffffff;
}  // namespace emu

template <typename T, int N, typename InputIt>
__device__ void LoadDirectBlocked(int linear_tid, InputIt block_itr, T (&items)[N]) {
    emu::load_positions(block_itr, items, emu::all_valid, static_cast<const T*>(nullptr), [&](int i) { return linear_tid * N + i; });
}
template <typename T, int N, typename InputIt>
__device__ void LoadDirectBlocked(int linear_tid, InputIt block_itr, T (&items)[N], int valid_items) {
    emu::load_positions(block_itr, items, valid_items, static_cast<const T*>(nullptr), [&](int i) { return linear_tid * N + i; });
}
template <typename T, typename DefaultT, int N, typename InputIt>
__device__ void LoadDirectBlocked(int linear_tid, InputIt block_itr, T (&items)[N], int valid_items, DefaultT oob_default) {
    const T fill = oob_default;
    emu::load_positions(block_itr, items, valid_items, &fill, [&](int i) { return linear_tid * N + i; });
}
template <int BLOCK_THREADS, typename T, int N, typename InputIt>
__device__ void LoadDirectStriped(int linear_tid, InputIt block_itr, T (&items)[N]) {
    emu::load_positions(block_itr, items, emu::all_valid, static_cast<const T*>(nullptr), [&](int i) { return i * BLOCK_THREADS + linear_tid; });
}
template <int BLOCK_THREADS, typename T, int N, typename InputIt>
__device__ void LoadDirectStriped(int linear_tid, InputIt block_itr, T (&items)[N], int valid_items) {
    emu::load_positions(block_itr, items, valid_items, static_cast<const T*>(nullptr), [&](int i) { return i * BLOCK_THREADS + linear_tid; });
}
template <int BLOCK_THREADS, typename T, typename DefaultT, int N, typename InputIt>
__device__ void LoadDirectStriped(int linear_tid, InputIt block_itr, T (&items)[N], int valid_items, DefaultT oob_default) {
    const T fill = oob_default;
    emu::load_positions(block_itr, items, valid_items, &fill, [&](int i) { return i * BLOCK_THREADS + linear_tid; });
}
template <typename T, int N, typename InputIt>
__device__ void LoadDirectWarpStriped(int linear_tid, InputIt block_itr, T (&items)[N]) {
    const int base = linear_tid / 32 * 32 * N, lane = linear_tid % 32;
    emu::load_positions(block_itr, items, emu::all_valid, static_cast<const T*>(nullptr), [&](int i) { return base + i * 32 + lane; });
}
template <typename T, int N, typename InputIt>
__device__ void LoadDirectWarpStriped(int linear_tid, InputIt block_itr, T (&items)[N], int valid_items) {
    const int base = linear_tid / 32 * 32 * N, lane = linear_tid % 32;
    emu::load_positions(block_itr, items, valid_items, static_cast<const T*>(nullptr), [&](int i) { return base + i * 32 + lane; });
}
template <typename T, typename DefaultT, int N, typename InputIt>
__device__ void LoadDirectWarpStriped(int linear_tid, InputIt block_itr, T (&items)[N], int valid_items, DefaultT oob_default) {
    const int base = linear_tid / 32 * 32 * N, lane = linear_tid % 32;
    const T fill = oob_default;
    emu::load_positions(block_itr, items, valid_items, &fill, [&](int i) { return base + i * 32 + lane; });
}

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockLoad {
    static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static constexpr bool WARP_TRANSPOSE =
        ALGORITHM == BLOCK_LOAD_WARP_TRANSPOSE || ALGORITHM == BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED;
    static_assert(!WARP_TRANSPOSE || BLOCK_THREADS % 32 == 0,
                  "BLOCK_LOAD_WARP_TRANSPOSE needs a block size that is a multiple of the warp size (32)");
    using Exchange = BlockExchange<T, BLOCK_DIM_X, ITEMS_PER_THREAD, false, BLOCK_DIM_Y, BLOCK_DIM_Z>;

public:
    using TempStorage = typename Exchange::TempStorage;

private:
    emu::block_context<TempStorage, BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z> ctx_;
    TempStorage& storage_ = ctx_.storage;
    const int tid_ = ctx_.tid;

    template <typename InputIt>
    __device__ void load(InputIt block_itr, T (&items)[ITEMS_PER_THREAD], int valid, const T* oob_default) {
        if constexpr (ALGORITHM == BLOCK_LOAD_DIRECT || ALGORITHM == BLOCK_LOAD_VECTORIZE) {
            emu::load_positions(block_itr, items, valid, oob_default, [&](int i) { return tid_ * ITEMS_PER_THREAD + i; });
        } else if constexpr (ALGORITHM == BLOCK_LOAD_STRIPED) {
            emu::load_positions(block_itr, items, valid, oob_default, [&](int i) { return i * BLOCK_THREADS + tid_; });
        } else if constexpr (ALGORITHM == BLOCK_LOAD_TRANSPOSE) {
            emu::load_positions(block_itr, items, valid, oob_default, [&](int i) { return i * BLOCK_THREADS + tid_; });
            Exchange(storage_).StripedToBlocked(items, items);
        } else {
            const int base = tid_ / 32 * 32 * ITEMS_PER_THREAD, lane = tid_ % 32;
            emu::load_positions(block_itr, items, valid, oob_default, [&](int i) { return base + i * 32 + lane; });
            Exchange(storage_).WarpStripedToBlocked(items, items);
        }
    }

public:
    __device__ BlockLoad() {}  // with a TempStorage of its own
    __device__ BlockLoad(TempStorage& temp_storage) : ctx_(temp_storage) {}

    template <typename InputIt>
    __device__ void Load(InputIt block_itr, T (&items)[ITEMS_PER_THREAD]) {
        load(block_itr, items, emu::all_valid, nullptr);
    }
    template <typename InputIt>
    __device__ void Load(InputIt block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) {
        load(block_itr, items, valid_items, nullptr);
    }
    template <typename InputIt, typename DefaultT>
    __device__ void Load(InputIt block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items, DefaultT oob_default) {
        const T fill = oob_default;
        load(block_itr, items, valid_items, &fill);
    }
};

}  // namespace cub
