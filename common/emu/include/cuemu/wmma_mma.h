// cuemu/wmma_mma.h - nvcuda::wmma::mma_sync on the emulator: D = A * B + C
// for one warp. Each lane publishes its share of A and B in the warp's
// scratch area (wmma_warp.h); once the whole warp has met, each lane computes
// its own share of D from the whole A and B; the lanes meet again before any
// can overwrite the area. The rounding model is described in wmma.h.
#ifndef CUEMU_WMMA_MMA_H
#define CUEMU_WMMA_MMA_H

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "wmma.h"

namespace cuemu {
namespace wmma_detail {

template <class T>
struct input_reader {
    static double read(T v) { return input_value(v); }
};
template <>
struct input_reader<wm::precision::tf32> {
    static double read(float v) { return tf32_input_value(v); }
};

// The accumulator types CUDA 13 pairs with each input type (D and C).
template <class TIn, class TD, class TC>
constexpr bool operands_fit() {
    return std::is_same<TIn, __half>::value
               ? (std::is_same<TD, float>::value || std::is_same<TD, __half>::value) &&
                     (std::is_same<TC, float>::value || std::is_same<TC, __half>::value)
           : std::is_same<TIn, double>::value ? std::is_same<TD, double>::value && std::is_same<TC, double>::value
                                               : std::is_same<TD, float>::value && std::is_same<TC, float>::value;
}

// Each element accumulates in float (double for double inputs).
template <class TD>
struct accumulation {
    using type = float;
};
template <>
struct accumulation<double> {
    using type = double;
};

// One step of the dot product. The product of two half, bf16 or tf32 values
// fits a float exactly, so only the addition rounds (to nearest even).
inline float accumulate(float sum, double a, double b) { return sum + static_cast<float>(a) * static_cast<float>(b); }
inline double accumulate(double sum, double a, double b) { return std::fma(a, b, sum); }

inline float result_as(float v, float*) { return v; }
inline __half result_as(float v, __half*) { return __float2half(v); }
inline double result_as(double v, double*) { return v; }

// This lane's distinct elements of a tile (a __half fragment holds each twice
// or more; the first copy is the one used).
template <class TIn, class Frag>
inline void publish(const Frag& f, int tile_elements, double* area, unsigned lane) {
    for (int i = 0; i < tile_elements / 32; ++i) area[32 * i + lane] = input_reader<TIn>::read(f.x[i]);
}

}  // namespace wmma_detail
}  // namespace cuemu

namespace nvcuda {
namespace wmma {

// CUDA 13 gives the floating-point forms no satf argument (only the integer
// ones, which are not emulated), so passing one is a build error, as with nvcc.
template <int m, int n, int k, typename TD, typename TIn, typename LayoutA, typename LayoutB, typename TC>
inline void mma_sync(fragment<accumulator, m, n, k, TD>& d, const fragment<matrix_a, m, n, k, TIn, LayoutA>& a,
                     const fragment<matrix_b, m, n, k, TIn, LayoutB>& b, const fragment<accumulator, m, n, k, TC>& c,
                     CUEMU_WMMA_SITE) {
    namespace w = ::cuemu::wmma_detail;
    static_assert(w::operands_fit<TIn, TD, TC>(),
                  "nvcuda::wmma::mma_sync: these accumulators do not go with these inputs: __half inputs take "
                  "float or __half accumulators, __nv_bfloat16 and precision::tf32 take float, double takes double");
    using sum_type = typename w::accumulation<TD>::type;
    const unsigned lane = w::lane_index();
    double* a_tile = w::warp_scratch(w::warp_index());  // m x k, row by row
    double* b_tile = a_tile + w::scratch_per_warp / 2;   // k x n, row by row
    w::publish<TIn>(a, m * k, a_tile, lane);
    w::publish<TIn>(b, k * n, b_tile, lane);
    const std::uint64_t agreement =
        w::mix(w::mix(w::mix(std::uint64_t(w::call::mma), w::shape_tag<m, n, k, TIn>()), w::type_tag<TD>::value),
               w::type_tag<TC>::value);
    w::meet_whole_warp("mma_sync", agreement, cuemu_file, cuemu_line);

    sum_type share[fragment<accumulator, m, n, k, TD>::num_elements];
    for (int i = 0; i < d.num_elements; ++i) {
        const int e = 32 * static_cast<int>(i) + static_cast<int>(lane);  // an accumulator holds its tile once
        const int row = e / n, col = e % n;
        sum_type sum = w::accumulator_value(c.x[i]);
        for (int kk = 0; kk < k; ++kk) sum = w::accumulate(sum, a_tile[row * k + kk], b_tile[kk * n + col]);
        share[i] = sum;
    }
    w::leave_together(cuemu_file, cuemu_line);
    for (int i = 0; i < d.num_elements; ++i) d.x[i] = w::result_as(share[i], static_cast<TD*>(nullptr));
}

}  // namespace wmma
}  // namespace nvcuda

#endif
