// cuemu/intrinsics_int.h - CUDA's integer intrinsics: 24-bit and high-half
// multiplies, umin/umax and their 64-bit kin, byte permute, funnel shifts,
// sums of absolute differences, halving adds, bit reversal of 64-bit words,
// dot products of packed bytes.
//
// Each gives the bit-exact answer the CUDA Math API documents for it. The ones
// CUDA declares __device__ only (all but the umin family) can be called from
// host code here, where nvcc refuses; the answer is the same either way.
//
// umin, umax, llmin, llmax, ullmin, ullmax are plain inline functions at
// global scope, as in CUDA's headers, where they are callable from host code
// too. So a program's own function of the same name behaves as with nvcc 13:
// another signature (int umin(int, int), a template, a macro) is an overload
// and compiles; the very same signature is a redefinition, an error there too.
#ifndef CUEMU_INTRINSICS_INT_H
#define CUEMU_INTRINSICS_INT_H

#include <cstdint>

#include "device_inline.h"

CUEMU_DEVICE_INLINE unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
CUEMU_DEVICE_INLINE unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
CUEMU_DEVICE_INLINE long long int llmin(long long int a, long long int b) { return a < b ? a : b; }
CUEMU_DEVICE_INLINE long long int llmax(long long int a, long long int b) { return a > b ? a : b; }
CUEMU_DEVICE_INLINE unsigned long long int ullmin(unsigned long long int a, unsigned long long int b) {
    return a < b ? a : b;
}
CUEMU_DEVICE_INLINE unsigned long long int ullmax(unsigned long long int a, unsigned long long int b) {
    return a > b ? a : b;
}

// The low 32 bits of the product of the low 24 bits of x and y (signed: bit 23
// is the sign; the high 8 bits of the inputs are ignored).
CUEMU_DEVICE_INLINE int __mul24(int x, int y) {
    const std::int64_t a = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << 8) >> 8;
    const std::int64_t b = static_cast<std::int32_t>(static_cast<std::uint32_t>(y) << 8) >> 8;
    return static_cast<int>(static_cast<std::uint32_t>(a * b));
}
CUEMU_DEVICE_INLINE unsigned int __umul24(unsigned int x, unsigned int y) {
    return static_cast<unsigned int>((std::uint64_t{x & 0xffffffu} * (y & 0xffffffu)) & 0xffffffffu);
}
// The high 32 (or 64) bits of the full product.
CUEMU_DEVICE_INLINE int __mulhi(int x, int y) {
    return static_cast<int>((static_cast<std::int64_t>(x) * y) >> 32);
}
CUEMU_DEVICE_INLINE unsigned int __umulhi(unsigned int x, unsigned int y) {
    return static_cast<unsigned int>((static_cast<std::uint64_t>(x) * y) >> 32);
}
CUEMU_DEVICE_INLINE long long int __mul64hi(long long int x, long long int y) {
    return static_cast<long long int>((static_cast<__int128>(x) * y) >> 64);
}
CUEMU_DEVICE_INLINE unsigned long long int __umul64hi(unsigned long long int x, unsigned long long int y) {
    return static_cast<unsigned long long int>((static_cast<unsigned __int128>(x) * y) >> 64);
}

// Byte n of the result is byte s<4n+2:4n> of the eight bytes y:x (x holds
// bytes 0-3). Only the low three bits of each of the low four nibbles count.
CUEMU_DEVICE_INLINE unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    const std::uint64_t bytes = (static_cast<std::uint64_t>(y) << 32) | x;
    unsigned int r = 0;
    for (int n = 0; n < 4; ++n) {
        const unsigned int pick = (s >> (4 * n)) & 7u;
        r |= static_cast<unsigned int>((bytes >> (8 * pick)) & 0xffu) << (8 * n);
    }
    return r;
}

// hi:lo shifted left (the high word returned) or right (the low word
// returned). The plain forms shift by shift & 31; the c forms by
// min(shift, 32).
CUEMU_DEVICE_INLINE unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
    const std::uint64_t both = (static_cast<std::uint64_t>(hi) << 32) | lo;
    return static_cast<unsigned int>((both << (shift & 31u)) >> 32);
}
CUEMU_DEVICE_INLINE unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
    const std::uint64_t both = (static_cast<std::uint64_t>(hi) << 32) | lo;
    return static_cast<unsigned int>((both << (shift < 32u ? shift : 32u)) >> 32);
}
CUEMU_DEVICE_INLINE unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
    const std::uint64_t both = (static_cast<std::uint64_t>(hi) << 32) | lo;
    return static_cast<unsigned int>(both >> (shift & 31u));
}
CUEMU_DEVICE_INLINE unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
    const std::uint64_t both = (static_cast<std::uint64_t>(hi) << 32) | lo;
    return static_cast<unsigned int>(both >> (shift < 32u ? shift : 32u));
}

// |x - y| + z, with the difference taken exactly (no overflow).
CUEMU_DEVICE_INLINE unsigned int __sad(int x, int y, unsigned int z) {
    const std::int64_t d = static_cast<std::int64_t>(x) - y;
    return static_cast<unsigned int>(d < 0 ? -d : d) + z;
}
CUEMU_DEVICE_INLINE unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) {
    return (x > y ? x - y : y - x) + z;
}

// (x + y) >> 1 and (x + y + 1) >> 1 with the sum taken without overflow.
CUEMU_DEVICE_INLINE int __hadd(int x, int y) {
    return static_cast<int>((static_cast<std::int64_t>(x) + y) >> 1);
}
CUEMU_DEVICE_INLINE int __rhadd(int x, int y) {
    return static_cast<int>((static_cast<std::int64_t>(x) + y + 1) >> 1);
}
CUEMU_DEVICE_INLINE unsigned int __uhadd(unsigned int x, unsigned int y) {
    return static_cast<unsigned int>((static_cast<std::uint64_t>(x) + y) >> 1);
}
CUEMU_DEVICE_INLINE unsigned int __urhadd(unsigned int x, unsigned int y) {
    return static_cast<unsigned int>((static_cast<std::uint64_t>(x) + y + 1) >> 1);
}

CUEMU_DEVICE_INLINE unsigned long long int __brevll(unsigned long long int x) {
    return (static_cast<unsigned long long int>(__brev(static_cast<unsigned int>(x))) << 32) |
           __brev(static_cast<unsigned int>(x >> 32));
}

// Four-way byte and two-way halfword dot products, accumulated into c (the
// sums wrap around at 32 bits, as the instruction's do).
CUEMU_DEVICE_INLINE int __dp4a(int a, int b, int c) {
    std::uint32_t sum = static_cast<std::uint32_t>(c);
    for (int i = 0; i < 4; ++i)
        sum += static_cast<std::uint32_t>(static_cast<std::int8_t>(a >> (8 * i)) *
                                          static_cast<std::int8_t>(b >> (8 * i)));
    return static_cast<int>(sum);
}
CUEMU_DEVICE_INLINE unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) {
    for (int i = 0; i < 4; ++i) c += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
    return c;
}
// The low halves of b or the high halves (hi) pair with a's two halfwords.
CUEMU_DEVICE_INLINE int __dp2a_lo(int a, int b, int c) {
    std::uint32_t sum = static_cast<std::uint32_t>(c);
    for (int i = 0; i < 2; ++i)
        sum += static_cast<std::uint32_t>(static_cast<std::int16_t>(a >> (16 * i)) *
                                          static_cast<std::int8_t>(b >> (8 * i)));
    return static_cast<int>(sum);
}
CUEMU_DEVICE_INLINE int __dp2a_hi(int a, int b, int c) {
    std::uint32_t sum = static_cast<std::uint32_t>(c);
    for (int i = 0; i < 2; ++i)
        sum += static_cast<std::uint32_t>(static_cast<std::int16_t>(a >> (16 * i)) *
                                          static_cast<std::int8_t>(b >> (16 + 8 * i)));
    return static_cast<int>(sum);
}
CUEMU_DEVICE_INLINE unsigned int __dp2a_lo(unsigned int a, unsigned int b, unsigned int c) {
    for (int i = 0; i < 2; ++i) c += ((a >> (16 * i)) & 0xffffu) * ((b >> (8 * i)) & 0xffu);
    return c;
}
CUEMU_DEVICE_INLINE unsigned int __dp2a_hi(unsigned int a, unsigned int b, unsigned int c) {
    for (int i = 0; i < 2; ++i) c += ((a >> (16 * i)) & 0xffffu) * ((b >> (16 + 8 * i)) & 0xffu);
    return c;
}

#endif
