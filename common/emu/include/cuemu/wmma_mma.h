// cuemu/wmma_mma.h - nvcuda::wmma::mma_sync on the emulator: D = A * B + C
// for one warp. Each lane puts where its fragments are on the warp's board
// (wmma_warp.h); once the whole warp has met, the first lane to go on
// computes every lane's share of D from the whole A, B and C, gathering A and
// B into tiles that the warp keeps for its next calls. The rounding model is
// described in wmma.h; the 8-bit integer forms are exact, then wrapped or
// clamped to int (satf).
#ifndef CUEMU_WMMA_MMA_H
#define CUEMU_WMMA_MMA_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
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
    std::uint16_t h;
    std::memcpy(&h, &v, sizeof h);
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16, magnitude = h & 0x7fffu;
    if (__builtin_expect(magnitude - 0x400u < 0x7800u, 1))  // a normal number: the exponent's bias grows by 112
        return bits_as_float(sign | ((magnitude << 13) + (112u << 23)));
    if (magnitude < 0x400u) {  // zero or subnormal: the fraction times 2^-24 (no subnormal float on the way)
        const float f = static_cast<float>(magnitude) * 0x1p-24f;
        return sign ? -f : f;
    }
    return bits_as_float(sign | 0x7f800000u | ((magnitude & 0x3ffu) << 13));  // Inf, NaN
}
CUEMU_WMMA_UNWATCHED inline float exact_float(__nv_bfloat16 v) {
    std::uint16_t h;
    std::memcpy(&h, &v, sizeof h);
    return bits_as_float(std::uint32_t(h) << 16);
}
CUEMU_WMMA_UNWATCHED inline float exact_float(float v) { return v; }
CUEMU_WMMA_UNWATCHED inline double exact_float(double v) { return v; }

// What the tensor core reads of a floating-point input element (the 8-bit
// ones are read by gather_byte_tile). The low 13 bits of a tf32 element that
// was not converted with __float_to_tf32 are not used.
template <class T>
struct input_reader {
    CUEMU_WMMA_UNWATCHED static auto read(T v) { return exact_float(v); }
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

// Gathers a whole tile (rows x cols, row by row) from the 32 lanes' fragments
// of it, as place_in says where each x[i] lies. A __half fragment holds each
// element twice or more; the first x[i] that holds it (the first
// held_per_lane) is the one used. Fragments are not device memory, so the race check is
// not told of them.
template <class Use, int m, int n, int k, class TIn, class Layout, class Element>
CUEMU_WMMA_UNWATCHED inline void gather_tile(const void* const (&fragments)[32], Element* tile) {
    using fragment = wm::fragment<Use, m, n, k, TIn, Layout>;
    constexpr int rows = tile_of<Use, m, n, k>::rows, cols = tile_of<Use, m, n, k>::cols;
    for (unsigned lane = 0; lane < 32; ++lane) {
        const fragment& f = *static_cast<const fragment*>(fragments[lane]);
        for (int i = 0; i < held_per_lane<Use, m, n, k>; ++i) {
            const place e = place_in<Use, m, n, k, TIn>(lane, i);
            tile[e.row * cols + e.col] = static_cast<Element>(input_reader<TIn>::read(f.x[i]));
        }
    }
}

// Gathers an 8-bit tile as int16 (rows x cols, row by row). An 8-bit
// fragment holds each element once, in runs of four neighbours along k
// (byte_place_of), which the gather follows: one place per run.
template <class Use, int m, int n, int k>
constexpr bool byte_runs_along_k() {
    constexpr bool by_column = std::is_same<Use, wm::matrix_b>::value;
    for (unsigned lane = 0; lane < 32; ++lane)
        for (int i = 0; i < held_per_lane<Use, m, n, k>; ++i) {
            const place first = byte_place_of<Use>(lane, i - i % 4), e = byte_place_of<Use>(lane, i);
            if (by_column ? e.row != first.row + i % 4 || e.col != first.col
                          : e.row != first.row || e.col != first.col + i % 4)
                return false;
        }
    return held_per_lane<Use, m, n, k> % 4 == 0;
}
template <class Use, int m, int n, int k, class TIn, class Layout>
CUEMU_WMMA_UNWATCHED inline void gather_byte_tile(const void* const (&fragments)[32], std::int16_t* tile) {
    static_assert(byte_runs_along_k<Use, m, n, k>(), "8-bit fragments hold runs of four along k");
    using fragment = wm::fragment<Use, m, n, k, TIn, Layout>;
    constexpr int rows = tile_of<Use, m, n, k>::rows, cols = tile_of<Use, m, n, k>::cols;
    constexpr int along_k = std::is_same<Use, wm::matrix_b>::value ? cols : 1;  // the step in the tile
    for (unsigned lane = 0; lane < 32; ++lane) {
        const fragment& f = *static_cast<const fragment*>(fragments[lane]);
        for (int i = 0; i < held_per_lane<Use, m, n, k>; i += 4) {
            const place e = byte_place_of<Use>(lane, i);
            std::int16_t* run = tile + e.row * cols + e.col;
            for (int r = 0; r < 4; ++r) run[r * along_k] = static_cast<std::int16_t>(f.x[i + r]);
        }
    }
}

// The tiles the last mma_sync calls of a warp gathered, kept for the next: a
// kernel that multiplies one A fragment by several B fragments (or the
// reverse) gathers it once. A kept tile is used again only where every lane's
// fragment is where it was and holds the same bytes, since the tile is a
// function of those bytes alone. Kept per OS thread and warp, like the board.
template <class Use, int m, int n, int k, class TIn, class Layout, class Element>
struct kept_tile {
    using fragment = wm::fragment<Use, m, n, k, TIn, Layout>;
    static constexpr int rows = tile_of<Use, m, n, k>::rows, cols = tile_of<Use, m, n, k>::cols;
    static constexpr std::size_t held_bytes =
        held_per_lane<Use, m, n, k> * sizeof(typename fragment::storage_element_type);
    bool filled = false;
    const void* from[32];
    unsigned char bytes[32][held_bytes];
    Element tile[rows * cols];

    CUEMU_WMMA_UNWATCHED bool is_of(const void* const (&fragments)[32]) const {
        if (!filled) return false;
        for (unsigned lane = 0; lane < 32; ++lane)
            if (from[lane] != fragments[lane] ||
                std::memcmp(bytes[lane], static_cast<const fragment*>(fragments[lane])->x, held_bytes) != 0)
                return false;
        return true;
    }
    CUEMU_WMMA_UNWATCHED void gather(const void* const (&fragments)[32]) {
        if constexpr (is_byte<TIn>())
            gather_byte_tile<Use, m, n, k, TIn, Layout>(fragments, tile);
        else
            gather_tile<Use, m, n, k, TIn, Layout>(fragments, tile);
        for (unsigned lane = 0; lane < 32; ++lane) {
            from[lane] = fragments[lane];
            std::memcpy(bytes[lane], static_cast<const fragment*>(fragments[lane])->x, held_bytes);
        }
        filled = true;
    }
};
template <class Use, int m, int n, int k, class TIn, class Layout, class Element>
CUEMU_WMMA_UNWATCHED inline const Element* gathered(unsigned warp, const void* const (&fragments)[32]) {
    constexpr unsigned kept = 4;  // a warp's row of B fragments in NVIDIA's GEMM samples
    struct warp_tiles {
        kept_tile<Use, m, n, k, TIn, Layout, Element> tiles[kept];
        unsigned next = 0;
    };
    static thread_local std::unique_ptr<warp_tiles[]> warps;  // made at a thread's first mma_sync of this kind
    if (!warps) warps.reset(new warp_tiles[32]);
    warp_tiles& w = warps[warp];
    for (auto& t : w.tiles)
        if (t.is_of(fragments)) return t.tile;
    auto& t = w.tiles[w.next];
    w.next = (w.next + 1) % kept;
    t.gather(fragments);
    return t.tile;
}

// The floating-point forms' whole-warp D = A * B + C, done once by one lane
// for all 32 from the board: each lane's c and d are its C elements and the
// place for its D elements (both as Sum, possibly the same array). Each
// element accumulates in k order from C's, as one lane of a GPU's tensor core
// is modelled (wmma.h); the loop over columns innermost keeps that order
// while the compiler vectorises across columns.
template <class Sum, int m, int n, int k, class TIn, class LayoutA, class LayoutB, int count>
CUEMU_WMMA_UNWATCHED inline void multiply_warp(const mma_board& board, unsigned warp) {
    // Local copies, row by row: the compiler vectorises only what nothing can alias.
    Sum a_tile[m * k], b_tile[k * n];
    std::memcpy(a_tile, gathered<wm::matrix_a, m, n, k, TIn, LayoutA, Sum>(warp, board.a), sizeof a_tile);
    std::memcpy(b_tile, gathered<wm::matrix_b, m, n, k, TIn, LayoutB, Sum>(warp, board.b), sizeof b_tile);
    Sum d_tile[m * n];
    for (unsigned lane = 0; lane < 32; ++lane) {
        const Sum* c = static_cast<const Sum*>(board.c[lane]);
        for (int i = 0; i < count; ++i) {  // an accumulator holds its tile once
            const place e = place_of<wm::accumulator, m, n, k>(lane, i);
            d_tile[e.row * n + e.col] = c[i];
        }
    }
    for (int row = 0; row < m; ++row) {
        Sum sums[n];  // a local array: nothing else can alias it
        for (int col = 0; col < n; ++col) sums[col] = d_tile[row * n + col];
        for (int kk = 0; kk < k; ++kk) {
            const Sum a = a_tile[row * k + kk];
            for (int col = 0; col < n; ++col) sums[col] = accumulate(sums[col], a, b_tile[kk * n + col]);
        }
        for (int col = 0; col < n; ++col) d_tile[row * n + col] = sums[col];
    }
    for (unsigned lane = 0; lane < 32; ++lane) {
        Sum* d = static_cast<Sum*>(board.d[lane]);
        for (int i = 0; i < count; ++i) {
            const place e = place_of<wm::accumulator, m, n, k>(lane, i);
            d[i] = d_tile[e.row * n + e.col];
        }
    }
}

// The 8-bit forms' whole-warp D = A * B + C: every element of D is C's
// element plus k = 16 products of 8-bit values, exact in 32 bits in any
// order. The products are summed across each row's columns at once (which
// the compiler vectorises as widening 16-bit multiplies); then each lane's D
// elements are its C elements plus their sums, in 64 bits, wrapped or
// clamped (satf) to int, without gathering C into a tile.
template <int m, int n, int k, class TIn, class LayoutA, class LayoutB, int count>
CUEMU_WMMA_UNWATCHED inline void multiply_warp_bytes(const mma_board& board, unsigned warp, bool satf) {
    std::int16_t a_tile[m * k], b_tile[k * n];  // local copies, row by row, as in multiply_warp
    std::memcpy(a_tile, gathered<wm::matrix_a, m, n, k, TIn, LayoutA, std::int16_t>(warp, board.a), sizeof a_tile);
    std::memcpy(b_tile, gathered<wm::matrix_b, m, n, k, TIn, LayoutB, std::int16_t>(warp, board.b), sizeof b_tile);
    std::int32_t products[m * n];
    for (int row = 0; row < m; ++row) {
        std::int32_t sums[n] = {};  // a local array: nothing else can alias it
        for (int kk = 0; kk < k; ++kk) {
            const std::int32_t a = a_tile[row * k + kk];
            for (int col = 0; col < n; ++col) sums[col] += a * std::int32_t(b_tile[kk * n + col]);
        }
        for (int col = 0; col < n; ++col) products[row * n + col] = sums[col];
    }
    for (unsigned lane = 0; lane < 32; ++lane) {
        const int* c = static_cast<const int*>(board.c[lane]);
        int* d = static_cast<int*>(board.d[lane]);
        for (int i = 0; i < count; ++i) {  // c and d may be one fragment: each x[i] is read, then written
            const place e = place_of<wm::accumulator, m, n, k>(lane, i);
            d[i] = int_result(std::int64_t(c[i]) + products[e.row * n + e.col], satf);
        }
    }
}

// What every mma_sync does after its checks: each lane puts where its A, B,
// C and D elements are on the warp's board, and the lanes meet on
// `agreement` (which includes satf). The first lane to go on computes every
// lane's D, before any other lane runs (a block's lanes take turns on one OS
// thread); the products count on the board tells the others that it is done,
// and that the board is free for the next mma_sync. The board is not device
// memory: the race check is not told of it.
template <class Sum, int m, int n, int k, class TIn, class LayoutA, class LayoutB, int count>
CUEMU_WMMA_UNWATCHED inline void add_products(const wm::fragment<wm::matrix_a, m, n, k, TIn, LayoutA>& a,
                                              const wm::fragment<wm::matrix_b, m, n, k, TIn, LayoutB>& b,
                                              const void* c, void* d, bool satf, std::uint64_t agreement,
                                              const char* file, int line) {
    const unsigned lane = lane_index(), warp = warp_index();
    mma_board& board = warp_board(warp);
    const std::uint64_t product = board.products;
    board.a[lane] = &a;
    board.b[lane] = &b;
    board.c[lane] = c;
    board.d[lane] = d;
    meet_whole_warp("mma_sync", agreement, file, line);
    if (board.products == product) {
        if constexpr (is_byte<TIn>())
            multiply_warp_bytes<m, n, k, TIn, LayoutA, LayoutB, count>(board, warp, satf);
        else
            multiply_warp<Sum, m, n, k, TIn, LayoutA, LayoutB, count>(board, warp);
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
    if constexpr (std::is_same<TC, sum_type>::value && std::is_same<TD, sum_type>::value) {
        w::add_products<sum_type, m, n, k, TIn, LayoutA, LayoutB, count>(
            a, b, c.x, d.x, false, w::mma_agreement<m, n, k, TIn, TD, TC>(), cuemu_file, cuemu_line);
    } else {  // a __half C or D: C's elements, then D's, in the type they accumulate in
        sum_type share[count];
        for (int i = 0; i < count; ++i) share[i] = w::exact_float(c.x[i]);
        w::add_products<sum_type, m, n, k, TIn, LayoutA, LayoutB, count>(
            a, b, share, share, false, w::mma_agreement<m, n, k, TIn, TD, TC>(), cuemu_file, cuemu_line);
        for (int i = 0; i < d.num_elements; ++i) d.x[i] = w::result_as(share[i], static_cast<TD*>(nullptr));
    }
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
    // Lanes that pass different satf pass different arguments.
    w::add_products<int, m, n, k, TIn, LayoutA, LayoutB, count>(
        a, b, c.x, d.x, satf, w::mix(w::mma_agreement<m, n, k, TIn, TD, TC>(), satf ? 2 : 1), cuemu_file,
        cuemu_line);
}

}  // namespace wmma
}  // namespace nvcuda

#endif
