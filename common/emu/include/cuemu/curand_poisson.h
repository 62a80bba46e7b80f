// cuemu/curand_poisson.h - curand_poisson for the XORWOW, Philox4_32_10 and
// MRG32k3a states (included by cuemu/curand_distributions.h). The Sobol and
// MTGP32 states draw from one raw number instead (poisson_from_one_number in
// cuemu/curand_sobol.h).
//
// cuRAND's three regimes, by lambda: below 64, Knuth's method (multiply
// uniforms until the product falls under e^-lambda, kept as e^lambda times
// the product against 1); up to 4000, rejection from an approximation of the
// regularised incomplete gamma function; above, a rounded normal. The
// approximation's constants are cuRAND's. Its exp, log and reciprocal square
// root are the C library's here (libcurand's host code does the same); a GPU
// uses its approximate instructions, so for lambda >= 64 a GPU's draws may
// differ from these.
#ifndef CUEMU_CURAND_POISSON_H
#define CUEMU_CURAND_POISSON_H

namespace cuemu {
namespace curand_detail {

// The approximation's shape: alpha and beta depend on lambda only.
struct gammainc_shape {
    float alpha, beta;
};
__device__ inline gammainc_shape gammainc_shape_of(float a) {
    const float ma1 = 1.43248035075540910f, ma2 = 0.12400979329415655f,
                ma3 = 0.00025361074907033f, mb1 = 0.21096734870196546f,
                mb2 = 1.97381164089999420f, mb3 = 0.94201734077887530f;
    gammainc_shape shape;
    shape.alpha = ma1 * (1.0f / sqrtf(a - ma2)) + ma3;
    shape.beta = mb1 * (1.0f / sqrtf(a - mb2)) + mb3;
    return shape;
}
// P(a, x), the regularised lower incomplete gamma function, approximately.
__device__ inline float gammainc_approx(float a, float x) {
    const gammainc_shape s = gammainc_shape_of(a);
    float t = s.alpha * (a - x) - s.beta;
    t = 1.0f + expf(t);
    return 1.0f / (t * t);
}
// Its inverse in x.
__device__ inline float gammainc_inverse_approx(float a, float y) {
    const gammainc_shape s = gammainc_shape_of(a);
    float t = logf(1.0f / sqrtf(y) - 1.0f);
    t = s.beta + t;
    return -t * (1.0f / s.alpha) + a;
}

// ln((a-1)!): a table below 9, Stirling's series (Hart et al., 5404) above.
__device__ inline double log_factorial_of_predecessor(int a) {
    const double fa = std::fabs(static_cast<float>(a));
    if (a <= 8) {
        static const double small[9] = {0.0,
                                        0.0,
                                        6.931471805599453094e-1,
                                        1.791759469228055001e0,
                                        3.178053830347945620e0,
                                        4.787491742782045994e0,
                                        6.579251212010100995e0,
                                        8.525161361065414300e0,
                                        1.060460290274525023e1};
        return a >= 1 ? small[a - 1] : small[8];
    }
    double s = 1.0 / fa;
    const double t = s * s;
    double sum = -0.1633436431e-2;
    sum = sum * t + 0.83645878922e-3;
    sum = sum * t - 0.5951896861197e-3;
    sum = sum * t + 0.793650576493454e-3;
    sum = sum * t - 0.277777777735865004e-2;
    sum = sum * t + 0.833333333333331018375e-1;
    sum = sum * s + 0.918938533204672;
    s = 0.5 * std::log(fa);
    s = s * (fa - 0.5);
    const double u = s - fa;
    s = s + sum;
    return u + s;
}

template <class State>
__device__ inline unsigned int poisson_knuth(State* state, float lambda) {
    unsigned int k = 0;
    float p = expf(lambda);
    do {
        ++k;
        p *= curand_uniform(state);
    } while (p > 1.0);
    return k - 1;
}

template <class State>
__device__ inline unsigned int poisson_rejection(State* state, float lambda) {
    const float log_lambda = logf(lambda);
    for (;;) {
        const float x = floorf(gammainc_inverse_approx(lambda, curand_uniform(state)));
        const float v = (gammainc_approx(lambda, x + 1.0f) - gammainc_approx(lambda, x)) * 1.3f;
        const float z = curand_uniform(state) * v;
        const float t = expf(-lambda + x * log_lambda -
                             static_cast<float>(log_factorial_of_predecessor(int(1.0f + x))));
        if (z < t && v >= 1e-20) return static_cast<unsigned int>(x);
    }
}

template <class State>
__device__ inline unsigned int poisson(State* state, double lambda) {
    if (lambda < 64) return poisson_knuth(state, static_cast<float>(lambda));
    if (lambda > 4000)
        return static_cast<unsigned int>(std::sqrt(lambda) * curand_normal_double(state) + lambda +
                                         0.5);
    return poisson_rejection(state, static_cast<float>(lambda));
}

}  // namespace curand_detail
}  // namespace cuemu

__device__ inline unsigned int curand_poisson(curandStateXORWOW_t* state, double lambda) {
    return cuemu::curand_detail::poisson(state, lambda);
}
__device__ inline unsigned int curand_poisson(curandStatePhilox4_32_10_t* state, double lambda) {
    return cuemu::curand_detail::poisson(state, lambda);
}
__device__ inline unsigned int curand_poisson(curandStateMRG32k3a_t* state, double lambda) {
    return cuemu::curand_detail::poisson(state, lambda);
}

#endif
