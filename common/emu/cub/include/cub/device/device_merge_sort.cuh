// device_merge_sort.cuh - cub::DeviceMergeSort: SortKeys, SortPairs (in
// place), SortKeysCopy, SortPairsCopy (to other buffers) and the StableSort
// forms, ordered by the program's compare_op, stably (as CUB's merge sort
// is), with the two-call temporary-storage protocol (detail/device_work.cuh).
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

#include <cub/detail/device_work.cuh>
#include <cub/util_type.cuh>

namespace cub {

struct DeviceMergeSort {
    template <typename KeyIteratorT, typename ValueIteratorT, typename OffsetT, typename CompareOpT>
    static cudaError_t SortPairs(void* d_temp_storage, size_t& temp_storage_bytes, KeyIteratorT d_keys,
                                 ValueIteratorT d_items, OffsetT num_items, CompareOpT compare_op, cudaStream_t stream = 0,
                                 CUB_EMU_CALLER) {
        return sort(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_keys, d_items, d_keys, d_items, true,
                    num_items, compare_op, stream);
    }
    template <typename KeyInputIteratorT, typename ValueInputIteratorT, typename KeyIteratorT, typename ValueIteratorT,
              typename OffsetT, typename CompareOpT>
    static cudaError_t SortPairsCopy(void* d_temp_storage, size_t& temp_storage_bytes, KeyInputIteratorT d_input_keys,
                                     ValueInputIteratorT d_input_items, KeyIteratorT d_output_keys,
                                     ValueIteratorT d_output_items, OffsetT num_items, CompareOpT compare_op,
                                     cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return sort(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_input_keys, d_input_items, d_output_keys,
                    d_output_items, true, num_items, compare_op, stream);
    }
    template <typename KeyIteratorT, typename OffsetT, typename CompareOpT>
    static cudaError_t SortKeys(void* d_temp_storage, size_t& temp_storage_bytes, KeyIteratorT d_keys, OffsetT num_items,
                                CompareOpT compare_op, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return sort(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_keys, static_cast<NullType*>(nullptr), d_keys,
                    static_cast<NullType*>(nullptr), false, num_items, compare_op, stream);
    }
    template <typename KeyInputIteratorT, typename KeyIteratorT, typename OffsetT, typename CompareOpT>
    static cudaError_t SortKeysCopy(void* d_temp_storage, size_t& temp_storage_bytes, KeyInputIteratorT d_input_keys,
                                    KeyIteratorT d_output_keys, OffsetT num_items, CompareOpT compare_op,
                                    cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return sort(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_input_keys, static_cast<NullType*>(nullptr),
                    d_output_keys, static_cast<NullType*>(nullptr), false, num_items, compare_op, stream);
    }
    template <typename KeyIteratorT, typename ValueIteratorT, typename OffsetT, typename CompareOpT>
    static cudaError_t StableSortPairs(void* d_temp_storage, size_t& temp_storage_bytes, KeyIteratorT d_keys,
                                       ValueIteratorT d_items, OffsetT num_items, CompareOpT compare_op,
                                       cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return sort(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_keys, d_items, d_keys, d_items, true,
                    num_items, compare_op, stream);
    }
    template <typename KeyIteratorT, typename OffsetT, typename CompareOpT>
    static cudaError_t StableSortKeys(void* d_temp_storage, size_t& temp_storage_bytes, KeyIteratorT d_keys,
                                      OffsetT num_items, CompareOpT compare_op, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return sort(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_keys, static_cast<NullType*>(nullptr), d_keys,
                    static_cast<NullType*>(nullptr), false, num_items, compare_op, stream);
    }

private:
    static constexpr const char* family = "DeviceMergeSort";

    template <typename KeysIn, typename ValuesIn, typename KeysOut, typename ValuesOut, typename OffsetT, typename Compare>
    static cudaError_t sort(const emu::call_site& at, void* d_temp, size_t& temp_bytes, KeysIn keys_in,
                            ValuesIn values_in, KeysOut keys_out, ValuesOut values_out, bool with_values,
                            OffsetT num_items, Compare compare, cudaStream_t stream) {
        cudaError_t result;
        bool ok;
        const long long n = static_cast<long long>(num_items);
        if (!emu::temp_storage_ready(at, family, d_temp, temp_bytes, emu::small_temp_bytes, &result, &ok)) return result;
        ok = ok && emu::operand(at, family, "keys", keys_in, n) && emu::operand(at, family, "output keys", keys_out, n);
        if (with_values)
            ok = ok && emu::operand(at, family, "items", values_in, n) &&
                 emu::operand(at, family, "output items", values_out, n);
        return emu::queue(stream, at, family, ok, [=] {
            using Key = emu::value_of<KeysIn>;
            std::vector<Key> keys(static_cast<std::size_t>(n));
            for (long long i = 0; i < n; ++i) keys[i] = keys_in[i];
            std::vector<long long> from(static_cast<std::size_t>(n));
            std::iota(from.begin(), from.end(), 0LL);
            std::stable_sort(from.begin(), from.end(), [&](long long a, long long b) { return compare(keys[a], keys[b]); });
            if (with_values) {
                using Value = emu::value_of<ValuesIn>;
                std::vector<Value> values(static_cast<std::size_t>(n));
                for (long long i = 0; i < n; ++i) values[i] = values_in[i];
                for (long long i = 0; i < n; ++i) values_out[i] = values[from[i]];
            }
            for (long long i = 0; i < n; ++i) keys_out[i] = keys[from[i]];
        });
    }
};

}  // namespace cub
