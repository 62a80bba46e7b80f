// cuemu/wmma_mma.h - nvcuda::wmma::mma_sync on the emulator: D = A * B + C
// for one warp. Each lane publishes its share of A and B in the warp's
// scratch area (wmma_warp.h); once the whole warp has met, each lane computes
// its own share of D from the whole A and B; the lanes meet again before any
// can overwrite the area. The rounding model is described in wmma.h; the
// 8-bit integer forms are exact, then wrapped or clamped to int (satf).
#ifndef CUEMU_WMMA_MMA_H
#define CUEMU_WMMA_MMA_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "wmma.h"

namespace cuemu {
namespace wmma_detail {

// Exact conversions to float, by their bits (these run for every element of
// every mma_sync).
CUEMU_WMMA_UNWATCHED inline float bits_as_float(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}
CUEMU_WMMA_UNWATCHED inline float exact_float(__half v) {
    const std::uint32_t h = __half_as_ushort(v);
    const std::uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, fraction = h & 0x3ffu;
    if (exponent == 0) return bits_as_float(sign) + (sign ? -1.0f : 1.0f) * static_cast<float>(fraction) * 0x1p-24f;
    if (exponent == 31) return bits_as_float(sign | 0x7f800000u | (fraction << 13));  // Inf, NaN
    return bits_as_float(sign | ((exponent + 112) << 23) | (fraction << 13));
}
CUEMU_WMMA_UNWATCHED inline float exact_float(__nv_bfloat16 v) {
    return bits_as_float(std::uint32_t(__bfloat16_as_ushort(v)) << 16);
}
CUEMU_WMMA_UNWATCHED inline float exact_float(float v) { return v; }
CUEMU_WMMA_UNWATCHED inline double exact_float(double v) { return v; }

// What the tensor core reads of an input element. The low 13 bits of a tf32
// element that was not converted with __float_to_tf32 are not used.
template <class T>
struct input_reader {
    CUEMU_WMMA_UNWATCHED static auto read(T v) { return exact_float(v); }
};
template <>
struct input_reader<signed char> {
    CUEMU_WMMA_UNWATCHED static std::int64_t read(signed char v) { return v; }
};
template <>
struct input_reader<unsigned char> {
    CUEMU_WMMA_UNWATCHED static std::int64_t read(unsigned char v) { return v; }
};
template <>
struct input_reader<wm::precision::tf32> {
    CUEMU_WMMA_UNWATCHED static float read(float v) {
        std::uint32_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        return bits_as_float(bits & ~0x1fffu);
    }
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
// fits a float exactly, so only the addition rounds (to nearest even), and a
// fused multiply-add the compiler may make of it gives the same result.
CUEMU_WMMA_UNWATCHED inline float accumulate(float sum, float a, float b) { return sum + a * b; }
CUEMU_WMMA_UNWATCHED inline double accumulate(double sum, double a, double b) { return std::fma(a, b, sum); }
// 8-bit products and their sums: exact in 64 bits (16 products of at most
// 255 * 255 and a 32-bit C are far from its limits).
CUEMU_WMMA_UNWATCHED inline std::int64_t accumulate(std::int64_t sum, std::int64_t a, std::int64_t b) {
    return sum + a * b;
}

// The exact sum as an int: without satf, its low 32 bits (two's complement,
// as a 32-bit adder gives in any order of addition); with satf, clamped to
// [INT32_MIN, INT32_MAX] (PTX's .satfinite for integers).
inline int int_result(std::int64_t exact, bool satf) {
    if (satf) return static_cast<int>(exact < INT32_MIN ? INT32_MIN : exact > INT32_MAX ? INT32_MAX : exact);
    const std::uint32_t low = static_cast<std::uint32_t>(static_cast<std::uint64_t>(exact));
    std::int32_t wrapped;
    std::memcpy(&wrapped, &low, sizeof wrapped);
    return wrapped;
}

inline float result_as(float v, float*) { return v; }
inline __half result_as(float v, __half*) { return __float2half(v); }
inline double result_as(double v, double*) { return v; }

// Puts this lane's distinct elements of its fragment's tile (rows x cols,
// each where place_of says) in the scratch area, row by row, or column by
// column with `by_columns` (so that a lane's dot products read both A and B
// contiguously). A __half fragment holds each element twice or more; the
// first x[i] that holds it (the first rows * cols / 32) is the one used.
// Neither the fragment nor the area is device memory, so the race check is
// not told of them.
template <class Use, int m, int n, int k, class TIn, class Layout, class Sum>
CUEMU_WMMA_UNWATCHED inline void publish(const wm::fragment<Use, m, n, k, TIn, Layout>& f, bool by_columns, Sum* area,
                                         unsigned lane) {
    constexpr int rows = tile_of<Use, m, n, k>::rows, cols = tile_of<Use, m, n, k>::cols;
    for (int i = 0; i < rows * cols / 32; ++i) {
        const place e = place_in<Use, m, n, k, TIn>(lane, i);
        const int at = by_columns ? e.col * rows + e.row : e.row * cols + e.col;
        area[at] = static_cast<Sum>(input_reader<TIn>::read(f.x[i]));
    }
}

// This lane's share of D = A * B + C: `count` dot products of length k, run
// side by side so that they do not wait for each other's additions. The
// scratch area is the warp's own, not device memory: the race check has
// nothing to watch here.
template <int m, int n, int k, class Sum, int count>
CUEMU_WMMA_UNWATCHED inline void multiply_share(const Sum* a_rows, const Sum* b_columns, unsigned lane,
                                                Sum (&sum)[count]) {
    const Sum* a_row[count];
    const Sum* b_column[count];
    for (int i = 0; i < count; ++i) {  // an accumulator holds its tile once
        const place e = place_of<wm::accumulator, m, n, k>(lane, i);
        a_row[i] = a_rows + e.row * k;
        b_column[i] = b_columns + e.col * k;
    }
    for (int kk = 0; kk < k; ++kk)
        for (int i = 0; i < count; ++i) sum[i] = accumulate(sum[i], a_row[i][kk], b_column[i][kk]);
}

// What every mma_sync does after its checks: the lanes share A and B through
// the scratch area (meeting on `agreement`), each adds its share of A * B
// onto `share` (C's elements, as Sum), and the lanes meet again.
template <class Sum, int m, int n, int k, class TIn, class LayoutA, class LayoutB, int count>
inline void add_products(const wm::fragment<wm::matrix_a, m, n, k, TIn, LayoutA>& a,
                         const wm::fragment<wm::matrix_b, m, n, k, TIn, LayoutB>& b, std::uint64_t agreement,
                         Sum (&share)[count], const char* file, int line) {
    const unsigned lane = lane_index();
    Sum* a_rows = static_cast<Sum*>(warp_scratch(warp_index()));  // m x k
    Sum* b_columns = a_rows + scratch_elements / 2;                 // k x n, by columns
    publish(a, false, a_rows, lane);
    publish(b, true, b_columns, lane);
    meet_whole_warp("mma_sync", agreement, file, line);
    multiply_share<m, n, k>(a_rows, b_columns, lane, share);
    leave_together(file, line);
}

template <int m, int n, int k, class TIn, class TD, class TC>
std::uint64_t mma_agreement() {
    return mix(mix(mix(std::uint64_t(call::mma), shape_tag<m, n, k, TIn>()), type_tag<TD>::value),
               type_tag<TC>::value);
}

}  // namespace wmma_detail
}  // namespace cuemu

namespace nvcuda {
namespace wmma {

// CUDA 13 gives the floating-point forms no satf argument (only the integer
// ones below), so passing one is a build error, as with nvcc.
template <int m, int n, int k, typename TD, typename TIn, typename LayoutA, typename LayoutB, typename TC>
inline typename std::enable_if<!::cuemu::wmma_detail::is_byte<TIn>()>::type mma_sync(
    fragment<accumulator, m, n, k, TD>& d, const fragment<matrix_a, m, n, k, TIn, LayoutA>& a,
    const fragment<matrix_b, m, n, k, TIn, LayoutB>& b, const fragment<accumulator, m, n, k, TC>& c,
    CUEMU_WMMA_SITE) {
    namespace w = ::cuemu::wmma_detail;
    static_assert(w::operands_fit<TIn, TD, TC>(),
                  "nvcuda::wmma::mma_sync: these accumulators do not go with these inputs: __half inputs take "
                  "float or __half accumulators, __nv_bfloat16 and precision::tf32 take float, double takes double");
    using sum_type = typename w::accumulation<TD>::type;
    constexpr int count = fragment<accumulator, m, n, k, TD>::num_elements;
    sum_type share[count];
    for (int i = 0; i < count; ++i) share[i] = w::exact_float(c.x[i]);
    w::add_products(a, b, w::mma_agreement<m, n, k, TIn, TD, TC>(), share, cuemu_file, cuemu_line);
    for (int i = 0; i < d.num_elements; ++i) d.x[i] = w::result_as(share[i], static_cast<TD*>(nullptr));
}

// The 8-bit integer forms: A and B both signed char or both unsigned char (a
// mix is not declared by CUDA either: no function matches), C and D int.
// Each element of D is C's element plus the k products, computed exactly,
// then wrapped to 32 bits, or with satf clamped to the int range.
template <int m, int n, int k, typename TD, typename TIn, typename LayoutA, typename LayoutB, typename TC>
inline typename std::enable_if<::cuemu::wmma_detail::is_byte<TIn>()>::type mma_sync(
    fragment<accumulator, m, n, k, TD>& d, const fragment<matrix_a, m, n, k, TIn, LayoutA>& a,
    const fragment<matrix_b, m, n, k, TIn, LayoutB>& b, const fragment<accumulator, m, n, k, TC>& c,
    bool satf = false, CUEMU_WMMA_SITE) {
    namespace w = ::cuemu::wmma_detail;
    static_assert(std::is_same<TD, int>::value && std::is_same<TC, int>::value,
                  "nvcuda::wmma::mma_sync: signed char and unsigned char inputs take int accumulators");
    constexpr int count = fragment<accumulator, m, n, k, TD>::num_elements;
    std::int64_t share[count];
    for (int i = 0; i < count; ++i) share[i] = c.x[i];
    // Lanes that pass different satf pass different arguments.
    w::add_products(a, b, w::mix(w::mma_agreement<m, n, k, TIn, TD, TC>(), satf ? 2 : 1), share, cuemu_file,
                    cuemu_line);
    for (int i = 0; i < d.num_elements; ++i) d.x[i] = w::int_result(share[i], satf);
}

}  // namespace wmma
}  // namespace nvcuda

#endif
