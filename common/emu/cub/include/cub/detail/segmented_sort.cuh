// segmented_sort.cuh - what cub::DeviceSegmentedRadixSort and
// cub::DeviceSegmentedSort share: each segment [d_begin_offsets[s],
// d_end_offsets[s]) of the keys (and values) sorted on its own, stably, by
// the keys' radix order (detail/radix_order.cuh: bits [begin_bit, end_bit),
// ascending or descending), from the input buffers to the output ones, or
// within DoubleBuffer pairs (the selector flips; the result is in Current()).
// An empty segment (end <= begin) is skipped. Items in no segment are not
// written, so outputs hold there whatever they held before.
//
// The checks and queueing are those of every device-wide algorithm
// (detail/device_work.cuh): the two-call temporary-storage protocol, pointer
// operands that must be device memory, the work in stream order on the
// compute engine.
#pragma once

#include <algorithm>
#include <numeric>
#include <type_traits>
#include <vector>

#include <cub/detail/device_work.cuh>
#include <cub/detail/radix_order.cuh>
#include <cub/util_type.cuh>

namespace cub::emu {

struct segment_sort_order {
    int begin_bit;
    int end_bit;
    bool descending;
};

template <typename KeyT, typename ValueT, typename Begins, typename Ends>
void sort_segments_on_device(const KeyT* keys_in, KeyT* keys_out, const ValueT* values_in, ValueT* values_out,
                             long long num_segments, Begins begins, Ends ends, segment_sort_order order) {
    using radix = radix_order<KeyT>;
    std::vector<KeyT> keys;
    std::vector<std::uint64_t> digits;
    std::vector<long long> from;
    for (long long s = 0; s < num_segments; ++s) {
        const long long begin = static_cast<long long>(begins[s]), end = static_cast<long long>(ends[s]);
        if (end <= begin) continue;
        keys.assign(keys_in + begin, keys_in + end);
        digits.resize(keys.size());
        for (std::size_t i = 0; i < keys.size(); ++i)
            digits[i] = radix::digit(keys[i], order.begin_bit, order.end_bit, order.descending);
        from.resize(keys.size());
        std::iota(from.begin(), from.end(), 0LL);
        std::stable_sort(from.begin(), from.end(), [&](long long a, long long b) { return digits[a] < digits[b]; });
        for (std::size_t i = 0; i < keys.size(); ++i) keys_out[begin + i] = keys[from[i]];
        if constexpr (!std::is_same<ValueT, NullType>::value) {
            const std::vector<ValueT> values(values_in + begin, values_in + end);
            for (std::size_t i = 0; i < values.size(); ++i) values_out[begin + i] = values[from[i]];
        }
    }
}

// One call of either algorithm, from its arguments to its queued work.
template <typename KeyT, typename ValueT, typename Begins, typename Ends>
cudaError_t segmented_sort(const call_site& at, const char* family, void* d_temp, size_t& temp_bytes,
                           const KeyT* keys_in, KeyT* keys_out, const ValueT* values_in, ValueT* values_out,
                           long long num_items, long long num_segments, Begins begins, Ends ends,
                           segment_sort_order order, cudaStream_t stream) {
    cudaError_t result;
    bool ok;
    constexpr bool has_values = !std::is_same<ValueT, NullType>::value;
    // CUB sorts through a second copy of the keys and values in d_temp_storage.
    const std::size_t needed = small_temp_bytes + static_cast<std::size_t>(num_items > 0 ? num_items : 0) *
                                                      (sizeof(KeyT) + (has_values ? sizeof(ValueT) : 0));
    if (!temp_storage_ready(at, family, d_temp, temp_bytes, needed, &result, &ok)) return result;
    if (order.begin_bit < 0 || order.begin_bit > order.end_bit || order.end_bit > static_cast<int>(sizeof(KeyT) * 8))
        return cudaErrorInvalidValue;
    ok = ok && operand(at, family, "d_keys_in", keys_in, num_items) &&
         operand(at, family, "d_keys_out", keys_out, num_items) &&
         operand(at, family, "d_begin_offsets", begins, num_segments) &&
         operand(at, family, "d_end_offsets", ends, num_segments);
    if constexpr (has_values)
        ok = ok && operand(at, family, "d_values_in", values_in, num_items) &&
             operand(at, family, "d_values_out", values_out, num_items);
    return queue(stream, at, family, ok, [=] {
        sort_segments_on_device(keys_in, keys_out, values_in, values_out, num_segments, begins, ends, order);
    });
}

// The DoubleBuffer forms: Current() to Alternate(), then the selectors flip.
template <typename KeyT, typename ValueT, typename Begins, typename Ends>
cudaError_t segmented_sort_buffers(const call_site& at, const char* family, void* d_temp, size_t& temp_bytes,
                                   DoubleBuffer<KeyT>& keys, DoubleBuffer<ValueT>* values, long long num_items,
                                   long long num_segments, Begins begins, Ends ends, segment_sort_order order,
                                   cudaStream_t stream) {
    const ValueT* values_in = values ? values->Current() : nullptr;
    ValueT* values_out = values ? values->Alternate() : nullptr;
    const cudaError_t result = segmented_sort(at, family, d_temp, temp_bytes, keys.Current(), keys.Alternate(), values_in,
                                              values_out, num_items, num_segments, begins, ends, order, stream);
    if (d_temp != nullptr && result == cudaSuccess) {
        keys.selector ^= 1;
        if (values) values->selector ^= 1;
    }
    return result;
}

}  // namespace cub::emu

// The public calls of both algorithms: each name in two forms, input to output
// buffers and within DoubleBuffers. count_type is the type of num_items and
// num_segments; bit_params the bit-range parameters after the offsets, in
// parentheses (empty for DeviceSegmentedSort), and bits the range they give.
#define CUB_EMU_UNPAREN(...) __VA_ARGS__
#define CUB_EMU_SEGMENTED_SORT_PAIRS(name, descending, count_type, bit_params, bits)                                   \
    template <typename KeyT, typename ValueT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>              \
    static cudaError_t name(void* d_temp_storage, size_t& temp_storage_bytes, const KeyT* d_keys_in,                   \
                            KeyT* d_keys_out, const ValueT* d_values_in, ValueT* d_values_out,                         \
                            count_type num_items, count_type num_segments, BeginOffsetIteratorT d_begin_offsets,       \
                            EndOffsetIteratorT d_end_offsets CUB_EMU_UNPAREN bit_params,                               \
                            cudaStream_t stream = 0, CUB_EMU_CALLER) {                                                 \
        return emu::segmented_sort(CUB_EMU_SITE, family, d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,    \
                                   d_values_in, d_values_out, num_items, num_segments, d_begin_offsets,                \
                                   d_end_offsets, {CUB_EMU_UNPAREN bits, descending}, stream);                         \
    }                                                                                                                  \
    template <typename KeyT, typename ValueT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>              \
    static cudaError_t name(void* d_temp_storage, size_t& temp_storage_bytes, DoubleBuffer<KeyT>& d_keys,              \
                            DoubleBuffer<ValueT>& d_values,                                                            \
                            count_type num_items, count_type num_segments, BeginOffsetIteratorT d_begin_offsets,       \
                            EndOffsetIteratorT d_end_offsets CUB_EMU_UNPAREN bit_params,                               \
                            cudaStream_t stream = 0, CUB_EMU_CALLER) {                                                 \
        return emu::segmented_sort_buffers(CUB_EMU_SITE, family, d_temp_storage, temp_storage_bytes, d_keys,           \
                                           &d_values, num_items, num_segments, d_begin_offsets, d_end_offsets,         \
                                           {CUB_EMU_UNPAREN bits, descending}, stream);                                \
    }
#define CUB_EMU_SEGMENTED_SORT_KEYS(name, descending, count_type, bit_params, bits)                                    \
    template <typename KeyT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>                               \
    static cudaError_t name(void* d_temp_storage, size_t& temp_storage_bytes, const KeyT* d_keys_in,                   \
                            KeyT* d_keys_out,                                                                          \
                            count_type num_items, count_type num_segments, BeginOffsetIteratorT d_begin_offsets,       \
                            EndOffsetIteratorT d_end_offsets CUB_EMU_UNPAREN bit_params,                               \
                            cudaStream_t stream = 0, CUB_EMU_CALLER) {                                                 \
        return emu::segmented_sort(CUB_EMU_SITE, family, d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,    \
                                   static_cast<const NullType*>(nullptr), static_cast<NullType*>(nullptr),             \
                                   num_items, num_segments, d_begin_offsets, d_end_offsets,                            \
                                   {CUB_EMU_UNPAREN bits, descending}, stream);                                        \
    }                                                                                                                  \
    template <typename KeyT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>                               \
    static cudaError_t name(void* d_temp_storage, size_t& temp_storage_bytes, DoubleBuffer<KeyT>& d_keys,              \
                            count_type num_items, count_type num_segments, BeginOffsetIteratorT d_begin_offsets,       \
                            EndOffsetIteratorT d_end_offsets CUB_EMU_UNPAREN bit_params,                               \
                            cudaStream_t stream = 0, CUB_EMU_CALLER) {                                                 \
        return emu::segmented_sort_buffers(CUB_EMU_SITE, family, d_temp_storage, temp_storage_bytes, d_keys,           \
                                           static_cast<DoubleBuffer<NullType>*>(nullptr), num_items, num_segments,     \
                                           d_begin_offsets, d_end_offsets, {CUB_EMU_UNPAREN bits, descending}, stream); \
    }
