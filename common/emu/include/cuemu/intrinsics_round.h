// cuemu/intrinsics_round.h - the arithmetic and conversion intrinsics with an
// explicit rounding mode: __fadd_rz, __fmul_ru, __fdiv_rd, __fmaf_rz,
// __fsqrt_ru, __frcp_rd, __dadd_rz, __ddiv_ru ..., __float2int_rd,
// __double2uint_ru, __ll2float_rz, __double2float_rd ... and the bit casts
// CUDA has beyond builtins.h's.
//
// Results are correctly rounded in the mode the suffix names, as on a GPU
// (computed in double, rounded to odd, then rounded once: see fp_round.h).
// Float-to-integer conversions saturate as the GPU's cvt does: out-of-range
// values give the type's limit, NaN gives 0 (0x8000000000000000 for the 64-bit
// types).
#ifndef CUEMU_INTRINSICS_ROUND_H
#define CUEMU_INTRINSICS_ROUND_H

#include <climits>
#include <cmath>
#include <cstdint>

#include "fp_round.h"

namespace cuemu {
namespace rounding {
using fp::round_mode;

// ---- float arithmetic -------------------------------------------------------
inline float fadd(float a, float b, round_mode m) {
    int err;
    const double s = fp::add(a, b, &err);
    return fp::to_float(fp::to_odd(s, err), m);
}
inline float fmul(float a, float b, round_mode m) { return fp::to_float(double(a) * b, m); }
inline float fdiv(float a, float b, round_mode m) {
    int err;
    const double q = fp::div(a, b, &err);
    return fp::to_float(fp::to_odd(q, err), m);
}
inline float fsqrt(float a, round_mode m) {
    int err;
    const double r = fp::sqrt(a, &err);
    return fp::to_float(fp::to_odd(r, err), m);
}
inline float ffma(float a, float b, float c, round_mode m) {
    return fp::to_float(fp::fma_to_odd(a, b, c), m);
}

// ---- double arithmetic: round to nearest, then step as the mode asks ----------
inline double dadd(double a, double b, round_mode m) {
    int err;
    const double s = fp::add(a, b, &err);
    return fp::directed(s, err, m);
}
inline double dmul(double a, double b, round_mode m) {
    int err;
    const double p = fp::mul(a, b, &err);
    return fp::directed(p, err, m);
}
inline double ddiv(double a, double b, round_mode m) {
    int err;
    const double q = fp::div(a, b, &err);
    return fp::directed(q, err, m);
}
inline double dsqrt(double a, round_mode m) {
    int err;
    const double r = fp::sqrt(a, &err);
    return fp::directed(r, err, m);
}
// fma of doubles: the exact a*b + c is not at hand in double, so the directed
// step uses long double's extra bits to learn on which side it lies.
inline double dfma(double a, double b, double c, round_mode m) {
    const double r = std::fma(a, b, c);
    if (m == fp::to_nearest_even || !std::isfinite(r)) return r;
    // a*b is exact in 128 bits only with __float128; long double's 64 bits
    // give the side for all but products needing more than 64 bits.
    const __float128 exact = static_cast<__float128>(a) * b + c;
    const __float128 diff = exact - static_cast<__float128>(r);
    return fp::directed(r, (diff > 0) - (diff < 0), m);
}

// ---- conversions to integers: round, then saturate -------------------------
inline double round_integral(double x, round_mode m) {
    switch (m) {
        case fp::toward_zero: return std::trunc(x);
        case fp::toward_plus_inf: return std::ceil(x);
        case fp::toward_minus_inf: return std::floor(x);
        default: return std::nearbyint(x);  // the default environment: to nearest even
    }
}
template <class Int>
inline Int to_integer(double x, round_mode m, Int nan_value) {
    if (std::isnan(x)) return nan_value;
    const double r = round_integral(x, m);
    // 2^63 and 2^64 are exact doubles; the limits' neighbours are not.
    const double upper = std::ldexp(1.0, std::numeric_limits<Int>::digits);
    if (r >= upper) return std::numeric_limits<Int>::max();
    if (r < static_cast<double>(std::numeric_limits<Int>::min())) return std::numeric_limits<Int>::min();
    return static_cast<Int>(r);
}
// From integers to a float or double, rounded in the mode.
inline float int_to_float(long double x, round_mode m) {
    // long double holds every 64-bit integer exactly; round it to double to
    // odd, then once to float.
    const double d = static_cast<double>(x);
    const long double rest = x - static_cast<long double>(d);
    return fp::to_float(fp::to_odd(d, (rest > 0) - (rest < 0)), m);
}
inline double int_to_double(long double x, round_mode m) {
    const double d = static_cast<double>(x);  // to nearest
    const long double rest = x - static_cast<long double>(d);
    return fp::directed(d, (rest > 0) - (rest < 0), m);
}
}  // namespace rounding
}  // namespace cuemu

// One definition per rounding suffix: NAME_rn, NAME_rz, NAME_ru, NAME_rd.
#define CUEMU_ROUNDED(RET, NAME, PARAMS, CALL)                                                   \
    inline RET NAME##_rn PARAMS { constexpr auto mode = ::cuemu::fp::to_nearest_even; return CALL; } \
    inline RET NAME##_rz PARAMS { constexpr auto mode = ::cuemu::fp::toward_zero; return CALL; }     \
    inline RET NAME##_ru PARAMS { constexpr auto mode = ::cuemu::fp::toward_plus_inf; return CALL; } \
    inline RET NAME##_rd PARAMS { constexpr auto mode = ::cuemu::fp::toward_minus_inf; return CALL; }
// The same without _rn, for names builtins.h already gives a _rn form.
#define CUEMU_ROUNDED_DIRECTED(RET, NAME, PARAMS, CALL)                                          \
    inline RET NAME##_rz PARAMS { constexpr auto mode = ::cuemu::fp::toward_zero; return CALL; }     \
    inline RET NAME##_ru PARAMS { constexpr auto mode = ::cuemu::fp::toward_plus_inf; return CALL; } \
    inline RET NAME##_rd PARAMS { constexpr auto mode = ::cuemu::fp::toward_minus_inf; return CALL; }

CUEMU_ROUNDED_DIRECTED(float, __fadd, (float a, float b), ::cuemu::rounding::fadd(a, b, mode))
CUEMU_ROUNDED_DIRECTED(float, __fsub, (float a, float b), ::cuemu::rounding::fadd(a, -b, mode))
CUEMU_ROUNDED_DIRECTED(float, __fmul, (float a, float b), ::cuemu::rounding::fmul(a, b, mode))
CUEMU_ROUNDED_DIRECTED(float, __fdiv, (float a, float b), ::cuemu::rounding::fdiv(a, b, mode))
CUEMU_ROUNDED_DIRECTED(float, __fmaf, (float a, float b, float c), ::cuemu::rounding::ffma(a, b, c, mode))
CUEMU_ROUNDED_DIRECTED(float, __fsqrt, (float a), ::cuemu::rounding::fsqrt(a, mode))
CUEMU_ROUNDED_DIRECTED(float, __frcp, (float a), ::cuemu::rounding::fdiv(1.0f, a, mode))
CUEMU_ROUNDED(double, __dadd, (double a, double b), ::cuemu::rounding::dadd(a, b, mode))
CUEMU_ROUNDED(double, __dsub, (double a, double b), ::cuemu::rounding::dadd(a, -b, mode))
CUEMU_ROUNDED(double, __dmul, (double a, double b), ::cuemu::rounding::dmul(a, b, mode))
CUEMU_ROUNDED(double, __ddiv, (double a, double b), ::cuemu::rounding::ddiv(a, b, mode))
CUEMU_ROUNDED(double, __dsqrt, (double a), ::cuemu::rounding::dsqrt(a, mode))
CUEMU_ROUNDED(double, __drcp, (double a), ::cuemu::rounding::ddiv(1.0, a, mode))
CUEMU_ROUNDED(double, __fma, (double a, double b, double c), ::cuemu::rounding::dfma(a, b, c, mode))

CUEMU_ROUNDED(int, __float2int, (float x), ::cuemu::rounding::to_integer<int>(x, mode, 0))
CUEMU_ROUNDED(unsigned int, __float2uint, (float x), ::cuemu::rounding::to_integer<unsigned int>(x, mode, 0u))
CUEMU_ROUNDED(long long int, __float2ll, (float x), ::cuemu::rounding::to_integer<long long int>(x, mode, LLONG_MIN))
CUEMU_ROUNDED(unsigned long long int, __float2ull, (float x),
              ::cuemu::rounding::to_integer<unsigned long long int>(x, mode, 0x8000000000000000ull))
CUEMU_ROUNDED(int, __double2int, (double x), ::cuemu::rounding::to_integer<int>(x, mode, 0))
CUEMU_ROUNDED(unsigned int, __double2uint, (double x), ::cuemu::rounding::to_integer<unsigned int>(x, mode, 0u))
CUEMU_ROUNDED(long long int, __double2ll, (double x), ::cuemu::rounding::to_integer<long long int>(x, mode, LLONG_MIN))
CUEMU_ROUNDED(unsigned long long int, __double2ull, (double x),
              ::cuemu::rounding::to_integer<unsigned long long int>(x, mode, 0x8000000000000000ull))
CUEMU_ROUNDED(float, __double2float, (double x), ::cuemu::fp::to_float(x, mode))
CUEMU_ROUNDED(float, __int2float, (int x), ::cuemu::rounding::int_to_float(x, mode))
CUEMU_ROUNDED(float, __uint2float, (unsigned int x), ::cuemu::rounding::int_to_float(x, mode))
CUEMU_ROUNDED(float, __ll2float, (long long int x), ::cuemu::rounding::int_to_float(x, mode))
CUEMU_ROUNDED(float, __ull2float, (unsigned long long int x), ::cuemu::rounding::int_to_float(x, mode))
CUEMU_ROUNDED(double, __ll2double, (long long int x), ::cuemu::rounding::int_to_double(x, mode))
CUEMU_ROUNDED(double, __ull2double, (unsigned long long int x), ::cuemu::rounding::int_to_double(x, mode))
#undef CUEMU_ROUNDED
#undef CUEMU_ROUNDED_DIRECTED

// Exact conversions and the remaining bit casts.
inline double __int2double_rn(int x) { return x; }
inline double __uint2double_rn(unsigned int x) { return x; }
inline int __double2hiint(double x) { return static_cast<int>(__double_as_longlong(x) >> 32); }
inline int __double2loint(double x) { return static_cast<int>(__double_as_longlong(x)); }
inline double __hiloint2double(int hi, int lo) {
    return __longlong_as_double(static_cast<long long>(
        (static_cast<unsigned long long>(static_cast<unsigned int>(hi)) << 32) | static_cast<unsigned int>(lo)));
}

#endif
