// device_segmented_sort.cuh - cub::DeviceSegmentedSort: SortKeys, SortPairs,
// their Descending and Stable forms, each segment of the keys (and values)
// sorted on its own by the keys' whole value, from one buffer to another or
// within DoubleBuffer pairs, with the two-call temporary-storage protocol
// (the work: detail/segmented_sort.cuh). Every form sorts stably here, which
// the unstable ones allow; the counts are 64-bit, as in CUDA 13.
#pragma once

#include <cub/detail/segmented_sort.cuh>

namespace cub {

struct DeviceSegmentedSort {
    CUB_EMU_SEGMENTED_SORT_PAIRS(SortPairs, false, long long, (), (0, int(sizeof(KeyT) * 8)))
    CUB_EMU_SEGMENTED_SORT_PAIRS(SortPairsDescending, true, long long, (), (0, int(sizeof(KeyT) * 8)))
    CUB_EMU_SEGMENTED_SORT_PAIRS(StableSortPairs, false, long long, (), (0, int(sizeof(KeyT) * 8)))
    CUB_EMU_SEGMENTED_SORT_PAIRS(StableSortPairsDescending, true, long long, (), (0, int(sizeof(KeyT) * 8)))
    CUB_EMU_SEGMENTED_SORT_KEYS(SortKeys, false, long long, (), (0, int(sizeof(KeyT) * 8)))
    CUB_EMU_SEGMENTED_SORT_KEYS(SortKeysDescending, true, long long, (), (0, int(sizeof(KeyT) * 8)))
    CUB_EMU_SEGMENTED_SORT_KEYS(StableSortKeys, false, long long, (), (0, int(sizeof(KeyT) * 8)))
    CUB_EMU_SEGMENTED_SORT_KEYS(StableSortKeysDescending, true, long long, (), (0, int(sizeof(KeyT) * 8)))

private:
    static constexpr const char* family = "DeviceSegmentedSort";
};

}  // namespace cub
