// selection.cuh - what DeviceSelect and DevicePartition share: If (a
// predicate) and Flagged (a flag per item) pick items in order; DeviceSelect
// copies the picked ones to d_out, DevicePartition also puts the others at
// its back in reverse order, as CUB documents. Either writes how many were
// picked to d_num_selected_out (device memory). Two-call temporary-storage
// protocol (device_work.cuh).
#pragma once

#include <cub/detail/device_work.cuh>

namespace cub::emu {

template <bool PARTITION>
struct selection {
    template <typename InputIteratorT, typename OutputIteratorT, typename NumSelectedIteratorT, typename NumItemsT,
              typename SelectOp>
    static cudaError_t If(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                          NumSelectedIteratorT d_num_selected_out, NumItemsT num_items, SelectOp select_op,
                          cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return pick(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected_out, num_items,
                    stream, [=](long long i) { return static_cast<bool>(select_op(d_in[i])); });
    }
    template <typename InputIteratorT, typename FlagIterator, typename OutputIteratorT, typename NumSelectedIteratorT,
              typename NumItemsT>
    static cudaError_t Flagged(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, FlagIterator d_flags,
                               OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out, NumItemsT num_items,
                               cudaStream_t stream = 0, CUB_EMU_CALLER) {
        const call_site at = CUB_EMU_SITE;
        if (d_temp_storage && temp_storage_bytes >= small_temp_bytes &&
            !operand(at, family, "d_flags", d_flags, static_cast<long long>(num_items)))
            return enqueue_failure(stream, at, family);
        return pick(at, d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected_out, num_items, stream,
                    [=](long long i) { return static_cast<bool>(d_flags[i]); });
    }

protected:
    static constexpr const char* family = PARTITION ? "DevicePartition" : "DeviceSelect";

    template <typename In, typename Out, typename Count, typename NumItemsT, typename Picked>
    static cudaError_t pick(const call_site& at, void* d_temp, size_t& temp_bytes, In d_in, Out d_out,
                            Count d_num_selected_out, NumItemsT num_items, cudaStream_t stream, Picked picked) {
        cudaError_t result;
        bool ok;
        if (!temp_storage_ready(at, family, d_temp, temp_bytes, small_temp_bytes, &result, &ok)) return result;
        const long long n = static_cast<long long>(num_items);
        ok = ok && operand(at, family, "d_in", d_in, n) && operand(at, family, "d_out", d_out, PARTITION ? n : 0) &&
             operand(at, family, "d_num_selected_out", d_num_selected_out, 1);
        return queue(stream, at, family, ok, [=] {
            long long front = 0, back = n;
            for (long long i = 0; i < n; ++i) {
                if (picked(i))
                    d_out[front++] = d_in[i];
                else if (PARTITION)
                    d_out[--back] = d_in[i];
            }
            *d_num_selected_out = front;
        });
    }
};

}  // namespace cub::emu
