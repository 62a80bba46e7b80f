// cuemu/cmath_float.h - the float and long double overloads of <cmath>'s
// functions (sqrt(float), exp(float), fabs(float), std::abs(float), and C++11's
// fmax(float), round(float), std::isnan(float) ...),
// defined by the emulator instead of libstdc++, so that they can be
// always_inline (cuemu/device_inline.h): libstdc++'s are plain inline functions,
// which a kernel's uninstrumented twin calls out of line (sqrt(x) + fabs(x) +
// floor(x) of a float took 26-28 ms a launch of 2^22 threads on the development
// VM, 16.5 ms with sqrtf, fabsf and floorf; docs/emulator-speed.md).
//
// cuemu.h includes this just before the translation unit's first <cmath>
// (<cmath> calls std::abs(float) itself), and only there: it defines
// __CORRECT_ISO_CPP_MATH_H_PROTO and __CORRECT_ISO_CPP11_MATH_H_PROTO_FP, the
// macros with which a C library says its <math.h> has these overloads, so
// <cmath> and <bits/std_abs.h> leave them out (C++11's integer overloads,
// isnan(int) and the like, stay libstdc++'s). A .cpp that included <cmath>
// before <cuda_runtime.h> keeps libstdc++'s. Each is what libstdc++ 12's is
// (the same builtin, constexpr where libstdc++'s is), so results do not
// change, only inlining does.
#ifndef CUEMU_CMATH_FLOAT_H
#define CUEMU_CMATH_FLOAT_H

#include "device_inline.h"

// The C library's <math.h> itself, for FP_NAN and the rest of fpclassify's
// answers (the way libstdc++'s own <bits/std_abs.h> reaches it); its
// classification macros go, as <cmath> removes them, before the functions
// of the same names below.
#define _GLIBCXX_INCLUDE_NEXT_C_HEADERS
#include <math.h>
#undef _GLIBCXX_INCLUDE_NEXT_C_HEADERS
#undef fpclassify
#undef isfinite
#undef isinf
#undef isnan
#undef isnormal
#undef signbit
#undef isgreater
#undef isgreaterequal
#undef isless
#undef islessequal
#undef islessgreater
#undef isunordered

namespace std {

#define CUEMU_CMATH_UNARY(name)                                                          \
    constexpr CUEMU_DEVICE_INLINE float name(float x) { return __builtin_##name##f(x); } \
    constexpr CUEMU_DEVICE_INLINE long double name(long double x) { return __builtin_##name##l(x); }
#define CUEMU_CMATH_BINARY(name)                                                                      \
    constexpr CUEMU_DEVICE_INLINE float name(float x, float y) { return __builtin_##name##f(x, y); } \
    constexpr CUEMU_DEVICE_INLINE long double name(long double x, long double y) {                    \
        return __builtin_##name##l(x, y);                                                             \
    }
CUEMU_CMATH_UNARY(acos)
CUEMU_CMATH_UNARY(asin)
CUEMU_CMATH_UNARY(atan)
CUEMU_CMATH_BINARY(atan2)
CUEMU_CMATH_UNARY(ceil)
CUEMU_CMATH_UNARY(cos)
CUEMU_CMATH_UNARY(cosh)
CUEMU_CMATH_UNARY(exp)
CUEMU_CMATH_UNARY(fabs)
CUEMU_CMATH_UNARY(floor)
CUEMU_CMATH_BINARY(fmod)
CUEMU_CMATH_UNARY(log)
CUEMU_CMATH_UNARY(log10)
CUEMU_CMATH_BINARY(pow)
CUEMU_CMATH_UNARY(sin)
CUEMU_CMATH_UNARY(sinh)
CUEMU_CMATH_UNARY(sqrt)
CUEMU_CMATH_UNARY(tan)
CUEMU_CMATH_UNARY(tanh)
#undef CUEMU_CMATH_UNARY
#undef CUEMU_CMATH_BINARY

CUEMU_DEVICE_INLINE float frexp(float x, int* e) { return __builtin_frexpf(x, e); }
CUEMU_DEVICE_INLINE long double frexp(long double x, int* e) { return __builtin_frexpl(x, e); }
constexpr CUEMU_DEVICE_INLINE float ldexp(float x, int e) { return __builtin_ldexpf(x, e); }
constexpr CUEMU_DEVICE_INLINE long double ldexp(long double x, int e) { return __builtin_ldexpl(x, e); }
CUEMU_DEVICE_INLINE float modf(float x, float* i) { return __builtin_modff(x, i); }
CUEMU_DEVICE_INLINE long double modf(long double x, long double* i) { return __builtin_modfl(x, i); }

// <bits/std_abs.h> leaves these out under the same macro.
constexpr CUEMU_DEVICE_INLINE double abs(double x) { return __builtin_fabs(x); }
constexpr CUEMU_DEVICE_INLINE float abs(float x) { return __builtin_fabsf(x); }
constexpr CUEMU_DEVICE_INLINE long double abs(long double x) { return __builtin_fabsl(x); }

// C++11's (__CORRECT_ISO_CPP11_MATH_H_PROTO_FP leaves these out of <cmath>): the
// classification functions for float, double and long double ...
#define CUEMU_CMATH_CLASSIFY(T)                                                                          \
    constexpr CUEMU_DEVICE_INLINE int fpclassify(T x) {                                                 \
        return __builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x);          \
    }                                                                                                    \
    constexpr CUEMU_DEVICE_INLINE bool isfinite(T x) { return __builtin_isfinite(x); }                  \
    constexpr CUEMU_DEVICE_INLINE bool isinf(T x) { return __builtin_isinf(x); }                        \
    constexpr CUEMU_DEVICE_INLINE bool isnan(T x) { return __builtin_isnan(x); }                        \
    constexpr CUEMU_DEVICE_INLINE bool isnormal(T x) { return __builtin_isnormal(x); }                  \
    constexpr CUEMU_DEVICE_INLINE bool signbit(T x) { return __builtin_signbit(x); }                    \
    constexpr CUEMU_DEVICE_INLINE bool isgreater(T x, T y) { return __builtin_isgreater(x, y); }        \
    constexpr CUEMU_DEVICE_INLINE bool isgreaterequal(T x, T y) { return __builtin_isgreaterequal(x, y); } \
    constexpr CUEMU_DEVICE_INLINE bool isless(T x, T y) { return __builtin_isless(x, y); }              \
    constexpr CUEMU_DEVICE_INLINE bool islessequal(T x, T y) { return __builtin_islessequal(x, y); }    \
    constexpr CUEMU_DEVICE_INLINE bool islessgreater(T x, T y) { return __builtin_islessgreater(x, y); } \
    constexpr CUEMU_DEVICE_INLINE bool isunordered(T x, T y) { return __builtin_isunordered(x, y); }
CUEMU_CMATH_CLASSIFY(float)
CUEMU_CMATH_CLASSIFY(double)
CUEMU_CMATH_CLASSIFY(long double)
#undef CUEMU_CMATH_CLASSIFY

// ... and the functions, for float and long double (double's are the C library's).
#define CUEMU_CMATH_ONE(R, name, P1, builtin)                                                      \
    constexpr CUEMU_DEVICE_INLINE R name(P1 x) { return builtin(x); }
#define CUEMU_CMATH_TWO(R, name, P1, P2, builtin)                                                  \
    constexpr CUEMU_DEVICE_INLINE R name(P1 x, P2 y) { return builtin(x, y); }
#define CUEMU_CMATH_C11_UNARY(name)                                                                \
    CUEMU_CMATH_ONE(float, name, float, __builtin_##name##f)                                       \
    CUEMU_CMATH_ONE(long double, name, long double, __builtin_##name##l)
#define CUEMU_CMATH_C11_BINARY(name)                                                               \
    CUEMU_CMATH_TWO(float, name, float, float, __builtin_##name##f)                                \
    CUEMU_CMATH_TWO(long double, name, long double, long double, __builtin_##name##l)
#define CUEMU_CMATH_C11_TO(R, name)                                                                \
    CUEMU_CMATH_ONE(R, name, float, __builtin_##name##f)                                           \
    CUEMU_CMATH_ONE(R, name, long double, __builtin_##name##l)
CUEMU_CMATH_C11_UNARY(acosh)
CUEMU_CMATH_C11_UNARY(asinh)
CUEMU_CMATH_C11_UNARY(atanh)
CUEMU_CMATH_C11_UNARY(cbrt)
CUEMU_CMATH_C11_BINARY(copysign)
CUEMU_CMATH_C11_UNARY(erf)
CUEMU_CMATH_C11_UNARY(erfc)
CUEMU_CMATH_C11_UNARY(exp2)
CUEMU_CMATH_C11_UNARY(expm1)
CUEMU_CMATH_C11_BINARY(fdim)
CUEMU_CMATH_C11_BINARY(fmax)
CUEMU_CMATH_C11_BINARY(fmin)
CUEMU_CMATH_C11_BINARY(hypot)
CUEMU_CMATH_C11_TO(int, ilogb)
CUEMU_CMATH_C11_UNARY(lgamma)
CUEMU_CMATH_C11_TO(long long, llrint)
CUEMU_CMATH_C11_TO(long long, llround)
CUEMU_CMATH_C11_UNARY(log1p)
CUEMU_CMATH_C11_UNARY(log2)
CUEMU_CMATH_C11_UNARY(logb)
CUEMU_CMATH_C11_TO(long, lrint)
CUEMU_CMATH_C11_TO(long, lround)
CUEMU_CMATH_C11_UNARY(nearbyint)
CUEMU_CMATH_C11_BINARY(nextafter)
CUEMU_CMATH_C11_BINARY(remainder)
CUEMU_CMATH_C11_UNARY(rint)
CUEMU_CMATH_C11_UNARY(round)
CUEMU_CMATH_C11_UNARY(tgamma)
CUEMU_CMATH_C11_UNARY(trunc)
CUEMU_CMATH_TWO(float, nexttoward, float, long double, __builtin_nexttowardf)
CUEMU_CMATH_TWO(long double, nexttoward, long double, long double, __builtin_nexttowardl)
CUEMU_CMATH_TWO(float, scalbln, float, long, __builtin_scalblnf)
CUEMU_CMATH_TWO(long double, scalbln, long double, long, __builtin_scalblnl)
CUEMU_CMATH_TWO(float, scalbn, float, int, __builtin_scalbnf)
CUEMU_CMATH_TWO(long double, scalbn, long double, int, __builtin_scalbnl)
#undef CUEMU_CMATH_C11_UNARY
#undef CUEMU_CMATH_C11_BINARY
#undef CUEMU_CMATH_C11_TO
#undef CUEMU_CMATH_ONE
#undef CUEMU_CMATH_TWO

constexpr CUEMU_DEVICE_INLINE float fma(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
constexpr CUEMU_DEVICE_INLINE long double fma(long double x, long double y, long double z) {
    return __builtin_fmal(x, y, z);
}
CUEMU_DEVICE_INLINE float remquo(float x, float y, int* quotient) { return __builtin_remquof(x, y, quotient); }
CUEMU_DEVICE_INLINE long double remquo(long double x, long double y, int* quotient) {
    return __builtin_remquol(x, y, quotient);
}

}  // namespace std

#endif
