// <curand_kernel.h> for emulator builds: cuRAND's device API, header-only as
// in the toolkit (no -lcurand needed). Three pseudo-random generators with
// cuRAND's state layouts (curandState is XORWOW), seeding, skipping ahead and
// raw 32-bit numbers here; their distributions (uniform, normal, log-normal,
// Poisson) in cuemu/curand_distributions.h; the Sobol32 and Sobol64
// quasi-random states, scrambled or not, in cuemu/curand_sobol.h; the MTGP32 state, which a
// whole block shares, in curand_mtgp32_kernel.h.
//
// The numbers are NVIDIA's, bit for bit, for the same seed, subsequence and
// offset: the algorithms and their constants are cuRAND's (written here from
// its documented behaviour), and tests/emu/curand_reference.cpp compares them
// with the toolkit's (emu.curand.vs-libcurand, emu.curand.vs-stored). What
// differs: see "cuRAND" in common/emu/README.md (normals go through the C
// library's logf/sinf/cosf, as libcurand's host generators do, where a GPU
// uses its own approximate sine and cosine).
//
// Not here (using one is a build error: the name is undeclared):
// curand_discrete, the *_from_normal Poisson.
#ifndef CUEMU_CURAND_KERNEL_H
#define CUEMU_CURAND_KERNEL_H
#define CURAND_KERNEL_H_  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include "cuemu/cuemu.h"
#include "cuemu/curand_xorwow_jumps.h"
#include "curand.h"

// ---- states (cuRAND's layouts, so cudaMalloc(n * sizeof(curandState)) sizes match) ----
struct curandStateXORWOW {
    unsigned int d, v[5];
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

struct curandStatePhilox4_32_10 {
    uint4 ctr;
    uint4 output;
    uint2 key;
    unsigned int STATE;
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

struct curandStateMRG32k3a {
    unsigned int s1[3];
    unsigned int s2[3];
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;

// What boxmuller_flag says the state holds: a spare normal, or a spare log-normal.
#define EXTRA_FLAG_NORMAL 0x00000001
#define EXTRA_FLAG_LOG_NORMAL 0x00000002

namespace cuemu {
namespace curand_detail {

template <class State>
__device__ inline void clear_spares(State* state) {
    state->boxmuller_flag = 0;
    state->boxmuller_flag_double = 0;
    state->boxmuller_extra = 0.f;
    state->boxmuller_extra_double = 0.;
}

// ---- XORWOW (Marsaglia): five xorshift words plus a Weyl counter d ----------------
constexpr std::uint32_t xorwow_weyl = 362437;

// ---- Philox4x32-10 (Salmon et al.): a 128-bit counter through ten rounds ----------
constexpr std::uint32_t philox_multiplier_0 = 0xD2511F53u, philox_multiplier_1 = 0xCD9E8D57u;
constexpr std::uint32_t philox_key_step_0 = 0x9E3779B9u, philox_key_step_1 = 0xBB67AE85u;

__device__ inline uint4 philox_round(uint4 c, uint2 key) {
    const std::uint64_t p0 = std::uint64_t(philox_multiplier_0) * c.x;
    const std::uint64_t p1 = std::uint64_t(philox_multiplier_1) * c.z;
    uint4 out;
    out.x = std::uint32_t(p1 >> 32) ^ c.y ^ key.x;
    out.y = std::uint32_t(p1);
    out.z = std::uint32_t(p0 >> 32) ^ c.w ^ key.y;
    out.w = std::uint32_t(p0);
    return out;
}

__device__ inline uint4 philox4x32_10(uint4 counter, uint2 key) {
    for (int round = 0; round < 9; ++round) {
        counter = philox_round(counter, key);
        key.x += philox_key_step_0;
        key.y += philox_key_step_1;
    }
    return philox_round(counter, key);
}

// Adds n to the low 64 bits of the counter, carrying as cuRAND does (its carry
// out of the low word is folded into the high half of n before the add).
__device__ inline void philox_advance(curandStatePhilox4_32_10_t* s, unsigned long long n) {
    const std::uint32_t low = std::uint32_t(n);
    std::uint32_t high = std::uint32_t(n >> 32);
    s->ctr.x += low;
    if (s->ctr.x < low) ++high;
    s->ctr.y += high;
    if (high <= s->ctr.y) return;
    if (++s->ctr.z) return;
    ++s->ctr.w;
}
__device__ inline void philox_advance_one(curandStatePhilox4_32_10_t* s) {
    if (++s->ctr.x) return;
    if (++s->ctr.y) return;
    if (++s->ctr.z) return;
    ++s->ctr.w;
}
// A subsequence is 2^66 numbers: n added to the counter's high 64 bits.
__device__ inline void philox_advance_subsequences(curandStatePhilox4_32_10_t* s,
                                                   unsigned long long n) {
    const std::uint32_t low = std::uint32_t(n);
    std::uint32_t high = std::uint32_t(n >> 32);
    s->ctr.z += low;
    if (s->ctr.z < low) ++high;
    s->ctr.w += high;
}

// ---- MRG32k3a (L'Ecuyer): two order-3 recurrences modulo two primes ---------------
constexpr std::uint64_t mrg_m1 = 4294967087u, mrg_m2 = 4294944443u;
constexpr std::uint64_t mrg_a12 = 1403580, mrg_a13n = 810728, mrg_a21 = 527612, mrg_a23n = 1370589;
constexpr double mrg_norm = 2.3283065498378288e-10;       // scales (0, m1] into (0, 1]
constexpr double mrg_to_32_bits = 1.000000048662;         // scales (0, m1] onto 32 bits

struct mrg_matrix {
    std::uint64_t a[3][3];
};
inline mrg_matrix mrg_multiply(const mrg_matrix& x, const mrg_matrix& y, std::uint64_t m) {
    mrg_matrix out{};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            std::uint64_t sum = 0;
            for (int k = 0; k < 3; ++k) sum = (sum + x.a[i][k] * y.a[k][j] % m) % m;
            out.a[i][j] = sum;
        }
    return out;
}
// powers[b][i] = A^(2^(base_exponent[b] + i)): steps, subsequences (2^76 steps), sequences (2^127).
struct mrg_jump_tables {
    static constexpr int bases = 3, bits = 64;
    mrg_matrix first[bases][bits], second[bases][bits];
};
inline void mrg_fill(mrg_matrix (&table)[mrg_jump_tables::bases][mrg_jump_tables::bits],
                     mrg_matrix one_step, std::uint64_t m) {
    const int base_exponent[mrg_jump_tables::bases] = {0, 76, 127};
    mrg_matrix power = one_step;  // one_step^(2^e)
    for (int e = 0; e < base_exponent[2] + mrg_jump_tables::bits; ++e) {
        for (int b = 0; b < mrg_jump_tables::bases; ++b) {
            const int i = e - base_exponent[b];
            if (i >= 0 && i < mrg_jump_tables::bits) table[b][i] = power;
        }
        power = mrg_multiply(power, power, m);
    }
}
inline const mrg_jump_tables& mrg_jumps() {
    static const mrg_jump_tables* tables = [] {
        auto* t = new mrg_jump_tables;
        mrg_fill(t->first, mrg_matrix{{{0, 1, 0}, {0, 0, 1}, {mrg_m1 - mrg_a13n, mrg_a12, 0}}}, mrg_m1);
        mrg_fill(t->second, mrg_matrix{{{0, 1, 0}, {0, 0, 1}, {mrg_m2 - mrg_a23n, 0, mrg_a21}}}, mrg_m2);
        return t;
    }();
    return *tables;
}
inline void mrg_apply(const mrg_matrix (&powers)[mrg_jump_tables::bits], unsigned long long n,
                      unsigned int s[3], std::uint64_t m) {
    for (int bit = 0; n != 0; ++bit, n >>= 1) {
        if (!(n & 1)) continue;
        std::uint64_t out[3];
        for (int i = 0; i < 3; ++i) {
            std::uint64_t sum = 0;
            for (int k = 0; k < 3; ++k) sum = (sum + powers[bit].a[i][k] * s[k] % m) % m;
            out[i] = sum;
        }
        for (int i = 0; i < 3; ++i) s[i] = unsigned(out[i]);
    }
}
inline void mrg_skip(curandStateMRG32k3a_t* state, int base, unsigned long long n) {
    const mrg_jump_tables& t = mrg_jumps();
    mrg_apply(t.first[base], n, state->s1, mrg_m1);
    mrg_apply(t.second[base], n, state->s2, mrg_m2);
}

// One MRG32k3a step; the result lies in (0, m1] and is a whole number. The
// subtracted terms become additions of a * (m - s), which stay below 2^64.
__device__ inline double mrg_next(curandStateMRG32k3a_t* state) {
    const std::uint64_t p1 =
        (mrg_a12 * state->s1[1] + mrg_a13n * (mrg_m1 - state->s1[0])) % mrg_m1;
    state->s1[0] = state->s1[1];
    state->s1[1] = state->s1[2];
    state->s1[2] = unsigned(p1);
    const std::uint64_t p2 =
        (mrg_a21 * state->s2[2] + mrg_a23n * (mrg_m2 - state->s2[0])) % mrg_m2;
    state->s2[0] = state->s2[1];
    state->s2[1] = state->s2[2];
    state->s2[2] = unsigned(p2);
    return p1 <= p2 ? double(p1) - double(p2) + double(mrg_m1) : double(p1) - double(p2);
}

}  // namespace curand_detail
}  // namespace cuemu

// ---- XORWOW -----------------------------------------------------------------------
__device__ inline unsigned int curand(curandStateXORWOW_t* state) {
    cuemu::curand_detail::xorwow_step_words(state->v);
    state->d += cuemu::curand_detail::xorwow_weyl;
    return state->v[4] + state->d;
}
__device__ inline void skipahead(unsigned long long n, curandStateXORWOW_t* state) {
    cuemu::curand_detail::xorwow_jump(cuemu::curand_detail::xorwow_jumps().offset, n, state->v);
    state->d += cuemu::curand_detail::xorwow_weyl * static_cast<unsigned int>(n);
}
// A subsequence is 2^67 numbers; d moves by a multiple of 2^32, so not at all.
__device__ inline void skipahead_sequence(unsigned long long n, curandStateXORWOW_t* state) {
    cuemu::curand_detail::xorwow_jump(cuemu::curand_detail::xorwow_jumps().subsequence, n,
                                      state->v);
}
__device__ inline void curand_init(unsigned long long seed, unsigned long long subsequence,
                                   unsigned long long offset, curandStateXORWOW_t* state) {
    // cuRAND's seeding: the two halves of the seed salted, multiplied by odd
    // constants, and mixed into Marsaglia's published starting words.
    const unsigned int t0 = 1099087573u * (static_cast<unsigned int>(seed) ^ 0xaad26b49u);
    const unsigned int t1 = 2591861531u * (static_cast<unsigned int>(seed >> 32) ^ 0xf7dcefddu);
    state->d = 6615241u + t1 + t0;
    state->v[0] = 123456789u + t0;
    state->v[1] = 362436069u ^ t0;
    state->v[2] = 521288629u + t1;
    state->v[3] = 88675123u ^ t1;
    state->v[4] = 5783321u + t0;
    skipahead_sequence(subsequence, state);
    skipahead(offset, state);
    cuemu::curand_detail::clear_spares(state);
}

// ---- Philox4_32_10 ----------------------------------------------------------------
// output holds the four numbers of the current counter; STATE is the next one to give.
__device__ inline unsigned int curand(curandStatePhilox4_32_10_t* state) {
    const unsigned int words[4] = {state->output.x, state->output.y, state->output.z,
                                   state->output.w};
    const unsigned int result = words[state->STATE & 3];
    if (++state->STATE == 4) {
        cuemu::curand_detail::philox_advance_one(state);
        state->output = cuemu::curand_detail::philox4x32_10(state->ctr, state->key);
        state->STATE = 0;
    }
    return result;
}
__device__ inline uint4 curand4(curandStatePhilox4_32_10_t* state) {
    const uint4 current = state->output;
    cuemu::curand_detail::philox_advance_one(state);
    state->output = cuemu::curand_detail::philox4x32_10(state->ctr, state->key);
    const unsigned int words[8] = {current.x,       current.y,       current.z,
                                   current.w,       state->output.x, state->output.y,
                                   state->output.z, state->output.w};
    const unsigned int from = state->STATE & 3;
    return make_uint4(words[from], words[from + 1], words[from + 2], words[from + 3]);
}
__device__ inline void skipahead(unsigned long long n, curandStatePhilox4_32_10_t* state) {
    state->STATE += static_cast<unsigned int>(n & 3);
    n /= 4;
    if (state->STATE > 3) {
        n += 1;
        state->STATE -= 4;
    }
    cuemu::curand_detail::philox_advance(state, n);
    state->output = cuemu::curand_detail::philox4x32_10(state->ctr, state->key);
}
__device__ inline void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t* state) {
    cuemu::curand_detail::philox_advance_subsequences(state, n);
    state->output = cuemu::curand_detail::philox4x32_10(state->ctr, state->key);
}
__device__ inline void curand_init(unsigned long long seed, unsigned long long subsequence,
                                   unsigned long long offset, curandStatePhilox4_32_10_t* state) {
    state->ctr = make_uint4(0, 0, 0, 0);
    state->key.x = static_cast<unsigned int>(seed);
    state->key.y = static_cast<unsigned int>(seed >> 32);
    state->STATE = 0;
    cuemu::curand_detail::clear_spares(state);
    skipahead_sequence(subsequence, state);
    skipahead(offset, state);
}

// ---- MRG32k3a ---------------------------------------------------------------------
__device__ inline unsigned int curand(curandStateMRG32k3a_t* state) {
    return static_cast<unsigned int>(cuemu::curand_detail::mrg_next(state) *
                                     cuemu::curand_detail::mrg_to_32_bits);
}
__device__ inline void skipahead(unsigned long long n, curandStateMRG32k3a_t* state) {
    cuemu::curand_detail::mrg_skip(state, 0, n);
}
// A subsequence is 2^76 numbers, a sequence 2^127.
__device__ inline void skipahead_subsequence(unsigned long long n, curandStateMRG32k3a_t* state) {
    cuemu::curand_detail::mrg_skip(state, 1, n);
}
__device__ inline void skipahead_sequence(unsigned long long n, curandStateMRG32k3a_t* state) {
    cuemu::curand_detail::mrg_skip(state, 2, n);
}
__device__ inline void curand_init(unsigned long long seed, unsigned long long subsequence,
                                   unsigned long long offset, curandStateMRG32k3a_t* state) {
    using namespace cuemu::curand_detail;
    for (int i = 0; i < 3; ++i) state->s1[i] = state->s2[i] = 12345u;
    if (seed != 0) {  // seed 0 keeps the published starting state
        const std::uint64_t x1 = static_cast<unsigned int>(seed) ^ 0x55555555u;
        const std::uint64_t x2 = static_cast<unsigned int>(seed >> 32) ^ 0xAAAAAAAAu;
        state->s1[0] = unsigned(x1 * 12345u % mrg_m1);
        state->s1[1] = unsigned(x2 * 12345u % mrg_m1);
        state->s1[2] = unsigned(x1 * 12345u % mrg_m1);
        state->s2[0] = unsigned(x2 * 12345u % mrg_m2);
        state->s2[1] = unsigned(x1 * 12345u % mrg_m2);
        state->s2[2] = unsigned(x2 * 12345u % mrg_m2);
    }
    skipahead_subsequence(subsequence, state);
    skipahead(offset, state);
    clear_spares(state);
}

#include "cuemu/curand_distributions.h"
#include "cuemu/curand_sobol.h"
#include "curand_mtgp32_kernel.h"

#endif
