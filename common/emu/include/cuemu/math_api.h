// cuemu/math_api.h - the functions of the CUDA Math API that the C library
// does not have: sinpi/cospi/sincospi, rcbrt, erfinv/erfcinv, erfcx,
// normcdf/normcdfinv, norm3d/norm4d/norm and their reciprocals, rhypot,
// cyl_bessel_i0/i1, fdividef, and CUDA's float overloads of them (sinpi(float)
// and so on), for float and double.
//
// The rest of the Math API (sinf, expf, lgammaf, j0f, remquof, nextafterf,
// exp10f, sincosf ...) is the C library's, reached through <math.h>, which
// cuemu.h includes; its float overloads come from <cmath>.
//
// Each function here is computed in long double (64-bit mantissa) and rounded
// once, so it is well inside the ulp bound CUDA documents for it;
// tests/emu/test_math_api.cu checks both these and the C library's against a
// long double reference within CUDA's bounds.
#ifndef CUEMU_MATH_API_H
#define CUEMU_MATH_API_H

#include <cmath>

namespace cuemu {
namespace math {

// sin(pi x) and cos(pi x): x is reduced exactly to r in [-1/4, 1/4] plus a
// quarter turn count, so the results at integers and half integers are exact.
inline void sincospi(long double x, long double* s, long double* c) {
    if (std::isinf(x) || std::isnan(x)) { *s = *c = NAN; return; }
    const long double pi = 3.141592653589793238462643383279502884L;
    const long double twice = std::nearbyint(2.0L * x);  // exact for |x| < 2^62
    const long double r = x - twice / 2.0L;                // exact
    const long long quarter = static_cast<long long>(std::fmod(twice, 4.0L));
    const long double sr = std::sin(pi * r), cr = std::cos(pi * r);
    switch ((quarter + 4) % 4) {
        case 0: *s = sr; *c = cr; break;
        case 1: *s = cr; *c = -sr; break;
        case 2: *s = -sr; *c = -cr; break;
        default: *s = -cr; *c = sr; break;
    }
    if (*s == 0.0L) *s = std::copysign(0.0L, x);  // sinpi(+-n) = +-0, as CUDA's
    if (*c == 0.0L) *c = 0.0L;                      // cospi(n + 1/2) = +0
}
inline long double sinpi(long double x) { long double s, c; sincospi(x, &s, &c); return s; }
inline long double cospi(long double x) { long double s, c; sincospi(x, &s, &c); return c; }

inline long double rcbrt(long double x) {
    if (x == 0.0L) return std::copysign(INFINITY, x);
    return 1.0L / std::cbrt(x);
}

// erfinv by Newton's method on long double erf (or erfc near +-1, where erf
// has no digits left), from a starting point good to a few digits.
inline long double erfinv(long double y) {
    if (std::isnan(y) || y < -1.0L || y > 1.0L) return NAN;
    if (y == 1.0L) return INFINITY;
    if (y == -1.0L) return -INFINITY;
    if (y == 0.0L) return y;
    const long double a = std::fabs(y);
    const long double two_over_sqrt_pi = 1.128379167095512573896158903121545172L;
    // Start: Giles' single-precision approximation shape, then refine.
    long double w = -std::log((1.0L - a) * (1.0L + a));
    long double x = w < 5.0L ? std::sqrt(w) * 0.8L : std::sqrt(w);
    if (a < 0.5L) x = a / two_over_sqrt_pi;
    for (int i = 0; i < 60; ++i) {
        const long double deriv = two_over_sqrt_pi * std::exp(-x * x);
        const long double f = a < 0.5L ? std::erf(x) - a : (1.0L - a) - std::erfc(x);
        const long double step = f / deriv;
        x -= step;
        if (std::fabs(step) <= std::fabs(x) * 1e-19L) break;
    }
    return y < 0 ? -x : x;
}
// erfcinv(y) = erfinv(1 - y), solved on erfc itself so that tiny y keep
// their digits.
inline long double erfcinv(long double y) {
    if (std::isnan(y) || y < 0.0L || y > 2.0L) return NAN;
    if (y == 0.0L) return INFINITY;
    if (y == 2.0L) return -INFINITY;
    if (y > 0.0625L && y < 1.9375L) return erfinv(1.0L - y);
    if (y >= 1.9375L) return -erfcinv(2.0L - y);
    const long double two_over_sqrt_pi = 1.128379167095512573896158903121545172L;
    long double x = std::sqrt(-std::log(y));
    for (int i = 0; i < 100; ++i) {
        const long double deriv = -two_over_sqrt_pi * std::exp(-x * x);
        // Newton on log(erfc(x)) - log(y): well scaled for tiny y.
        const long double e = std::erfc(x);
        const long double step = (std::log(e) - std::log(y)) * e / deriv;
        x -= step;
        if (std::fabs(step) <= std::fabs(x) * 1e-19L) break;
    }
    return x;
}
// exp(x^2) erfc(x), without overflow for large x (its asymptotic series).
inline long double erfcx(long double x) {
    if (std::isnan(x)) return x;
    if (x < 50.0L) return std::exp(x * x) * std::erfc(x);
    if (std::isinf(x)) return 0.0L;
    const long double inv_sqrt_pi = 0.564189583547756286948079451560772586L;
    const long double t = 1.0L / (2.0L * x * x);
    long double term = 1.0L, sum = 1.0L;
    for (int k = 1; k <= 8; ++k) {
        term *= -(2 * k - 1) * t;
        sum += term;
    }
    return inv_sqrt_pi / x * sum;
}
inline long double normcdf(long double x) {
    return 0.5L * std::erfc(-x * 0.707106781186547524400844362104849039L);
}
inline long double normcdfinv(long double p) {
    return -1.414213562373095048801688724209698079L * erfcinv(2.0L * p);
}
// I0 and I1 from libstdc++'s special functions, which take x >= 0.
inline long double bessel_i0(long double x) {
    if (std::isnan(x)) return x;
    if (std::isinf(x)) return INFINITY;
    return std::cyl_bessel_il(0.0L, std::fabs(x));
}
inline long double bessel_i1(long double x) {
    if (std::isnan(x)) return x;
    if (std::isinf(x)) return x;
    const long double r = std::cyl_bessel_il(1.0L, std::fabs(x));
    return x < 0 ? -r : r;
}
template <class T>
inline long double sum_of_squares(int dim, const T* p) {
    long double s = 0.0L;
    bool has_inf = false;
    for (int i = 0; i < dim; ++i) {
        if (std::isinf(p[i])) has_inf = true;
        s += static_cast<long double>(p[i]) * p[i];
    }
    return has_inf ? INFINITY : s;
}
}  // namespace math
}  // namespace cuemu

// ---- float ---------------------------------------------------------------------
// glibc 2.41 brings C23's sinpi/cospi family itself; then its functions serve.
#if !(defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 41)))
#define CUEMU_OWN_SINPI 1
inline float sinpif(float x) { return static_cast<float>(::cuemu::math::sinpi(x)); }
inline float cospif(float x) { return static_cast<float>(::cuemu::math::cospi(x)); }
#endif
inline void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
inline float rcbrtf(float x) { return static_cast<float>(::cuemu::math::rcbrt(x)); }
inline float erfinvf(float x) { return static_cast<float>(::cuemu::math::erfinv(x)); }
inline float erfcinvf(float x) { return static_cast<float>(::cuemu::math::erfcinv(x)); }
inline float erfcxf(float x) { return static_cast<float>(::cuemu::math::erfcx(x)); }
inline float normcdff(float x) { return static_cast<float>(::cuemu::math::normcdf(x)); }
inline float normcdfinvf(float x) { return static_cast<float>(::cuemu::math::normcdfinv(x)); }
inline float cyl_bessel_i0f(float x) { return static_cast<float>(::cuemu::math::bessel_i0(x)); }
inline float cyl_bessel_i1f(float x) { return static_cast<float>(::cuemu::math::bessel_i1(x)); }
inline float rhypotf(float x, float y) {
    const float p[2] = {x, y};
    return static_cast<float>(1.0L / std::sqrt(::cuemu::math::sum_of_squares(2, p)));
}
inline float norm3df(float a, float b, float c) {
    const float p[3] = {a, b, c};
    return static_cast<float>(std::sqrt(::cuemu::math::sum_of_squares(3, p)));
}
inline float norm4df(float a, float b, float c, float d) {
    const float p[4] = {a, b, c, d};
    return static_cast<float>(std::sqrt(::cuemu::math::sum_of_squares(4, p)));
}
inline float rnorm3df(float a, float b, float c) {
    const float p[3] = {a, b, c};
    return static_cast<float>(1.0L / std::sqrt(::cuemu::math::sum_of_squares(3, p)));
}
inline float rnorm4df(float a, float b, float c, float d) {
    const float p[4] = {a, b, c, d};
    return static_cast<float>(1.0L / std::sqrt(::cuemu::math::sum_of_squares(4, p)));
}
inline float normf(int dim, const float* p) {
    return static_cast<float>(std::sqrt(::cuemu::math::sum_of_squares(dim, p)));
}
inline float rnormf(int dim, const float* p) {
    return static_cast<float>(1.0L / std::sqrt(::cuemu::math::sum_of_squares(dim, p)));
}
// CUDA's documented fdividef is __fdividef (builtins.h), including its 0 for
// 2^126 < |y| < 2^128.
inline float fdividef(float x, float y) { return __fdividef(x, y); }

// ---- double --------------------------------------------------------------------
#ifdef CUEMU_OWN_SINPI
inline double sinpi(double x) { return static_cast<double>(::cuemu::math::sinpi(x)); }
inline double cospi(double x) { return static_cast<double>(::cuemu::math::cospi(x)); }
#undef CUEMU_OWN_SINPI
#endif
inline void sincospi(double x, double* s, double* c) { *s = sinpi(x); *c = cospi(x); }
inline double rcbrt(double x) { return static_cast<double>(::cuemu::math::rcbrt(x)); }
inline double erfinv(double x) { return static_cast<double>(::cuemu::math::erfinv(x)); }
inline double erfcinv(double x) { return static_cast<double>(::cuemu::math::erfcinv(x)); }
inline double erfcx(double x) { return static_cast<double>(::cuemu::math::erfcx(x)); }
inline double normcdf(double x) { return static_cast<double>(::cuemu::math::normcdf(x)); }
inline double normcdfinv(double x) { return static_cast<double>(::cuemu::math::normcdfinv(x)); }
inline double cyl_bessel_i0(double x) { return static_cast<double>(::cuemu::math::bessel_i0(x)); }
inline double cyl_bessel_i1(double x) { return static_cast<double>(::cuemu::math::bessel_i1(x)); }
inline double rhypot(double x, double y) {
    const double p[2] = {x, y};
    return static_cast<double>(1.0L / std::sqrt(::cuemu::math::sum_of_squares(2, p)));
}
inline double norm3d(double a, double b, double c) {
    const double p[3] = {a, b, c};
    return static_cast<double>(std::sqrt(::cuemu::math::sum_of_squares(3, p)));
}
inline double norm4d(double a, double b, double c, double d) {
    const double p[4] = {a, b, c, d};
    return static_cast<double>(std::sqrt(::cuemu::math::sum_of_squares(4, p)));
}
inline double rnorm3d(double a, double b, double c) {
    const double p[3] = {a, b, c};
    return static_cast<double>(1.0L / std::sqrt(::cuemu::math::sum_of_squares(3, p)));
}
inline double rnorm4d(double a, double b, double c, double d) {
    const double p[4] = {a, b, c, d};
    return static_cast<double>(1.0L / std::sqrt(::cuemu::math::sum_of_squares(4, p)));
}
inline double norm(int dim, const double* p) {
    return static_cast<double>(std::sqrt(::cuemu::math::sum_of_squares(dim, p)));
}
inline double rnorm(int dim, const double* p) {
    return static_cast<double>(1.0L / std::sqrt(::cuemu::math::sum_of_squares(dim, p)));
}

// ---- CUDA's float overloads of its own names (C++ only, as in CUDA) -------------
inline float sinpi(float x) { return sinpif(x); }
inline float cospi(float x) { return cospif(x); }
inline void sincospi(float x, float* s, float* c) { sincospif(x, s, c); }
inline float rsqrt(float x) { return rsqrtf(x); }
inline float rcbrt(float x) { return rcbrtf(x); }
inline float erfinv(float x) { return erfinvf(x); }
inline float erfcinv(float x) { return erfcinvf(x); }
inline float erfcx(float x) { return erfcxf(x); }
inline float normcdf(float x) { return normcdff(x); }
inline float normcdfinv(float x) { return normcdfinvf(x); }
inline float exp10(float x) { return exp10f(x); }
inline void sincos(float x, float* s, float* c) { sincosf(x, s, c); }
inline float j0(float x) { return j0f(x); }
inline float j1(float x) { return j1f(x); }
inline float jn(int n, float x) { return jnf(n, x); }
inline float y0(float x) { return y0f(x); }
inline float y1(float x) { return y1f(x); }
inline float yn(int n, float x) { return ynf(n, x); }

#endif
