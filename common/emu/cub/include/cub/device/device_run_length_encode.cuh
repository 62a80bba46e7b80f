// device_run_length_encode.cuh - cub::DeviceRunLengthEncode: Encode (each run
// of equal neighbours as its key and its length) and NonTrivialRuns (the
// offset and length of each run longer than one), the number of runs written
// to device memory, with the two-call temporary-storage protocol
// (detail/device_work.cuh).
#pragma once

#include <cub/detail/device_work.cuh>

namespace cub {

struct DeviceRunLengthEncode {
    template <typename InputIteratorT, typename UniqueOutputIteratorT, typename LengthsOutputIteratorT,
              typename NumRunsOutputIteratorT>
    static cudaError_t Encode(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in,
                              UniqueOutputIteratorT d_unique_out, LengthsOutputIteratorT d_counts_out,
                              NumRunsOutputIteratorT d_num_runs_out, int num_items, cudaStream_t stream = 0,
                              CUB_EMU_CALLER) {
        return runs(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_num_runs_out, num_items, stream,
                    "d_unique_out", d_unique_out, d_counts_out, [=](long long run, long long begin, long long end) {
                        d_unique_out[run] = d_in[begin];
                        d_counts_out[run] = end - begin;
                        return true;
                    });
    }
    template <typename InputIteratorT, typename OffsetsOutputIteratorT, typename LengthsOutputIteratorT,
              typename NumRunsOutputIteratorT>
    static cudaError_t NonTrivialRuns(void* d_temp_storage, size_t& temp_storage_bytes, InputIteratorT d_in,
                                      OffsetsOutputIteratorT d_offsets_out, LengthsOutputIteratorT d_lengths_out,
                                      NumRunsOutputIteratorT d_num_runs_out, int num_items, cudaStream_t stream = 0,
                                      CUB_EMU_CALLER) {
        return runs(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_in, d_num_runs_out, num_items, stream,
                    "d_offsets_out", d_offsets_out, d_lengths_out, [=](long long run, long long begin, long long end) {
                        if (end - begin < 2) return false;
                        d_offsets_out[run] = begin;
                        d_lengths_out[run] = end - begin;
                        return true;
                    });
    }

private:
    static constexpr const char* family = "DeviceRunLengthEncode";

    // write(run, begin, end) writes run number `run` and says whether it counted.
    template <typename In, typename Count, typename FirstOut, typename LengthsOut, typename Write>
    static cudaError_t runs(const emu::call_site& at, void* d_temp, size_t& temp_bytes, In d_in, Count d_num_runs_out,
                            int num_items, cudaStream_t stream, const char* first_name, FirstOut first_out,
                            LengthsOut lengths_out, Write write) {
        cudaError_t result;
        bool ok;
        if (!emu::temp_storage_ready(at, family, d_temp, temp_bytes, emu::small_temp_bytes, &result, &ok)) return result;
        ok = ok && emu::operand(at, family, "d_in", d_in, num_items) && emu::operand(at, family, first_name, first_out, 0) &&
             emu::operand(at, family, "lengths", lengths_out, 0) &&
             emu::operand(at, family, "d_num_runs_out", d_num_runs_out, 1);
        const long long n = num_items;
        return emu::queue(stream, at, family, ok, [=] {
            long long count = 0;
            emu::for_each_run(d_in, n, [&](long long begin, long long end) { count += write(count, begin, end); });
            *d_num_runs_out = count;
        });
    }
};

}  // namespace cub
