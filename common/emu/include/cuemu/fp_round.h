// cuemu/fp_round.h - rounding a double to a narrower binary floating-point
// format (float, half, bfloat16) in any of CUDA's four rounding modes, and
// decoding such a format back to double. The intrinsics with a rounding
// suffix (_rn, _rz, _ru, _rd) and the half and bfloat16 types are built on it.
//
// Why double is enough: every value of the narrow formats is exact in double,
// and a result computed in double "rounded to odd" (the last bit set when the
// double result is inexact) and then rounded once more to a format at least two
// bits narrower rounds exactly as the infinitely precise result would.
#ifndef CUEMU_FP_ROUND_H
#define CUEMU_FP_ROUND_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace cuemu {
namespace fp {

enum round_mode { to_nearest_even, toward_zero, toward_plus_inf, toward_minus_inf };

// A binary format: exponent and stored-mantissa widths, and the bit pattern
// its conversions give for NaN (CUDA's canonical NaN of that format).
struct format {
    int exponent_bits;
    int mantissa_bits;
    std::uint32_t nan_bits;
};
constexpr format binary16{5, 10, 0x7fffu};
constexpr format bfloat16{8, 7, 0x7fffu};
constexpr format binary32{8, 23, 0x7fffffffu};

// The format's bits for x, rounded as `mode` says.
inline std::uint32_t round_to(double x, format f, round_mode mode) {
    const int bias = (1 << (f.exponent_bits - 1)) - 1;
    const int emin = 1 - bias;
    const std::uint32_t sign = std::signbit(x) ? (1u << (f.exponent_bits + f.mantissa_bits)) : 0u;
    const std::uint32_t inf_bits = ((1u << f.exponent_bits) - 1u) << f.mantissa_bits;
    const std::uint32_t max_bits = inf_bits - 1u;
    if (std::isnan(x)) return f.nan_bits;
    const double a = std::fabs(x);
    // Does this mode round the magnitude up (away from zero)?
    const bool negative = sign != 0;
    const bool away = (mode == toward_plus_inf && !negative) || (mode == toward_minus_inf && negative);
    const bool toward0 = mode == toward_zero || (mode == toward_plus_inf && negative) ||
                         (mode == toward_minus_inf && !negative);
    if (std::isinf(a)) return sign | inf_bits;
    if (a == 0.0) return sign;
    // The quantum (weight of the last mantissa bit) of a's binade, at least the
    // subnormals' quantum.
    int e = std::ilogb(a);
    if (e < emin) e = emin;
    const int quantum = e - f.mantissa_bits;
    const double scaled = std::ldexp(a, -quantum);  // exact: a power-of-two scaling
    double m;
    if (toward0) m = std::floor(scaled);
    else if (away) m = std::ceil(scaled);
    else {
        m = std::floor(scaled);
        const double rest = scaled - m;  // exact
        if (rest > 0.5 || (rest == 0.5 && std::fmod(m, 2.0) != 0.0)) m += 1.0;
    }
    // m has at most mantissa_bits + 2 bits; a carry may move it up one binade.
    std::uint64_t mi = static_cast<std::uint64_t>(m);
    int q = quantum;
    if (mi >> (f.mantissa_bits + 1)) {
        mi >>= 1;  // the dropped bit is 0: m was exactly 2^(mantissa_bits+1)
        ++q;
    }
    const int emax = bias;
    if (q + f.mantissa_bits > emax) {
        // Overflow: infinity when rounding to nearest or away, else the largest finite.
        return sign | ((toward0) ? max_bits : inf_bits);
    }
    if ((mi >> f.mantissa_bits) == 0) return sign | static_cast<std::uint32_t>(mi);  // subnormal
    const std::uint32_t biased = static_cast<std::uint32_t>(q + f.mantissa_bits + bias);
    return sign | (biased << f.mantissa_bits) |
           static_cast<std::uint32_t>(mi & ((1ull << f.mantissa_bits) - 1u));
}

// The value the format's bits stand for, exactly.
inline double value_of(std::uint32_t bits, format f) {
    const int bias = (1 << (f.exponent_bits - 1)) - 1;
    const std::uint32_t mantissa = bits & ((1u << f.mantissa_bits) - 1u);
    const std::uint32_t biased = (bits >> f.mantissa_bits) & ((1u << f.exponent_bits) - 1u);
    const bool negative = (bits >> (f.exponent_bits + f.mantissa_bits)) & 1u;
    double v;
    if (biased == (1u << f.exponent_bits) - 1u) v = mantissa ? NAN : INFINITY;
    else if (biased == 0) v = std::ldexp(static_cast<double>(mantissa), 1 - bias - f.mantissa_bits);
    else v = std::ldexp(static_cast<double>(mantissa | (1u << f.mantissa_bits)),
                        static_cast<int>(biased) - bias - f.mantissa_bits);
    return negative ? -v : v;
}

// A double result r of some operation, nudged to "round to odd": error_sign
// tells on which side of r the exact result lies (0 when r is exact).
inline double to_odd(double r, int error_sign) {
    if (error_sign == 0 || std::isinf(r) || std::isnan(r)) return r;
    std::uint64_t bits;
    std::memcpy(&bits, &r, sizeof bits);
    if (bits & 1u) return r;  // already odd
    return std::nextafter(r, error_sign > 0 ? INFINITY : -INFINITY);
}
// A double result r nudged one step as a directed rounding mode asks, given
// on which side of r the exact result lies.
inline double directed(double r, int error_sign, round_mode mode) {
    if (error_sign == 0 || std::isnan(r)) return r;
    const bool up = mode == toward_plus_inf || (mode == toward_zero && r < 0.0);
    const bool down = mode == toward_minus_inf || (mode == toward_zero && r > 0.0);
    if (up && error_sign > 0) return std::nextafter(r, INFINITY);
    if (down && error_sign < 0) return std::nextafter(r, -INFINITY);
    return r;
}
inline int sign_of(double v) { return (v > 0.0) - (v < 0.0); }

// Exact-error double operations: the rounded result and the sign of
// (exact - rounded).
inline double add(double a, double b, int* error_sign) {
    const double s = a + b;
    if (!std::isfinite(s)) { *error_sign = 0; return s; }
    const double bb = s - a;
    const double err = (a - (s - bb)) + (b - bb);  // Knuth's two-sum
    *error_sign = sign_of(err);
    return s;
}
inline double mul(double a, double b, int* error_sign) {
    const double p = a * b;
    *error_sign = std::isfinite(p) ? sign_of(std::fma(a, b, -p)) : 0;
    return p;
}
inline double div(double a, double b, int* error_sign) {
    const double q = a / b;
    *error_sign = std::isfinite(q) && q != 0.0 ? sign_of(std::fma(-q, b, a)) * sign_of(b) : 0;
    if (std::isfinite(q) && q == 0.0 && a != 0.0) *error_sign = sign_of(a) * sign_of(b);
    return q;
}
inline double sqrt(double a, int* error_sign) {
    const double r = std::sqrt(a);
    *error_sign = std::isfinite(r) && r > 0.0 ? sign_of(std::fma(-r, r, a)) : 0;
    return r;
}
// a*b + c with one rounding (to odd), for fma of formats of at most 24
// mantissa bits: their product is exact in double, and two-sum tells on which
// side of the rounded sum the exact one lies.
inline double fma_to_odd(double a, double b, double c) {
    int error_sign;
    const double s = add(a * b, c, &error_sign);
    return to_odd(s, error_sign);
}

inline float to_float(double x, round_mode mode) {
    const std::uint32_t bits = round_to(x, binary32, mode);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return std::isnan(x) ? static_cast<float>(x) : f;
}

}  // namespace fp
}  // namespace cuemu

#endif
