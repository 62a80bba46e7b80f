// host_layouts.h - where each number of a cuRAND host-API call comes from
// (host_layouts.cpp), shared with generators.cpp.
//
// libcurand's pseudo-random generators run many device-API states side by
// side, each on its own subsequence of the seed, and lay their numbers out in
// a fixed order (CURAND_ORDERING_PSEUDO_DEFAULT). Measured against libcurand
// 10.4 (CUDA 13.0) with tests/emu/curand_reference.cpp:
//   - XORWOW: 4096 states. MRG32k3a: 81920 states (4096 for LEGACY). Output
//     group G (one number, or the pair a Box-Muller step makes) is the next
//     group of state (offset + G) mod states, and the offset then moves on by
//     the number of groups. The states are made at the first call after the
//     seed, offset or ordering is set, each where the offset, counted in
//     groups dealt round the states, first reaches it, and they persist
//     between calls.
//   - Philox4_32_10: 65536 states, four numbers at a time: number p of the
//     stream (counting from the offset) is number p mod 4 of block p / 4, and
//     block b is the next four numbers (a curand4, curand_uniform4,
//     curand_normal4, or four doubles from two curand4) of state b mod 65536.
//   - MT19937: 8192 twisters, eight numbers from each in turn (mt19937.h);
//     one number per value of every kind, converted as Sobol32's are
//     (uniforms rounded once from x 2^-32 + 2^-33, normals the inverse
//     normal distribution function), and no offset (libcurand refuses one).
//   - MTGP32: 192 states, a round of 256 numbers from each in turn
//     (mtgp32.h); one number per value, converted as the device API converts
//     one number (uniforms x 2^-32 + 2^-33 in float arithmetic, doubles
//     x 2^-32 + 2^-32), normals as MT19937's; no offset (libcurand refuses one).
//   - Sobol32 and Sobol64 (quasi-random), scrambled or not: n numbers over
//     D dimensions are n / D points of each dimension in turn (all of
//     dimension 0's, then dimension 1's...), from point `offset` on; the
//     offset then moves on by n / D points. Changing D keeps the offset.
//     Normals are the inverse normal distribution function of each number,
//     with the sign opposite to the device API's curand_normal (libcurand's
//     host generators do so). The scrambled ones are the device API's
//     scrambled states of dimension d, made from cuRAND's scrambled vectors
//     and constant d, converted as the unscrambled ones of their width.
#ifndef CUEMU_CURAND_HOST_LAYOUTS_H
#define CUEMU_CURAND_HOST_LAYOUTS_H

#include <cstddef>

#include <memory>
#include <vector>

#include "curand_kernel.h"
#include "mt19937.h"
#include "mtgp32.h"

namespace cuemu::curand_host {

// The scrambled Sobol32 or Sobol64.
inline bool is_scrambled(curandRngType_t type) {
    return type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 || type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
}
// Sobol32 or Sobol64, scrambled or not.
inline bool is_quasi(curandRngType_t type) {
    return type == CURAND_RNG_QUASI_SOBOL32 || type == CURAND_RNG_QUASI_SOBOL64 ||
           is_scrambled(type);
}
// The 64-bit Sobols, whose raw numbers are curandGenerateLongLong's.
inline bool is_quasi64(curandRngType_t type) {
    return type == CURAND_RNG_QUASI_SOBOL64 || type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
}
// MT19937 or MTGP32: no offset in libcurand; the generator's offset counts
// the numbers taken since the seed was set, one a value.
inline bool is_twister(curandRngType_t type) {
    return type == CURAND_RNG_PSEUDO_MT19937 || type == CURAND_RNG_PSEUDO_MTGP32;
}

enum class distribution { bits, bits64, uniform, uniform_double, normal, normal_double, log_normal,
                          log_normal_double, poisson };

struct request {
    curandRngType_t type;
    curandOrdering_t ordering;
    unsigned long long seed;
    unsigned long long offset;  // numbers (Sobol: points of each dimension) already taken
    unsigned int dimensions;    // Sobol only
    distribution what;
    double mean, stddev;  // normal and log-normal; lambda for Poisson in mean
    bool on_device = false;  // made by curandCreateGenerator (not ...Host)
};

// A generator's persistent XORWOW, MRG32k3a, MT19937 or MTGP32 states; empty until
// the first call, and emptied when the seed, offset or ordering is set.
struct dealt_states {
    std::vector<curandStateXORWOW_t> xorwow;
    std::vector<curandStateMRG32k3a_t> mrg;
    std::unique_ptr<mt19937_generators> mt19937;
    std::unique_ptr<mtgp32_generators> mtgp32;
    void clear() { xorwow.clear(), mrg.clear(), mt19937.reset(), mtgp32.reset(); }
};

// Writes n numbers (unsigned int, float or double by `what`) to out.
void fill(const request& r, dealt_states& states, void* out, std::size_t n);

// How far the generator's offset moves after n numbers of this kind.
unsigned long long offset_after(const request& r, std::size_t n);

}  // namespace cuemu::curand_host

#endif
