// cuemu/curand_xorwow_jumps.h - jumping an XORWOW state ahead (include/curand_kernel.h).
//
// XORWOW's five state words change by a linear map over GF(2): one step is a
// 160x160 bit matrix M, and n steps are M^n. cuRAND skips ahead with the
// powers M^(4^k) (offsets) and M^(2^67 * 4^k) (subsequences, each 2^67 numbers
// long), applying each power once per unit of the base-4 digit k of the count.
// Any correct power gives the same state, so this file computes those powers
// itself, by repeated squaring, the first time a program needs them, and keeps
// them for the rest of the run, as tables of byte images (6.5 MB; about a
// tenth of a second once). After that a curand_init costs 20 lookups per
// base-4 digit unit of its subsequence and offset.
#ifndef CUEMU_CURAND_XORWOW_JUMPS_H
#define CUEMU_CURAND_XORWOW_JUMPS_H

#include <cstdint>
#include <vector>

namespace cuemu {
namespace curand_detail {

constexpr int xorwow_words = 5;
constexpr int xorwow_bits = 32 * xorwow_words;
constexpr int jump_digits = 32;  // base-4 digits of a 64-bit count

// A linear map on the 160-bit state: row i is the image of state bit i.
struct xorwow_map {
    std::uint32_t row[xorwow_bits][xorwow_words];
};

// The linear part of one XORWOW step (the Weyl counter d is added apart).
inline void xorwow_step_words(std::uint32_t v[xorwow_words]) {
    const std::uint32_t t = v[0] ^ (v[0] >> 2);
    v[0] = v[1];
    v[1] = v[2];
    v[2] = v[3];
    v[3] = v[4];
    v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
}

__attribute__((no_sanitize("thread"))) inline void apply_map(const xorwow_map& map,
                                                              std::uint32_t v[xorwow_words]) {
    std::uint32_t out[xorwow_words] = {0, 0, 0, 0, 0};
    for (int word = 0; word < xorwow_words; ++word) {
        for (std::uint32_t bits = v[word]; bits != 0; bits &= bits - 1) {
            const std::uint32_t* image = map.row[32 * word + __builtin_ctz(bits)];
            for (int w = 0; w < xorwow_words; ++w) out[w] ^= image[w];
        }
    }
    for (int w = 0; w < xorwow_words; ++w) v[w] = out[w];
}

// map = map * map: each row (the image of one bit) pushed through the map once more.
__attribute__((no_sanitize("thread"))) inline void square_map(xorwow_map& map) {
    const xorwow_map before = map;
    for (int i = 0; i < xorwow_bits; ++i) apply_map(before, map.row[i]);
}

// The same map for applying: the image of each possible value of each of the
// state's 20 bytes, so that applying it takes 20 lookups instead of a row per
// set bit (curand_init in 10^6 threads is common in Monte Carlo programs).
struct xorwow_byte_map {
    std::uint32_t image[4 * xorwow_words][256][xorwow_words];
};
inline void make_byte_map(const xorwow_map& map, xorwow_byte_map& bytes) {
    for (int b = 0; b < 4 * xorwow_words; ++b) {
        for (int w = 0; w < xorwow_words; ++w) bytes.image[b][0][w] = 0;
        for (int value = 1; value < 256; ++value) {
            const int low_bit = __builtin_ctz(value);  // value = (value without it) + that bit
            const std::uint32_t* rest = bytes.image[b][value & (value - 1)];
            const std::uint32_t* row = map.row[8 * b + low_bit];
            for (int w = 0; w < xorwow_words; ++w) bytes.image[b][value][w] = rest[w] ^ row[w];
        }
    }
}
__attribute__((no_sanitize("thread"))) inline void apply_byte_map(const xorwow_byte_map& map,
                                                                   std::uint32_t v[xorwow_words]) {
    std::uint32_t out[xorwow_words] = {0, 0, 0, 0, 0};
    for (int b = 0; b < 4 * xorwow_words; ++b) {
        const std::uint32_t* image = map.image[b][(v[b / 4] >> (8 * (b % 4))) & 0xffu];
        for (int w = 0; w < xorwow_words; ++w) out[w] ^= image[w];
    }
    for (int w = 0; w < xorwow_words; ++w) v[w] = out[w];
}

struct xorwow_jump_tables {
    std::vector<xorwow_byte_map> offset;       // offset[k] = M^(4^k)
    std::vector<xorwow_byte_map> subsequence;  // subsequence[k] = M^(2^67 * 4^k)
};

__attribute__((no_sanitize("thread"))) inline xorwow_jump_tables build_xorwow_jump_tables() {
    xorwow_jump_tables tables;
    tables.offset.resize(jump_digits);
    tables.subsequence.resize(jump_digits);
    xorwow_map power;  // M^(2^e), e counting up
    for (int i = 0; i < xorwow_bits; ++i) {
        for (int w = 0; w < xorwow_words; ++w) power.row[i][w] = 0;
        power.row[i][i / 32] = 1u << (i % 32);
        xorwow_step_words(power.row[i]);
    }
    for (int e = 0; e < 67 + 2 * jump_digits; ++e) {
        if (e % 2 == 0 && e / 2 < jump_digits) make_byte_map(power, tables.offset[e / 2]);
        if (e >= 67 && (e - 67) % 2 == 0) make_byte_map(power, tables.subsequence[(e - 67) / 2]);
        square_map(power);
    }
    return tables;
}

inline const xorwow_jump_tables& xorwow_jumps() {
    static const xorwow_jump_tables tables = build_xorwow_jump_tables();
    return tables;
}

// Applies table[k] once for each unit of base-4 digit k of count.
__attribute__((no_sanitize("thread"))) inline void xorwow_jump(
    const std::vector<xorwow_byte_map>& table, unsigned long long count,
    std::uint32_t v[xorwow_words]) {
    for (int digit = 0; count != 0; ++digit, count >>= 2)
        for (unsigned times = 0; times < (count & 3u); ++times) apply_byte_map(table[digit], v);
}

}  // namespace curand_detail
}  // namespace cuemu

#endif
