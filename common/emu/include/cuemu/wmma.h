// cuemu/wmma.h - namespace nvcuda::wmma (<mma.h>) on the emulator: the tags,
// fragment<Use, m, n, k, T, Layout>, fill_fragment, load_matrix_sync,
// store_matrix_sync, mma_sync and __float_to_tf32.
//
// Emulated: __half and __nv_bfloat16 inputs in m16n16k16, m32n8k16 and
// m8n32k16 (float accumulators, and __half ones for __half inputs), signed
// char and unsigned char inputs in the same shapes (int accumulators),
// precision::tf32 in m16n16k8 (float accumulator) and double in m8n8k4. Any
// other fragment (sub-byte, 1-bit) is a static_assert naming what is emulated.
//
// Each lane holds its own share of a tile, num_elements values, as on a GPU
// (the counts are CUDA 13's). Which element of the tile x[i] of a lane is, is
// unspecified by CUDA; here it is what an H200 with CUDA 13.0 does (measured
// with tests/emu/wmma_layout_dump.cu), whatever the memory layout: see
// place_of below. Where a GPU's fragment holds every element more than once
// (__half A and B), so does this one. The 8-bit A and B fragments were not
// measured on a GPU: they follow a rule of the emulator's own (byte_place_of),
// and int accumulators that of float ones.
//
// Rounding, the model: products of the inputs are exact (they are in float
// for __half, bf16 and tf32), and each output element is accumulated in float
// (double for double, with fma) in k order, starting from C's element; a
// __half accumulator is rounded to half once, at the end. A GPU also forms
// exact products and accumulates in at least single precision, but in its own
// order and rounding, so results agree to within a few float roundings per
// element, not bit for bit. Integer fragments (wmma_mma.h) are exact: the
// products and their sum with C's element in 64 bits, then wrapped to 32 bits
// (two's complement), or with satf clamped to the int range. See
// common/emu/README.md, "Tensor cores (wmma)".
#ifndef CUEMU_WMMA_H
#define CUEMU_WMMA_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../cuda_bf16.h"
#include "../cuda_fp16.h"
#include "wmma_warp.h"

namespace nvcuda {
namespace wmma {

struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;
namespace precision {
struct tf32;
}
// Named so that a program using them meets the fragment's static_assert
// rather than an unknown name: sub-byte and 1-bit tensor cores are not emulated.
namespace experimental {
namespace precision {
struct u4;
struct s4;
struct b1;
}  // namespace precision
enum bmmaBitOp { bmmaBitOpXOR = 1, bmmaBitOpAND = 2 };
enum bmmaAccumulateOp { bmmaAccumulateOpPOPC = 1 };
}  // namespace experimental

enum layout_t { mem_row_major, mem_col_major };

// cvt.rna.tf32.f32: to 10 fraction bits, to nearest, ties away from zero;
// the result is a float whose low 13 bits are zero.
inline float __float_to_tf32(float in) {
    std::uint32_t bits;
    std::memcpy(&bits, &in, sizeof bits);
    if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & ~0x1fffu;  // NaN, Inf kept
    float out;
    std::memcpy(&out, &bits, sizeof out);
    return out;
}

}  // namespace wmma
}  // namespace nvcuda

// The caller's file and line, for the reports (as builtins.h's warp functions).
#define CUEMU_WMMA_SITE const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()

namespace cuemu {
namespace wmma_detail {
namespace wm = ::nvcuda::wmma;

template <class T>
using identity = typename std::enable_if<true, T>::type;  // keeps T from being deduced here

constexpr bool is_shape(int m, int n, int k, int mm, int nn, int kk) { return m == mm && n == nn && k == kk; }
constexpr bool is_half_shape(int m, int n, int k) {
    return is_shape(m, n, k, 16, 16, 16) || is_shape(m, n, k, 32, 8, 16) || is_shape(m, n, k, 8, 32, 16);
}

// 8-bit integer inputs (A and B of one mma_sync are both signed or both unsigned).
template <class T>
constexpr bool is_byte() {
    return std::is_same<T, signed char>::value || std::is_same<T, unsigned char>::value;
}

template <class T>
constexpr bool input_supported(int m, int n, int k) {
    return ((std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value || is_byte<T>()) &&
            is_half_shape(m, n, k)) ||
           (std::is_same<T, wm::precision::tf32>::value && is_shape(m, n, k, 16, 16, 8)) ||
           (std::is_same<T, double>::value && is_shape(m, n, k, 8, 8, 4));
}

template <class T>
constexpr bool accumulator_supported(int m, int n, int k) {
    return (std::is_same<T, float>::value && (is_half_shape(m, n, k) || is_shape(m, n, k, 16, 16, 8))) ||
           ((std::is_same<T, __half>::value || std::is_same<T, int>::value) && is_half_shape(m, n, k)) ||
           (std::is_same<T, double>::value && is_shape(m, n, k, 8, 8, 4));
}

template <class Use, int m, int n, int k>
struct tile_of;  // rows x cols of the matrix a fragment holds
template <int m, int n, int k>
struct tile_of<wm::matrix_a, m, n, k> { static constexpr int rows = m, cols = k; };
template <int m, int n, int k>
struct tile_of<wm::matrix_b, m, n, k> { static constexpr int rows = k, cols = n; };
template <int m, int n, int k>
struct tile_of<wm::accumulator, m, n, k> { static constexpr int rows = m, cols = n; };
// How many distinct elements of its tile each lane holds (a __half A or B
// fragment holds them more than once).
template <class Use, int m, int n, int k>
constexpr int held_per_lane = tile_of<Use, m, n, k>::rows * tile_of<Use, m, n, k>::cols / 32;

template <class Use, int m, int n, int k, class T, class Layout>
struct fragment_traits {
    static constexpr bool is_use = std::is_same<Use, wm::matrix_a>::value || std::is_same<Use, wm::matrix_b>::value ||
                                   std::is_same<Use, wm::accumulator>::value;
    static constexpr bool is_accumulator = std::is_same<Use, wm::accumulator>::value;
    static constexpr bool layout_fits =
        is_accumulator ? std::is_void<Layout>::value
                       : std::is_same<Layout, wm::row_major>::value || std::is_same<Layout, wm::col_major>::value;
    static constexpr bool supported =
        is_use && (is_accumulator ? accumulator_supported<T>(m, n, k) : input_supported<T>(m, n, k));
    static constexpr int rows = supported ? tile_of<Use, m, n, k>::rows : 32;
    static constexpr int cols = supported ? tile_of<Use, m, n, k>::cols : 1;
    // CUDA 13's counts: a __half A or B fragment holds 16 values per lane
    // whatever the shape; every other fragment holds its tile exactly once.
    static constexpr int count = (!is_accumulator && std::is_same<T, __half>::value) ? 16 : rows * cols / 32;
};

template <class T, int size>
struct alignas(8) fragment_base {
    enum { num_elements = size };
    enum { num_storage_elements = size };
    using element_type = T;
    using storage_element_type =
        typename std::conditional<std::is_same<T, wm::precision::tf32>::value, float, T>::type;
    storage_element_type x[size];
};

}  // namespace wmma_detail
}  // namespace cuemu

namespace nvcuda {
namespace wmma {

template <typename Use, int m, int n, int k, typename T, typename Layout = void>
class fragment
    : public ::cuemu::wmma_detail::fragment_base<T, ::cuemu::wmma_detail::fragment_traits<Use, m, n, k, T, Layout>::count> {
    using traits = ::cuemu::wmma_detail::fragment_traits<Use, m, n, k, T, Layout>;
    static_assert(traits::is_use, "nvcuda::wmma::fragment: the first argument must be matrix_a, matrix_b or accumulator");
    static_assert(traits::supported,
                  "nvcuda::wmma::fragment: this element type and shape is not emulated. The emulator has "
                  "__half and __nv_bfloat16 inputs in m16n16k16, m32n8k16 and m8n32k16 (float accumulators, or "
                  "__half ones for __half inputs), signed char and unsigned char inputs in the same shapes (int "
                  "accumulators), precision::tf32 in m16n16k8 (float accumulator) and double in m8n8k4; the "
                  "experimental sub-byte and 1-bit tensor cores are not emulated");
    static_assert(traits::layout_fits,
                  "nvcuda::wmma::fragment: matrix_a and matrix_b fragments take row_major or col_major; "
                  "accumulators take none (their layout is given to load_matrix_sync and store_matrix_sync)");
};

// Not warp-wide: each lane fills its own share (every lane normally passes
// the same value, since which elements a lane holds is unspecified by CUDA).
template <typename Use, int m, int n, int k, typename T, typename Layout>
inline void fill_fragment(fragment<Use, m, n, k, T, Layout>& f,
                          const typename fragment<Use, m, n, k, T, Layout>::storage_element_type& v) {
    for (auto& e : f.x) e = v;
}

}  // namespace wmma
}  // namespace nvcuda

namespace cuemu {
namespace wmma_detail {

template <class T>
struct type_tag { static constexpr std::uint64_t value = sizeof(T) * 16; };
template <> struct type_tag<__half> { static constexpr std::uint64_t value = 1; };
template <> struct type_tag<__nv_bfloat16> { static constexpr std::uint64_t value = 2; };
template <> struct type_tag<wm::precision::tf32> { static constexpr std::uint64_t value = 3; };
template <> struct type_tag<signed char> { static constexpr std::uint64_t value = 4; };
template <> struct type_tag<unsigned char> { static constexpr std::uint64_t value = 5; };
template <> struct type_tag<int> { static constexpr std::uint64_t value = 6; };  // not float's

template <int m, int n, int k, class T>
constexpr std::uint64_t shape_tag() { return (((std::uint64_t(m) * 64 + n) * 64 + k) << 8) | type_tag<T>::value; }

// Where x[i] of lane `lane` lies in its fragment's tile (matrix_a: m x k,
// matrix_b: k x n, accumulator: m x n), as an H200 (sm_90, CUDA 13.0) has it,
// measured on 2026-11-30; the memory layout does not change it. The lanes
// come in 8 groups of 4: g = lane / 4 and t = lane % 4. Bit j of i is bj.
// Most fragments pair neighbours: x[2j] and x[2j + 1] are one row's two
// neighbouring columns (or one column's two neighbouring rows), at 2t and
// 2t + 1, while g picks the row (column); the higher bits of i step by 8
// (16) rows or columns, in an order that differs between the kinds. Where
// num_elements is more than the tile holds per lane, the tile repeats: the
// `% m` and `% n` below send those x[i] back to the same elements.
struct place {
    int row, col;
};
template <class Use, int m, int n, int k>
CUEMU_WMMA_UNWATCHED __attribute__((always_inline)) constexpr place place_of(unsigned lane, int i) {
    const int g = static_cast<int>(lane % 32) / 4, t = static_cast<int>(lane % 4);
    const int b0 = i & 1, b1 = (i >> 1) & 1, b2 = (i >> 2) & 1, b3 = (i >> 3) & 1;
    if (std::is_same<Use, wm::matrix_a>::value) {
        if (k == 4) return {g, t};                           // double 8 x 4: one element, row g, column t
        if (k == 8) return {g + 8 * b0, t + 4 * b1};         // tf32 16 x 8: rows g, g+8; columns t, t+4
        if (m == 8) return {g, 2 * t + b0 + 8 * b1};         // 8 x 16: x[0..3], four times
        return {(g + 8 * b1 + 16 * b3) % m, 2 * t + b0 + 8 * b2};  // 16 x 16 (x[0..7] twice), 32 x 16
    }
    if (std::is_same<Use, wm::matrix_b>::value) {
        if (k == 4) return {t, g};                           // double 4 x 8: row t, column g
        if (k == 8) return {t + 4 * b0, g + 8 * b1};         // tf32 8 x 16: rows t, t+4; columns g, g+8
        if (n == 32) return {2 * t + b0 + 8 * b2, g + 8 * b1 + 16 * b3};  // 16 x 32: A of 32 x 16, transposed
        return {2 * t + b0 + 8 * b1, (g + 8 * b2) % n};      // 16 x 16 (x[0..7] twice), 16 x 8 (x[0..3] 4 times)
    }
    if (k == 4) return {g, 2 * t + b0};                      // double 8 x 8
    if (m == 32) return {g + 8 * (i / 2), 2 * t + b0};       // 32 x 8: rows g, g+8, g+16, g+24
    if (m == 8) return {2 * t + b0, g + 8 * (i / 2)};        // 8 x 32: the 32 x 8 one, transposed
    return {g + 8 * b1, 2 * t + b0 + 8 * b2};                // 16 x 16 (m16n16k16 and m16n16k8)
}

// The 8-bit A and B fragments, which no GPU was measured for: the emulator's
// own rule, each lane holding runs of four neighbours along k. x[i] of A is
// row g + 8 (i / 4), column 4t + i % 4 (A of 8 x 16 holds rows g; 16 x 16,
// g and g + 8; 32 x 16, g + 8j for j = 0..3); B is the same transposed, row
// 4t + i % 4, column g + 8 (i / 4). Each element is held once.
template <class Use>
CUEMU_WMMA_UNWATCHED __attribute__((always_inline)) constexpr place byte_place_of(unsigned lane, int i) {
    const int g = static_cast<int>(lane % 32) / 4, t = static_cast<int>(lane % 4);
    const int along_k = 4 * t + i % 4, across = g + 8 * (i / 4);
    return std::is_same<Use, wm::matrix_b>::value ? place{along_k, across} : place{across, along_k};
}

// Where x[i] of a fragment of element type T lies.
template <class Use, int m, int n, int k, class T>
CUEMU_WMMA_UNWATCHED __attribute__((always_inline)) constexpr place place_in(unsigned lane, int i) {
    return is_byte<T>() ? byte_place_of<Use>(lane, i) : place_of<Use, m, n, k>(lane, i);
}

// Where element (row, col) lies in memory.
inline std::size_t offset_of(int row, int col, unsigned ldm, bool row_major) {
    return row_major ? std::size_t(row) * ldm + col : std::size_t(col) * ldm + row;
}

enum class call : std::uint64_t { load = 1, store = 2, mma = 3 };

// Four bytes of memory read as one access: the race check and the profiler
// see one 4-byte read where the elements are neighbours, not one per element.
template <class Memory>
inline void read_word(const Memory* from, Memory* to) {
    typedef std::uint32_t __attribute__((may_alias, aligned(1))) unaligned_word;
    const std::uint32_t word = *reinterpret_cast<const unaligned_word*>(from);
    std::memcpy(to, &word, sizeof word);
}

// Where a fragment holds its tile more than once per lane (a __half A or B
// fragment, place_of), x[i] is the element x[i % held] is.
template <class Use, int m, int n, int k, class T, int count>
constexpr bool repeats_its_tile() {
    constexpr int held = held_per_lane<Use, m, n, k>;
    if (count % held != 0) return false;
    for (unsigned lane = 0; lane < 32; ++lane)
        for (int i = held; i < count; ++i) {
            const place e = place_in<Use, m, n, k, T>(lane, i), first = place_in<Use, m, n, k, T>(lane, i % held);
            if (e.row != first.row || e.col != first.col) return false;
        }
    return true;
}

// Loads this lane's share of the fragment's tile. A lane's 8-bit and 16-bit
// elements come in runs of neighbours (place_of, byte_place_of); a run that
// lies in four neighbouring bytes of memory (as the layout decides) is read as
// one access, which costs the race check a quarter or half of the look-ups.
// Each element is read once: where the fragment holds it again, that x[i]
// is a copy. The elements are read into a local array first, and from it into
// the fragment, which is not device memory: the race check is told of the
// reads only.
template <class Fragment, class Memory, int held>
CUEMU_WMMA_UNWATCHED inline void fill_from(Fragment& f, const Memory (&read)[held]) {
    static_assert(std::is_same<typename std::remove_reference<decltype(f.x[0])>::type, Memory>::value,
                  "a fragment stores the elements as memory holds them");
    for (int copy = 0; copy < f.num_elements / held; ++copy) std::memcpy(&f.x[copy * held], read, sizeof read);
}
template <class Use, int m, int n, int k, class T, class Layout, class Memory>
inline void load_share(wm::fragment<Use, m, n, k, T, Layout>& f, const Memory* p, unsigned ldm, bool row_major) {
    const unsigned lane = lane_index();
    constexpr int run = sizeof(Memory) < 4 ? 4 / sizeof(Memory) : 1;
    constexpr int held = held_per_lane<Use, m, n, k>;
    static_assert(held % run == 0, "a fragment holds whole runs");
    static_assert(repeats_its_tile<Use, m, n, k, T, f.num_elements>(), "a fragment repeats its tile whole");
    Memory read[held];
    for (int i = 0; i < held; i += run) {
        std::size_t at[run];
        bool together = true;
        for (int r = 0; r < run; ++r) {
            const place e = place_in<Use, m, n, k, T>(lane, i + r);
            at[r] = offset_of(e.row, e.col, ldm, row_major);
            together = together && at[r] == at[0] + r;
        }
        if (run > 1 && together) {
            read_word(p + at[0], &read[i]);
        } else {
            for (int r = 0; r < run; ++r) read[i + r] = p[at[r]];
        }
    }
    fill_from(f, read);
}

// Every load and store: the warp meets, agreeing on the call, the fragment
// (`what`), the pointer, ldm and layout; then ldm is checked.
inline void meet_for_memory(const char* function, std::uint64_t what, const void* p, unsigned ldm, bool row_major,
                            unsigned element_bytes, const char* file, int line) {
    meet_whole_warp(function, mix(mix(mix(what, reinterpret_cast<std::uintptr_t>(p)), ldm), row_major), file, line);
    check_ldm(function, ldm, element_bytes, file, line);
}

template <class Use, int m, int n, int k, class T, class Layout, class Memory>
inline void load_input(wm::fragment<Use, m, n, k, T, Layout>& f, const Memory* p, unsigned ldm,
                       const char* file, int line) {
    constexpr bool row_major = std::is_same<Layout, wm::row_major>::value;
    const std::uint64_t what = mix(mix(std::uint64_t(call::load), shape_tag<m, n, k, T>()),
                                   std::is_same<Use, wm::matrix_a>::value ? 1 : 2);
    meet_for_memory("load_matrix_sync", what, p, ldm, row_major, sizeof(Memory), file, line);
    load_share(f, p, ldm, row_major);
}

}  // namespace wmma_detail
}  // namespace cuemu

namespace nvcuda {
namespace wmma {

// A matrix_a or matrix_b fragment; tf32 ones are loaded from float memory,
// the others from their own type.
template <typename Use, int m, int n, int k, typename T, typename Layout>
inline typename std::enable_if<!std::is_same<Use, accumulator>::value>::type load_matrix_sync(
    fragment<Use, m, n, k, T, Layout>& f, const typename fragment<Use, m, n, k, T, Layout>::storage_element_type* p,
    unsigned ldm, CUEMU_WMMA_SITE) {
    ::cuemu::wmma_detail::load_input(f, p, ldm, cuemu_file, cuemu_line);
}

template <int m, int n, int k, typename T>
inline void load_matrix_sync(fragment<accumulator, m, n, k, T>& c, const ::cuemu::wmma_detail::identity<T>* p,
                             unsigned ldm, layout_t layout, CUEMU_WMMA_SITE) {
    namespace d = ::cuemu::wmma_detail;
    const bool row_major = layout == mem_row_major;
    const std::uint64_t what = d::mix(std::uint64_t(d::call::load), d::shape_tag<m, n, k, T>());
    d::meet_for_memory("load_matrix_sync", what, p, ldm, row_major, sizeof(T), cuemu_file, cuemu_line);
    d::load_share(c, p, ldm, row_major);
}

template <int m, int n, int k, typename T>
inline void store_matrix_sync(::cuemu::wmma_detail::identity<T>* p, const fragment<accumulator, m, n, k, T>& c,
                              unsigned ldm, layout_t layout, CUEMU_WMMA_SITE) {
    namespace d = ::cuemu::wmma_detail;
    const bool row_major = layout == mem_row_major;
    const std::uint64_t what = d::mix(std::uint64_t(d::call::store), d::shape_tag<m, n, k, T>());
    d::meet_for_memory("store_matrix_sync", what, p, ldm, row_major, sizeof(T), cuemu_file, cuemu_line);
    const unsigned lane = d::lane_index();
    for (int i = 0; i < c.num_elements; ++i) {  // an accumulator holds its tile once
        const d::place at = d::place_of<accumulator, m, n, k>(lane, i);
        p[d::offset_of(at.row, at.col, ldm, row_major)] = c.x[i];
    }
}

}  // namespace wmma
}  // namespace nvcuda

#include "wmma_mma.h"

#undef CUEMU_WMMA_SITE
#undef CUEMU_WMMA_UNWATCHED

#endif
