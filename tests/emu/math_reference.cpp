// math_reference.cpp - reference values for test_math_api.cu, computed in
// quadruple precision (__float128, libquadmath: 113-bit mantissa), so that
// they are far more accurate than the float and double results they judge.
// A plain C++ file: nvcc never sees __float128.
#include "math_reference.h"

#include <quadmath.h>

namespace {
__float128 erfinv_q(__float128 y) {
    if (y <= -1 || y >= 1) return y == 1 ? HUGE_VALQ : (y == -1 ? -HUGE_VALQ : nanq(""));
    __float128 x = 0;
    for (int i = 0; i < 200; ++i) {  // Newton on erf; bisection-safe start near 0
        const __float128 step = (erfq(x) - y) / (2 / sqrtq(M_PIq) * expq(-x * x));
        x -= step;
        if (fabsq(step) <= fabsq(x) * 1e-33Q) break;
    }
    return x;
}
__float128 erfcinv_q(__float128 y) {
    if (y <= 0 || y >= 2) return y == 0 ? HUGE_VALQ : (y == 2 ? -HUGE_VALQ : nanq(""));
    if (y > 0.5Q) return erfinv_q(1 - y);
    __float128 x = sqrtq(-logq(y));
    for (int i = 0; i < 200; ++i) {  // Newton on log(erfc(x)) = log(y)
        const __float128 e = erfcq(x);
        const __float128 step = (logq(e) - logq(y)) * e / (-2 / sqrtq(M_PIq) * expq(-x * x));
        x -= step;
        if (fabsq(step) <= fabsq(x) * 1e-33Q) break;
    }
    return x;
}
// I_n(x) = sum (x/2)^(2k+n) / (k! (k+n)!): every term positive, no cancellation.
__float128 bessel_i(int n, __float128 x) {
    const __float128 a = fabsq(x), q = a * a / 4;
    __float128 term = n == 0 ? 1 : a / 2, sum = term;
    for (int k = 1; k < 100000 && term > sum * 1e-36Q; ++k) {
        term *= q / (k * static_cast<__float128>(k + n));
        sum += term;
    }
    return (n == 1 && x < 0) ? -sum : sum;
}
__float128 erfcx_q(__float128 x) {
    if (x < 100) return expq(x * x) * erfcq(x);
    // the asymptotic series, far past where its terms start to grow
    const __float128 t = 1 / (2 * x * x);
    __float128 term = 1, sum = 1;
    for (int k = 1; k < 20; ++k) {
        term *= -(2 * k - 1) * t;
        sum += term;
    }
    return sum / (x * sqrtq(M_PIq));
}
}  // namespace

long double math_reference(int fn, long double xl, long double yl, long double zl, long double wl) {
    const __float128 x = xl, y = yl, z = zl, w = wl;
    __float128 r = 0;
    switch (fn) {
        case fn_sin: r = sinq(x); break;
        case fn_cos: r = cosq(x); break;
        case fn_tan: r = tanq(x); break;
        case fn_asin: r = asinq(x); break;
        case fn_acos: r = acosq(x); break;
        case fn_atan: r = atanq(x); break;
        case fn_atan2: r = atan2q(x, y); break;
        case fn_sinh: r = sinhq(x); break;
        case fn_cosh: r = coshq(x); break;
        case fn_tanh: r = tanhq(x); break;
        case fn_asinh: r = asinhq(x); break;
        case fn_acosh: r = acoshq(x); break;
        case fn_atanh: r = atanhq(x); break;
        case fn_exp: r = expq(x); break;
        case fn_exp2: r = powq(2, x); break;
        case fn_exp10: r = powq(10, x); break;
        case fn_expm1: r = expm1q(x); break;
        case fn_log: r = logq(x); break;
        case fn_log2: r = log2q(x); break;
        case fn_log10: r = log10q(x); break;
        case fn_log1p: r = log1pq(x); break;
        case fn_pow: r = powq(x, y); break;
        case fn_sqrt: r = sqrtq(x); break;
        case fn_rsqrt: r = 1 / sqrtq(x); break;
        case fn_cbrt: r = cbrtq(x); break;
        case fn_rcbrt: r = 1 / cbrtq(x); break;
        case fn_hypot: r = hypotq(x, y); break;
        case fn_rhypot: r = 1 / hypotq(x, y); break;
        case fn_norm3d: r = sqrtq(x * x + y * y + z * z); break;
        case fn_rnorm3d: r = 1 / sqrtq(x * x + y * y + z * z); break;
        case fn_norm4d: r = sqrtq(x * x + y * y + z * z + w * w); break;
        case fn_rnorm4d: r = 1 / sqrtq(x * x + y * y + z * z + w * w); break;
        case fn_erf: r = erfq(x); break;
        case fn_erfc: r = erfcq(x); break;
        case fn_erfinv: r = erfinv_q(x); break;
        case fn_erfcinv: r = erfcinv_q(x); break;
        case fn_erfcx: r = erfcx_q(x); break;
        case fn_normcdf: r = erfcq(-x / sqrtq(2)) / 2; break;
        case fn_normcdfinv: r = -sqrtq(2) * erfcinv_q(2 * x); break;
        case fn_lgamma: r = lgammaq(x); break;
        case fn_tgamma: r = tgammaq(x); break;
        // x = n + f with f in [-1/2, 1/2] (exact): sin(pi x) = (-1)^n sin(pi f),
        // exactly 0 at integers and cos exactly 0 at half integers.
        case fn_sinpi:
        case fn_cospi: {
            const __float128 n = roundq(x), f = x - n;
            const __float128 sign = fmodq(n, 2) == 0 ? 1 : -1;
            if (fn == fn_sinpi) r = f == 0 ? 0 : sign * sinq(M_PIq * f);
            else r = fabsq(f) == 0.5Q ? 0 : sign * cosq(M_PIq * f);
            break;
        }
        case fn_j0: r = j0q(x); break;
        case fn_j1: r = j1q(x); break;
        case fn_y0: r = y0q(x); break;
        case fn_y1: r = y1q(x); break;
        case fn_i0: r = bessel_i(0, x); break;
        case fn_i1: r = bessel_i(1, x); break;
        case fn_fmod: r = fmodq(x, y); break;
        case fn_remainder: r = remainderq(x, y); break;
        case fn_fdim: r = fdimq(x, y); break;
        case fn_fma: r = x * y + z; break;  // exact in 113 bits for float inputs
        default: r = nanq(""); break;
    }
    return static_cast<long double>(r);
}
