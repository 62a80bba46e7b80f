// block_reduce.cuh - cub::BlockReduce: a reduction over the threads of a block.
// Each warp reduces by shuffles, its first lane writes the warp's partial into
// TempStorage, a __syncthreads() follows, and thread 0 combines the partials
// in warp order (CUB's BLOCK_REDUCE_WARP_REDUCTIONS; the other algorithms
// give the same result for associative operators and are done the same way).
// The result is valid in thread 0 only, as CUB documents (the other threads
// get a partial). Like CUB's, the code has no barrier after thread 0's reads:
// a program that calls it again with the same TempStorage needs a
// __syncthreads() in between, and under CUEMU_CHECK=race a missing one is a
// reported race.
#pragma once

#include <cub/detail/emu_common.cuh>
#include <cub/thread/thread_operators.cuh>

namespace cub {

enum BlockReduceAlgorithm {
    BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY,
    BLOCK_REDUCE_RAKING,
    BLOCK_REDUCE_WARP_REDUCTIONS,
};

template <typename T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
    static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static constexpr int WARPS = (BLOCK_THREADS + 31) / 32;

public:
    struct TempStorage {
        emu::raw_array<T, WARPS> warp_partials;
    };

private:
    emu::block_context<TempStorage, BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z> ctx_;
    TempStorage& storage_ = ctx_.storage;
    const int tid_ = ctx_.tid;

public:
    __device__ BlockReduce() {}  // with a TempStorage of its own
    __device__ BlockReduce(TempStorage& temp_storage) : ctx_(temp_storage) {}

    template <typename ReductionOp>
    __device__ T Reduce(T input, ReductionOp reduction_op) {
        return Reduce(input, reduction_op, BLOCK_THREADS);
    }
    // Only threads 0 .. num_valid-1 contribute.
    template <typename ReductionOp>
    __device__ T Reduce(T input, ReductionOp reduction_op, int num_valid) {
        if (num_valid > BLOCK_THREADS) num_valid = BLOCK_THREADS;
        const int warp = tid_ / 32, lane = tid_ % 32;
        const int lanes_valid = num_valid - warp * 32;  // may be <= 0 or > 32
        T partial = emu::warp_reduce(input, reduction_op, lane, 32, lanes_valid, 0xffffffffu);
        T* partials = storage_.warp_partials.get();
        if (lane == 0 && lanes_valid > 0) partials[warp] = partial;
        __syncthreads();
        if (tid_ == 0) {
            const int warps_valid = (num_valid + 31) / 32;
            for (int w = 1; w < warps_valid; ++w) partial = reduction_op(partial, partials[w]);
        }
        return partial;
    }
    // Each thread's items (a blocked arrangement) in order, then across the block.
    template <int ITEMS_PER_THREAD, typename ReductionOp>
    __device__ T Reduce(T (&inputs)[ITEMS_PER_THREAD], ReductionOp reduction_op) {
        T partial = inputs[0];
        for (int i = 1; i < ITEMS_PER_THREAD; ++i) partial = reduction_op(partial, inputs[i]);
        return Reduce(partial, reduction_op);
    }

    __device__ T Sum(T input) { return Reduce(input, emu::sum()); }
    __device__ T Sum(T input, int num_valid) { return Reduce(input, emu::sum(), num_valid); }
    template <int ITEMS_PER_THREAD>
    __device__ T Sum(T (&inputs)[ITEMS_PER_THREAD]) {
        return Reduce(inputs, emu::sum());
    }
};

}  // namespace cub
