// cuemu/wmma_mma.h - nvcuda::wmma::mma_sync on the emulator: D = A * B + C
// for one warp. Each lane puts where its fragments are on the warp's board
// (wmma_warp.h); once the whole warp has met, the first lane to go on
// computes every lane's share of D from the whole A, B and C. The rounding
// model is described in wmma.h; the 8-bit integer forms are exact, then
// wrapped or clamped to int (satf).
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
// 8-bit products and their sums over k = 16: exact in 32 bits (at most
// 16 * 255 * 255); C's element joins them in 64 bits (multiply_warp).
CUEMU_WMMA_UNWATCHED inline std::int32_t accumulate(std::int32_t sum, std::int32_t a, std::int32_t b) {
    return sum + a * b;
}

// The exact sum as an int: without satf, its low 32 bits (two's complement,
// as a 32-bit adder gives in any order of addition); with satf, clamped to
// [INT32_MIN, INT32_MAX] (PTX's .satfinite for integers).
CUEMU_WMMA_UNWATCHED inline int int_result(std::int64_t exact, bool satf) {
    if (satf) return static_cast<int>(exact < INT32_MIN ? INT32_MIN : exact > INT32_MAX ? INT32_MAX : exact);
    const std::uint32_t low = static_cast<std::uint32_t>(static_cast<std::uint64_t>(exact));
    std::int32_t wrapped;
    std::memcpy(&wrapped, &low, sizeof wrapped);
    return wrapped;
}

CUEMU_WMMA_UNWATCHED inline float result_as(float v, float*) { return v; }
CUEMU_WMMA_UNWATCHED inline __half result_as(float v, __half*) { return __float2half(v); }
CUEMU_WMMA_UNWATCHED inline double result_as(double v, double*) { return v; }

// What a row's products are summed in before C's element joins them: for
// 8-bit inputs 32 bits (exact, see accumulate), which the compiler can
// vectorise; otherwise the sum starts from C's element itself.
template <class Sum>
struct product_sum {
    using type = Sum;
};
template <>
struct product_sum<std::int64_t> {
    using type = std::int32_t;
};

// Gathers a whole tile (rows x cols, row by row) from the 32 lanes' fragments
// of it, as place_in says where each x[i] lies. A __half fragment holds each
// element twice or more; the first x[i] that holds it (the first rows * cols
// / 32) is the one used. Fragments are not device memory, so the race check is
// not told of them.
template <class Use, int m, int n, int k, class TIn, class Layout, class Element>
CUEMU_WMMA_UNWATCHED inline void gather_tile(const void* const (&fragments)[32], Element* tile) {
    using fragment = wm::fragment<Use, m, n, k, TIn, Layout>;
    constexpr int rows = tile_of<Use, m, n, k>::rows, cols = tile_of<Use, m, n, k>::cols;
    for (unsigned lane = 0; lane < 32; ++lane) {
        const fragment& f = *static_cast<const fragment*>(fragments[lane]);
        for (int i = 0; i < rows * cols / 32; ++i) {
            const place e = place_in<Use, m, n, k, TIn>(lane, i);
            tile[e.row * cols + e.col] = static_cast<Element>(input_reader<TIn>::read(f.x[i]));
        }
    }
}

// The whole warp's D = A * B + C, done once by one lane for all 32 from the
// board: each lane's share array holds its C elements (as Sum) and receives
// its D elements. Each element accumulates in k order from C's, as one lane
// of a GPU's tensor core is modelled (wmma.h); the loop over columns
// innermost keeps that order while the compiler vectorises across columns.
template <class Sum, int m, int n, int k, class TIn, class LayoutA, class LayoutB, int count>
CUEMU_WMMA_UNWATCHED inline void multiply_warp(const mma_board& board) {
    using Product = typename product_sum<Sum>::type;
    constexpr bool separate = !std::is_same<Product, Sum>::value;
    Product a_tile[m * k], b_tile[k * n];  // row by row
    gather_tile<wm::matrix_a, m, n, k, TIn, LayoutA>(board.a, a_tile);
    gather_tile<wm::matrix_b, m, n, k, TIn, LayoutB>(board.b, b_tile);
    Sum d_tile[m * n];
    for (unsigned lane = 0; lane < 32; ++lane) {
        const Sum* share = static_cast<const Sum*>(board.share[lane]);
        for (int i = 0; i < count; ++i) {  // an accumulator holds its tile once
            const place e = place_of<wm::accumulator, m, n, k>(lane, i);
            d_tile[e.row * n + e.col] = share[i];
        }
    }
    for (int row = 0; row < m; ++row) {
        Product sums[n];  // a local array: nothing else can alias it
        for (int col = 0; col < n; ++col) sums[col] = separate ? Product{} : Product(d_tile[row * n + col]);
        for (int kk = 0; kk < k; ++kk) {
            const Product a = a_tile[row * k + kk];
            for (int col = 0; col < n; ++col) sums[col] = accumulate(sums[col], a, b_tile[kk * n + col]);
        }
        for (int col = 0; col < n; ++col)
            d_tile[row * n + col] = separate ? d_tile[row * n + col] + Sum(sums[col]) : Sum(sums[col]);
    }
    for (unsigned lane = 0; lane < 32; ++lane) {
        Sum* share = static_cast<Sum*>(board.share[lane]);
        for (int i = 0; i < count; ++i) {
            const place e = place_of<wm::accumulator, m, n, k>(lane, i);
            share[i] = d_tile[e.row * n + e.col];
        }
    }
}

// What every mma_sync does after its checks: each lane puts where its A, B
// and share (C's elements, as Sum) are on the warp's board, and the lanes
// meet on `agreement`. The first lane to go on computes every lane's share
// of A * B + C, before any other lane runs (a block's lanes take turns on one
// OS thread); the products count on the board tells the others that it is
// done, and that the board is free for the next mma_sync. The board is not
// device memory: the race check is not told of it.
template <class Sum, int m, int n, int k, class TIn, class LayoutA, class LayoutB, int count>
CUEMU_WMMA_UNWATCHED inline void add_products(const wm::fragment<wm::matrix_a, m, n, k, TIn, LayoutA>& a,
                                              const wm::fragment<wm::matrix_b, m, n, k, TIn, LayoutB>& b,
                                              std::uint64_t agreement, Sum (&share)[count], const char* file,
                                              int line) {
    const unsigned lane = lane_index();
    mma_board& board = warp_board(warp_index());
    const std::uint64_t product = board.products;
    board.a[lane] = &a;
    board.b[lane] = &b;
    board.share[lane] = share;
    meet_whole_warp("mma_sync", agreement, file, line);
    if (board.products == product) {
        multiply_warp<Sum, m, n, k, TIn, LayoutA, LayoutB, count>(board);
        board.products = product + 1;
    }
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

// mma_sync reads and writes fragments only, which are not device memory: the
// race check is not told of it.
// CUDA 13 gives the floating-point forms no satf argument (only the integer
// ones below), so passing one is a build error, as with nvcc.
template <int m, int n, int k, typename TD, typename TIn, typename LayoutA, typename LayoutB, typename TC>
CUEMU_WMMA_UNWATCHED inline typename std::enable_if<!::cuemu::wmma_detail::is_byte<TIn>()>::type mma_sync(
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
CUEMU_WMMA_UNWATCHED inline typename std::enable_if<::cuemu::wmma_detail::is_byte<TIn>()>::type mma_sync(
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
