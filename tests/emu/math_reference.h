// math_reference.h - the functions test_math_api.cu checks, by number, and
// their quadruple-precision reference (math_reference.cpp).
#ifndef CUEMU_TESTS_MATH_REFERENCE_H
#define CUEMU_TESTS_MATH_REFERENCE_H

enum math_function {
    fn_sin, fn_cos, fn_tan, fn_asin, fn_acos, fn_atan, fn_atan2, fn_sinh, fn_cosh, fn_tanh,
    fn_asinh, fn_acosh, fn_atanh, fn_exp, fn_exp2, fn_exp10, fn_expm1, fn_log, fn_log2, fn_log10,
    fn_log1p, fn_pow, fn_sqrt, fn_rsqrt, fn_cbrt, fn_rcbrt, fn_hypot, fn_rhypot, fn_norm3d,
    fn_rnorm3d, fn_norm4d, fn_rnorm4d, fn_erf, fn_erfc, fn_erfinv, fn_erfcinv, fn_erfcx,
    fn_normcdf, fn_normcdfinv, fn_lgamma, fn_tgamma, fn_sinpi, fn_cospi, fn_j0, fn_j1, fn_y0,
    fn_y1, fn_i0, fn_i1, fn_fmod, fn_remainder, fn_fdim, fn_fma, fn_count
};

// The exact value of function fn at (x, y, z, w) (unused arguments ignored),
// rounded to long double.
long double math_reference(int fn, long double x, long double y, long double z, long double w);

#endif
