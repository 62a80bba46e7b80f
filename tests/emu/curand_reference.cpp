// curand_reference.cpp - prints cuRAND numbers, the same way from two builds:
//   - against NVIDIA's toolkit (system g++, /usr/local/cuda/include, linked
//     with libcurand.so): libcurand's host generators (curandCreateGeneratorHost,
//     which need no GPU) and NVIDIA's <curand_kernel.h> device functions called
//     on the host (the toolkit's header compiles for the host too);
//   - against the emulator (its <curand.h>, <curand_kernel.h>, cuemu::curand).
// tests/emu/CMakeLists.txt diffs the two outputs (emu.curand.vs-libcurand)
// and, where no toolkit is installed, the emulator's output against the copy
// stored in curand_reference.txt (emu.curand.vs-stored).
//
// The Sobol generators' lines (sobol_*) follow the pseudo-random ones, then
// MTGP32's host generator (mtgp32_*), the Sobol device states, and last the
// scrambled Sobols' (scrambled_*: their tables, host generators and device
// states). The
// toolkit's <curand_kernel.h> gives 0 for a Sobol state's curand_normal on
// the host (it has no erfcinvf there), so device-API Sobol normals are
// checked against the host generators in test_curand.cu instead.
//
// Each line names what it shows; values are bit patterns in hex (floats and
// doubles included), so equal lines mean equal bits. Long runs are printed as
// their first values and an FNV-1a hash of all of them.
#include <curand.h>
#include <curand_kernel.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct digest {
    std::uint64_t hash = 1469598103934665603ull;
    std::string first;
    int shown = 0;
    void add_bits(std::uint64_t bits, int hex_digits) {
        for (int i = 0; i < 8; ++i) {
            hash ^= (bits >> (8 * i)) & 0xff;
            hash *= 1099511628211ull;
        }
        if (shown++ < 6) {
            char buf[24];
            std::snprintf(buf, sizeof buf, " %0*llx", hex_digits,
                          static_cast<unsigned long long>(bits));
            first += buf;
        }
    }
    void add(unsigned int v) { add_bits(v, 8); }
    void add(unsigned long long v) { add_bits(v, 16); }
    void add(float v) {
        std::uint32_t b;
        std::memcpy(&b, &v, 4);
        add_bits(b, 8);
    }
    void add(double v) {
        std::uint64_t b;
        std::memcpy(&b, &v, 8);
        add_bits(b, 16);
    }
    void print(const std::string& label) const {
        std::printf("%s: hash %016llx first%s\n", label.c_str(),
                    static_cast<unsigned long long>(hash), first.c_str());
    }
};

const char* type_name(curandRngType_t t) {
    return t == CURAND_RNG_PSEUDO_XORWOW     ? "xorwow"
           : t == CURAND_RNG_PSEUDO_MRG32K3A ? "mrg32k3a"
                                             : "philox";
}

// ---- host API ------------------------------------------------------------------------
enum kind { bits, uniform, uniform_double, normal, normal_double, log_normal, log_normal_double };
const char* kind_name[] = {"bits",          "uniform",    "uniform_double",   "normal",
                           "normal_double", "log_normal", "log_normal_double"};

template <class T>
void call(curandGenerator_t g, kind k, std::size_t n, const std::string& label) {
    std::vector<T> out(n);
    void* p = out.data();
    curandStatus_t s = CURAND_STATUS_SUCCESS;
    switch (k) {
    case bits: s = curandGenerate(g, static_cast<unsigned*>(p), n); break;
    case uniform: s = curandGenerateUniform(g, static_cast<float*>(p), n); break;
    case uniform_double: s = curandGenerateUniformDouble(g, static_cast<double*>(p), n); break;
    case normal: s = curandGenerateNormal(g, static_cast<float*>(p), n, 0.5f, 2.0f); break;
    case normal_double: s = curandGenerateNormalDouble(g, static_cast<double*>(p), n, 0.5, 2.0); break;
    case log_normal: s = curandGenerateLogNormal(g, static_cast<float*>(p), n, 0.1f, 0.5f); break;
    case log_normal_double:
        s = curandGenerateLogNormalDouble(g, static_cast<double*>(p), n, 0.1, 0.5);
        break;
    }
    digest d;
    for (const T& v : out) d.add(v);
    if (s != CURAND_STATUS_SUCCESS) std::printf("%s: status %d\n", label.c_str(), int(s));
    else d.print(label);
}
void call_kind(curandGenerator_t g, kind k, std::size_t n, const std::string& label) {
    if (k == bits) call<unsigned>(g, k, n, label);
    else if (k == uniform || k == normal || k == log_normal) call<float>(g, k, n, label);
    else call<double>(g, k, n, label);
}

curandGenerator_t make(curandRngType_t t, unsigned long long seed, unsigned long long offset,
                       curandOrdering_t order = CURAND_ORDERING_PSEUDO_DEFAULT) {
    curandGenerator_t g;
    curandCreateGeneratorHost(&g, t);
    curandSetPseudoRandomGeneratorSeed(g, seed);
    curandSetGeneratorOffset(g, offset);
    curandSetGeneratorOrdering(g, order);
    return g;
}

void host_api() {
    const curandRngType_t types[] = {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_MRG32K3A,
                                     CURAND_RNG_PSEUDO_PHILOX4_32_10};
    // Past one round of the states: 4096 (XORWOW), 81920 (MRG32k3a), 65536 x 4 (Philox).
    const std::size_t sizes[] = {3 * 4096 + 6, 2 * 81920 + 6, 262144 + 6};
    // Every kind from one seed and an offset inside the second round of
    // states; the raw numbers and the normals from two more.
    struct start {
        unsigned long long seed, offset;
        bool every_kind;
    };
    const start starts[] = {{1234, 4099, true}, {0, 0, false}, {42, 262147, false}};
    for (int t = 0; t < 3; ++t)
        for (const start& s : starts)
            for (int k = bits; k <= log_normal_double; ++k) {
                if (!s.every_kind && k != bits && k != normal) continue;
                curandGenerator_t g = make(types[t], s.seed, s.offset);
                char label[160];
                std::snprintf(label, sizeof label, "host %s seed %llu offset %llu %s n %zu",
                              type_name(types[t]), s.seed, s.offset, kind_name[k], sizes[t]);
                call_kind(g, kind(k), sizes[t], label);
                curandDestroyGenerator(g);
            }
    // Successive calls of different kinds: where each call starts.
    for (int t = 0; t < 3; ++t) {
        curandGenerator_t g = make(types[t], 99, 7);
        const std::size_t counts[] = {1000, 3002, 2000, 778, 1000, 4096, 5000};
        const kind kinds[] = {bits, uniform, normal, uniform_double, normal_double, log_normal, bits};
        for (int c = 0; c < 7; ++c) {
            char label[160];
            std::snprintf(label, sizeof label, "host %s successive call %d: %s n %zu",
                          type_name(types[t]), c, kind_name[kinds[c]], counts[c]);
            call_kind(g, kinds[c], counts[c], label);
        }
        curandDestroyGenerator(g);
    }
    // The orderings the emulator has.
    const curandOrdering_t orders[] = {CURAND_ORDERING_PSEUDO_BEST, CURAND_ORDERING_PSEUDO_LEGACY};
    for (int t = 0; t < 3; ++t)
        for (curandOrdering_t order : orders) {
            curandGenerator_t g = make(types[t], 5, 0, order);
            char label[160];
            std::snprintf(label, sizeof label, "host %s ordering %d bits", type_name(types[t]),
                          int(order));
            call_kind(g, bits, sizes[t], label);
            curandDestroyGenerator(g);
        }
    // Statuses.
    curandGenerator_t g = make(CURAND_RNG_PSEUDO_XORWOW, 1, 0);
    std::vector<float> f(3);
    std::vector<unsigned> u(3);
    std::printf("status: odd normal xorwow %d\n", int(curandGenerateNormal(g, f.data(), 3, 0, 1)));
    std::printf("status: poisson lambda 0 %d\n", int(curandGeneratePoisson(g, u.data(), 2, 0.0)));
    std::printf("status: ordering dynamic on host %d\n",
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_DYNAMIC)));
    std::printf("status: ordering quasi %d\n",
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_QUASI_DEFAULT)));
    curandDestroyGenerator(g);
    g = make(CURAND_RNG_PSEUDO_MRG32K3A, 1, 0);
    std::printf("status: odd normal mrg32k3a %d\n", int(curandGenerateNormal(g, f.data(), 3, 0, 1)));
    std::printf("status: ordering seeded mrg32k3a %d\n",
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_SEEDED)));
    curandDestroyGenerator(g);
    g = make(CURAND_RNG_PSEUDO_PHILOX4_32_10, 1, 0);
    std::printf("status: odd normal philox %d\n", int(curandGenerateNormal(g, f.data(), 3, 0, 1)));
    curandDestroyGenerator(g);
    std::printf("status: null generator %d\n", int(curandSetPseudoRandomGeneratorSeed(nullptr, 1)));
    std::printf("status: bad type %d\n", int(curandCreateGeneratorHost(&g, curandRngType_t(5))));
    int version = 0;
    curandGetVersion(&version);
    std::printf("version %d\n", version);
}

// Poisson from the pseudo-random generators: libcurand's table below lambda
// 2000 (each generator's whole first round and more), its rounded normals
// from 2000 on, and the largest lambda it takes.
void poisson_host_api() {
    const curandRngType_t types[] = {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_MRG32K3A,
                                     CURAND_RNG_PSEUDO_PHILOX4_32_10};
    const std::size_t sizes[] = {3 * 4096 + 6, 81920 + 6, 262144 + 6};
    const double lambdas[] = {0.1,     0.7,    5.0,    10.0,    77.5,    640.0,
                              1500.25, 1999.0, 2000.0, 12345.6, 400000.0};
    for (int t = 0; t < 3; ++t)
        for (double lambda : lambdas) {
            curandGenerator_t g = make(types[t], 1234, 4099);
            std::vector<unsigned> u(sizes[t]);
            const curandStatus_t s = curandGeneratePoisson(g, u.data(), u.size(), lambda);
            digest d;
            for (unsigned v : u) d.add(v);
            char label[160];
            std::snprintf(label, sizeof label, "host %s seed 1234 offset 4099 poisson %g n %zu",
                          type_name(types[t]), lambda, u.size());
            if (s != CURAND_STATUS_SUCCESS) std::printf("%s: status %d\n", label, int(s));
            else d.print(label);
            curandDestroyGenerator(g);
        }
    // A raw number of 0xffffffff (XORWOW seed 1234, position 1232320594): its
    // uniform is 1, past the table's last column; libcurand gives the table's
    // first value, which is past 0 from lambda 745.5 on.
    for (double lambda : {5.0, 745.0, 745.5, 1000.0, 1999.0}) {
        curandGenerator_t g = make(CURAND_RNG_PSEUDO_XORWOW, 1234, 1232320594);
        std::vector<unsigned> u(2);
        curandGenerate(g, u.data(), 1);
        std::printf("host xorwow seed 1234 raw %08x at offset 1232320594,", u[0]);
        curandDestroyGenerator(g);
        g = make(CURAND_RNG_PSEUDO_XORWOW, 1234, 1232320594);
        const curandStatus_t s = curandGeneratePoisson(g, u.data(), u.size(), lambda);
        std::printf(" poisson %g: status %d, %u %u\n", lambda, int(s), u[0], u[1]);
        curandDestroyGenerator(g);
    }
    curandGenerator_t g = make(CURAND_RNG_PSEUDO_XORWOW, 1, 0);
    std::vector<unsigned> u(4);
    std::printf("status: poisson lambda 400000.0001 %d\n",
                int(curandGeneratePoisson(g, u.data(), 4, 400000.0001)));
    curandDestroyGenerator(g);
}

// ---- device API, called on the host ------------------------------------------------
template <class State>
void common_draws(State* s, digest& d) {
    for (int i = 0; i < 3; ++i) d.add(curand(s));
    d.add(curand_uniform(s));
    d.add(curand_uniform_double(s));
    d.add(curand_normal(s));
    d.add(curand_normal(s));  // the spare
    d.add(curand_normal(s));
    d.add(curand_normal_double(s));
    d.add(curand_normal_double(s));
    d.add(curand_log_normal(s, 0.2f, 0.7f));
    d.add(curand_log_normal(s, 0.2f, 0.7f));
    d.add(curand_log_normal_double(s, 0.2, 0.7));
    d.add(curand_log_normal_double(s, 0.2, 0.7));
    const float2 n2 = curand_normal2(s);
    d.add(n2.x), d.add(n2.y);
    const double2 n2d = curand_normal2_double(s);
    d.add(n2d.x), d.add(n2d.y);
    const float2 l2 = curand_log_normal2(s, 1.f, 0.3f);
    d.add(l2.x), d.add(l2.y);
    const double2 l2d = curand_log_normal2_double(s, 1., 0.3);
    d.add(l2d.x), d.add(l2d.y);
    const double lambdas[] = {0.5, 7.0, 63.9, 64.0, 100.0, 1000.0, 3999.0, 4001.0, 1e5};
    for (double lambda : lambdas)
        for (int i = 0; i < 3; ++i) d.add(curand_poisson(s, lambda));
    // The rejection method's approximation: enough draws that each of its
    // constants matters.
    for (int i = 0; i < 300; ++i) d.add(curand_poisson(s, 70.0 + i * 13.0));
    skipahead(12345ull, s);
    d.add(curand(s));
    skipahead(1ull << 40, s);
    d.add(curand(s));
    skipahead_sequence(3ull, s);
    d.add(curand(s));
    for (int i = 0; i < 100; ++i) d.add(curand_uniform(s));
}
void extra_draws(curandStatePhilox4_32_10_t* s, digest& d) {
    const uint4 x = curand4(s);
    d.add(x.x), d.add(x.y), d.add(x.z), d.add(x.w);
    d.add(curand(s));  // curand4 from a state partway through its block
    const uint4 y = curand4(s);
    d.add(y.x), d.add(y.y), d.add(y.z), d.add(y.w);
    const float4 u = curand_uniform4(s);
    d.add(u.x), d.add(u.y), d.add(u.z), d.add(u.w);
    const float4 z = curand_normal4(s);
    d.add(z.x), d.add(z.y), d.add(z.z), d.add(z.w);
    const float4 l = curand_log_normal4(s, 0.f, 1.f);
    d.add(l.x), d.add(l.y), d.add(l.z), d.add(l.w);
    const double2 u2 = curand_uniform2_double(s);
    d.add(u2.x), d.add(u2.y);
    skipahead(7ull, s);
    d.add(curand(s));
}
void extra_draws(curandStateMRG32k3a_t* s, digest& d) {
    skipahead_subsequence(5ull, s);
    d.add(curand(s));
}
void extra_draws(curandStateXORWOW_t*, digest&) {}

template <class State>
void device_api(const char* name) {
    const unsigned long long seeds[] = {0ull, 1234ull, 0xFEDCBA9876543210ull};
    const unsigned long long subsequences[] = {0ull, 1ull, 4095ull, 100000ull, (1ull << 40) + 3};
    const unsigned long long offsets[] = {0ull, 1ull, 4097ull, 1000000007ull};
    for (unsigned long long seed : seeds)
        for (unsigned long long sub : subsequences)
            for (unsigned long long off : offsets) {
                State s;
                curand_init(seed, sub, off, &s);
                digest d;
                common_draws(&s, d);
                extra_draws(&s, d);
                char label[160];
                std::snprintf(label, sizeof label, "device %s seed %llx subsequence %llu offset %llu",
                              name, seed, sub, off);
                d.print(label);
            }
}

// ---- Sobol: direction vectors, host generators, device states -------------------------
// Boost.Random's table, and so the emulator, has this many dimensions.
constexpr unsigned int sobol_dimensions_compared = 3667;

void sobol_direction_vectors() {
    curandDirectionVectors32_t* v32 = nullptr;
    curandDirectionVectors64_t* v64 = nullptr;
    std::printf("sobol status: vectors 32 %d, 64 %d, 32 from the 64 set %d\n",
                int(curandGetDirectionVectors32(&v32, CURAND_DIRECTION_VECTORS_32_JOEKUO6)),
                int(curandGetDirectionVectors64(&v64, CURAND_DIRECTION_VECTORS_64_JOEKUO6)),
                int(curandGetDirectionVectors32(&v32, CURAND_DIRECTION_VECTORS_64_JOEKUO6)));
    curandGetDirectionVectors32(&v32, CURAND_DIRECTION_VECTORS_32_JOEKUO6);
    for (unsigned first = 0; first < sobol_dimensions_compared; first += 1000) {
        digest d32, d64;
        for (unsigned dim = first; dim < first + 1000 && dim < sobol_dimensions_compared; ++dim) {
            for (int k = 0; k < 32; ++k) d32.add(v32[dim][k]);
            for (int k = 0; k < 64; ++k) d64.add(v64[dim][k]);
        }
        char label[96];
        std::snprintf(label, sizeof label, "sobol direction vectors 32, dimensions %u on", first);
        d32.print(label);
        std::snprintf(label, sizeof label, "sobol direction vectors 64, dimensions %u on", first);
        d64.print(label);
    }
}

enum sobol_kind { s_bits, s_uniform, s_uniform_double, s_normal, s_normal_double, s_log_normal,
                  s_log_normal_double };
const char* sobol_kind_name[] = {"bits",          "uniform",    "uniform_double",   "normal",
                                 "normal_double", "log_normal", "log_normal_double"};

// Every bit of the double normals too: libcurand's host erfcinv is the
// emulator's (common/emu/include/cuemu/curand_inverse_normal.h).
template <class T>
void sobol_print(curandStatus_t s, const std::vector<T>& out, const std::string& label) {
    digest d;
    for (const T& v : out) d.add(v);
    if (s != CURAND_STATUS_SUCCESS) std::printf("%s: status %d\n", label.c_str(), int(s));
    else d.print(label);
}

void sobol_call(curandGenerator_t g, bool wide, sobol_kind k, std::size_t n,
                const std::string& label) {
    std::vector<float> f(n);
    std::vector<double> d(n);
    switch (k) {
    case s_bits:
        if (wide) {
            std::vector<unsigned long long> ll(n);
            return sobol_print(curandGenerateLongLong(g, ll.data(), n), ll, label);
        } else {
            std::vector<unsigned> u(n);
            return sobol_print(curandGenerate(g, u.data(), n), u, label);
        }
    case s_uniform: return sobol_print(curandGenerateUniform(g, f.data(), n), f, label);
    case s_uniform_double:
        return sobol_print(curandGenerateUniformDouble(g, d.data(), n), d, label);
    case s_normal: return sobol_print(curandGenerateNormal(g, f.data(), n, 0.5f, 2.0f), f, label);
    case s_normal_double:
        return sobol_print(curandGenerateNormalDouble(g, d.data(), n, 0.5, 2.0), d, label);
    case s_log_normal:
        return sobol_print(curandGenerateLogNormal(g, f.data(), n, 0.1f, 0.5f), f, label);
    case s_log_normal_double:
        return sobol_print(curandGenerateLogNormalDouble(g, d.data(), n, 0.1, 0.5), d, label);
    }
}

curandGenerator_t make_sobol(curandRngType_t t, unsigned dims, unsigned long long offset) {
    curandGenerator_t g;
    curandCreateGeneratorHost(&g, t);
    curandSetQuasiRandomGeneratorDimensions(g, dims);
    curandSetGeneratorOffset(g, offset);
    return g;
}

// The plain Sobols (lines "sobol ...") or the scrambled ones ("scrambled ...").
struct quasi_family {
    const char* prefix;
    curandRngType_t types[2];  // 32-bit, 64-bit
    const char* names[2];
    unsigned dimensions;       // how many the emulator has
    curandDirectionVectorSet_t sets[2];
};
const quasi_family plain_sobol = {"sobol",
                                  {CURAND_RNG_QUASI_SOBOL32, CURAND_RNG_QUASI_SOBOL64},
                                  {"sobol32", "sobol64"},
                                  sobol_dimensions_compared,
                                  {CURAND_DIRECTION_VECTORS_32_JOEKUO6, CURAND_DIRECTION_VECTORS_64_JOEKUO6}};
const quasi_family scrambled_sobol = {
    "scrambled",
    {CURAND_RNG_QUASI_SCRAMBLED_SOBOL32, CURAND_RNG_QUASI_SCRAMBLED_SOBOL64},
    {"scrambled_sobol32", "scrambled_sobol64"},
    20000,
    {CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6, CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6}};

// The point of dimension 0 whose raw number is all ones: the Gray code g
// whose vectors XOR to ~c (c the scramble constant, 0 unscrambled), solved
// over GF(2), then the index whose Gray code is g.
template <class Word, int Bits>
unsigned long long all_ones_point(const Word* vectors, Word c) {
    Word rows[Bits], picks[Bits];  // reduced vectors, and which vectors make each
    int pivots[Bits];
    int used = 0;
    for (int k = 0; k < Bits; ++k) {
        Word v = vectors[k], pick = Word(1) << k;
        for (int r = 0; r < used; ++r)
            if ((v >> pivots[r]) & 1) v ^= rows[r], pick ^= picks[r];
        if (v == 0) continue;
        int top = Bits - 1;
        while (!((v >> top) & 1)) --top;
        rows[used] = v, picks[used] = pick, pivots[used++] = top;
    }
    Word target = ~c, gray = 0;
    for (int r = 0; r < used; ++r)
        if ((target >> pivots[r]) & 1) target ^= rows[r], gray ^= picks[r];
    Word index = gray;
    for (int shift = 1; shift < Bits; shift <<= 1) index ^= index >> shift;
    return index;
}

void sobol_host_api(const quasi_family& f) {
    struct start {
        unsigned dims;
        unsigned long long offset;
        std::size_t n;
    };
    // The last: across 2^32 points, where Sobol32's point index wraps round to 0.
    const start starts[] = {{1, 0, 70000},
                            {3, 5, 3 * 4099},
                            {100, 1000003, 100 * 300},
                            {f.dimensions, 7, f.dimensions * 3},
                            {2, (1ull << 32) - 3, 2 * 6}};
    const curandRngType_t* types = f.types;
    for (int w = 0; w < 2; ++w)
        for (const start& s : starts)
            for (int k = s_bits; k <= s_log_normal_double; ++k) {
                curandGenerator_t g = make_sobol(types[w], s.dims, s.offset);
                char label[160];
                std::snprintf(label, sizeof label, "%s host %s dimensions %u offset %llu %s n %zu",
                              f.prefix, f.names[w], s.dims, s.offset, sobol_kind_name[k], s.n);
                sobol_call(g, w == 1, sobol_kind(k), s.n, label);
                curandDestroyGenerator(g);
            }
    // Poisson: Sobol32's table below lambda 10, search from 10 to 8000 and
    // normal above; Sobol64's search and normal (common/emu/README.md,
    // "cuRAND"). From point 0, where u is smallest: Sobol64's search takes the
    // uniform x 2^-53 + 2^-54, and only there does + 2^-53 give another value.
    for (int w = 0; w < 2; ++w) {
        const bool wide = w == 1;
        const double lambdas[] = {0.1,    0.7,    5.0,    9.99,   10.0,     77.5,
                                  640.0,  1999.0, 1234.5, 2500.0, 8000.0,   8000.5,
                                  100000.0};
        for (double lambda : lambdas) {
            curandGenerator_t g = make_sobol(types[w], 2, 0);
            std::vector<unsigned> u(2 * 3001);
            char label[160];
            std::snprintf(label, sizeof label, "%s host %s dimensions 2 offset 0 poisson %g n %zu",
                          f.prefix, f.names[w], lambda, u.size());
            sobol_print(curandGeneratePoisson(g, u.data(), u.size(), lambda), u, label);
            curandDestroyGenerator(g);
        }
    }
    // Sobol64's rounded normal is the float normal widened: points where the
    // double normal would round to the next integer.
    const struct {
        double lambda;
        unsigned long long point;
    } apart[] = {{2000.0, 2539199}, {3000.0, 611669}, {100000.0, 151096}};
    for (const auto& a : apart) {
        curandGenerator_t g = make_sobol(types[1], 1, a.point - 3);
        std::vector<unsigned> u(8);
        char label[160];
        std::snprintf(label, sizeof label, "%s host %s dimensions 1 offset %llu poisson %g n 8",
                      f.prefix, f.names[1], a.point - 3, a.lambda);
        sobol_print(curandGeneratePoisson(g, u.data(), u.size(), a.lambda), u, label);
        curandDestroyGenerator(g);
    }
    // The point whose raw number is all ones (unscrambled, index 0xAAAA...:
    // its Gray code is all ones), where the host's uniform is 1: Sobol32's
    // table below lambda 10, and the search's value at 1 (common/emu/README.md,
    // "cuRAND"; not at lambdas 10, 17, 68 to 70 and 1500, which differ).
    // Scrambled Sobol64's lies past 2^32, where its generator wraps round
    // (start_sobol in src/curand/host_layouts.cpp): a point near 1 instead.
    curandDirectionVectors32_t* v32 = nullptr;
    curandDirectionVectors64_t* v64 = nullptr;
    unsigned* c32 = nullptr;
    unsigned long long* c64 = nullptr;
    const bool scrambled = f.types[0] == CURAND_RNG_QUASI_SCRAMBLED_SOBOL32;
    curandGetDirectionVectors32(&v32, f.sets[0]);
    curandGetDirectionVectors64(&v64, f.sets[1]);
    if (scrambled) curandGetScrambleConstants32(&c32), curandGetScrambleConstants64(&c64);
    const unsigned long long all_ones[] = {
        all_ones_point<unsigned, 32>(v32[0], scrambled ? c32[0] : 0u),
        all_ones_point<unsigned long long, 64>(v64[0], scrambled ? c64[0] : 0ull)};
    for (int w = 0; w < 2; ++w) {
        const unsigned long long all_ones_point = all_ones[w];
        for (double lambda : {0.5, 5.0, 9.99, 100.0, 745.5, 1000.0, 1999.0, 8000.0}) {
            curandGenerator_t g = make_sobol(types[w], 1, all_ones_point);
            std::vector<unsigned> u(1);
            char label[160];
            std::snprintf(label, sizeof label, "%s host %s dimensions 1 offset %llx poisson %g n 1",
                          f.prefix, f.names[w], all_ones_point, lambda);
            sobol_print(curandGeneratePoisson(g, u.data(), u.size(), lambda), u, label);
            curandDestroyGenerator(g);
        }
    }
    // Successive calls, and a change of dimensions between them: where each starts.
    for (int w = 0; w < 2; ++w) {
        curandGenerator_t g = make_sobol(types[w], 2, 3);
        const bool wide = w == 1;
        const sobol_kind kinds[] = {s_bits, s_normal, s_uniform_double, s_bits, s_uniform};
        const unsigned dims[] = {2, 2, 5, 5, 1};
        for (int c = 0; c < 5; ++c) {
            curandSetQuasiRandomGeneratorDimensions(g, dims[c]);
            char label[160];
            std::snprintf(label, sizeof label, "%s host %s successive call %d: dimensions %u %s",
                          f.prefix, f.names[w], c, dims[c], sobol_kind_name[kinds[c]]);
            sobol_call(g, wide, kinds[c], dims[c] * 1001, label);
        }
        curandDestroyGenerator(g);
    }
}

// Statuses.
void sobol_statuses() {
    curandGenerator_t g;
    std::printf("sobol status: create quasi default %d\n",
                int(curandCreateGeneratorHost(&g, CURAND_RNG_QUASI_DEFAULT)));
    std::vector<unsigned> u(8);
    std::vector<unsigned long long> ll(8);
    std::printf("sobol status: dimensions 0 %d, 20001 %d, 3 %d\n",
                int(curandSetQuasiRandomGeneratorDimensions(g, 0)),
                int(curandSetQuasiRandomGeneratorDimensions(g, 20001)),
                int(curandSetQuasiRandomGeneratorDimensions(g, 3)));
    std::printf("sobol status: 4 numbers over 3 dimensions %d\n", int(curandGenerate(g, u.data(), 4)));
    std::printf("sobol status: seed %d\n", int(curandSetPseudoRandomGeneratorSeed(g, 1)));
    std::printf("sobol status: poisson lambda 0 %d, 4 over 3 dimensions %d\n",
                int(curandGeneratePoisson(g, u.data(), 3, 0.0)),
                int(curandGeneratePoisson(g, u.data(), 4, 2.0)));
    std::printf("sobol status: ordering pseudo default %d, quasi default %d\n",
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_DEFAULT)),
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_QUASI_DEFAULT)));
    std::printf("sobol status: long long from sobol32 %d\n", int(curandGenerateLongLong(g, ll.data(), 3)));
    curandDestroyGenerator(g);
    curandCreateGeneratorHost(&g, CURAND_RNG_QUASI_SOBOL64);
    std::printf("sobol status: 32 bits from sobol64 %d\n", int(curandGenerate(g, u.data(), 3)));
    curandDestroyGenerator(g);
    curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_XORWOW);
    std::printf("sobol status: dimensions on xorwow %d, long long %d, quasi ordering %d\n",
                int(curandSetQuasiRandomGeneratorDimensions(g, 2)),
                int(curandGenerateLongLong(g, ll.data(), 2)),
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_QUASI_DEFAULT)));
    curandDestroyGenerator(g);
}

// ---- MTGP32, host API ------------------------------------------------------------------
// One number per value as Sobol's, so the Sobol lines' printer serves.
curandGenerator_t make_mtgp32(unsigned long long seed) {
    curandGenerator_t g;
    curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_MTGP32);
    curandSetPseudoRandomGeneratorSeed(g, seed);
    return g;
}

void mtgp32_host_api() {
    // Past two rounds of the 192 states (49152 numbers each).
    const std::size_t n = 2 * 49152 + 7;
    const unsigned long long seeds[] = {1234, 0, 0x123456789abcdef0ull};
    for (unsigned long long seed : seeds)
        for (int k = s_bits; k <= s_log_normal_double; ++k) {
            curandGenerator_t g = make_mtgp32(seed);
            char label[160];
            std::snprintf(label, sizeof label, "mtgp32 host seed %llu %s n %zu", seed,
                          sobol_kind_name[k], n);
            sobol_call(g, false, sobol_kind(k), n, label);
            curandDestroyGenerator(g);
        }
    // Poisson: the table below lambda 32, a search to 8000, a normal above.
    for (double lambda : {0.7, 5.0, 31.9, 32.0, 640.0, 8000.0, 8000.5, 123456.7}) {
        curandGenerator_t g = make_mtgp32(1234);
        std::vector<unsigned> u(lambda < 32 || lambda > 8000 ? n : 20007);
        char label[160];
        std::snprintf(label, sizeof label, "mtgp32 host seed 1234 poisson %g n %zu", lambda, u.size());
        sobol_print(curandGeneratePoisson(g, u.data(), u.size(), lambda), u, label);
        curandDestroyGenerator(g);
    }
    // Its double normals are its float normals widened.
    {
        curandGenerator_t g = make_mtgp32(99);
        std::vector<double> d(n);
        sobol_print(curandGenerateNormalDouble(g, d.data(), n, 0.5, 2.0), d,
                    "mtgp32 host seed 99 normal_double (every bit)");
        curandDestroyGenerator(g);
    }
    // Successive calls, and what setting the seed, the ordering or new seeds
    // between them does to where the next one starts.
    curandGenerator_t g = make_mtgp32(77);
    const sobol_kind kinds[] = {s_bits, s_normal, s_uniform_double, s_bits, s_uniform, s_bits, s_bits, s_bits};
    const std::size_t counts[] = {1001, 50001, 3, 49152, 777, 10, 10, 10};
    const char* before[] = {"", "", "", "", "the same seed", "another seed", "ordering best", "new seeds"};
    for (int c = 0; c < 8; ++c) {
        if (c == 4) curandSetPseudoRandomGeneratorSeed(g, 77);
        if (c == 5) curandSetPseudoRandomGeneratorSeed(g, 78);
        if (c == 6) curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_BEST);
        if (c == 7) curandGenerateSeeds(g);
        char label[160];
        std::snprintf(label, sizeof label, "mtgp32 host successive call %d (%s): %s n %zu", c,
                      before[c], sobol_kind_name[kinds[c]], counts[c]);
        sobol_call(g, false, kinds[c], counts[c], label);
    }
    std::vector<unsigned long long> ll(4);
    std::vector<unsigned> u(4);
    std::printf("mtgp32 status: offset %d, long long %d, poisson lambda 0 %d\n",
                int(curandSetGeneratorOffset(g, 0)), int(curandGenerateLongLong(g, ll.data(), 4)),
                int(curandGeneratePoisson(g, u.data(), 4, 0.0)));
    std::printf("mtgp32 status: ordering default %d, best %d, legacy %d, seeded %d, dynamic %d, "
                "quasi %d\n",
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_DEFAULT)),
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_BEST)),
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_LEGACY)),
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_SEEDED)),
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_DYNAMIC)),
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_QUASI_DEFAULT)));
    curandDestroyGenerator(g);
}

// A state of dimension `dim` at point `off`; the scrambled ones with their constant.
void start(curandStateSobol32_t* s, curandDirectionVectors32_t* v, const unsigned*, unsigned dim,
           unsigned long long off) {
    curand_init(v[dim], unsigned(off), s);
}
void start(curandStateSobol64_t* s, curandDirectionVectors64_t* v, const unsigned long long*,
           unsigned dim, unsigned long long off) {
    curand_init(v[dim], off, s);
}
void start(curandStateScrambledSobol32_t* s, curandDirectionVectors32_t* v, const unsigned* c,
           unsigned dim, unsigned long long off) {
    curand_init(v[dim], c[dim], unsigned(off), s);
}
void start(curandStateScrambledSobol64_t* s, curandDirectionVectors64_t* v,
           const unsigned long long* c, unsigned dim, unsigned long long off) {
    curand_init(v[dim], c[dim], off, s);
}

// The device states' raw numbers, uniforms and Poisson draws (the toolkit's
// host code path has no Sobol normals to compare with).
template <class State, class Vectors, class Word>
void sobol_device_api(const char* prefix, const char* name, Vectors* vectors, const Word* constants,
                      unsigned last_dimension) {
    const unsigned dims[] = {0, 1, 2, 77, last_dimension};
    const unsigned long long offsets[] = {0, 1, 4097, 1000000007, 0xFFFFFFF0u};
    for (unsigned dim : dims)
        for (unsigned long long off : offsets) {
            State s;
            start(&s, vectors, constants, dim, off);
            digest d;
            for (int i = 0; i < 40; ++i) d.add(curand(&s));
            for (int i = 0; i < 40; ++i) d.add(curand_uniform(&s));
            for (int i = 0; i < 40; ++i) d.add(curand_uniform_double(&s));
            // Poisson by inversion below lambda 1000 (above, the toolkit's host
            // code path has no inverse normal to compare with); 640 takes two
            // of its e^-500 steps.
            for (double lambda : {0.3, 4.5, 77.0, 640.0})
                for (int i = 0; i < 10; ++i) d.add(curand_poisson(&s, lambda));
            skipahead(12345u, &s);
            d.add(curand(&s));
            char label[160];
            std::snprintf(label, sizeof label, "%s device %s dimension %u offset %llu", prefix, name,
                          dim, off);
            d.print(label);
        }
}

// ---- the scrambled Sobols: cuRAND's tables, host generators, device states ------------
// After every other line: without a toolkit the emulator has no scrambled
// Sobols, and emu.curand.vs-stored leaves the "scrambled" lines out.
// False where there are none (an emulator built without a toolkit).
bool scrambled_tables() {
    curandDirectionVectors32_t* v32 = nullptr;
    curandDirectionVectors64_t* v64 = nullptr;
    unsigned* c32 = nullptr;
    unsigned long long* c64 = nullptr;
    std::printf("scrambled status: vectors 32 %d, 64 %d, constants 32 %d, 64 %d\n",
                int(curandGetDirectionVectors32(&v32, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6)),
                int(curandGetDirectionVectors64(&v64, CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6)),
                int(curandGetScrambleConstants32(&c32)), int(curandGetScrambleConstants64(&c64)));
    if (!v32 || !v64 || !c32 || !c64) return false;
    for (unsigned first = 0; first < 20000; first += 5000) {
        digest d32, d64, k32, k64;
        for (unsigned dim = first; dim < first + 5000; ++dim) {
            for (int k = 0; k < 32; ++k) d32.add(v32[dim][k]);
            for (int k = 0; k < 64; ++k) d64.add(v64[dim][k]);
            k32.add(c32[dim]);
            k64.add(c64[dim]);
        }
        char label[96];
        std::snprintf(label, sizeof label, "scrambled direction vectors 32, dimensions %u on", first);
        d32.print(label);
        std::snprintf(label, sizeof label, "scrambled direction vectors 64, dimensions %u on", first);
        d64.print(label);
        std::snprintf(label, sizeof label, "scrambled constants 32, dimensions %u on", first);
        k32.print(label);
        std::snprintf(label, sizeof label, "scrambled constants 64, dimensions %u on", first);
        k64.print(label);
    }
    return true;
}

void scrambled_statuses() {
    curandGenerator_t g;
    std::vector<unsigned> u(8);
    std::vector<unsigned long long> ll(8);
    std::printf("scrambled status: create 32 %d\n",
                int(curandCreateGeneratorHost(&g, CURAND_RNG_QUASI_SCRAMBLED_SOBOL32)));
    std::printf("scrambled status: dimensions 0 %d, 20001 %d, 20000 %d\n",
                int(curandSetQuasiRandomGeneratorDimensions(g, 0)),
                int(curandSetQuasiRandomGeneratorDimensions(g, 20001)),
                int(curandSetQuasiRandomGeneratorDimensions(g, 20000)));
    curandSetQuasiRandomGeneratorDimensions(g, 3);
    std::printf("scrambled status: 4 numbers over 3 dimensions %d, seed %d, long long %d\n",
                int(curandGenerate(g, u.data(), 4)), int(curandSetPseudoRandomGeneratorSeed(g, 1)),
                int(curandGenerateLongLong(g, ll.data(), 3)));
    std::printf("scrambled status: ordering pseudo default %d, quasi default %d\n",
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_DEFAULT)),
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_QUASI_DEFAULT)));
    curandDestroyGenerator(g);
    std::printf("scrambled status: create 64 %d\n",
                int(curandCreateGeneratorHost(&g, CURAND_RNG_QUASI_SCRAMBLED_SOBOL64)));
    std::printf("scrambled status: 32 bits from scrambled64 %d, 3 long long %d\n",
                int(curandGenerate(g, u.data(), 3)), int(curandGenerateLongLong(g, ll.data(), 3)));
    curandDestroyGenerator(g);
}

void scrambled_sobol_api() {
    if (!scrambled_tables()) return;
    sobol_host_api(scrambled_sobol);
    scrambled_statuses();
    curandDirectionVectors32_t* v32 = nullptr;
    curandDirectionVectors64_t* v64 = nullptr;
    unsigned* c32 = nullptr;
    unsigned long long* c64 = nullptr;
    curandGetDirectionVectors32(&v32, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6);
    curandGetDirectionVectors64(&v64, CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6);
    curandGetScrambleConstants32(&c32);
    curandGetScrambleConstants64(&c64);
    sobol_device_api<curandStateScrambledSobol32_t>("scrambled", "scrambled_sobol32", v32, c32, 19999);
    sobol_device_api<curandStateScrambledSobol64_t>("scrambled", "scrambled_sobol64", v64, c64, 19999);
}

// After the scrambled lines.
void sobol64_past_2_to_32() {
    // Where a call starts after one that crossed point 2^32, and one set past it:
    // scrambled Sobol64 takes the offset modulo 2^32 (unscrambled Sobol64 too, for comparison).
    const curandRngType_t wide[] = {CURAND_RNG_QUASI_SCRAMBLED_SOBOL64, CURAND_RNG_QUASI_SOBOL64};
    for (curandRngType_t t : wide) {
        curandGenerator_t g;
        if (curandCreateGeneratorHost(&g, t) != CURAND_STATUS_SUCCESS) continue;  // no toolkit
        curandSetQuasiRandomGeneratorDimensions(g, 2);
        curandSetGeneratorOffset(g, (1ull << 32) - 3);
        // The unscrambled lines need no toolkit: "sobol ...", compared everywhere.
        const char* name = t == CURAND_RNG_QUASI_SOBOL64 ? "sobol host sobol64" : "scrambled host scrambled_sobol64";
        char label[160];
        std::snprintf(label, sizeof label, "%s past 2^32, first call: dimensions 2 bits", name);
        sobol_call(g, true, s_bits, 2 * 6, label);
        std::snprintf(label, sizeof label, "%s past 2^32, next call: dimensions 2 uniform_double", name);
        sobol_call(g, true, s_uniform_double, 2 * 4, label);
        curandSetGeneratorOffset(g, (1ull << 32) + 77);
        std::snprintf(label, sizeof label, "%s offset 2^32 + 77: dimensions 2 bits", name);
        sobol_call(g, true, s_bits, 2 * 4, label);
        curandDestroyGenerator(g);
    }
}

}  // namespace

int main() {
    host_api();
    poisson_host_api();
    device_api<curandStateXORWOW_t>("xorwow");
    device_api<curandStateMRG32k3a_t>("mrg32k3a");
    device_api<curandStatePhilox4_32_10_t>("philox");
    sobol_direction_vectors();
    sobol_host_api(plain_sobol);
    sobol_statuses();
    mtgp32_host_api();
    curandDirectionVectors32_t* v32 = nullptr;
    curandDirectionVectors64_t* v64 = nullptr;
    curandGetDirectionVectors32(&v32, CURAND_DIRECTION_VECTORS_32_JOEKUO6);
    curandGetDirectionVectors64(&v64, CURAND_DIRECTION_VECTORS_64_JOEKUO6);
    sobol_device_api<curandStateSobol32_t>("sobol", "sobol32", v32, static_cast<unsigned*>(nullptr),
                                           sobol_dimensions_compared - 1);
    sobol_device_api<curandStateSobol64_t>("sobol", "sobol64", v64,
                                           static_cast<unsigned long long*>(nullptr),
                                           sobol_dimensions_compared - 1);
    scrambled_sobol_api();
    sobol64_past_2_to_32();
    return 0;
}
