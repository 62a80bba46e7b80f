// device_select.cuh - cub::DeviceSelect: If (a predicate) and Flagged (a flag
// per item) (detail/selection.cuh), and Unique (the first of each run of
// equal neighbours) copy the picked items, in order, to d_out and write how
// many there are to d_num_selected_out (device memory, as on a GPU).
#pragma once

#include <cub/detail/selection.cuh>

namespace cub {

struct DeviceSelect : emu::selection<false> {
    template <typename InputIteratorT, typename OutputIteratorT, typename NumSelectedIteratorT, typename NumItemsT>
    static cudaError_t Unique(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                              NumSelectedIteratorT d_num_selected_out, NumItemsT num_items, cudaStream_t stream = 0,
                              CUB_EMU_CALLER) {
        return pick(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected_out, num_items, stream,
                    [=](long long i) { return i == 0 || !(d_in[i] == d_in[i - 1]); });
    }
};

}  // namespace cub
