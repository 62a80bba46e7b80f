// host_layouts.cpp - the numbers of a cuRAND host-API call, in libcurand's
// order (host_layouts.h says which order), made with the device API of
// <curand_kernel.h>: the host generators are the device generators, laid out.
//
// Poisson draws from libcurand's table at small lambda (poisson_table.cpp)
// and from a search or a rounded normal above it, as measured per generator.
#include "host_layouts.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "curand_kernel.h"
#include "poisson_table.h"
#include "scrambled_sobol.h"
#include "sobol_directions.h"

namespace cuemu::curand_host {
namespace {

constexpr unsigned long long xorwow_states = 4096;
constexpr unsigned long long mrg_states = 81920, mrg_legacy_states = 4096;
constexpr unsigned long long philox_states = 65536;

// Measured lambdas below which libcurand's host generators draw Poisson
// numbers from the square histogram of poisson_table.cpp (one raw number a
// draw); from them on each generator has its own way, told where it is used.
constexpr double table_below = 2000;        // XORWOW, MRG32k3a, Philox4_32_10, MT19937
constexpr double mtgp32_table_below = 32;   // then a search up to 8000, then a normal
constexpr double sobol32_table_below = 10;  // then a search up to 8000, then a normal
// Above this lambda MTGP32 and Sobol32 stop searching (measured: 8000
// searches, 8000.5 does not).
constexpr double search_up_to = 8000;

// A Poisson draw as MTGP32 (above 8000), Sobol32 (above 8000) and Sobol64
// (from 2000) make it: the float normal of one raw number, widened to double,
// scaled by sqrt(lambda) and rounded (measured: the double normal, or the
// same float normal in float arithmetic, differ from libcurand's).
unsigned rounded_float_normal(float z, double lambda) {
    return static_cast<unsigned>(std::sqrt(lambda) * static_cast<double>(z) + lambda + 0.5);
}

// The search of MTGP32, Sobol32 and Sobol64 at the host's uniform, which is 1
// for a raw 0xffffffff (Sobol64: top 53 bits all ones). The device API's
// uniforms stay below 1; at 1 the sums the search adds may never reach u, and
// the loop would run until k wraps round (2^32 steps, seconds). libcurand
// gives a value far in the tail there, by a rule not found: the last k whose
// probability is at least 2^-54 (the smallest term that still moves a sum just
// under 1) is its value at 7371 of the 7991 integer lambdas from 10 to 8000
// (Sobol32; Sobol64 gives the same below 2000), at every one from 2000 on, but
// not at the other 620, among them 10, 17, 68, 69, 70 and 1500
// (44, 60, 140, 141, 142 and 1772 there, against 46, 61, 146, 148, 149 and 1824).
unsigned searched_poisson(double u, double lambda) {
    if (u < 1.0) return cuemu::curand_detail::poisson_by_search(u, lambda);
    auto probability = [lambda](double k) {
        return std::exp(k * std::log(lambda) - lambda - std::lgamma(k + 1.0));
    };
    unsigned k = static_cast<unsigned>(lambda);
    while (probability(k + 1.0) >= 0x1p-54) ++k;
    return k;
}

// ---- XORWOW and MRG32k3a: groups dealt round the states ------------------------------
// The states persist between calls (libcurand keeps its states too): a state
// that gave two numbers for a pair gives the next number after them, whatever
// kind the next call asks for.
template <class State>
std::vector<State>& states_of(dealt_states& d);
template <>
std::vector<curandStateXORWOW_t>& states_of(dealt_states& d) { return d.xorwow; }
template <>
std::vector<curandStateMRG32k3a_t>& states_of(dealt_states& d) { return d.mrg; }

template <class State, class Out, class Group>
void fill_dealt(const request& r, dealt_states& d, unsigned long long count, std::size_t per_group,
                Out* out, std::size_t n, Group group) {
    std::vector<State>& states = states_of<State>(d);
    if (states.size() != count) {
        // State t starts where the offset first reaches it: past its positions below the offset.
        states.resize(count);
        for (unsigned long long t = 0; t < count; ++t) {
            const unsigned long long skipped = r.offset > t ? (r.offset - t + count - 1) / count : 0;
            curand_init(r.seed, t, skipped, &states[t]);
        }
    }
    const std::size_t groups = (n + per_group - 1) / per_group;
    for (std::size_t g = 0; g < groups; ++g) {
        Out values[2];
        group(&states[(r.offset + g) % count], values);
        for (std::size_t k = 0; k < per_group && g * per_group + k < n; ++k)
            out[g * per_group + k] = values[k];
    }
}

template <class State>
void fill_dealt_by_kind(const request& r, dealt_states& d, unsigned long long states, void* out,
                        std::size_t n) {
    const float mean = static_cast<float>(r.mean), stddev = static_cast<float>(r.stddev);
    const double mean_d = r.mean, stddev_d = r.stddev;
    switch (r.what) {
    case distribution::bits:
    case distribution::bits64:
        return fill_dealt<State>(r, d, states, 1, static_cast<unsigned*>(out), n,
                                 [](State* s, unsigned* v) { v[0] = curand(s); });
    case distribution::poisson: {
        if (mean_d >= table_below) {
            // The state's next normal (the second of a Box-Muller pair kept
            // for the state's next draw), rounded (measured).
            const double root = std::sqrt(mean_d);
            return fill_dealt<State>(r, d, states, 1, static_cast<unsigned*>(out), n,
                                     [&](State* s, unsigned* v) {
                                         v[0] = static_cast<unsigned>(root * curand_normal(s) + mean_d + 0.5);
                                     });
        }
        const poisson_table table = make_poisson_table(mean_d);
        return fill_dealt<State>(r, d, states, 1, static_cast<unsigned*>(out), n,
                                 [&](State* s, unsigned* v) { v[0] = poisson_from_table(table, curand(s)); });
    }
    case distribution::uniform:
        return fill_dealt<State>(r, d, states, 1, static_cast<float*>(out), n,
                                 [](State* s, float* v) { v[0] = curand_uniform(s); });
    case distribution::uniform_double:
        return fill_dealt<State>(r, d, states, 1, static_cast<double*>(out), n,
                                 [](State* s, double* v) { v[0] = curand_uniform_double(s); });
    case distribution::normal:
    case distribution::log_normal: {
        const bool log = r.what == distribution::log_normal;
        return fill_dealt<State>(r, d, states, 2, static_cast<float*>(out), n, [&](State* s, float* v) {
            const float2 z = curand_normal2(s);
            v[0] = mean + stddev * z.x;
            v[1] = mean + stddev * z.y;
            if (log) v[0] = expf(v[0]), v[1] = expf(v[1]);
        });
    }
    case distribution::normal_double:
    case distribution::log_normal_double: {
        const bool log = r.what == distribution::log_normal_double;
        return fill_dealt<State>(r, d, states, 2, static_cast<double*>(out), n, [&](State* s, double* v) {
            const double2 z = curand_normal2_double(s);
            v[0] = mean_d + stddev_d * z.x;
            v[1] = mean_d + stddev_d * z.y;
            if (log) v[0] = std::exp(v[0]), v[1] = std::exp(v[1]);
        });
    }
    }
}

// ---- Philox4_32_10: blocks of four, dealt round the states ---------------------------
// A state starts four raw numbers in for each earlier round of blocks, even
// when its blocks take eight (four doubles): libcurand's doubles do the same.
template <class Out, class Block>
void fill_blocks(const request& r, Out* out, std::size_t n, Block block) {
    if (n == 0) return;
    const unsigned long long first_block = r.offset / 4, last_block = (r.offset + n - 1) / 4;
    const unsigned long long dealers = std::min(last_block - first_block + 1, philox_states);
    for (unsigned long long b0 = first_block; b0 < first_block + dealers; ++b0) {
        curandStatePhilox4_32_10_t state;
        curand_init(r.seed, b0 % philox_states, (b0 / philox_states) * 4, &state);
        for (unsigned long long b = b0; b <= last_block; b += philox_states) {
            Out values[4];
            block(&state, values);
            for (unsigned long long w = 0; w < 4; ++w) {
                const unsigned long long p = b * 4 + w;
                if (p >= r.offset && p < r.offset + n) out[p - r.offset] = values[w];
            }
        }
    }
}

void fill_philox(const request& r, void* out, std::size_t n) {
    using State = curandStatePhilox4_32_10_t;
    const float mean = static_cast<float>(r.mean), stddev = static_cast<float>(r.stddev);
    const double mean_d = r.mean, stddev_d = r.stddev;
    const bool log = r.what == distribution::log_normal || r.what == distribution::log_normal_double;
    switch (r.what) {
    case distribution::bits:
    case distribution::bits64:
        return fill_blocks(r, static_cast<unsigned*>(out), n, [](State* s, unsigned* v) {
            const uint4 x = curand4(s);
            v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
        });
    case distribution::poisson: {
        if (mean_d >= table_below) {
            // The normals of curandGenerateNormal, rounded (measured).
            const double root = std::sqrt(mean_d);
            return fill_blocks(r, static_cast<unsigned*>(out), n, [&](State* s, unsigned* v) {
                const float4 z = curand_normal4(s);
                const float zs[4] = {z.x, z.y, z.z, z.w};
                for (int i = 0; i < 4; ++i) v[i] = static_cast<unsigned>(root * zs[i] + mean_d + 0.5);
            });
        }
        const poisson_table table = make_poisson_table(mean_d);
        return fill_blocks(r, static_cast<unsigned*>(out), n, [&](State* s, unsigned* v) {
            const uint4 x = curand4(s);
            const unsigned bits[4] = {x.x, x.y, x.z, x.w};
            for (int i = 0; i < 4; ++i) v[i] = poisson_from_table(table, bits[i]);
        });
    }
    case distribution::uniform:
        return fill_blocks(r, static_cast<float*>(out), n, [](State* s, float* v) {
            const float4 u = curand_uniform4(s);
            v[0] = u.x, v[1] = u.y, v[2] = u.z, v[3] = u.w;
        });
    case distribution::normal:
    case distribution::log_normal:
        return fill_blocks(r, static_cast<float*>(out), n, [&](State* s, float* v) {
            const float4 z = curand_normal4(s);
            const float zs[4] = {z.x, z.y, z.z, z.w};
            for (int i = 0; i < 4; ++i) v[i] = log ? expf(mean + stddev * zs[i]) : mean + stddev * zs[i];
        });
    case distribution::uniform_double:
        return fill_blocks(r, static_cast<double*>(out), n, [](State* s, double* v) {
            const double2 a = curand_uniform2_double(s), b = curand_uniform2_double(s);
            v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
        });
    case distribution::normal_double:
    case distribution::log_normal_double:
        return fill_blocks(r, static_cast<double*>(out), n, [&](State* s, double* v) {
            const double2 a = curand_normal2_double(s), b = curand_normal2_double(s);
            const double zs[4] = {a.x, a.y, b.x, b.y};
            for (int i = 0; i < 4; ++i)
                v[i] = log ? std::exp(mean_d + stddev_d * zs[i]) : mean_d + stddev_d * zs[i];
        });
    }
}

// ---- Sobol32 and Sobol64, scrambled or not: each dimension's points in turn ----------
// Dimension d's state at the offset. curand_init takes the vectors as a
// non-const array, as in the toolkit; it only reads them.
template <class Vectors, class Word>
void start_sobol(curandStateSobol32_t* s, const Vectors& v, const Word*, unsigned, unsigned long long offset) {
    curand_init(const_cast<Vectors&>(v), static_cast<unsigned>(offset), s);
}
template <class Vectors, class Word>
void start_sobol(curandStateSobol64_t* s, const Vectors& v, const Word*, unsigned, unsigned long long offset) {
    curand_init(const_cast<Vectors&>(v), offset, s);
}
template <class Vectors, class Word>
void start_sobol(curandStateScrambledSobol32_t* s, const Vectors& v, const Word* constants, unsigned d,
                 unsigned long long offset) {
    curand_init(const_cast<Vectors&>(v), constants[d], static_cast<unsigned>(offset), s);
}
// libcurand's scrambled Sobol64 generator starts each call's states at its
// offset modulo 2^32 (measured: offset 2^32 gives point 0, and a call after
// one that crossed 2^32 starts again near 0), though within a call the points
// go on past 2^32; its unscrambled Sobol64 keeps all 64 bits.
template <class Vectors, class Word>
void start_sobol(curandStateScrambledSobol64_t* s, const Vectors& v, const Word* constants, unsigned d,
                 unsigned long long offset) {
    curand_init(const_cast<Vectors&>(v), constants[d], offset & 0xffffffffull, s);
}

// The vectors and, scrambled, the constants of the dimensions.
template <class Vectors, class Word>
struct sobol_tables {
    const Vectors* directions;
    const Word* constants;  // null unscrambled
};

template <class State, class Vectors, class Word, class Out, class Convert>
void fill_sobol(const request& r, sobol_tables<Vectors, Word> t, Out* out, std::size_t n,
                Convert convert) {
    const std::size_t points = n / r.dimensions;
    for (unsigned int d = 0; d < r.dimensions; ++d) {
        State state;
        start_sobol(&state, t.directions[d], t.constants, d, r.offset);
        for (std::size_t j = 0; j < points; ++j) out[d * points + j] = convert(curand(&state));
    }
}

template <class State, class Vectors, class Constant>
void fill_sobol_by_kind(const request& r, sobol_tables<Vectors, Constant> directions, void* out,
                        std::size_t n) {
    using cuemu::curand_detail::quasi_normal;
    using cuemu::curand_detail::quasi_normal_double;
    using Word = decltype(curand(static_cast<State*>(nullptr)));
    const float mean = static_cast<float>(r.mean), stddev = static_cast<float>(r.stddev);
    const double mean_d = r.mean, stddev_d = r.stddev;
    switch (r.what) {
    case distribution::bits:
    case distribution::bits64:
        return fill_sobol<State>(r, directions, static_cast<Word*>(out), n, [](Word x) { return x; });
    case distribution::poisson: {
        // Measured against libcurand 10.4: Sobol32 from lambda 10 to 8000 and
        // Sobol64 below 2000 search the distribution function at the uniform
        // x 2^-32 + 2^-32 (Sobol64: its uniform double, the top 53 bits
        // + 2^-54, which only its point 0 tells from + 2^-53) as the device
        // API does; Sobol32 above 8000 and Sobol64 from 2000 on round the
        // float normal of the top 32 bits (the host's sign), widened.
        // Below 10, Sobol32 draws from libcurand's table (poisson_table.cpp).
        if (sizeof(Word) == 4 ? mean_d > search_up_to : mean_d >= 2000)
            return fill_sobol<State>(r, directions, static_cast<unsigned*>(out), n,
                                     [&](Word x) { return rounded_float_normal(-quasi_normal(x), mean_d); });
        if constexpr (sizeof(Word) == 4) {
            if (mean_d >= sobol32_table_below)
                return fill_sobol<State>(r, directions, static_cast<unsigned*>(out), n, [&](Word x) {
                    return searched_poisson(cuemu::curand_detail::uniform_double_from_bits(x), mean_d);
                });
        } else {
            return fill_sobol<State>(r, directions, static_cast<unsigned*>(out), n, [&](Word x) {
                return searched_poisson((x >> 11) * 0x1p-53 + 0x1p-54, mean_d);
            });
        }
        const poisson_table table = make_poisson_table(mean_d);
        return fill_sobol<State>(r, directions, static_cast<unsigned*>(out), n,
                                 [&](Word x) { return poisson_from_table(table, static_cast<unsigned>(x)); });
    }
    case distribution::uniform:
        return fill_sobol<State>(r, directions, static_cast<float*>(out), n, [](Word x) {
            return cuemu::curand_detail::uniform_from_bits(static_cast<unsigned>(x >> (8 * sizeof(Word) - 32)));
        });
    case distribution::uniform_double:
        return fill_sobol<State>(r, directions, static_cast<double*>(out), n, [](Word x) {
            if constexpr (sizeof(Word) == 4) return cuemu::curand_detail::uniform_double_from_bits(x);
            else return (x >> 11) * 0x1p-53 + 0x1p-54;
        });
    case distribution::normal:
    case distribution::log_normal: {
        const bool log = r.what == distribution::log_normal;
        return fill_sobol<State>(r, directions, static_cast<float*>(out), n, [&](Word x) {
            const float v = mean + stddev * -quasi_normal(x);
            return log ? expf(v) : v;
        });
    }
    case distribution::normal_double:
    case distribution::log_normal_double: {
        const bool log = r.what == distribution::log_normal_double;
        return fill_sobol<State>(r, directions, static_cast<double*>(out), n, [&](Word x) {
            const double v = mean_d + stddev_d * -quasi_normal_double(x);
            return log ? std::exp(v) : v;
        });
    }
    }
}

// ---- MT19937 and MTGP32: one raw number per value -----------------------------------
template <class Generators>
std::unique_ptr<Generators>& generators_of(dealt_states& d);
template <>
std::unique_ptr<mt19937_generators>& generators_of(dealt_states& d) { return d.mt19937; }
template <>
std::unique_ptr<mtgp32_generators>& generators_of(dealt_states& d) { return d.mtgp32; }

template <class Generators, class Out, class Convert>
void fill_twister(const request& r, dealt_states& d, Out* out, std::size_t n, Convert convert) {
    std::unique_ptr<Generators>& g = generators_of<Generators>(d);
    if (!g) g = std::make_unique<Generators>(r.seed);
    for (std::size_t i = 0; i < n; ++i) out[i] = convert(g->at(r.offset + i));
}

// Uniforms differ between the two as measured: MT19937's floats are rounded
// once from the exact x 2^-32 + 2^-33 and its doubles are x 2^-32 + 2^-33;
// MTGP32's are the device API's conversions (float arithmetic, rounding
// twice; doubles x 2^-32 + 2^-32).
template <class Generators>
void fill_twister_by_kind(const request& r, dealt_states& d, void* out, std::size_t n) {
    using cuemu::curand_detail::quasi_normal;
    using cuemu::curand_detail::quasi_normal_double;
    constexpr bool mtgp32 = std::is_same<Generators, mtgp32_generators>::value;
    const float mean = static_cast<float>(r.mean), stddev = static_cast<float>(r.stddev);
    const double mean_d = r.mean, stddev_d = r.stddev;
    switch (r.what) {
    case distribution::bits:
    case distribution::bits64:
        return fill_twister<Generators>(r, d, static_cast<unsigned*>(out), n, [](unsigned x) { return x; });
    case distribution::poisson: {
        // Measured: MT19937 from lambda 2000 on rounds its float normal (the
        // normal of curandGenerateNormal with mean lambda and standard
        // deviation sqrt(lambda), in float), and below draws from the table at
        // its own uniform (poisson_from_table_mt19937); MTGP32 from 32 to 8000
        // searches the distribution function at x 2^-32 + 2^-32 as the device
        // API does, and above 8000 rounds its float normal, widened.
        if (!mtgp32 && mean_d >= table_below) {
            const float root = static_cast<float>(std::sqrt(mean_d));
            return fill_twister<Generators>(r, d, static_cast<unsigned*>(out), n, [&](unsigned x) {
                return static_cast<unsigned>(mean + root * -quasi_normal(x) + 0.5f);
            });
        }
        if (mtgp32 && mean_d > search_up_to)
            return fill_twister<Generators>(r, d, static_cast<unsigned*>(out), n,
                                            [&](unsigned x) { return rounded_float_normal(-quasi_normal(x), mean_d); });
        if (mtgp32 && mean_d >= mtgp32_table_below)
            return fill_twister<Generators>(r, d, static_cast<unsigned*>(out), n, [&](unsigned x) {
                return searched_poisson(cuemu::curand_detail::uniform_double_from_bits(x), mean_d);
            });
        const poisson_table table = make_poisson_table(mean_d);
        return fill_twister<Generators>(r, d, static_cast<unsigned*>(out), n, [&](unsigned x) {
            return mtgp32 ? poisson_from_table(table, x) : poisson_from_table_mt19937(table, x);
        });
    }
    case distribution::uniform:
        return fill_twister<Generators>(r, d, static_cast<float*>(out), n, [](unsigned x) {
            return mtgp32 ? cuemu::curand_detail::uniform_from_bits(x)
                          : static_cast<float>(x * 0x1p-32 + 0x1p-33);
        });
    case distribution::uniform_double:
        return fill_twister<Generators>(r, d, static_cast<double*>(out), n, [](unsigned x) {
            return mtgp32 ? cuemu::curand_detail::uniform_double_from_bits(x) : x * 0x1p-32 + 0x1p-33;
        });
    case distribution::normal:
    case distribution::log_normal: {
        const bool log = r.what == distribution::log_normal;
        return fill_twister<Generators>(r, d, static_cast<float*>(out), n, [&](unsigned x) {
            const float v = mean + stddev * -quasi_normal(x);
            return log ? expf(v) : v;
        });
    }
    case distribution::normal_double:
    case distribution::log_normal_double: {
        const bool log = r.what == distribution::log_normal_double;
        // MTGP32's double normals from a host generator are its float
        // normals, widened (measured against libcurand: all of 2^20); its
        // double log-normals are not, and neither are a device generator's
        // double normals (measured on an H200, tests/emu/curand_device_dump.cu).
        const bool widened = mtgp32 && !log && !r.on_device;
        return fill_twister<Generators>(r, d, static_cast<double*>(out), n, [&](unsigned x) {
            const double z = widened ? -quasi_normal(x) : -quasi_normal_double(x);
            const double v = mean_d + stddev_d * z;
            return log ? std::exp(v) : v;
        });
    }
    }
}

}  // namespace

void fill(const request& r, dealt_states& d, void* out, std::size_t n) {
    switch (r.type) {
    case CURAND_RNG_PSEUDO_MRG32K3A:
        return fill_dealt_by_kind<curandStateMRG32k3a_t>(
            r, d, r.ordering == CURAND_ORDERING_PSEUDO_LEGACY ? mrg_legacy_states : mrg_states, out, n);
    case CURAND_RNG_PSEUDO_PHILOX4_32_10:
        return fill_philox(r, out, n);
    case CURAND_RNG_PSEUDO_MT19937:
        return fill_twister_by_kind<mt19937_generators>(r, d, out, n);
    case CURAND_RNG_PSEUDO_MTGP32:
        return fill_twister_by_kind<mtgp32_generators>(r, d, out, n);
    case CURAND_RNG_QUASI_SOBOL32:
        return fill_sobol_by_kind<curandStateSobol32_t>(
            r, sobol_tables<curandDirectionVectors32_t, unsigned>{sobol_directions32(), nullptr}, out, n);
    case CURAND_RNG_QUASI_SOBOL64:
        return fill_sobol_by_kind<curandStateSobol64_t>(
            r, sobol_tables<curandDirectionVectors64_t, unsigned long long>{sobol_directions64(), nullptr},
            out, n);
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32:
        return fill_sobol_by_kind<curandStateScrambledSobol32_t>(
            r, sobol_tables<curandDirectionVectors32_t, unsigned>{scrambled_directions32(), scramble_constants32()},
            out, n);
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64:
        return fill_sobol_by_kind<curandStateScrambledSobol64_t>(
            r, sobol_tables<curandDirectionVectors64_t, unsigned long long>{scrambled_directions64(),
                                                                            scramble_constants64()},
            out, n);
    default:
        return fill_dealt_by_kind<curandStateXORWOW_t>(r, d, xorwow_states, out, n);
    }
}

unsigned long long offset_after(const request& r, std::size_t n) {
    if (is_quasi(r.type)) return r.offset + n / r.dimensions;
    if (r.type == CURAND_RNG_PSEUDO_PHILOX4_32_10 || is_twister(r.type)) return r.offset + n;
    const bool pairs = r.what == distribution::normal || r.what == distribution::normal_double ||
                       r.what == distribution::log_normal || r.what == distribution::log_normal_double;
    return r.offset + (pairs ? n / 2 : n);
}

}  // namespace cuemu::curand_host
