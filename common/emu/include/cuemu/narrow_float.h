// cuemu/narrow_float.h - what <cuda_fp16.h> and <cuda_bf16.h> have in common:
// the arithmetic, comparison, math and conversion functions CUDA overloads for
// both __half and __nv_bfloat16 (and their pairs __half2, __nv_bfloat162),
// defined once here as a macro each header instantiates for its own types.
//
// Arithmetic is correctly rounded to nearest even, as CUDA specifies for
// __hadd, __hmul, __hdiv, __hfma ...: the operands are exact in double, and a
// double result rounded once more to a format of at most 11 bits rounds as
// the exact result would (double has more than twice those bits plus two);
// fma is computed "to odd" first (fp_round.h). The math functions (hsqrt,
// hexp, hsin ...) are correctly rounded results of the float function, which
// is at least as accurate as a GPU's approximations (they may differ from a
// GPU's in the last bit).
#ifndef CUEMU_NARROW_FLOAT_H
#define CUEMU_NARROW_FLOAT_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "fp_round.h"

namespace cuemu {
namespace narrow {
// Reads and writes the private bits of __half and __nv_bfloat16.
struct access {
    template <class H>
    static std::uint16_t bits(H h) { return h.__x; }
    template <class H>
    static H make(std::uint32_t bits) {
        H h;
        h.__x = static_cast<unsigned short>(bits);
        return h;
    }
};
template <class H>
inline double value(H h) { return fp::value_of(access::bits(h), H::cuemu_format); }
template <class H>
inline H round(double x, fp::round_mode mode = fp::to_nearest_even) {
    return access::make<H>(fp::round_to(x, H::cuemu_format, mode));
}
// To float as CUDA converts: a bfloat16 is the top half of a float, so its
// bits move up unchanged (NaN payloads included); a half NaN becomes the
// float NaN 0x7fffffff, whatever its sign and payload.
template <class H>
inline float to_float(H h) {
    const std::uint32_t bits = access::bits(h);
    std::uint32_t out;
    if (H::cuemu_format.exponent_bits == fp::bfloat16.exponent_bits) out = bits << 16;
    else if (std::isnan(value(h))) out = 0x7fffffffu;
    else return static_cast<float>(value(h));
    float f;
    std::memcpy(&f, &out, sizeof f);
    return f;
}
template <class H>
inline bool is_nan(H h) { return std::isnan(value(h)); }
// Saturating conversion to an integer type, NaN to nan_value (as the GPU's cvt).
template <class Int, class H>
inline Int to_integer(H h, fp::round_mode mode, Int nan_value) {
    const double v = value(h);
    if (std::isnan(v)) return nan_value;
    double r;
    switch (mode) {
        case fp::toward_zero: r = std::trunc(v); break;
        case fp::toward_plus_inf: r = std::ceil(v); break;
        case fp::toward_minus_inf: r = std::floor(v); break;
        default: r = std::nearbyint(v); break;
    }
    if (r >= std::ldexp(1.0, std::numeric_limits<Int>::digits)) return std::numeric_limits<Int>::max();
    if (r < static_cast<double>(std::numeric_limits<Int>::min())) return std::numeric_limits<Int>::min();
    return static_cast<Int>(r);
}
template <class H>
inline H from_integer(long double v, fp::round_mode mode) {
    // long double holds every 64-bit integer; its double rounding is made
    // harmless by rounding to odd first.
    const double d = static_cast<double>(v);
    const long double rest = v - static_cast<long double>(d);
    return round<H>(fp::to_odd(d, (rest > 0) - (rest < 0)), mode);
}
}  // namespace narrow
}  // namespace cuemu

// The members both storage types share: the constructors and conversions
// CUDA gives them (from and to every arithmetic type, rounding to nearest
// even in, toward zero out), and the private bits.
#define CUEMU_NARROW_FLOAT_MEMBERS(H, RAW, FORMAT)                                              \
  protected:                                                                                    \
    unsigned short __x;                                                                         \
    friend struct ::cuemu::narrow::access;                                                     \
                                                                                                \
  public:                                                                                       \
    static constexpr ::cuemu::fp::format cuemu_format = FORMAT;                                 \
    H() = default;                                                                              \
    constexpr H(const RAW& r) : __x(r.x) {}                                                     \
    H& operator=(const RAW& r) { __x = r.x; return *this; }                                     \
    operator RAW() const { RAW r; r.x = __x; return r; }                                        \
    H(float f) : __x(::cuemu::narrow::access::bits(::cuemu::narrow::round<H>(f))) {}             \
    H(double f) : __x(::cuemu::narrow::access::bits(::cuemu::narrow::round<H>(f))) {}            \
    H(short v) : H(from_int(v)) {}                                                              \
    H(unsigned short v) : H(from_int(v)) {}                                                     \
    H(int v) : H(from_int(v)) {}                                                                \
    H(unsigned int v) : H(from_int(v)) {}                                                       \
    H(long v) : H(from_int(v)) {}                                                               \
    H(unsigned long v) : H(from_int(v)) {}                                                      \
    H(long long v) : H(from_int(v)) {}                                                          \
    H(unsigned long long v) : H(from_int(v)) {}                                                 \
    operator float() const { return ::cuemu::narrow::to_float(*this); }                        \
    operator signed char() const { return to_int<signed char>(0); }                             \
    operator unsigned char() const { return to_int<unsigned char>(0); }                         \
    operator char() const { return static_cast<char>(to_int<signed char>(0)); }                 \
    operator short() const { return to_int<short>(0); }                                         \
    operator unsigned short() const { return to_int<unsigned short>(0); }                       \
    operator int() const { return to_int<int>(0); }                                             \
    operator unsigned int() const { return to_int<unsigned int>(0); }                           \
    operator long() const { return to_int<long>(static_cast<long>(0x8000000000000000ull)); }    \
    operator unsigned long() const { return to_int<unsigned long>(0x8000000000000000ul); }      \
    operator long long() const { return to_int<long long>(static_cast<long long>(0x8000000000000000ull)); } \
    operator unsigned long long() const { return to_int<unsigned long long>(0x8000000000000000ull); } \
    constexpr operator bool() const { return (__x & 0x7fffu) != 0; }                            \
                                                                                                \
  private:                                                                                      \
    static H from_int(long double v) {                                                          \
        return ::cuemu::narrow::from_integer<H>(v, ::cuemu::fp::to_nearest_even);               \
    }                                                                                           \
    template <class Int>                                                                        \
    Int to_int(Int nan_value) const {                                                           \
        return ::cuemu::narrow::to_integer<Int>(*this, ::cuemu::fp::toward_zero, nan_value);    \
    }                                                                                           \
                                                                                                \
  public:

// The functions and operators CUDA overloads for both scalar types (H) and
// both pair types (H2, with members x and y).
#define CUEMU_NARROW_FLOAT_FUNCTIONS(H, H2)                                                     \
    inline double __cuemu_value(H h) { return ::cuemu::narrow::value(h); }                      \
    inline H __hadd(H a, H b) { return ::cuemu::narrow::round<H>(__cuemu_value(a) + __cuemu_value(b)); }    \
    inline H __hsub(H a, H b) { return ::cuemu::narrow::round<H>(__cuemu_value(a) - __cuemu_value(b)); }    \
    inline H __hmul(H a, H b) { return ::cuemu::narrow::round<H>(__cuemu_value(a) * __cuemu_value(b)); }    \
    inline H __hdiv(H a, H b) { return ::cuemu::narrow::round<H>(__cuemu_value(a) / __cuemu_value(b)); }    \
    inline H __hadd_rn(H a, H b) { return __hadd(a, b); }                                       \
    inline H __hsub_rn(H a, H b) { return __hsub(a, b); }                                       \
    inline H __hmul_rn(H a, H b) { return __hmul(a, b); }                                       \
    inline H __hfma(H a, H b, H c) {                                                            \
        return ::cuemu::narrow::round<H>(::cuemu::fp::fma_to_odd(__cuemu_value(a), __cuemu_value(b),        \
                                                     __cuemu_value(c)));                        \
    }                                                                                           \
    inline H __cuemu_saturate(H h) {                                                            \
        const double v = __cuemu_value(h);                                                      \
        return std::isnan(v) ? H(0.0f) : (v < 0.0 ? H(0.0f) : (v > 1.0 ? H(1.0f) : h));         \
    }                                                                                           \
    inline H __hadd_sat(H a, H b) { return __cuemu_saturate(__hadd(a, b)); }                    \
    inline H __hsub_sat(H a, H b) { return __cuemu_saturate(__hsub(a, b)); }                    \
    inline H __hmul_sat(H a, H b) { return __cuemu_saturate(__hmul(a, b)); }                    \
    inline H __hfma_sat(H a, H b, H c) { return __cuemu_saturate(__hfma(a, b, c)); }            \
    inline H __hfma_relu(H a, H b, H c) {                                                       \
        const H r = __hfma(a, b, c);                                                            \
        return __cuemu_value(r) < 0.0 ? H(0.0f) : r;                                            \
    }                                                                                           \
    inline H __hneg(H a) { return ::cuemu::narrow::round<H>(-__cuemu_value(a)); }                           \
    inline H __habs(H a) { return ::cuemu::narrow::round<H>(std::fabs(__cuemu_value(a))); }                 \
    inline bool __hisnan(H a) { return std::isnan(__cuemu_value(a)); }                          \
    inline int __hisinf(H a) {                                                                  \
        const double v = __cuemu_value(a);                                                      \
        return std::isinf(v) ? (v < 0 ? -1 : 1) : 0;                                            \
    }                                                                                           \
    /* min/max: a NaN operand gives the other; the _nan forms give NaN */                      \
    inline H __hmax(H a, H b) {                                                                 \
        if (__hisnan(a)) return __hisnan(b) ? ::cuemu::narrow::round<H>(NAN) : b;                           \
        if (__hisnan(b)) return a;                                                              \
        return __cuemu_value(a) >= __cuemu_value(b) ? a : b;                                    \
    }                                                                                           \
    inline H __hmin(H a, H b) {                                                                 \
        if (__hisnan(a)) return __hisnan(b) ? ::cuemu::narrow::round<H>(NAN) : b;                           \
        if (__hisnan(b)) return a;                                                              \
        return __cuemu_value(a) <= __cuemu_value(b) ? a : b;                                    \
    }                                                                                           \
    inline H __hmax_nan(H a, H b) {                                                             \
        return (__hisnan(a) || __hisnan(b)) ? ::cuemu::narrow::round<H>(NAN) : __hmax(a, b);                \
    }                                                                                           \
    inline H __hmin_nan(H a, H b) {                                                             \
        return (__hisnan(a) || __hisnan(b)) ? ::cuemu::narrow::round<H>(NAN) : __hmin(a, b);                \
    }                                                                                           \
    /* ordered comparisons are false with a NaN; the u forms (unordered) true */               \
    inline bool __heq(H a, H b) { return __cuemu_value(a) == __cuemu_value(b); }                \
    inline bool __hne(H a, H b) { return __cuemu_value(a) < __cuemu_value(b) ||                 \
                                         __cuemu_value(a) > __cuemu_value(b); }                 \
    inline bool __hlt(H a, H b) { return __cuemu_value(a) < __cuemu_value(b); }                 \
    inline bool __hle(H a, H b) { return __cuemu_value(a) <= __cuemu_value(b); }                \
    inline bool __hgt(H a, H b) { return __cuemu_value(a) > __cuemu_value(b); }                 \
    inline bool __hge(H a, H b) { return __cuemu_value(a) >= __cuemu_value(b); }                \
    inline bool __hequ(H a, H b) { return !__hne(a, b); }                                       \
    inline bool __hneu(H a, H b) { return !__heq(a, b); }                                       \
    inline bool __hltu(H a, H b) { return !__hge(a, b); }                                       \
    inline bool __hleu(H a, H b) { return !__hgt(a, b); }                                       \
    inline bool __hgtu(H a, H b) { return !__hle(a, b); }                                       \
    inline bool __hgeu(H a, H b) { return !__hlt(a, b); }                                       \
    /* math, correctly rounded from the float result */                                         \
    inline H hsqrt(H a) { return ::cuemu::narrow::round<H>(std::sqrt(__cuemu_value(a))); }                  \
    inline H hrsqrt(H a) { return ::cuemu::narrow::round<H>(1.0 / std::sqrt(__cuemu_value(a))); }           \
    inline H hrcp(H a) { return ::cuemu::narrow::round<H>(1.0 / __cuemu_value(a)); }                        \
    inline H hexp(H a) { return ::cuemu::narrow::round<H>(std::exp(__cuemu_value(a))); }                    \
    inline H hexp2(H a) { return ::cuemu::narrow::round<H>(std::exp2(__cuemu_value(a))); }                  \
    inline H hexp10(H a) { return ::cuemu::narrow::round<H>(std::pow(10.0, __cuemu_value(a))); }            \
    inline H hlog(H a) { return ::cuemu::narrow::round<H>(std::log(__cuemu_value(a))); }                    \
    inline H hlog2(H a) { return ::cuemu::narrow::round<H>(std::log2(__cuemu_value(a))); }                  \
    inline H hlog10(H a) { return ::cuemu::narrow::round<H>(std::log10(__cuemu_value(a))); }                \
    inline H hsin(H a) { return ::cuemu::narrow::round<H>(std::sin(__cuemu_value(a))); }                    \
    inline H hcos(H a) { return ::cuemu::narrow::round<H>(std::cos(__cuemu_value(a))); }                    \
    inline H htanh(H a) { return ::cuemu::narrow::round<H>(std::tanh(__cuemu_value(a))); }                  \
    inline H hceil(H a) { return ::cuemu::narrow::round<H>(std::ceil(__cuemu_value(a))); }                  \
    inline H hfloor(H a) { return ::cuemu::narrow::round<H>(std::floor(__cuemu_value(a))); }                \
    inline H htrunc(H a) { return ::cuemu::narrow::round<H>(std::trunc(__cuemu_value(a))); }                \
    inline H hrint(H a) { return ::cuemu::narrow::round<H>(std::nearbyint(__cuemu_value(a))); }             \
    /* operators: arithmetic rounds as the intrinsics; comparisons are ordered */               \
    inline H operator+(const H& a, const H& b) { return __hadd(a, b); }                         \
    inline H operator-(const H& a, const H& b) { return __hsub(a, b); }                         \
    inline H operator*(const H& a, const H& b) { return __hmul(a, b); }                         \
    inline H operator/(const H& a, const H& b) { return __hdiv(a, b); }                         \
    inline H& operator+=(H& a, const H& b) { return a = __hadd(a, b); }                         \
    inline H& operator-=(H& a, const H& b) { return a = __hsub(a, b); }                         \
    inline H& operator*=(H& a, const H& b) { return a = __hmul(a, b); }                         \
    inline H& operator/=(H& a, const H& b) { return a = __hdiv(a, b); }                         \
    inline H& operator++(H& a) { return a = __hadd(a, H(1.0f)); }                               \
    inline H& operator--(H& a) { return a = __hsub(a, H(1.0f)); }                               \
    inline H operator++(H& a, int) { const H old = a; ++a; return old; }                        \
    inline H operator--(H& a, int) { const H old = a; --a; return old; }                        \
    inline H operator+(const H& a) { return a; }                                                \
    inline H operator-(const H& a) { return __hneg(a); }                                        \
    inline bool operator==(const H& a, const H& b) { return __heq(a, b); }                      \
    inline bool operator!=(const H& a, const H& b) { return __hneu(a, b); }                     \
    inline bool operator<(const H& a, const H& b) { return __hlt(a, b); }                       \
    inline bool operator<=(const H& a, const H& b) { return __hle(a, b); }                      \
    inline bool operator>(const H& a, const H& b) { return __hgt(a, b); }                       \
    inline bool operator>=(const H& a, const H& b) { return __hge(a, b); }                      \
    /* pairs: each half of the pair on its own */                                               \
    inline H2 __cuemu_pair(H x, H y) { H2 r; r.x = x; r.y = y; return r; }                      \
    inline H2 __hadd2(H2 a, H2 b) { return __cuemu_pair(__hadd(a.x, b.x), __hadd(a.y, b.y)); } \
    inline H2 __hsub2(H2 a, H2 b) { return __cuemu_pair(__hsub(a.x, b.x), __hsub(a.y, b.y)); } \
    inline H2 __hmul2(H2 a, H2 b) { return __cuemu_pair(__hmul(a.x, b.x), __hmul(a.y, b.y)); } \
    inline H2 __h2div(H2 a, H2 b) { return __cuemu_pair(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); } \
    inline H2 __hadd2_sat(H2 a, H2 b) {                                                         \
        return __cuemu_pair(__hadd_sat(a.x, b.x), __hadd_sat(a.y, b.y));                        \
    }                                                                                           \
    inline H2 __hsub2_sat(H2 a, H2 b) {                                                         \
        return __cuemu_pair(__hsub_sat(a.x, b.x), __hsub_sat(a.y, b.y));                        \
    }                                                                                           \
    inline H2 __hmul2_sat(H2 a, H2 b) {                                                         \
        return __cuemu_pair(__hmul_sat(a.x, b.x), __hmul_sat(a.y, b.y));                        \
    }                                                                                           \
    inline H2 __hfma2(H2 a, H2 b, H2 c) {                                                       \
        return __cuemu_pair(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));                      \
    }                                                                                           \
    inline H2 __hfma2_sat(H2 a, H2 b, H2 c) {                                                   \
        return __cuemu_pair(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));              \
    }                                                                                           \
    inline H2 __hfma2_relu(H2 a, H2 b, H2 c) {                                                  \
        return __cuemu_pair(__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y));            \
    }                                                                                           \
    inline H2 __hneg2(H2 a) { return __cuemu_pair(__hneg(a.x), __hneg(a.y)); }                  \
    inline H2 __habs2(H2 a) { return __cuemu_pair(__habs(a.x), __habs(a.y)); }                  \
    inline H2 __hmax2(H2 a, H2 b) { return __cuemu_pair(__hmax(a.x, b.x), __hmax(a.y, b.y)); } \
    inline H2 __hmin2(H2 a, H2 b) { return __cuemu_pair(__hmin(a.x, b.x), __hmin(a.y, b.y)); } \
    inline H2 __hisnan2(H2 a) {                                                                 \
        return __cuemu_pair(H(__hisnan(a.x) ? 1.0f : 0.0f), H(__hisnan(a.y) ? 1.0f : 0.0f));    \
    }                                                                                           \
    /* pair comparisons: __heq2 gives 1.0 or 0.0 per half, __hbeq2 true if both */             \
    inline H2 __cuemu_flags_##H(bool x, bool y) { return __cuemu_pair(H(x ? 1.0f : 0.0f), H(y ? 1.0f : 0.0f)); } \
    inline H2 __heq2(H2 a, H2 b) { return __cuemu_flags_##H(__heq(a.x, b.x), __heq(a.y, b.y)); }   \
    inline H2 __hne2(H2 a, H2 b) { return __cuemu_flags_##H(__hne(a.x, b.x), __hne(a.y, b.y)); }   \
    inline H2 __hlt2(H2 a, H2 b) { return __cuemu_flags_##H(__hlt(a.x, b.x), __hlt(a.y, b.y)); }   \
    inline H2 __hle2(H2 a, H2 b) { return __cuemu_flags_##H(__hle(a.x, b.x), __hle(a.y, b.y)); }   \
    inline H2 __hgt2(H2 a, H2 b) { return __cuemu_flags_##H(__hgt(a.x, b.x), __hgt(a.y, b.y)); }   \
    inline H2 __hge2(H2 a, H2 b) { return __cuemu_flags_##H(__hge(a.x, b.x), __hge(a.y, b.y)); }   \
    inline bool __hbeq2(H2 a, H2 b) { return __heq(a.x, b.x) && __heq(a.y, b.y); }              \
    inline bool __hbne2(H2 a, H2 b) { return __hne(a.x, b.x) && __hne(a.y, b.y); }              \
    inline bool __hblt2(H2 a, H2 b) { return __hlt(a.x, b.x) && __hlt(a.y, b.y); }              \
    inline bool __hble2(H2 a, H2 b) { return __hle(a.x, b.x) && __hle(a.y, b.y); }              \
    inline bool __hbgt2(H2 a, H2 b) { return __hgt(a.x, b.x) && __hgt(a.y, b.y); }              \
    inline bool __hbge2(H2 a, H2 b) { return __hge(a.x, b.x) && __hge(a.y, b.y); }              \
    inline H2 __hequ2(H2 a, H2 b) { return __cuemu_flags_##H(__hequ(a.x, b.x), __hequ(a.y, b.y)); } \
    inline H2 __hneu2(H2 a, H2 b) { return __cuemu_flags_##H(__hneu(a.x, b.x), __hneu(a.y, b.y)); } \
    inline H2 __hltu2(H2 a, H2 b) { return __cuemu_flags_##H(__hltu(a.x, b.x), __hltu(a.y, b.y)); } \
    inline H2 __hleu2(H2 a, H2 b) { return __cuemu_flags_##H(__hleu(a.x, b.x), __hleu(a.y, b.y)); } \
    inline H2 __hgtu2(H2 a, H2 b) { return __cuemu_flags_##H(__hgtu(a.x, b.x), __hgtu(a.y, b.y)); } \
    inline H2 __hgeu2(H2 a, H2 b) { return __cuemu_flags_##H(__hgeu(a.x, b.x), __hgeu(a.y, b.y)); } \
    inline bool __hbequ2(H2 a, H2 b) { return __hequ(a.x, b.x) && __hequ(a.y, b.y); }           \
    inline bool __hbneu2(H2 a, H2 b) { return __hneu(a.x, b.x) && __hneu(a.y, b.y); }           \
    inline bool __hbltu2(H2 a, H2 b) { return __hltu(a.x, b.x) && __hltu(a.y, b.y); }           \
    inline bool __hbleu2(H2 a, H2 b) { return __hleu(a.x, b.x) && __hleu(a.y, b.y); }           \
    inline bool __hbgtu2(H2 a, H2 b) { return __hgtu(a.x, b.x) && __hgtu(a.y, b.y); }           \
    inline bool __hbgeu2(H2 a, H2 b) { return __hgeu(a.x, b.x) && __hgeu(a.y, b.y); }           \
    /* the _mask forms: 0xffff or 0 per half, in the low and high 16 bits */                    \
    inline unsigned __cuemu_mask_##H(H2 flags) {                                                \
        return (__heq(flags.x, H(1.0f)) ? 0xffffu : 0u) | (__heq(flags.y, H(1.0f)) ? 0xffff0000u : 0u); \
    }                                                                                           \
    inline unsigned __heq2_mask(H2 a, H2 b) { return __cuemu_mask_##H(__heq2(a, b)); }          \
    inline unsigned __hne2_mask(H2 a, H2 b) { return __cuemu_mask_##H(__hne2(a, b)); }          \
    inline unsigned __hlt2_mask(H2 a, H2 b) { return __cuemu_mask_##H(__hlt2(a, b)); }          \
    inline unsigned __hle2_mask(H2 a, H2 b) { return __cuemu_mask_##H(__hle2(a, b)); }          \
    inline unsigned __hgt2_mask(H2 a, H2 b) { return __cuemu_mask_##H(__hgt2(a, b)); }          \
    inline unsigned __hge2_mask(H2 a, H2 b) { return __cuemu_mask_##H(__hge2(a, b)); }          \
    inline unsigned __hequ2_mask(H2 a, H2 b) { return __cuemu_mask_##H(__hequ2(a, b)); }        \
    inline unsigned __hneu2_mask(H2 a, H2 b) { return __cuemu_mask_##H(__hneu2(a, b)); }        \
    inline unsigned __hltu2_mask(H2 a, H2 b) { return __cuemu_mask_##H(__hltu2(a, b)); }        \
    inline unsigned __hleu2_mask(H2 a, H2 b) { return __cuemu_mask_##H(__hleu2(a, b)); }        \
    inline unsigned __hgtu2_mask(H2 a, H2 b) { return __cuemu_mask_##H(__hgtu2(a, b)); }        \
    inline unsigned __hgeu2_mask(H2 a, H2 b) { return __cuemu_mask_##H(__hgeu2(a, b)); }        \
    inline H2 __hadd2_rn(H2 a, H2 b) { return __hadd2(a, b); }                                  \
    inline H2 __hsub2_rn(H2 a, H2 b) { return __hsub2(a, b); }                                  \
    inline H2 __hmul2_rn(H2 a, H2 b) { return __hmul2(a, b); }                                  \
    inline H2 __hmax2_nan(H2 a, H2 b) { return __cuemu_pair(__hmax_nan(a.x, b.x), __hmax_nan(a.y, b.y)); } \
    inline H2 __hmin2_nan(H2 a, H2 b) { return __cuemu_pair(__hmin_nan(a.x, b.x), __hmin_nan(a.y, b.y)); } \
    inline H2 h2sqrt(H2 a) { return __cuemu_pair(hsqrt(a.x), hsqrt(a.y)); }                     \
    inline H2 h2rsqrt(H2 a) { return __cuemu_pair(hrsqrt(a.x), hrsqrt(a.y)); }                  \
    inline H2 h2rcp(H2 a) { return __cuemu_pair(hrcp(a.x), hrcp(a.y)); }                        \
    inline H2 h2exp(H2 a) { return __cuemu_pair(hexp(a.x), hexp(a.y)); }                        \
    inline H2 h2exp2(H2 a) { return __cuemu_pair(hexp2(a.x), hexp2(a.y)); }                     \
    inline H2 h2exp10(H2 a) { return __cuemu_pair(hexp10(a.x), hexp10(a.y)); }                  \
    inline H2 h2log(H2 a) { return __cuemu_pair(hlog(a.x), hlog(a.y)); }                        \
    inline H2 h2log2(H2 a) { return __cuemu_pair(hlog2(a.x), hlog2(a.y)); }                     \
    inline H2 h2log10(H2 a) { return __cuemu_pair(hlog10(a.x), hlog10(a.y)); }                  \
    inline H2 h2sin(H2 a) { return __cuemu_pair(hsin(a.x), hsin(a.y)); }                        \
    inline H2 h2cos(H2 a) { return __cuemu_pair(hcos(a.x), hcos(a.y)); }                        \
    inline H2 h2tanh(H2 a) { return __cuemu_pair(htanh(a.x), htanh(a.y)); }                     \
    inline H2 h2ceil(H2 a) { return __cuemu_pair(hceil(a.x), hceil(a.y)); }                     \
    inline H2 h2floor(H2 a) { return __cuemu_pair(hfloor(a.x), hfloor(a.y)); }                  \
    inline H2 h2trunc(H2 a) { return __cuemu_pair(htrunc(a.x), htrunc(a.y)); }                  \
    inline H2 h2rint(H2 a) { return __cuemu_pair(hrint(a.x), hrint(a.y)); }                     \
    inline H2 operator+(const H2& a, const H2& b) { return __hadd2(a, b); }                     \
    inline H2 operator-(const H2& a, const H2& b) { return __hsub2(a, b); }                     \
    inline H2 operator*(const H2& a, const H2& b) { return __hmul2(a, b); }                     \
    inline H2 operator/(const H2& a, const H2& b) { return __h2div(a, b); }                     \
    inline H2& operator+=(H2& a, const H2& b) { return a = __hadd2(a, b); }                     \
    inline H2& operator-=(H2& a, const H2& b) { return a = __hsub2(a, b); }                     \
    inline H2& operator*=(H2& a, const H2& b) { return a = __hmul2(a, b); }                     \
    inline H2& operator/=(H2& a, const H2& b) { return a = __h2div(a, b); }                     \
    inline H2 operator+(const H2& a) { return a; }                                              \
    inline H2 operator-(const H2& a) { return __hneg2(a); }                                     \
    inline bool operator==(const H2& a, const H2& b) { return __hbeq2(a, b); }                  \
    inline bool operator!=(const H2& a, const H2& b) { return !__hbeq2(a, b); }                 \
    inline bool operator<(const H2& a, const H2& b) { return __hblt2(a, b); }                   \
    inline bool operator<=(const H2& a, const H2& b) { return __hble2(a, b); }                  \
    inline bool operator>(const H2& a, const H2& b) { return __hbgt2(a, b); }                   \
    inline bool operator>=(const H2& a, const H2& b) { return __hbge2(a, b); }                  \
    /* moving halves around */                                                                  \
    inline H2 __lowhigh2highlow(H2 a) { return __cuemu_pair(a.y, a.x); }                        \
    inline float __low2float(H2 a) { return ::cuemu::narrow::to_float(a.x); }                   \
    inline float __high2float(H2 a) { return ::cuemu::narrow::to_float(a.y); }                  \
    inline float2 __cuemu_pair_to_float2(H2 a) { return float2{__low2float(a), __high2float(a)}; } \
    /* atomics: a compare-and-swap loop on the bits */                                          \
    inline H atomicAdd(H* address, H v) {                                                       \
        unsigned short* word = reinterpret_cast<unsigned short*>(address);                       \
        unsigned short old = __atomic_load_n(word, __ATOMIC_RELAXED);                            \
        for (;;) {                                                                              \
            const H old_h = ::cuemu::narrow::access::make<H>(old);                              \
            const unsigned short next = ::cuemu::narrow::access::bits(__hadd(old_h, v));         \
            if (__atomic_compare_exchange_n(word, &old, next, true, __ATOMIC_RELAXED,            \
                                            __ATOMIC_RELAXED))                                   \
                return old_h;                                                                   \
        }                                                                                       \
    }                                                                                           \
    inline H2 atomicAdd(H2* address, H2 v) {                                                    \
        H2 old = *address;                                                                      \
        std::uint32_t* word = reinterpret_cast<std::uint32_t*>(address);                        \
        std::uint32_t old_bits = __atomic_load_n(word, __ATOMIC_RELAXED);                       \
        for (;;) {                                                                              \
            std::memcpy(&old, &old_bits, sizeof old);                                           \
            const H2 next = __hadd2(old, v);                                                    \
            std::uint32_t next_bits;                                                            \
            std::memcpy(&next_bits, &next, sizeof next_bits);                                   \
            if (__atomic_compare_exchange_n(word, &old_bits, next_bits, true, __ATOMIC_RELAXED, \
                                            __ATOMIC_RELAXED))                                  \
                return old;                                                                     \
        }                                                                                       \
    }

// The conversions, named after the type (TNAME: half or bfloat16, so
// __float2half_rz and __float2bfloat16_rz, __half2int_rn and __bfloat162int_rn).
#define CUEMU_NARROW_FLOAT_CONVERSIONS(H, H2, TNAME)                                                 \
    inline H __float2##TNAME(float f) { return ::cuemu::narrow::round<H>(f); }                    \
    inline H __double2##TNAME(double f) { return ::cuemu::narrow::round<H>(f); }                  \
    CUEMU_NARROW_FROM_FLOAT(H, TNAME, _rn, ::cuemu::fp::to_nearest_even)                          \
    CUEMU_NARROW_FROM_FLOAT(H, TNAME, _rz, ::cuemu::fp::toward_zero)                              \
    CUEMU_NARROW_FROM_FLOAT(H, TNAME, _ru, ::cuemu::fp::toward_plus_inf)                          \
    CUEMU_NARROW_FROM_FLOAT(H, TNAME, _rd, ::cuemu::fp::toward_minus_inf)                         \
    inline float __##TNAME##2float(H h) { return ::cuemu::narrow::to_float(h); }                 \
    inline H2 __float2##TNAME##2_rn(float f) { return H2(__float2##TNAME##_rn(f), __float2##TNAME##_rn(f)); } \
    inline H2 __floats2##TNAME##2_rn(float a, float b) {                                          \
        return H2(__float2##TNAME##_rn(a), __float2##TNAME##_rn(b));                               \
    }                                                                                             \
    inline H2 __float22##TNAME##2_rn(float2 f) { return __floats2##TNAME##2_rn(f.x, f.y); }       \
    inline float2 __##TNAME##22float2(H2 h) { return __cuemu_pair_to_float2(h); }                 \
    inline H2 __halves2##TNAME##2(H a, H b) { return H2(a, b); }                                  \
    inline H2 __##TNAME##2##TNAME##2(H a) { return H2(a, a); }                                    \
    inline H __low2##TNAME(H2 h) { return h.x; }                                                  \
    inline H __high2##TNAME(H2 h) { return h.y; }                                                 \
    inline H2 make_##TNAME##2(H x, H y) { return H2(x, y); }                                      \
    inline H2 __lows2##TNAME##2(H2 a, H2 b) { return H2(a.x, b.x); }                             \
    inline H2 __highs2##TNAME##2(H2 a, H2 b) { return H2(a.y, b.y); }                            \
    inline H2 __low2##TNAME##2(H2 a) { return H2(a.x, a.x); }                                     \
    inline H2 __high2##TNAME##2(H2 a) { return H2(a.y, a.y); }                                    \
    CUEMU_NARROW_INT(H, TNAME, short, short, 0)                                                   \
    CUEMU_NARROW_INT(H, TNAME, ushort, unsigned short, 0)                                         \
    CUEMU_NARROW_INT(H, TNAME, int, int, 0)                                                       \
    CUEMU_NARROW_INT(H, TNAME, uint, unsigned int, 0)                                             \
    CUEMU_NARROW_INT(H, TNAME, ll, long long, 0x8000000000000000ull)                              \
    CUEMU_NARROW_INT(H, TNAME, ull, unsigned long long, 0x8000000000000000ull)                    \
    inline signed char __##TNAME##2char_rz(H h) {                                                 \
        return ::cuemu::narrow::to_integer<signed char>(h, ::cuemu::fp::toward_zero, 0);          \
    }                                                                                             \
    inline unsigned char __##TNAME##2uchar_rz(H h) {                                              \
        return ::cuemu::narrow::to_integer<unsigned char>(h, ::cuemu::fp::toward_zero, 0);        \
    }                                                                                             \
    /* bit casts */                                                                               \
    inline short __##TNAME##_as_short(H h) { return static_cast<short>(::cuemu::narrow::access::bits(h)); } \
    inline unsigned short __##TNAME##_as_ushort(H h) { return ::cuemu::narrow::access::bits(h); } \
    inline H __short_as_##TNAME(short i) {                                                        \
        return ::cuemu::narrow::access::make<H>(static_cast<unsigned short>(i));                  \
    }                                                                                             \
    inline H __ushort_as_##TNAME(unsigned short i) { return ::cuemu::narrow::access::make<H>(i); }
#define CUEMU_NARROW_FROM_FLOAT(H, TNAME, SUFFIX, MODE)                                           \
    inline H __float2##TNAME##SUFFIX(float f) { return ::cuemu::narrow::round<H>(f, MODE); }
// To and from one integer type (NAME: short, int, ll ...) in every rounding
// mode, saturating, NaN as the GPU gives it.
#define CUEMU_NARROW_INT(H, TNAME, NAME, INT, NAN_VALUE)                                          \
    CUEMU_NARROW_INT_MODE(H, TNAME, NAME, INT, NAN_VALUE, _rn, ::cuemu::fp::to_nearest_even)      \
    CUEMU_NARROW_INT_MODE(H, TNAME, NAME, INT, NAN_VALUE, _rz, ::cuemu::fp::toward_zero)          \
    CUEMU_NARROW_INT_MODE(H, TNAME, NAME, INT, NAN_VALUE, _ru, ::cuemu::fp::toward_plus_inf)      \
    CUEMU_NARROW_INT_MODE(H, TNAME, NAME, INT, NAN_VALUE, _rd, ::cuemu::fp::toward_minus_inf)
#define CUEMU_NARROW_INT_MODE(H, TNAME, NAME, INT, NAN_VALUE, SUFFIX, MODE)                       \
    inline INT __##TNAME##2##NAME##SUFFIX(H h) {                                                  \
        return ::cuemu::narrow::to_integer<INT>(h, MODE, static_cast<INT>(NAN_VALUE));            \
    }                                                                                             \
    inline H __##NAME##2##TNAME##SUFFIX(INT v) { return ::cuemu::narrow::from_integer<H>(v, MODE); }

#endif
