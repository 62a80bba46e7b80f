// device_segmented_radix_sort.cuh - cub::DeviceSegmentedRadixSort: SortKeys,
// SortPairs and their Descending forms, each segment of the keys (and values)
// sorted on its own by the bits [begin_bit, end_bit) of the keys, stably,
// from one buffer to another or within DoubleBuffer pairs, with the two-call
// temporary-storage protocol (the work: detail/segmented_sort.cuh).
#pragma once

#include <cub/detail/segmented_sort.cuh>

namespace cub {

struct DeviceSegmentedRadixSort {
    CUB_EMU_SEGMENTED_SORT_PAIRS(SortPairs, false, int, (, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8), (begin_bit, end_bit))
    CUB_EMU_SEGMENTED_SORT_PAIRS(SortPairsDescending, true, int, (, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8), (begin_bit, end_bit))
    CUB_EMU_SEGMENTED_SORT_KEYS(SortKeys, false, int, (, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8), (begin_bit, end_bit))
    CUB_EMU_SEGMENTED_SORT_KEYS(SortKeysDescending, true, int, (, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8), (begin_bit, end_bit))

private:
    static constexpr const char* family = "DeviceSegmentedRadixSort";
};

}  // namespace cub
