// cuemu/cmath_float.h - the float and long double overloads of <cmath>'s C89
// functions (sqrt(float), exp(float), fabs(float), std::abs(float) ...),
// defined by the emulator instead of libstdc++, so that they can be
// always_inline (cuemu/device_inline.h): libstdc++'s are plain inline functions,
// which a kernel's uninstrumented twin calls out of line (sqrt(x) + fabs(x) +
// floor(x) of a float took 26-28 ms a launch of 2^22 threads on the development
// VM, 16.5 ms with sqrtf, fabsf and floorf; docs/emulator-speed.md).
//
// cuemu.h includes this just before the translation unit's first <cmath>
// (<cmath> calls std::abs(float) itself), and only there: it defines
// __CORRECT_ISO_CPP_MATH_H_PROTO, the macro with which a C library says its
// <math.h> has these overloads, so <cmath> and <bits/std_abs.h> leave them out. A .cpp that included <cmath> before <cuda_runtime.h> keeps
// libstdc++'s. Each is what libstdc++ 12's is (the same builtin, constexpr
// where libstdc++'s is), so results do not change, only inlining does.
#ifndef CUEMU_CMATH_FLOAT_H
#define CUEMU_CMATH_FLOAT_H

#include "device_inline.h"

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

}  // namespace std

#endif
