// device_histogram.cuh - cub::DeviceHistogram for one channel: HistogramEven
// (num_levels - 1 bins of equal width from lower_level up to, not including,
// upper_level) and HistogramRange (bin i holds samples in [d_levels[i],
// d_levels[i+1])), with the two-call temporary-storage protocol
// (detail/device_work.cuh). Samples outside every bin are not counted; every
// bin is written. Integer samples find their even bin in integer arithmetic,
// floating-point ones in double precision.
#pragma once

#include <type_traits>

#include <cub/detail/device_work.cuh>

namespace cub {

struct DeviceHistogram {
    template <typename SampleIteratorT, typename CounterT, typename LevelT, typename OffsetT>
    static cudaError_t HistogramEven(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                     CounterT* d_histogram, int num_levels, LevelT lower_level, LevelT upper_level,
                                     OffsetT num_samples, cudaStream_t stream = 0, CUB_EMU_CALLER) {
        const int bins = num_levels - 1;
        return histogram(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_samples, d_histogram, num_levels,
                         num_samples, stream, static_cast<const LevelT*>(nullptr), [=](const auto& sample) {
                             using S = std::decay_t<decltype(sample)>;
                             if (!(sample >= lower_level && sample < upper_level)) return -1;
                             if constexpr (std::is_integral<S>::value && std::is_integral<LevelT>::value) {
                                 return static_cast<int>((static_cast<long long>(sample) - lower_level) * bins /
                                                         (static_cast<long long>(upper_level) - lower_level));
                             } else {
                                 const int bin = static_cast<int>((static_cast<double>(sample) - lower_level) * bins /
                                                                  (static_cast<double>(upper_level) - lower_level));
                                 return bin < bins ? bin : bins - 1;
                             }
                         });
    }
    template <typename SampleIteratorT, typename CounterT, typename LevelT, typename OffsetT>
    static cudaError_t HistogramRange(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                      CounterT* d_histogram, int num_levels, const LevelT* d_levels, OffsetT num_samples,
                                      cudaStream_t stream = 0, CUB_EMU_CALLER) {
        return histogram(CUB_EMU_SITE, d_temp_storage, temp_storage_bytes, d_samples, d_histogram, num_levels,
                         num_samples, stream, d_levels, [=](const auto& sample) {
                             // The last level not above the sample, by bisection.
                             int low = 0, high = num_levels;
                             while (low < high) {
                                 const int mid = (low + high) / 2;
                                 if (sample < d_levels[mid]) high = mid;
                                 else low = mid + 1;
                             }
                             return (low == 0 || low == num_levels) ? -1 : low - 1;
                         });
    }

private:
    static constexpr const char* family = "DeviceHistogram";

    template <typename Samples, typename CounterT, typename OffsetT, typename LevelT, typename BinOf>
    static cudaError_t histogram(const emu::call_site& at, void* d_temp, size_t& temp_bytes, Samples d_samples,
                                 CounterT* d_histogram, int num_levels, OffsetT num_samples, cudaStream_t stream,
                                 const LevelT* d_levels, BinOf bin_of) {
        cudaError_t result;
        bool ok;
        if (!emu::temp_storage_ready(at, family, d_temp, temp_bytes, emu::small_temp_bytes, &result, &ok)) return result;
        if (num_levels < 2) return cudaErrorInvalidValue;
        const long long n = static_cast<long long>(num_samples);
        ok = ok && emu::operand(at, family, "d_samples", d_samples, n) &&
             emu::operand(at, family, "d_histogram", d_histogram, num_levels - 1) &&
             (!d_levels || emu::operand(at, family, "d_levels", d_levels, num_levels));
        return emu::queue(stream, at, family, ok, [=] {
            for (int b = 0; b < num_levels - 1; ++b) d_histogram[b] = 0;
            for (long long i = 0; i < n; ++i) {
                const int bin = bin_of(d_samples[i]);
                if (bin >= 0) d_histogram[bin] += 1;
            }
        });
    }
};

}  // namespace cub
