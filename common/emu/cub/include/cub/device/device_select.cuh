// device_select.cuh - cub::DeviceSelect: If (a predicate), Flagged (a flag per
// item) and Unique (the first of each run of equal neighbours) copy the
// selected items, in order, to d_out and write how many there are to
// d_num_selected_out (device memory, as on a GPU), with the two-call
// temporary-storage protocol (detail/device_work.cuh).
#pragma once

#include <cub/detail/device_work.cuh>

namespace cub {

struct DeviceSelect {
    template <typename InputIteratorT, typename OutputIteratorT, typename NumSelectedIteratorT, typename NumItemsT,
              typename SelectOp>
    static cudaError_t If(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                          NumSelectedIteratorT d_num_selected_out, NumItemsT num_items, SelectOp select_op,
                          cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return select(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected_out, num_items,
                      stream, "d_in", [=](long long i) { return static_cast<bool>(select_op(d_in[i])); });
    }
    template <typename InputIteratorT, typename FlagIterator, typename OutputIteratorT, typename NumSelectedIteratorT,
              typename NumItemsT>
    static cudaError_t Flagged(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, FlagIterator d_flags,
                               OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out, NumItemsT num_items,
                               cudaStream_t stream = 0, CUB_EMU_CALLER) {
        const emu::call_site at = CUB_EMU_SITE;
        if (d_temp_storage && temp_storage_bytes >= emu::small_temp_bytes &&
            !emu::operand(at, family, "d_flags", d_flags, static_cast<long long>(num_items)))
            return emu::enqueue_failure(stream, at, family);
        return select(at, d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected_out, num_items, stream,
                      "d_in", [=](long long i) { return static_cast<bool>(d_flags[i]); });
    }
    template <typename InputIteratorT, typename OutputIteratorT, typename NumSelectedIteratorT, typename NumItemsT>
    static cudaError_t Unique(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                              NumSelectedIteratorT d_num_selected_out, NumItemsT num_items, cudaStream_t stream = 0,
                              CUB_EMU_CALLER) {
        return select(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected_out, num_items,
                      stream, "d_in", [=](long long i) { return i == 0 || !(d_in[i] == d_in[i - 1]); });
    }

private:
    static constexpr const char* family = "DeviceSelect";

    template <typename In, typename Out, typename Count, typename NumItemsT, typename Selected>
    static cudaError_t select(const emu::call_site& at, void* d_temp, size_t& temp_bytes, In d_in, Out d_out,
                              Count d_num_selected_out, NumItemsT num_items, cudaStream_t stream, const char* in_name,
                              Selected selected) {
        cudaError_t result;
        bool ok;
        if (!emu::temp_storage_ready(at, family, d_temp, temp_bytes, emu::small_temp_bytes, &result, &ok)) return result;
        const long long n = static_cast<long long>(num_items);
        ok = ok && emu::operand(at, family, in_name, d_in, n) && emu::operand(at, family, "d_out", d_out, 0) &&
             emu::operand(at, family, "d_num_selected_out", d_num_selected_out, 1);
        return emu::queue(stream, at, family, ok, [=] {
            long long count = 0;
            for (long long i = 0; i < n; ++i)
                if (selected(i)) d_out[count++] = d_in[i];
            *d_num_selected_out = count;
        });
    }
};

}  // namespace cub
