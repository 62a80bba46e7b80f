// block_exchange.cuh - cub::BlockExchange: rearranging a block's items
// between the blocked arrangement (thread t holds items t*N .. t*N+N-1), the
// striped one (thread t holds items t, t+T, t+2T ...) and the warp-striped
// one (the same within each warp's slice of 32*N items), through TempStorage:
// every thread writes, a barrier (__syncthreads, or __syncwarp within a
// warp), every thread reads. As in CUB, no barrier follows the reads.
#pragma once

#include <cub/detail/emu_common.cuh>

namespace cub {

template <typename InputT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, bool WARP_TIME_SLICING = false, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockExchange {
    static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static constexpr int N = ITEMS_PER_THREAD;

public:
    struct TempStorage {
        emu::raw_array<InputT, BLOCK_THREADS * ITEMS_PER_THREAD> items;
    };

private:
    emu::block_context<TempStorage, BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z> ctx_;
    TempStorage& storage_ = ctx_.storage;
    const int tid_ = ctx_.tid;
    // The warp's slice: its first thread's blocked position, its lanes.
    __device__ int warp_base() const { return tid_ / 32 * 32 * N; }
    __device__ int lane() const { return tid_ % 32; }

public:
    __device__ BlockExchange() {}  // with a TempStorage of its own
    __device__ BlockExchange(TempStorage& temp_storage) : ctx_(temp_storage) {}

    template <typename OutputT>
    __device__ void StripedToBlocked(const InputT (&input)[N], OutputT (&output)[N]) {
        InputT* s = storage_.items.get();
        for (int i = 0; i < N; ++i) s[i * BLOCK_THREADS + tid_] = input[i];
        __syncthreads();
        for (int i = 0; i < N; ++i) output[i] = s[tid_ * N + i];
    }
    template <typename OutputT>
    __device__ void BlockedToStriped(const InputT (&input)[N], OutputT (&output)[N]) {
        InputT* s = storage_.items.get();
        for (int i = 0; i < N; ++i) s[tid_ * N + i] = input[i];
        __syncthreads();
        for (int i = 0; i < N; ++i) output[i] = s[i * BLOCK_THREADS + tid_];
    }
    template <typename OutputT>
    __device__ void WarpStripedToBlocked(const InputT (&input)[N], OutputT (&output)[N]) {
        InputT* s = storage_.items.get() + warp_base();
        for (int i = 0; i < N; ++i) s[i * 32 + lane()] = input[i];
        __syncwarp();
        for (int i = 0; i < N; ++i) output[i] = s[lane() * N + i];
    }
    template <typename OutputT>
    __device__ void BlockedToWarpStriped(const InputT (&input)[N], OutputT (&output)[N]) {
        InputT* s = storage_.items.get() + warp_base();
        for (int i = 0; i < N; ++i) s[lane() * N + i] = input[i];
        __syncwarp();
        for (int i = 0; i < N; ++i) output[i] = s[i * 32 + lane()];
    }
    // In-place forms.
    __device__ void StripedToBlocked(InputT (&items)[N]) { StripedToBlocked(items, items); }
    __device__ void BlockedToStriped(InputT (&items)[N]) { BlockedToStriped(items, items); }
    __device__ void WarpStripedToBlocked(InputT (&items)[N]) { WarpStripedToBlocked(items, items); }
    __device__ void BlockedToWarpStriped(InputT (&items)[N]) { BlockedToWarpStriped(items, items); }
};

}  // namespace cub
