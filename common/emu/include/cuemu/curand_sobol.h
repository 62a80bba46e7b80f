// cuemu/curand_sobol.h - cuRAND's device API for the Sobol quasi-random
// states (included by <curand_kernel.h>): curandStateSobol32_t,
// curandStateSobol64_t and their scrambled kin curandStateScrambledSobol32_t
// and curandStateScrambledSobol64_t with cuRAND's layouts, curand_init from
// one dimension's direction vectors (curandGetDirectionVectors32/64, in
// src/curand/sobol_directions.cpp and scrambled_sobol.cpp) and, scrambled,
// its scramble constant (curandGetScrambleConstants32/64), skipahead,
// curand, and the uniform, normal, log-normal and Poisson conversions (the
// last also serves MTGP32).
//
// A Sobol state is point i of one dimension: x is the XOR of the direction
// vectors picked by the bits of i's Gray code, so moving from i to i + 1
// flips one vector, the one at i's lowest zero bit. Point 0 is 0; a
// scrambled state's points are all XORed with its constant c, so its point
// 0 is c (the scrambling of the vectors themselves is in cuRAND's table).
//
// Normals come from the inverse normal distribution function (erfcinv), not
// Box-Muller: one raw number per normal keeps the points' spread. The double
// ones use libcurand's host erfcinv (cuemu/curand_inverse_normal.h), so that
// the host generators' doubles are libcurand's bit for bit. The sign is
// the toolkit header's: small raw numbers give large positive normals here,
// where libcurand's host generators give the negated value (see
// src/curand/sobol_layout.cpp).
#ifndef CUEMU_CURAND_SOBOL_H
#define CUEMU_CURAND_SOBOL_H

#include <cmath>
#include <type_traits>

#include "cuemu/curand_inverse_normal.h"

// cuRAND's layout: point i, its value x, the scramble constant c, the vectors.
#define CUEMU_CURAND_SOBOL_STATE(name, Word, bits) \
    struct name {                                  \
        Word i, x, c;                              \
        Word direction_vectors[bits];              \
    };                                             \
    typedef struct name name##_t;
CUEMU_CURAND_SOBOL_STATE(curandStateSobol32, unsigned int, 32)
CUEMU_CURAND_SOBOL_STATE(curandStateSobol64, unsigned long long, 64)
CUEMU_CURAND_SOBOL_STATE(curandStateScrambledSobol32, unsigned int, 32)
CUEMU_CURAND_SOBOL_STATE(curandStateScrambledSobol64, unsigned long long, 64)
#undef CUEMU_CURAND_SOBOL_STATE

namespace cuemu {
namespace curand_detail {

// Point `index` of a dimension, from scratch: XOR of the vectors at the set
// bits of index's Gray code (index ^ index >> 1).
template <class Word, int Bits>
__device__ inline Word sobol_point(const Word* direction_vectors, Word index) {
    const Word gray = index ^ (index >> 1);
    Word x = 0;
    for (int k = 0; k < Bits; ++k)
        if ((gray >> k) & 1) x ^= direction_vectors[k];
    return x;
}

// Past the last point (i all ones) cuRAND flips the top vector.
template <class Word>
__device__ inline int lowest_zero_bit(Word i) {
    constexpr int top = 8 * sizeof(Word) - 1;
    int k = 0;
    while (k < top && ((i >> k) & 1)) ++k;
    return k;
}

// The inverse normal distribution function at the raw number's uniform,
// mirrored about 1/2 so that both tails keep their digits (erfcinv is
// accurate for small arguments, not for ones near 2).
__device__ inline float quasi_normal(unsigned int x) {
    float sign = 1.41421356237309504880f;  // sqrt(2)
    if (x > 0x80000000u) {
        x = 0xffffffffu - x;
        sign = -sign;
    }
    const float p = x * 0x1p-32f + 0x1p-33f;  // (0, 1/2]
    return sign * erfcinvf(2.0f * p);
}
__device__ inline double quasi_normal_double(unsigned int x) {
    double sign = 1.4142135623730951;
    if (x > 0x80000000u) {
        x = 0xffffffffu - x;
        sign = -sign;
    }
    const double p = x * 0x1p-32 + 0x1p-33;
    return sign * libcurand_erfcinv(2.0 * p);
}
// Sobol64: the float keeps the top 32 bits, the double the top 53.
__device__ inline float quasi_normal(unsigned long long x) {
    return quasi_normal(static_cast<unsigned int>(x >> 32));
}
__device__ inline double quasi_normal_double(unsigned long long x) {
    double sign = 1.4142135623730951;
    unsigned long long top = x >> 11;
    if (top > (1ull << 52)) {
        top = (1ull << 53) - 1 - top;
        sign = -sign;
    }
    const double p = top * 0x1p-53 + 0x1p-54;
    return sign * libcurand_erfcinv(2.0 * p);
}

// ---- one raw number, one draw (the Sobol and MTGP32 states) ------------------------------
// A uniform in (0, 1), never 1: the search below would not end at 1.
__device__ inline double open_uniform_double(unsigned int x) { return x * 0x1p-32 + 0x1p-33; }
__device__ inline double open_uniform_double(unsigned long long x) {
    return (x >> 11) * 0x1p-53 + 0x1p-55;
}

// Inversion: the smallest k whose distribution function reaches u (in
// (0, 1)), summed term by term from k = 0 (Fishman's method, as cuRAND's).
// The factor e^-lambda is applied in steps of at most e^-500 between
// searches, so that no term underflows before the sum has grown. The order
// of the operations is cuRAND's, so the draws are the toolkit's for the same u.
__device__ inline unsigned int poisson_by_search(double u, double lambda) {
    const double step = 500.0;
    double term = 1.0, sum = 1.0;
    unsigned int k = 0;
    int applied = 0;  // how much of -lambda the factor has taken so far
    do {
        const double factor = lambda > applied + step ? std::exp(-step) : std::exp(applied - lambda);
        term *= factor;
        sum *= factor;
        applied += static_cast<int>(step);
        while (u > sum) {
            ++k;
            term *= lambda / static_cast<double>(k);
            sum += term;
        }
    } while (static_cast<double>(applied) < lambda);
    return k;
}

// The device API's draw from one raw number: below lambda 1000 the search
// above; from 1000 on, a normal (the inverse normal distribution function
// of the same number) rounded to the nearest integer.
template <class Word>
__device__ inline unsigned int poisson_from_one_number(Word x, double lambda) {
    if (lambda >= 1000)
        return static_cast<unsigned int>(std::sqrt(lambda) * quasi_normal_double(x) + lambda + 0.5);
    return poisson_by_search(open_uniform_double(x), lambda);
}

}  // namespace curand_detail
}  // namespace cuemu

// ---- position: the state at point i (counted from 0) of its dimension -----------------
// skipahead moves to point i + n. c is the scrambled states' constant (0 unscrambled).
template <class State>
__device__ inline std::enable_if_t<std::is_same<State, curandStateSobol32_t*>::value ||
                                   std::is_same<State, curandStateScrambledSobol32_t*>::value>
skipahead(unsigned int n, State state) {
    state->i += n;
    state->x = state->c ^ cuemu::curand_detail::sobol_point<unsigned int, 32>(
                              state->direction_vectors, state->i);
}
template <class State>
__device__ inline std::enable_if_t<std::is_same<State, curandStateSobol64_t*>::value ||
                                   std::is_same<State, curandStateScrambledSobol64_t*>::value>
skipahead(unsigned long long n, State state) {
    state->i += n;
    state->x = state->c ^ cuemu::curand_detail::sobol_point<unsigned long long, 64>(
                              state->direction_vectors, state->i);
}

__device__ inline void curand_init(curandDirectionVectors32_t direction_vectors,
                                   unsigned int offset, curandStateSobol32_t* state) {
    state->i = 0;
    state->c = 0;
    for (int k = 0; k < 32; ++k) state->direction_vectors[k] = direction_vectors[k];
    skipahead<curandStateSobol32_t*>(offset, state);
}
__device__ inline void curand_init(curandDirectionVectors64_t direction_vectors,
                                   unsigned long long offset, curandStateSobol64_t* state) {
    state->i = 0;
    state->c = 0;
    for (int k = 0; k < 64; ++k) state->direction_vectors[k] = direction_vectors[k];
    skipahead<curandStateSobol64_t*>(offset, state);
}
__device__ inline void curand_init(curandDirectionVectors32_t direction_vectors,
                                   unsigned int scramble_c, unsigned int offset,
                                   curandStateScrambledSobol32_t* state) {
    state->i = 0;
    state->c = scramble_c;
    for (int k = 0; k < 32; ++k) state->direction_vectors[k] = direction_vectors[k];
    skipahead<curandStateScrambledSobol32_t*>(offset, state);
}
__device__ inline void curand_init(curandDirectionVectors64_t direction_vectors,
                                   unsigned long long scramble_c, unsigned long long offset,
                                   curandStateScrambledSobol64_t* state) {
    state->i = 0;
    state->c = scramble_c;
    for (int k = 0; k < 64; ++k) state->direction_vectors[k] = direction_vectors[k];
    skipahead<curandStateScrambledSobol64_t*>(offset, state);
}

// ---- raw numbers: this point, then one step on -----------------------------------------
namespace cuemu {
namespace curand_detail {
template <class State>
__device__ inline auto sobol_next(State* state) {
    const auto point = state->x;
    state->x ^= state->direction_vectors[lowest_zero_bit(state->i)];
    ++state->i;
    return point;
}
}  // namespace curand_detail
}  // namespace cuemu

// ---- distributions: one raw number each --------------------------------------------------
// The same for a state and its scrambled kin: only the raw numbers differ.
#define CUEMU_CURAND_SOBOL32_DRAWS(State)                                                        \
    __device__ inline unsigned int curand(State* state) {                                        \
        return cuemu::curand_detail::sobol_next(state);                                          \
    }                                                                                            \
    __device__ inline float curand_uniform(State* state) {                                       \
        return cuemu::curand_detail::uniform_from_bits(curand(state));                           \
    }                                                                                            \
    __device__ inline double curand_uniform_double(State* state) {                               \
        return cuemu::curand_detail::uniform_double_from_bits(curand(state));                    \
    }
// Sobol64: the float uniform keeps the top 32 bits, the double the top 53,
// centred in their step.
#define CUEMU_CURAND_SOBOL64_DRAWS(State)                                                        \
    __device__ inline unsigned long long curand(State* state) {                                  \
        return cuemu::curand_detail::sobol_next(state);                                          \
    }                                                                                            \
    __device__ inline float curand_uniform(State* state) {                                       \
        return cuemu::curand_detail::uniform_from_bits(                                          \
            static_cast<unsigned int>(curand(state) >> 32));                                     \
    }                                                                                            \
    __device__ inline double curand_uniform_double(State* state) {                               \
        return (curand(state) >> 11) * 0x1p-53 + 0x1p-54;                                        \
    }
// Normals from the inverse normal distribution function; cuRAND's Poisson
// from one raw number (poisson_from_one_number).
#define CUEMU_CURAND_QUASI_NORMALS(State)                                                        \
    __device__ inline float curand_normal(State* state) {                                        \
        return cuemu::curand_detail::quasi_normal(curand(state));                                \
    }                                                                                            \
    __device__ inline double curand_normal_double(State* state) {                                \
        return cuemu::curand_detail::quasi_normal_double(curand(state));                         \
    }                                                                                            \
    __device__ inline float curand_log_normal(State* state, float mean, float stddev) {          \
        return expf(mean + stddev * cuemu::curand_detail::quasi_normal(curand(state)));          \
    }                                                                                            \
    __device__ inline double curand_log_normal_double(State* state, double mean, double stddev) { \
        return std::exp(mean + stddev * cuemu::curand_detail::quasi_normal_double(curand(state))); \
    }                                                                                            \
    __device__ inline unsigned int curand_poisson(State* state, double lambda) {                 \
        return cuemu::curand_detail::poisson_from_one_number(curand(state), lambda);             \
    }

CUEMU_CURAND_SOBOL32_DRAWS(curandStateSobol32_t)
CUEMU_CURAND_SOBOL32_DRAWS(curandStateScrambledSobol32_t)
CUEMU_CURAND_SOBOL64_DRAWS(curandStateSobol64_t)
CUEMU_CURAND_SOBOL64_DRAWS(curandStateScrambledSobol64_t)
CUEMU_CURAND_QUASI_NORMALS(curandStateSobol32_t)
CUEMU_CURAND_QUASI_NORMALS(curandStateScrambledSobol32_t)
CUEMU_CURAND_QUASI_NORMALS(curandStateSobol64_t)
CUEMU_CURAND_QUASI_NORMALS(curandStateScrambledSobol64_t)
#undef CUEMU_CURAND_SOBOL32_DRAWS
#undef CUEMU_CURAND_SOBOL64_DRAWS
#undef CUEMU_CURAND_QUASI_NORMALS

#endif
