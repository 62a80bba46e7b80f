// block_histogram.cuh - cub::BlockHistogram: counts of the block's items
// (ITEMS_PER_THREAD per thread, each a bin index below BINS) added into a
// histogram of BINS counters in shared or global memory.
//
// InitHistogram zeroes the bins, thread t those of index t, t + BLOCK_THREADS
// ...; Histogram is InitHistogram, a __syncthreads() and Composite; Composite
// adds the items' counts. BLOCK_HISTO_ATOMIC adds with one atomicAdd per
// item, as CUB's does. BLOCK_HISTO_SORT (the default) publishes every item to
// TempStorage, synchronizes, and thread t then counts the items of its own
// bins (the same bins it zeroes) and adds each count with a plain store:
// CUB's sorts and adds run lengths instead, which gives the same counts. An
// item that is not a bin index is added with an atomicAdd there too, so the
// emulator's checks see the access where a GPU's would go astray. As CUB's,
// the code has no barrier after it: reusing TempStorage, or reading bins
// other threads added to, needs a __syncthreads() first, and under
// CUEMU_CHECK=race a missing one is a reported race.
#pragma once

#include <cub/detail/emu_common.cuh>

namespace cub {

enum BlockHistogramAlgorithm {
    BLOCK_HISTO_SORT,
    BLOCK_HISTO_ATOMIC,
};

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, int BINS,
          BlockHistogramAlgorithm ALGORITHM = BLOCK_HISTO_SORT, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1,
          int LEGACY_PTX_ARCH = 0>
class BlockHistogram {
    static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static constexpr int TILE_ITEMS = BLOCK_THREADS * ITEMS_PER_THREAD;

public:
    struct TempStorage {
        // The sort algorithm's published items; the atomic one needs none.
        emu::raw_array<T, ALGORITHM == BLOCK_HISTO_SORT ? TILE_ITEMS : 1> items;
    };

private:
    emu::block_context<TempStorage, BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z> ctx_;
    TempStorage& storage_ = ctx_.storage;
    const int tid_ = ctx_.tid;

    static bool is_bin(const T& item) {
        return !(item < static_cast<T>(0)) && static_cast<long long>(item) < BINS;
    }

public:
    __device__ BlockHistogram() {}  // with a TempStorage of its own
    __device__ BlockHistogram(TempStorage& temp_storage) : ctx_(temp_storage) {}

    template <typename CounterT>
    __device__ void InitHistogram(CounterT histogram[BINS]) {
        for (int bin = tid_; bin < BINS; bin += BLOCK_THREADS) histogram[bin] = CounterT(0);
    }

    template <typename CounterT>
    __device__ void Histogram(T (&items)[ITEMS_PER_THREAD], CounterT histogram[BINS]) {
        InitHistogram(histogram);
        __syncthreads();
        Composite(items, histogram);
    }

    template <typename CounterT>
    __device__ void Composite(T (&items)[ITEMS_PER_THREAD], CounterT histogram[BINS]) {
        if constexpr (ALGORITHM == BLOCK_HISTO_ATOMIC) {
            for (int i = 0; i < ITEMS_PER_THREAD; ++i)
                atomicAdd(&histogram[static_cast<long long>(items[i])], CounterT(1));
        } else {
            T* published = storage_.items.get();
            for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
                published[tid_ * ITEMS_PER_THREAD + i] = items[i];
                if (!is_bin(items[i])) atomicAdd(&histogram[static_cast<long long>(items[i])], CounterT(1));
            }
            __syncthreads();
            for (int bin = tid_; bin < BINS; bin += BLOCK_THREADS) {
                CounterT count(0);
                for (int i = 0; i < TILE_ITEMS; ++i)
                    if (is_bin(published[i]) && static_cast<long long>(published[i]) == bin) count += CounterT(1);
                if (count != CounterT(0)) histogram[bin] += count;
            }
        }
    }
};

}  // namespace cub
