// device_segmented_reduce.cuh - cub::DeviceSegmentedReduce: one reduction per
// segment [d_begin_offsets[s], d_end_offsets[s]) of d_in, to d_out[s]:
// Reduce (an operator and an initial value), Sum, Max, Min, ArgMax, ArgMin
// (the index within the segment), with the two-call temporary-storage
// protocol (detail/device_work.cuh). An empty segment gives the initial value
// (ArgMax/ArgMin: index 1 with the type's lowest or largest value, as CUB).
#pragma once

#include <limits>

#include <cub/detail/device_work.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_type.cuh>

namespace cub {

struct DeviceSegmentedReduce {
    template <typename InputIteratorT, typename OutputIteratorT, typename BeginOffsetIteratorT,
              typename EndOffsetIteratorT, typename ReductionOpT, typename T>
    static cudaError_t Reduce(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                              int num_segments, BeginOffsetIteratorT d_begin_offsets, EndOffsetIteratorT d_end_offsets,
                              ReductionOpT reduction_op, T initial_value, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return segments(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets,
                        d_end_offsets, stream, [=](InputIteratorT in, long long begin, long long end) {
                            T total = initial_value;
                            for (long long i = begin; i < end; ++i) total = reduction_op(total, in[i]);
                            return total;
                        });
    }
    template <typename InputIteratorT, typename OutputIteratorT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
    static cudaError_t Sum(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                           int num_segments, BeginOffsetIteratorT d_begin_offsets, EndOffsetIteratorT d_end_offsets,
                           cudaStream_t stream = 0, CUB_EMU_CALLER) {
        using Out = emu::output_value_t<OutputIteratorT, emu::value_of<InputIteratorT>>;
        return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets,
                      emu::sum(), Out{}, stream, cub_emu_file, cub_emu_line);
    }
    template <typename InputIteratorT, typename OutputIteratorT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
    static cudaError_t Max(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                           int num_segments, BeginOffsetIteratorT d_begin_offsets, EndOffsetIteratorT d_end_offsets,
                           cudaStream_t stream = 0, CUB_EMU_CALLER) {
        using In = emu::value_of<InputIteratorT>;
        return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets,
                      emu::maximum(), std::numeric_limits<In>::lowest(), stream, cub_emu_file, cub_emu_line);
    }
    template <typename InputIteratorT, typename OutputIteratorT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
    static cudaError_t Min(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                           int num_segments, BeginOffsetIteratorT d_begin_offsets, EndOffsetIteratorT d_end_offsets,
                           cudaStream_t stream = 0, CUB_EMU_CALLER) {
        using In = emu::value_of<InputIteratorT>;
        return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets,
                      emu::minimum(), std::numeric_limits<In>::max(), stream, cub_emu_file, cub_emu_line);
    }
    template <typename InputIteratorT, typename OutputIteratorT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
    static cudaError_t ArgMax(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                              int num_segments, BeginOffsetIteratorT d_begin_offsets, EndOffsetIteratorT d_end_offsets,
                              cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return arg_extremum(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments,
                            d_begin_offsets, d_end_offsets, true, stream);
    }
    template <typename InputIteratorT, typename OutputIteratorT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
    static cudaError_t ArgMin(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                              int num_segments, BeginOffsetIteratorT d_begin_offsets, EndOffsetIteratorT d_end_offsets,
                              cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return arg_extremum(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments,
                            d_begin_offsets, d_end_offsets, false, stream);
    }

private:
    static constexpr const char* family = "DeviceSegmentedReduce";

    template <typename In, typename Out, typename Begins, typename Ends, typename ReduceSegment>
    static cudaError_t segments(const emu::call_site& at, void* d_temp, size_t& temp_bytes, In d_in, Out d_out,
                                int num_segments, Begins d_begin, Ends d_end, cudaStream_t stream,
                                ReduceSegment reduce_segment) {
        cudaError_t result;
        bool ok;
        if (!emu::temp_storage_ready(at, family, d_temp, temp_bytes, emu::small_temp_bytes, &result, &ok)) return result;
        ok = ok && emu::operand(at, family, "d_in", d_in, 0) && emu::operand(at, family, "d_out", d_out, num_segments) &&
             emu::operand(at, family, "d_begin_offsets", d_begin, num_segments) &&
             emu::operand(at, family, "d_end_offsets", d_end, num_segments);
        return emu::queue(stream, at, family, ok, [=] {
            for (int s = 0; s < num_segments; ++s) d_out[s] = reduce_segment(d_in, d_begin[s], d_end[s]);
        });
    }

    template <typename In, typename Out, typename Begins, typename Ends>
    static cudaError_t arg_extremum(const emu::call_site& at, void* d_temp, size_t& temp_bytes, In d_in, Out d_out,
                                    int num_segments, Begins d_begin, Ends d_end, bool largest, cudaStream_t stream) {
        using T = emu::value_of<In>;
        using Pair = emu::value_of<Out>;
        using Key = decltype(Pair().key);
        return segments(at, d_temp, temp_bytes, d_in, d_out, num_segments, d_begin, d_end,
                        [=](In in, long long begin, long long end) {
                            Pair best(Key(1), largest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
                            for (long long i = begin; i < end; ++i) {
                                const T v = in[i];
                                if (i == begin || (largest ? best.value < v : v < best.value))
                                    best = Pair(static_cast<Key>(i - begin), v);
                            }
                            return best;
                        });
    }
};

}  // namespace cub
