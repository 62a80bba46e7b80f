// curand_mt19937_reference.cpp - prints numbers of cuRAND's host-API MT19937
// generator (CURAND_RNG_PSEUDO_MT19937), the same way from two builds:
//   - against NVIDIA's toolkit (libcurand's host generator, no GPU needed):
//     the output stored in curand_mt19937_reference.txt;
//   - against the emulator (emu.curand.mt19937.vs-stored diffs the two).
// libcurand's MT19937 runs 8192 twisters and deals eight numbers from each
// in turn (common/emu/src/curand/mt19937.h), so a single call that reaches a
// second round of one generator needs all 8192 started: about 11 s in
// libcurand, several seconds here. The first part ("raw generator ...")
// therefore reads chosen generators through several blocks of 624 numbers:
// from one long libcurand call in the toolkit build, and from the emulator's
// own generators (cuemu::curand_host::mt19937_generators, which only start
// the generators asked for) in the emulator build. The second part calls the
// host API with counts small enough for the emulator to start only the
// generators they reach. Values are bit patterns in hex.
#include <curand.h>

#include <cstdio>
#include <cstring>
#include <vector>

#if defined(CUEMU_CURAND_MT19937_INTERNALS)
#include "../../common/emu/src/curand/mt19937.h"
#endif

namespace {

constexpr unsigned long long raw_seed = 0x123456789abcdefull;  // only its low 32 bits count
constexpr std::size_t rounds = 78 * 2 + 5;                       // into a third block of 624
constexpr unsigned generators_read[] = {0, 1, 2, 5};
constexpr std::size_t turn = 8, turns_per_round = 8192;

void raw_numbers() {
#if defined(CUEMU_CURAND_MT19937_INTERNALS)
    cuemu::curand_host::mt19937_generators twisters(raw_seed);
    auto at = [&](std::size_t position) { return twisters.at(position); };
#else
    curandGenerator_t g;
    curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_MT19937);
    curandSetPseudoRandomGeneratorSeed(g, raw_seed);
    std::vector<unsigned> raw(turn * turns_per_round * rounds);
    curandGenerate(g, raw.data(), raw.size());
    curandDestroyGenerator(g);
    auto at = [&](std::size_t position) { return raw[position]; };
#endif
    for (unsigned generator : generators_read)
        for (std::size_t r = 0; r < rounds; ++r) {
            std::printf("raw generator %u round %zu:", generator, r);
            for (unsigned t = 0; t < turn; ++t)
                std::printf(" %08x", at(r * turn * turns_per_round + generator * turn + t));
            std::printf("\n");
        }
}

void print_words(const char* what, const void* p, std::size_t count, std::size_t each) {
    std::printf("%s:", what);
    for (std::size_t i = 0; i < count; ++i) {
        unsigned long long v = 0;
        std::memcpy(&v, static_cast<const char*>(p) + i * each, each);
        std::printf(each == 4 ? " %08llx" : " %016llx", v);
    }
    std::printf("\n");
}

// Successive calls of each kind on one generator: where each starts, and
// each conversion, every bit.
void host_api() {
    constexpr std::size_t count = 256;
    std::vector<unsigned> u(count);
    std::vector<float> f(count);
    std::vector<double> d(count);
    curandGenerator_t g;
    curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_MT19937);
    curandSetPseudoRandomGeneratorSeed(g, 2024);
    std::printf("status %d\n", int(curandGenerate(g, u.data(), count)));
    print_words("bits", u.data(), count, 4);
    std::printf("status %d\n", int(curandGenerateUniform(g, f.data(), count)));
    print_words("uniform", f.data(), count, 4);
    std::printf("status %d\n", int(curandGenerateUniformDouble(g, d.data(), count)));
    print_words("uniform_double", d.data(), count, 8);
    std::printf("status %d\n", int(curandGenerateNormal(g, f.data(), count - 1, 0.5f, 2.0f)));
    print_words("normal (odd count)", f.data(), count - 1, 4);
    std::printf("status %d\n", int(curandGenerateLogNormal(g, f.data(), count, 0.1f, 0.5f)));
    print_words("log_normal", f.data(), count, 4);
    std::printf("status %d\n", int(curandGenerateNormalDouble(g, d.data(), count, 0.5, 2.0)));
    print_words("normal_double", d.data(), count, 8);
    std::printf("status %d\n", int(curandGenerateLogNormalDouble(g, d.data(), count, 0.1, 0.5)));
    print_words("log_normal_double", d.data(), count, 8);
    std::printf("offset status %d, ordering best %d, seeded %d, legacy %d, default %d, long long %d\n",
                int(curandSetGeneratorOffset(g, 0)),
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_BEST)),
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_SEEDED)),
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_LEGACY)),
                int(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_DEFAULT)),
                int(curandGenerateLongLong(g, nullptr, 2)));
    // LEGACY is the same order; a new seed starts again.
    curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_LEGACY);
    curandSetPseudoRandomGeneratorSeed(g, 2024);
    curandGenerate(g, u.data(), count);
    print_words("legacy bits", u.data(), count, 4);
    // Poisson: libcurand's table below lambda 2000, its rounded float normal from 2000 on.
    for (double lambda : {0.5, 5.0, 77.5, 1999.0, 2000.0, 123456.7}) {
        std::printf("status %d\n", int(curandGeneratePoisson(g, u.data(), count, lambda)));
        char what[64];
        std::snprintf(what, sizeof what, "poisson %g", lambda);
        print_words(what, u.data(), count, 4);
    }
    // The table's draws are at MT19937's own uniform, x 2^-32 + 2^-33: the
    // numbers below fall between the two readings of a column's edge, where
    // x 2^-32 + 2^-32 would give another value (each from the first number).
    const struct {
        double lambda;
        std::size_t number;
    } edges[] = {{507.5, 1494}, {1777.0, 2359}};
    for (const auto& e : edges) {
        curandSetPseudoRandomGeneratorSeed(g, 1);
        curandSetPseudoRandomGeneratorSeed(g, 2024);
        std::vector<unsigned> p(e.number + 8);
        std::printf("status %d\n", int(curandGeneratePoisson(g, p.data(), p.size(), e.lambda)));
        char what[96];
        std::snprintf(what, sizeof what, "poisson %g, numbers %zu to %zu", e.lambda, e.number - 8,
                      e.number + 7);
        print_words(what, p.data() + e.number - 8, 16, 4);
    }
    curandDestroyGenerator(g);
}

}  // namespace

int main() {
    raw_numbers();
    host_api();
}
