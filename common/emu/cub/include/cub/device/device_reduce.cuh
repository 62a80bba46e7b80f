// device_reduce.cuh - cub::DeviceReduce: Reduce (an operator and an initial
// value), Sum, Max, Min, ArgMax, ArgMin over num_items inputs, with the
// two-call temporary-storage protocol (detail/device_work.cuh). The inputs
// are combined left to right: a float sum may differ in its last bits from a
// GPU's, which adds in a tree. An empty input gives the initial value (Sum:
// 0; Max: the type's lowest value; Min: its largest; ArgMax/ArgMin: index 1
// with that value, as CUB documents). ReduceByKey reduces each run of equal keys.
#pragma once

#include <limits>

#include <cub/detail/device_work.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_type.cuh>

namespace cub {

struct DeviceReduce {
    template <typename InputIteratorT, typename OutputIteratorT, typename ReductionOpT, typename T, typename NumItemsT>
    static cudaError_t Reduce(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                              NumItemsT num_items, ReductionOpT reduction_op, T init, cudaStream_t stream = 0,
                              CUB_EMU_CALLER) {
        return reduce(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, reduction_op, init, stream);
    }
    template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
    static cudaError_t Sum(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                           NumItemsT num_items, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        using Out = emu::output_value_t<OutputIteratorT, emu::value_of<InputIteratorT>>;
        return reduce(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, emu::sum(), Out{}, stream);
    }
    template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
    static cudaError_t Max(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                           NumItemsT num_items, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        using In = emu::value_of<InputIteratorT>;
        return reduce(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, emu::maximum(),
                      std::numeric_limits<In>::lowest(), stream);
    }
    template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
    static cudaError_t Min(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                           NumItemsT num_items, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        using In = emu::value_of<InputIteratorT>;
        return reduce(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, emu::minimum(),
                      std::numeric_limits<In>::max(), stream);
    }
    // d_out receives a KeyValuePair<int, T>: the index (key) and the value.
    template <typename InputIteratorT, typename OutputIteratorT>
    static cudaError_t ArgMax(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                              int num_items, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return arg_extremum(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, true, stream);
    }
    template <typename InputIteratorT, typename OutputIteratorT>
    static cudaError_t ArgMin(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                              int num_items, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return arg_extremum(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, false, stream);
    }
    // CUDA 13's form: the extremum and its index to two outputs.
    template <typename InputIteratorT, typename ExtremumOutIteratorT, typename IndexOutIteratorT>
    static cudaError_t ArgMax(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in,
                              ExtremumOutIteratorT d_max_out, IndexOutIteratorT d_index_out, long long num_items,
                              cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return arg_extremum_split(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_max_out, d_index_out,
                                  num_items, true, stream);
    }
    template <typename InputIteratorT, typename ExtremumOutIteratorT, typename IndexOutIteratorT>
    static cudaError_t ArgMin(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in,
                              ExtremumOutIteratorT d_min_out, IndexOutIteratorT d_index_out, long long num_items,
                              cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return arg_extremum_split(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_min_out, d_index_out,
                                  num_items, false, stream);
    }

    // Each run of equal neighbours among the keys: its key to d_unique_out, its
    // values reduced (left to right) to d_aggregates_out; the run count to d_num_runs_out.
    template <typename KeysInputIteratorT, typename UniqueOutputIteratorT, typename ValuesInputIteratorT,
              typename AggregatesOutputIteratorT, typename NumRunsOutputIteratorT, typename ReductionOpT,
              typename NumItemsT>
    static cudaError_t ReduceByKey(void* d_temp_storage, size_t& temp_storage_bytes, KeysInputIteratorT d_keys_in,
                                   UniqueOutputIteratorT d_unique_out, ValuesInputIteratorT d_values_in,
                                   AggregatesOutputIteratorT d_aggregates_out, NumRunsOutputIteratorT d_num_runs_out,
                                   ReductionOpT reduction_op, NumItemsT num_items, cudaStream_t stream = 0,
                                   CUB_EMU_CALLER) {
        const emu::call_site at = CUB_EMU_SITE;
        cudaError_t result;
        bool ok;
        if (!emu::temp_storage_ready(at, family, d_temp_storage, temp_storage_bytes, emu::small_temp_bytes, &result, &ok))
            return result;
        const long long n = static_cast<long long>(num_items);
        ok = ok && emu::operand(at, family, "d_keys_in", d_keys_in, n) &&
             emu::operand(at, family, "d_unique_out", d_unique_out, 0) &&
             emu::operand(at, family, "d_values_in", d_values_in, n) &&
             emu::operand(at, family, "d_aggregates_out", d_aggregates_out, 0) &&
             emu::operand(at, family, "d_num_runs_out", d_num_runs_out, 1);
        return emu::queue(stream, at, family, ok, [=] {
            long long runs = 0;
            emu::for_each_run(d_keys_in, n, [&](long long begin, long long end) {
                emu::value_of<ValuesInputIteratorT> total = d_values_in[begin];
                for (long long i = begin + 1; i < end; ++i) total = reduction_op(total, d_values_in[i]);
                d_unique_out[runs] = d_keys_in[begin];
                d_aggregates_out[runs] = total;
                ++runs;
            });
            *d_num_runs_out = runs;
        });
    }

private:
    static constexpr const char* family = "DeviceReduce";

    template <typename In, typename Out, typename Op, typename T, typename NumItemsT>
    static cudaError_t reduce(const emu::call_site& at, void* d_temp, size_t& temp_bytes, In d_in, Out d_out,
                              NumItemsT num_items, Op op, T init, cudaStream_t stream) {
        cudaError_t result;
        bool ok;
        if (!emu::temp_storage_ready(at, family, d_temp, temp_bytes, emu::small_temp_bytes, &result, &ok)) return result;
        const long long n = static_cast<long long>(num_items);
        ok = ok && emu::operand(at, family, "d_in", d_in, n) && emu::operand(at, family, "d_out", d_out, 1);
        return emu::queue(stream, at, family, ok, [=] {
            T total = init;
            for (long long i = 0; i < n; ++i) total = op(total, d_in[i]);
            *d_out = total;
        });
    }

    // The index and value of the first largest (or smallest) input.
    template <typename In>
    static KeyValuePair<long long, emu::value_of<In>> find_extremum(In d_in, long long n, bool largest) {
        using T = emu::value_of<In>;
        KeyValuePair<long long, T> best(1, largest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
        for (long long i = 0; i < n; ++i) {
            const T v = d_in[i];
            if (i == 0 || (largest ? best.value < v : v < best.value)) best = KeyValuePair<long long, T>(i, v);
        }
        return best;
    }

    template <typename In, typename Out>
    static cudaError_t arg_extremum(const emu::call_site& at, void* d_temp, size_t& temp_bytes, In d_in, Out d_out,
                                    int num_items, bool largest, cudaStream_t stream) {
        cudaError_t result;
        bool ok;
        if (!emu::temp_storage_ready(at, family, d_temp, temp_bytes, emu::small_temp_bytes, &result, &ok)) return result;
        ok = ok && emu::operand(at, family, "d_in", d_in, num_items) && emu::operand(at, family, "d_out", d_out, 1);
        return emu::queue(stream, at, family, ok, [=] {
            const auto best = find_extremum(d_in, num_items, largest);
            using Pair = emu::value_of<Out>;
            *d_out = Pair(static_cast<decltype(Pair().key)>(best.key), best.value);
        });
    }

    template <typename In, typename ExtremumOut, typename IndexOut>
    static cudaError_t arg_extremum_split(const emu::call_site& at, void* d_temp, size_t& temp_bytes, In d_in,
                                          ExtremumOut d_value_out, IndexOut d_index_out, long long num_items,
                                          bool largest, cudaStream_t stream) {
        cudaError_t result;
        bool ok;
        if (!emu::temp_storage_ready(at, family, d_temp, temp_bytes, emu::small_temp_bytes, &result, &ok)) return result;
        ok = ok && emu::operand(at, family, "d_in", d_in, num_items) &&
             emu::operand(at, family, largest ? "d_max_out" : "d_min_out", d_value_out, 1) &&
             emu::operand(at, family, "d_index_out", d_index_out, 1);
        return emu::queue(stream, at, family, ok, [=] {
            const auto best = find_extremum(d_in, num_items, largest);
            *d_value_out = best.value;
            *d_index_out = best.key;
        });
    }
};

}  // namespace cub
