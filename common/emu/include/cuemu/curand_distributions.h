// cuemu/curand_distributions.h - cuRAND's device-API distributions for the
// XORWOW, Philox4_32_10 and MRG32k3a states (included by <curand_kernel.h>).
//
// Each conversion is cuRAND's, step for step, because the last bit depends on
// it: which raw numbers feed it, the constant added to keep 0 out of (0, 1],
// Box-Muller's order of operations, the spare normal a state keeps between
// calls. Normals use logf/sinf/cosf (log/sin/cos for doubles), the functions
// libcurand's host generators use; a GPU uses its own approximate sine and
// cosine (so a GPU's normals may differ from these in the last bits).
#ifndef CUEMU_CURAND_DISTRIBUTIONS_H
#define CUEMU_CURAND_DISTRIBUTIONS_H

#include <cmath>

namespace cuemu {
namespace curand_detail {

constexpr float two_pow_minus_32 = 0x1p-32f;
constexpr double two_pow_minus_32_double = 0x1p-32;
constexpr double two_pow_minus_53 = 0x1p-53;
constexpr float two_pi_float = 6.2831855f;
constexpr float two_pow_minus_32_times_two_pi = two_pow_minus_32 * two_pi_float;
constexpr double pi_double = 3.1415926535897932;

// (0, 1]: the half step keeps 0 out and lets 1 in.
__device__ inline float uniform_from_bits(unsigned int x) {
    return x * two_pow_minus_32 + two_pow_minus_32 / 2.0f;
}
__device__ inline double uniform_double_from_bits(unsigned int x) {
    return x * two_pow_minus_32_double + two_pow_minus_32_double;
}
// 53 random bits from two numbers (the second shifted over the first).
__device__ inline unsigned long long bits53(unsigned int low, unsigned int high) {
    return static_cast<unsigned long long>(low) ^ (static_cast<unsigned long long>(high) << 21);
}
__device__ inline double uniform_double_from_two(unsigned int low, unsigned int high) {
    return bits53(low, high) * two_pow_minus_53 + two_pow_minus_53 / 2.0;
}

__device__ inline float2 box_muller(unsigned int x, unsigned int y) {
    const float u = x * two_pow_minus_32 + two_pow_minus_32 / 2;
    const float angle = y * two_pow_minus_32_times_two_pi + two_pow_minus_32_times_two_pi / 2;
    const float radius = sqrtf(-2.0f * logf(u));
    return make_float2(sinf(angle) * radius, cosf(angle) * radius);
}
__device__ inline double2 box_muller_double(unsigned int x0, unsigned int x1, unsigned int y0,
                                            unsigned int y1) {
    const double u = bits53(x0, x1) * two_pow_minus_53 + two_pow_minus_53 / 2.0;
    const double half_turns = bits53(y0, y1) * (two_pow_minus_53 * 2.0) + two_pow_minus_53;
    const double radius = std::sqrt(-2.0 * std::log(u));
    return make_double2(std::sin(half_turns * pi_double) * radius,
                        std::cos(half_turns * pi_double) * radius);
}

}  // namespace curand_detail
}  // namespace cuemu

// ---- uniform (0, 1] -------------------------------------------------------------------
__device__ inline float curand_uniform(curandStateXORWOW_t* state) {
    return cuemu::curand_detail::uniform_from_bits(curand(state));
}
__device__ inline float curand_uniform(curandStatePhilox4_32_10_t* state) {
    return cuemu::curand_detail::uniform_from_bits(curand(state));
}
__device__ inline float curand_uniform(curandStateMRG32k3a_t* state) {
    return static_cast<float>(cuemu::curand_detail::mrg_next(state) *
                              cuemu::curand_detail::mrg_norm);
}
__device__ inline double curand_uniform_double(curandStateXORWOW_t* state) {
    const unsigned int low = curand(state);
    return cuemu::curand_detail::uniform_double_from_two(low, curand(state));
}
// Philox's double uses a single 32-bit number, as cuRAND's does.
__device__ inline double curand_uniform_double(curandStatePhilox4_32_10_t* state) {
    return cuemu::curand_detail::uniform_double_from_bits(curand(state));
}
__device__ inline double curand_uniform_double(curandStateMRG32k3a_t* state) {
    return cuemu::curand_detail::mrg_next(state) * cuemu::curand_detail::mrg_norm;
}
__device__ inline float4 curand_uniform4(curandStatePhilox4_32_10_t* state) {
    using cuemu::curand_detail::uniform_from_bits;
    const uint4 x = curand4(state);
    return make_float4(uniform_from_bits(x.x), uniform_from_bits(x.y), uniform_from_bits(x.z),
                       uniform_from_bits(x.w));
}
__device__ inline double2 curand_uniform2_double(curandStatePhilox4_32_10_t* state) {
    using cuemu::curand_detail::uniform_double_from_two;
    const uint4 x = curand4(state);
    return make_double2(uniform_double_from_two(x.x, x.y), uniform_double_from_two(x.z, x.w));
}

// ---- pairs of normals, as each generator makes them ----------------------------------
namespace cuemu {
namespace curand_detail {

template <class State>
__device__ inline float2 normal_pair(State* state) {
    const unsigned int x = curand(state);
    return box_muller(x, curand(state));
}
__device__ inline float2 normal_pair(curandStateMRG32k3a_t* state) {
    const float u = curand_uniform(state);
    const float angle = curand_uniform(state) * two_pi_float;
    const float radius = sqrtf(-2.0f * logf(u));
    return make_float2(sinf(angle) * radius, cosf(angle) * radius);
}
__device__ inline double2 normal_pair_double(curandStateXORWOW_t* state) {
    const unsigned int x0 = curand(state), x1 = curand(state);
    const unsigned int y0 = curand(state), y1 = curand(state);
    return box_muller_double(x0, x1, y0, y1);
}
__device__ inline double2 normal_pair_double(curandStatePhilox4_32_10_t* state) {
    const uint4 x = curand4(state);
    return box_muller_double(x.x, x.y, x.z, x.w);
}
__device__ inline double2 normal_pair_double(curandStateMRG32k3a_t* state) {
    const double u = curand_uniform_double(state);
    const double half_turns = curand_uniform_double(state) * 2.0;
    const double radius = std::sqrt(-2.0 * std::log(u));
    return make_double2(std::sin(half_turns * pi_double) * radius,
                        std::cos(half_turns * pi_double) * radius);
}

// Where a state keeps its spare float or double.
template <class State>
__device__ inline int& spare_flag(State* s, float) { return s->boxmuller_flag; }
template <class State>
__device__ inline int& spare_flag(State* s, double) { return s->boxmuller_flag_double; }
template <class State>
__device__ inline float& spare_value(State* s, float) { return s->boxmuller_extra; }
template <class State>
__device__ inline double& spare_value(State* s, double) { return s->boxmuller_extra_double; }
template <class State>
__device__ inline float2 pair_of(State* s, float) { return normal_pair(s); }
template <class State>
__device__ inline double2 pair_of(State* s, double) { return normal_pair_double(s); }
__device__ inline float exp_of(float x) { return expf(x); }
__device__ inline double exp_of(double x) { return std::exp(x); }

// One value of a pair now, the other kept in the state for the next call (a
// normal and a log-normal each mark the spare as theirs).
template <class T, class State>
__device__ inline T with_spare(State* state, int kind, T mean, T stddev) {
    int& flag = spare_flag(state, T());
    if (flag == kind) {
        flag = 0;
        return spare_value(state, T());
    }
    const auto pair = pair_of(state, T());
    const bool log_normal = kind == EXTRA_FLAG_LOG_NORMAL;
    spare_value(state, T()) = log_normal ? exp_of(mean + stddev * pair.y) : pair.y;
    flag = kind;
    return log_normal ? exp_of(mean + stddev * pair.x) : pair.x;
}

}  // namespace curand_detail
}  // namespace cuemu

// ---- normal and log-normal, for each of the three states --------------------------------
#define CUEMU_CURAND_NORMALS(State)                                                            \
    __device__ inline float curand_normal(State* state) {                                      \
        return cuemu::curand_detail::with_spare(state, EXTRA_FLAG_NORMAL, 0.f, 1.f);           \
    }                                                                                          \
    __device__ inline double curand_normal_double(State* state) {                              \
        return cuemu::curand_detail::with_spare(state, EXTRA_FLAG_NORMAL, 0., 1.);             \
    }                                                                                          \
    __device__ inline float curand_log_normal(State* state, float mean, float stddev) {        \
        return cuemu::curand_detail::with_spare(state, EXTRA_FLAG_LOG_NORMAL, mean, stddev);   \
    }                                                                                          \
    __device__ inline double curand_log_normal_double(State* state, double mean,               \
                                                      double stddev) {                         \
        return cuemu::curand_detail::with_spare(state, EXTRA_FLAG_LOG_NORMAL, mean, stddev);   \
    }                                                                                          \
    __device__ inline float2 curand_normal2(State* state) {                                    \
        return cuemu::curand_detail::normal_pair(state);                                       \
    }                                                                                          \
    __device__ inline double2 curand_normal2_double(State* state) {                            \
        return cuemu::curand_detail::normal_pair_double(state);                                \
    }                                                                                          \
    __device__ inline float2 curand_log_normal2(State* state, float mean, float stddev) {       \
        const float2 v = cuemu::curand_detail::normal_pair(state);                             \
        return make_float2(expf(mean + stddev * v.x), expf(mean + stddev * v.y));              \
    }                                                                                          \
    __device__ inline double2 curand_log_normal2_double(State* state, double mean,             \
                                                        double stddev) {                       \
        const double2 v = cuemu::curand_detail::normal_pair_double(state);                     \
        return make_double2(std::exp(mean + stddev * v.x), std::exp(mean + stddev * v.y));     \
    }
CUEMU_CURAND_NORMALS(curandStateXORWOW_t)
CUEMU_CURAND_NORMALS(curandStatePhilox4_32_10_t)
CUEMU_CURAND_NORMALS(curandStateMRG32k3a_t)
#undef CUEMU_CURAND_NORMALS

__device__ inline float4 curand_normal4(curandStatePhilox4_32_10_t* state) {
    const uint4 x = curand4(state);
    const float2 a = cuemu::curand_detail::box_muller(x.x, x.y);
    const float2 b = cuemu::curand_detail::box_muller(x.z, x.w);
    return make_float4(a.x, a.y, b.x, b.y);
}
__device__ inline float4 curand_log_normal4(curandStatePhilox4_32_10_t* state, float mean,
                                            float stddev) {
    const float4 v = curand_normal4(state);
    return make_float4(expf(mean + stddev * v.x), expf(mean + stddev * v.y),
                       expf(mean + stddev * v.z), expf(mean + stddev * v.w));
}

#include "cuemu/curand_poisson.h"

#endif
