// cuemu/curand_inverse_normal.h - erfcinv in double as libcurand's host
// generators compute it, for the double normals and log-normals of MT19937,
// MTGP32 (log-normals), Sobol32 and Sobol64 (included by cuemu/curand_sobol.h).
//
// libcurand's host code is compiled by nvcc, and nvcc gives host code an
// erfcinv of its own: J. M. Blair, C. A. Edwards and J. H. Johnson's rational
// Chebyshev approximations ("Rational Chebyshev approximations for the
// inverse of the error function", Math. Comp. 30 (1976), 827-830), tables 18,
// 39 and 59, evaluated in double with the C library's log, log1p and sqrt.
// Measured: with it every one of 2^20 double normals and log-normals of
// Sobol32, Sobol64 and MT19937 (2^17), and MTGP32's double log-normals, equal
// libcurand 10.4's bit for bit; the emulator's erfcinv (cuemu/math_api.h,
// correctly rounded) differed in the last bits for about half of them.
//
// Only the arguments cuRAND's conversions make are served: 2u for a uniform u
// in [2^-54, 1/2 + 2^-33], so a in [2^-53, 1 + 2^-32]. (The paper's table 82,
// for a below 1e-100, is never reached and is not here.) The order of the
// operations is the one that gives libcurand's bits: each polynomial by
// Horner's rule from its highest coefficient, the denominators monic.
#ifndef CUEMU_CURAND_INVERSE_NORMAL_H
#define CUEMU_CURAND_INVERSE_NORMAL_H

#include <cmath>

namespace cuemu {
namespace curand_detail {

// c[0] t^(N-1) + ... + c[N-1], by Horner's rule.
template <int N>
__device__ inline double horner(const double (&c)[N], double t) {
    double sum = c[0];
    for (int i = 1; i < N; ++i) sum = sum * t + c[i];
    return sum;
}
// t^N + c[0] t^(N-1) + ... + c[N-1] (the leading 1 times t is exact, so
// starting from 1 gives the same bits as starting from t + c[0]).
template <int N>
__device__ inline double horner_monic(const double (&c)[N], double t) {
    double sum = 1.0;
    for (int i = 0; i < N; ++i) sum = sum * t + c[i];
    return sum;
}

// Table 59: erfinv near +-1, in t = 1 / sqrt(-log(1 - |x|)); the value is
// p(t) / (q(t) t).
__device__ inline double blair_table59(double t) {
    static const double p[] = {2.7834010353747001060e-3, 8.6030097526280260580e-1,
                               2.1371214997265515515e+0, 3.1598519601132090206e+0,
                               3.5780402569085996758e+0, 1.5335297523989890804e+0,
                               3.4839207139657522572e-1, 5.3644861147153648366e-2,
                               4.3836709877126095665e-3, 1.3858518113496718808e-4,
                               1.1738352509991666680e-6};
    static const double q[] = {2.2859981272422905412e+0, 4.3859045256449554654e+0,
                               4.6632960348736635331e+0, 3.9846608184671757296e+0,
                               1.6068377709719017609e+0, 3.5609087305900265560e-1,
                               5.3963550303200816744e-2, 4.3873424022706935023e-3,
                               1.3858762165532246059e-4, 1.1738313872397777529e-6};
    return horner(p, t) / (horner_monic(q, t) * t);
}

// erfinv(x) for |x| < 1: table 18 below 0.75, table 39 below 0.9375, table 59 above.
__device__ inline double blair_erfinv(double x) {
    const double magnitude = std::fabs(x);
    if (magnitude >= 0.9375) {
        const double t = 1.0 / std::sqrt(-std::log1p(-magnitude));
        const double v = blair_table59(t);
        return x < 0.0 ? -v : v;
    }
    if (magnitude >= 0.75) {
        static const double p[] = {.21489185007307062000e+0,  -.64200071507209448655e+1,
                                   .29631331505876308123e+2,  -.47644367129787181803e+2,
                                   .34810057749357500873e+2,  -.12954198980646771502e+2,
                                   .25349389220714893917e+1,  -.24758242362823355486e+0,
                                   .94897362808681080020e-2};
        static const double q[] = {-.12831383833953226499e+2, .41409991778428888716e+2,
                                   -.53715373448862143349e+2, .33880176779595142685e+2,
                                   -.11315360624238054876e+2, .20369295047216351160e+1,
                                   -.18611650627372178511e+0, .67544512778850945940e-2};
        const double t = x * x - .87890625;
        return x * (horner(p, t) / horner_monic(q, t));
    }
    static const double p[] = {-.23886240104308755900e+2, .45560204272689128170e+3,
                               -.22977467176607144887e+4, .46631433533434331287e+4,
                               -.43799652308386926161e+4, .19007153590528134753e+4,
                               -.30786872642313695280e+3};
    static const double q[] = {-.83288327901936570000e+2, .92741319160935318800e+3,
                               -.35088976383877264098e+4, .59039348134843665626e+4,
                               -.48481635430048872102e+4, .18997769186453057810e+4,
                               -.28386514725366621129e+3};
    const double t = x * x - .5625;
    return x * (horner(p, t) / horner_monic(q, t));
}

// erfcinv(a) for a in [2^-53, 1 + 2^-32]: erfinv(1 - a) from 1/16 on; below,
// table 59 directly in t = 1 / sqrt(-log a), which keeps small a's digits.
__device__ inline double libcurand_erfcinv(double a) {
    if (a >= 0.0625) return blair_erfinv(1.0 - a);
    return blair_table59(1.0 / std::sqrt(-std::log(a)));
}

}  // namespace curand_detail
}  // namespace cuemu

#endif
