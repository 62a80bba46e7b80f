// device_radix_sort.cuh - cub::DeviceRadixSort: SortKeys, SortPairs and their
// Descending forms, from one buffer to another or within a DoubleBuffer
// pair, by the bits [begin_bit, end_bit) of each key's radix order
// (detail/radix_order.cuh), stably, with the two-call temporary-storage
// protocol (detail/device_work.cuh). With DoubleBuffers the result is in the
// Current() buffers when the call returns (the selector flips, as CUB's may).
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

#include <cub/detail/device_work.cuh>
#include <cub/detail/radix_order.cuh>
#include <cub/util_type.cuh>

namespace cub {

struct DeviceRadixSort {
    template <typename KeyT, typename ValueT, typename NumItemsT>
    static cudaError_t SortPairs(void* d_temp_storage, size_t& temp_storage_bytes, const KeyT* d_keys_in,
                                 KeyT* d_keys_out, const ValueT* d_values_in, ValueT* d_values_out, NumItemsT num_items,
                                 int begin_bit = 0, int end_bit = sizeof(KeyT) * 8, cudaStream_t stream = 0,
                                 CUB_EMU_CALLER) {
        return sort(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out,
                    num_items, begin_bit, end_bit, false, stream);
    }
    template <typename KeyT, typename ValueT, typename NumItemsT>
    static cudaError_t SortPairs(void* d_temp_storage, size_t& temp_storage_bytes, DoubleBuffer<KeyT>& d_keys,
                                 DoubleBuffer<ValueT>& d_values, NumItemsT num_items, int begin_bit = 0,
                                 int end_bit = sizeof(KeyT) * 8, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return sort_buffers(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_keys, &d_values, num_items, begin_bit,
                            end_bit, false, stream);
    }
    template <typename KeyT, typename ValueT, typename NumItemsT>
    static cudaError_t SortPairsDescending(void* d_temp_storage, size_t& temp_storage_bytes, const KeyT* d_keys_in,
                                           KeyT* d_keys_out, const ValueT* d_values_in, ValueT* d_values_out,
                                           NumItemsT num_items, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                                           cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return sort(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out,
                    num_items, begin_bit, end_bit, true, stream);
    }
    template <typename KeyT, typename ValueT, typename NumItemsT>
    static cudaError_t SortPairsDescending(void* d_temp_storage, size_t& temp_storage_bytes, DoubleBuffer<KeyT>& d_keys,
                                           DoubleBuffer<ValueT>& d_values, NumItemsT num_items, int begin_bit = 0,
                                           int end_bit = sizeof(KeyT) * 8, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return sort_buffers(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_keys, &d_values, num_items, begin_bit,
                            end_bit, true, stream);
    }
    template <typename KeyT, typename NumItemsT>
    static cudaError_t SortKeys(void* d_temp_storage, size_t& temp_storage_bytes, const KeyT* d_keys_in, KeyT* d_keys_out,
                                NumItemsT num_items, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                                cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return sort(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                    static_cast<const NullType*>(nullptr), static_cast<NullType*>(nullptr), num_items, begin_bit,
                    end_bit, false, stream);
    }
    template <typename KeyT, typename NumItemsT>
    static cudaError_t SortKeys(void* d_temp_storage, size_t& temp_storage_bytes, DoubleBuffer<KeyT>& d_keys,
                                NumItemsT num_items, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                                cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return sort_buffers(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_keys,
                            static_cast<DoubleBuffer<NullType>*>(nullptr), num_items, begin_bit, end_bit, false, stream);
    }
    template <typename KeyT, typename NumItemsT>
    static cudaError_t SortKeysDescending(void* d_temp_storage, size_t& temp_storage_bytes, const KeyT* d_keys_in,
                                          KeyT* d_keys_out, NumItemsT num_items, int begin_bit = 0,
                                          int end_bit = sizeof(KeyT) * 8, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return sort(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                    static_cast<const NullType*>(nullptr), static_cast<NullType*>(nullptr), num_items, begin_bit,
                    end_bit, true, stream);
    }
    template <typename KeyT, typename NumItemsT>
    static cudaError_t SortKeysDescending(void* d_temp_storage, size_t& temp_storage_bytes, DoubleBuffer<KeyT>& d_keys,
                                          NumItemsT num_items, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                                          cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return sort_buffers(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_keys,
                            static_cast<DoubleBuffer<NullType>*>(nullptr), num_items, begin_bit, end_bit, true, stream);
    }

private:
    static constexpr const char* family = "DeviceRadixSort";

    // Sorts n keys (and values, unless ValueT is NullType) from the inputs to
    // the outputs on the device engine; the inputs are read whole first.
    template <typename KeyT, typename ValueT>
    static void sort_on_device(const KeyT* keys_in, KeyT* keys_out, const ValueT* values_in, ValueT* values_out,
                               long long n, int begin_bit, int end_bit, bool descending) {
        using order = emu::radix_order<KeyT>;
        std::vector<KeyT> keys(keys_in, keys_in + n);
        std::vector<std::uint64_t> digits(static_cast<std::size_t>(n));
        for (long long i = 0; i < n; ++i) digits[i] = order::digit(keys[i], begin_bit, end_bit, descending);
        std::vector<long long> from(static_cast<std::size_t>(n));
        std::iota(from.begin(), from.end(), 0LL);
        std::stable_sort(from.begin(), from.end(), [&](long long a, long long b) { return digits[a] < digits[b]; });
        for (long long i = 0; i < n; ++i) keys_out[i] = keys[from[i]];
        if constexpr (!std::is_same<ValueT, NullType>::value) {
            std::vector<ValueT> values(values_in, values_in + n);
            for (long long i = 0; i < n; ++i) values_out[i] = values[from[i]];
        }
    }

    template <typename KeyT>
    static bool bits_valid(int begin_bit, int end_bit) {
        return 0 <= begin_bit && begin_bit <= end_bit && end_bit <= static_cast<int>(sizeof(KeyT) * 8);
    }

    template <typename KeyT, typename ValueT, typename NumItemsT>
    static cudaError_t sort(const emu::call_site& at, void* d_temp, size_t& temp_bytes, const KeyT* keys_in,
                            KeyT* keys_out, const ValueT* values_in, ValueT* values_out, NumItemsT num_items,
                            int begin_bit, int end_bit, bool descending, cudaStream_t stream) {
        cudaError_t result;
        bool ok;
        const long long n = static_cast<long long>(num_items);
        // CUB sorts through a second copy of the keys and values in d_temp_storage.
        const std::size_t needed = emu::small_temp_bytes + static_cast<std::size_t>(n > 0 ? n : 0) *
                                                              (sizeof(KeyT) + (std::is_same<ValueT, NullType>::value ? 0 : sizeof(ValueT)));
        if (!emu::temp_storage_ready(at, family, d_temp, temp_bytes, needed, &result, &ok)) return result;
        if (!bits_valid<KeyT>(begin_bit, end_bit)) return cudaErrorInvalidValue;
        ok = ok && emu::operand(at, family, "d_keys_in", keys_in, n) && emu::operand(at, family, "d_keys_out", keys_out, n);
        if constexpr (!std::is_same<ValueT, NullType>::value)
            ok = ok && emu::operand(at, family, "d_values_in", values_in, n) &&
                 emu::operand(at, family, "d_values_out", values_out, n);
        return emu::queue(stream, at, family, ok, [=] {
            sort_on_device(keys_in, keys_out, values_in, values_out, n, begin_bit, end_bit, descending);
        });
    }

    template <typename KeyT, typename ValueT, typename NumItemsT>
    static cudaError_t sort_buffers(const emu::call_site& at, void* d_temp, size_t& temp_bytes, DoubleBuffer<KeyT>& keys,
                                    DoubleBuffer<ValueT>* values, NumItemsT num_items, int begin_bit, int end_bit,
                                    bool descending, cudaStream_t stream) {
        cudaError_t result;
        bool ok;
        const long long n = static_cast<long long>(num_items);
        if (!emu::temp_storage_ready(at, family, d_temp, temp_bytes, emu::small_temp_bytes, &result, &ok)) return result;
        if (!bits_valid<KeyT>(begin_bit, end_bit)) return cudaErrorInvalidValue;
        ok = ok && emu::operand(at, family, "d_keys.Current()", keys.Current(), n) &&
             emu::operand(at, family, "d_keys.Alternate()", keys.Alternate(), n);
        const KeyT* keys_in = keys.Current();
        KeyT* keys_out = keys.Alternate();
        const ValueT* values_in = nullptr;
        ValueT* values_out = nullptr;
        keys.selector ^= 1;
        if (values) {
            ok = ok && emu::operand(at, family, "d_values.Current()", values->Current(), n) &&
                 emu::operand(at, family, "d_values.Alternate()", values->Alternate(), n);
            values_in = values->Current();
            values_out = values->Alternate();
            values->selector ^= 1;
        }
        return emu::queue(stream, at, family, ok, [=] {
            sort_on_device(keys_in, keys_out, values_in, values_out, n, begin_bit, end_bit, descending);
        });
    }
};

}  // namespace cub
