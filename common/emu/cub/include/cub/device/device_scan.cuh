// device_scan.cuh - cub::DeviceScan: InclusiveSum, ExclusiveSum,
// InclusiveScan, InclusiveScanInit, ExclusiveScan over num_items inputs, with
// the two-call temporary-storage protocol (detail/device_work.cuh). d_out may
// be d_in (in place). The inputs are combined left to right (a float scan may
// differ in its last bits from a GPU's).
#pragma once

#include <cub/detail/device_work.cuh>
#include <cub/thread/thread_operators.cuh>

namespace cub {

struct DeviceScan {
    template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
    static cudaError_t InclusiveSum(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in,
                                    OutputIteratorT d_out, NumItemsT num_items, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        using Acc = emu::value_of<InputIteratorT>;
        return scan(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, emu::sum(), Acc{}, false, true,
                    num_items, stream);
    }
    template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
    static cudaError_t ExclusiveSum(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in,
                                    OutputIteratorT d_out, NumItemsT num_items, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        using Acc = emu::value_of<InputIteratorT>;
        return scan(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, emu::sum(), Acc{}, true, false,
                    num_items, stream);
    }
    template <typename InputIteratorT, typename OutputIteratorT, typename ScanOpT, typename NumItemsT>
    static cudaError_t InclusiveScan(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in,
                                     OutputIteratorT d_out, ScanOpT scan_op, NumItemsT num_items, cudaStream_t stream = 0,
                                     CUB_EMU_CALLER) {
        using Acc = emu::value_of<InputIteratorT>;
        return scan(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, Acc{}, false, false,
                    num_items, stream);
    }
    template <typename InputIteratorT, typename OutputIteratorT, typename ScanOpT, typename InitValueT, typename NumItemsT>
    static cudaError_t InclusiveScanInit(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in,
                                         OutputIteratorT d_out, ScanOpT scan_op, InitValueT init_value,
                                         NumItemsT num_items, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return scan(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, init_value, false, true,
                    num_items, stream);
    }
    template <typename InputIteratorT, typename OutputIteratorT, typename ScanOpT, typename InitValueT, typename NumItemsT>
    static cudaError_t ExclusiveScan(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in,
                                     OutputIteratorT d_out, ScanOpT scan_op, InitValueT init_value, NumItemsT num_items,
                                     cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return scan(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, init_value, true, true,
                    num_items, stream);
    }

private:
    static constexpr const char* family = "DeviceScan";

    // exclusive: output i combines inputs before i (starting from init);
    // otherwise inputs up to i, starting from init only when seeded.
    template <typename In, typename Out, typename Op, typename Acc, typename NumItemsT>
    static cudaError_t scan(const emu::call_site& at, void* d_temp, size_t& temp_bytes, In d_in, Out d_out, Op op,
                            Acc init, bool exclusive, bool seeded, NumItemsT num_items, cudaStream_t stream) {
        cudaError_t result;
        bool ok;
        if (!emu::temp_storage_ready(at, family, d_temp, temp_bytes, emu::small_temp_bytes, &result, &ok)) return result;
        const long long n = static_cast<long long>(num_items);
        ok = ok && emu::operand(at, family, "d_in", d_in, n) && emu::operand(at, family, "d_out", d_out, n);
        return emu::queue(stream, at, family, ok, [=] {
            Acc running = init;
            for (long long i = 0; i < n; ++i) {
                const Acc item = d_in[i];  // read before d_out[i] is written: d_out may be d_in
                if (exclusive) {
                    d_out[i] = running;
                    running = op(running, item);
                } else {
                    running = (seeded || i > 0) ? op(running, item) : item;
                    d_out[i] = running;
                }
            }
        });
    }
};

}  // namespace cub
