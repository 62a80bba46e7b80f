// generators.cpp - the emulator's cuRAND host API (<curand.h>): generators,
// their settings, and each curandGenerate* call checked as libcurand checks
// it. A host generator (curandCreateGeneratorHost) fills host memory at the
// call; a device generator queues the work on its stream (curandSetStream),
// so it runs after the launches and copies issued before it, and writes the
// device memory cudaMalloc gave. The numbers come from host_layouts.cpp.
//
// Statuses are libcurand's, measured without a GPU: a null generator is
// CURAND_STATUS_NOT_INITIALIZED, an odd count of XORWOW or MRG32k3a normals
// CURAND_STATUS_LENGTH_NOT_MULTIPLE, lambda <= 0 or above 400000
// CURAND_STATUS_OUT_OF_RANGE;
// for Sobol, a count that is not a multiple of the dimensions is
// CURAND_STATUS_LENGTH_NOT_MULTIPLE, a seed or the other width's raw numbers
// CURAND_STATUS_TYPE_ERROR, a pseudo-random ordering CURAND_STATUS_OUT_OF_RANGE.
#include <cstdio>
#include <memory>
#include <mutex>
#include <unordered_set>

#include "../internal.h"
#include "curand.h"
#include "host_layouts.h"
#include "mtgp32.h"
#include "scrambled_sobol.h"
#include "sobol_directions.h"

using cuemu::curand_host::distribution;
using cuemu::curand_host::is_quasi;
using cuemu::curand_host::is_scrambled;
using cuemu::curand_host::is_twister;

struct curandGenerator_st {
    curandRngType_t type;
    bool on_host;
    unsigned long long seed = 0;
    unsigned long long offset = 0;
    curandOrdering_t ordering =
        is_quasi(type) ? CURAND_ORDERING_QUASI_DEFAULT : CURAND_ORDERING_PSEUDO_DEFAULT;
    unsigned int dimensions = 1;  // Sobol only
    cudaStream_t stream = nullptr;
    // Shared with queued work, which may run after curandDestroyGenerator.
    std::shared_ptr<cuemu::curand_host::dealt_states> states =
        std::make_shared<cuemu::curand_host::dealt_states>();
    // Setting the seed, offset or ordering remakes the states at the next call.
    void restart() { states = std::make_shared<cuemu::curand_host::dealt_states>(); }
};

namespace {

std::mutex generators_mutex;
std::unordered_set<curandGenerator_st*> live_generators;

bool is_live(curandGenerator_t g) {
    std::lock_guard<std::mutex> lock(generators_mutex);
    return g && live_generators.count(g);
}

// How many dimensions the emulator has for a quasi-random generator: the
// scrambled ones all of cuRAND's table, the others Boost's.
unsigned int quasi_dimensions(curandRngType_t type) {
    if (is_scrambled(type))
        return cuemu::curand_host::scrambled_sobol_available() ? cuemu::curand_host::curand_sobol_dimensions : 0;
    return cuemu::curand_host::sobol_dimensions();
}

curandStatus_t create(curandGenerator_t* generator, curandRngType_t type, bool on_host) {
    const char* call = on_host ? "curandCreateGeneratorHost" : "curandCreateGenerator";
    if (type == CURAND_RNG_PSEUDO_DEFAULT) type = CURAND_RNG_PSEUDO_XORWOW;
    if (type == CURAND_RNG_QUASI_DEFAULT) type = CURAND_RNG_QUASI_SOBOL32;
    if (type != CURAND_RNG_PSEUDO_XORWOW && type != CURAND_RNG_PSEUDO_MRG32K3A &&
        type != CURAND_RNG_PSEUDO_PHILOX4_32_10 && type != CURAND_RNG_PSEUDO_MT19937 &&
        type != CURAND_RNG_PSEUDO_MTGP32 && !is_quasi(type)) {
        // libcurand creates a CURAND_RNG_TEST generator (measured); the emulator has none.
        if (type == CURAND_RNG_TEST)
            std::fprintf(stderr,
                         "cuemu: %s: the emulator's cuRAND has no CURAND_RNG_TEST generator (it "
                         "has XORWOW, MRG32k3a, Philox4_32_10, MT19937, MTGP32 and the Sobols, "
                         "scrambled or not); the call returns CURAND_STATUS_TYPE_ERROR\n",
                         call);
        return CURAND_STATUS_TYPE_ERROR;
    }
    if (is_scrambled(type) && !cuemu::curand_host::scrambled_sobol_available()) {
        cuemu::curand_host::report_no_scrambled_tables(
            call,
            type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 ? "CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 generator"
                                                       : "CURAND_RNG_QUASI_SCRAMBLED_SOBOL64 generator",
            "CURAND_STATUS_TYPE_ERROR");
        return CURAND_STATUS_TYPE_ERROR;
    }
    if (type == CURAND_RNG_PSEUDO_MTGP32 && !cuemu::mtgp32_table_available()) {
        std::fprintf(stderr,
                     "cuemu: %s: the emulator's MTGP32 generator needs cuRAND's table of "
                     "parameter sets (curand_mtgp32dc_p_11213.h of a CUDA toolkit), which was not "
                     "found when the emulator was built; the call returns "
                     "CURAND_STATUS_TYPE_ERROR\n",
                     call);
        return CURAND_STATUS_TYPE_ERROR;
    }
    if (is_quasi(type) && !is_scrambled(type) && cuemu::curand_host::sobol_dimensions() == 0) {
        cuemu::curand_host::report_missing_dimensions(call, 1);
        return CURAND_STATUS_TYPE_ERROR;
    }
    if (!on_host && cudaFree(nullptr) != cudaSuccess) return CURAND_STATUS_INITIALIZATION_FAILED;
    auto* g = new curandGenerator_st{type, on_host};
    {
        std::lock_guard<std::mutex> lock(generators_mutex);
        live_generators.insert(g);
    }
    *generator = g;
    return CURAND_STATUS_SUCCESS;
}

std::size_t element_size(distribution what) {
    switch (what) {
    case distribution::uniform:
    case distribution::normal:
    case distribution::log_normal: return sizeof(float);
    case distribution::uniform_double:
    case distribution::normal_double:
    case distribution::log_normal_double:
    case distribution::bits64: return sizeof(double);
    default: return sizeof(unsigned int);
    }
}

// XORWOW and MRG32k3a make normals in Box-Muller pairs; the others one a number.
bool needs_pairs(curandGenerator_t g, distribution what) {
    return g->type != CURAND_RNG_PSEUDO_PHILOX4_32_10 && !is_twister(g->type) &&
           !is_quasi(g->type) &&
           what != distribution::bits &&
           what != distribution::uniform && what != distribution::uniform_double &&
           what != distribution::poisson;
}

curandStatus_t generate(const char* call, curandGenerator_t g, void* out, std::size_t n,
                        distribution what, double mean = 0, double stddev = 0) {
    if (!is_live(g)) return CURAND_STATUS_NOT_INITIALIZED;
    // 32-bit raw numbers from every generator but the Sobol64s, 64-bit from them alone.
    const bool sobol64 = cuemu::curand_host::is_quasi64(g->type);
    if ((what == distribution::bits && sobol64) || (what == distribution::bits64 && !sobol64))
        return CURAND_STATUS_TYPE_ERROR;
    if (needs_pairs(g, what) && n % 2 != 0) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
    if (is_quasi(g->type) && n % g->dimensions != 0) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
    if (what == distribution::poisson && !(mean > 0 && mean <= 400000)) return CURAND_STATUS_OUT_OF_RANGE;
    const cuemu::curand_host::request r{g->type,     g->ordering, g->seed, g->offset,
                                        g->dimensions, what,        mean,    stddev, !g->on_host};
    g->offset = cuemu::curand_host::offset_after(r, n);
    if (n == 0) return CURAND_STATUS_SUCCESS;
    if (g->on_host) {
        cuemu::curand_host::fill(r, *g->states, out, n);
        return CURAND_STATUS_SUCCESS;
    }
    using namespace cuemu::detail;
    if (context_status() != cudaSuccess) return CURAND_STATUS_PREEXISTING_FAILURE;
    const std::size_t bytes = n * element_size(what);
    if (!is_device_range(out, bytes) && !is_registered_host_memory(out) &&
        !is_pinned_host_memory(out, nullptr)) {
        std::fprintf(stderr,
                     "cuemu: %s: the output %p does not hold %zu numbers (%zu bytes) of device "
                     "memory; a device generator (curandCreateGenerator) writes device memory "
                     "from cudaMalloc (curandCreateGeneratorHost writes host memory)\n"
                     "  %s returns CURAND_STATUS_LAUNCH_FAILURE\n",
                     call, out, n, bytes, call);
        return CURAND_STATUS_LAUNCH_FAILURE;
    }
    if (!is_valid_stream(g->stream)) return CURAND_STATUS_LAUNCH_FAILURE;
    enqueue(g->stream, [r, states = g->states, out, n, bytes](std::uint64_t) {
        cuemu::curand_host::fill(r, *states, out, n);
        note_device_write(out, bytes);
        return cudaSuccess;
    });
    return CURAND_STATUS_SUCCESS;
}

}  // namespace

curandStatus_t curandCreateGenerator(curandGenerator_t* generator, curandRngType_t rng_type) {
    return create(generator, rng_type, false);
}
curandStatus_t curandCreateGeneratorHost(curandGenerator_t* generator, curandRngType_t rng_type) {
    return create(generator, rng_type, true);
}
curandStatus_t curandDestroyGenerator(curandGenerator_t generator) {
    if (!is_live(generator)) return CURAND_STATUS_NOT_INITIALIZED;
    // Work already queued still writes with the generator's settings (copied
    // into it), so the generator can go at once.
    std::lock_guard<std::mutex> lock(generators_mutex);
    live_generators.erase(generator);
    delete generator;
    return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGetVersion(int* version) {
    if (!version) return CURAND_STATUS_OUT_OF_RANGE;
    *version = CURAND_VERSION;
    return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream) {
    if (!is_live(generator)) return CURAND_STATUS_NOT_INITIALIZED;
    generator->stream = stream;
    return CURAND_STATUS_SUCCESS;
}
// A new seed starts the sequence again from the offset.
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator,
                                                  unsigned long long seed) {
    if (!is_live(generator)) return CURAND_STATUS_NOT_INITIALIZED;
    if (is_quasi(generator->type)) return CURAND_STATUS_TYPE_ERROR;
    // libcurand's MTGP32 goes on where it was when given the seed it has (measured).
    if (generator->type == CURAND_RNG_PSEUDO_MTGP32 && seed == generator->seed)
        return CURAND_STATUS_SUCCESS;
    generator->seed = seed;
    // MT19937 and MTGP32 have no offset: their numbers start again from the first (measured).
    if (is_twister(generator->type)) generator->offset = 0;
    generator->restart();
    return CURAND_STATUS_SUCCESS;
}
// MT19937 and MTGP32 have no offset in libcurand (CURAND_STATUS_TYPE_ERROR, 0 included).
curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset) {
    if (!is_live(generator)) return CURAND_STATUS_NOT_INITIALIZED;
    if (is_twister(generator->type)) return CURAND_STATUS_TYPE_ERROR;
    generator->offset = offset;
    generator->restart();
    return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order) {
    if (!is_live(generator)) return CURAND_STATUS_NOT_INITIALIZED;
    if (is_quasi(generator->type)) {
        if (order != CURAND_ORDERING_QUASI_DEFAULT) return CURAND_STATUS_OUT_OF_RANGE;
        generator->ordering = order;
        return CURAND_STATUS_SUCCESS;
    }
    const bool xorwow = generator->type == CURAND_RNG_PSEUDO_XORWOW;
    // libcurand's MT19937 takes DEFAULT and LEGACY only (one layout).
    if (generator->type == CURAND_RNG_PSEUDO_MT19937 && order != CURAND_ORDERING_PSEUDO_DEFAULT &&
        order != CURAND_ORDERING_PSEUDO_LEGACY)
        return CURAND_STATUS_OUT_OF_RANGE;
    if (order == CURAND_ORDERING_PSEUDO_SEEDED && xorwow) {
        std::fprintf(stderr,
                     "cuemu: curandSetGeneratorOrdering: the emulator does not have XORWOW's "
                     "CURAND_ORDERING_PSEUDO_SEEDED order (it has DEFAULT, BEST and LEGACY); "
                     "the call returns CURAND_STATUS_TYPE_ERROR\n");
        return CURAND_STATUS_TYPE_ERROR;
    }
    // As libcurand answers: DYNAMIC only on a device, SEEDED only for XORWOW.
    const bool known = order == CURAND_ORDERING_PSEUDO_DEFAULT ||
                       order == CURAND_ORDERING_PSEUDO_BEST ||
                       order == CURAND_ORDERING_PSEUDO_LEGACY ||
                       (order == CURAND_ORDERING_PSEUDO_DYNAMIC && !generator->on_host);
    if (!known) return CURAND_STATUS_OUT_OF_RANGE;
    generator->ordering = order;
    // MTGP32 has one order; setting one starts again from the first number (measured).
    if (generator->type == CURAND_RNG_PSEUDO_MTGP32) generator->offset = 0;
    generator->restart();
    return CURAND_STATUS_SUCCESS;
}
// The pseudo-random generators seed themselves at the first generate call;
// this call only checks the generator, as libcurand's does for them, except
// that libcurand's MTGP32 seeds its states again, starting from the first
// number (measured).
curandStatus_t curandGenerateSeeds(curandGenerator_t generator) {
    if (!is_live(generator)) return CURAND_STATUS_NOT_INITIALIZED;
    if (generator->type == CURAND_RNG_PSEUDO_MTGP32) {
        generator->offset = 0;
        generator->restart();
    }
    return CURAND_STATUS_SUCCESS;
}

// The Sobol generators keep their place (the offset, in points) when the
// count of dimensions changes, as libcurand's do.
curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t generator,
                                                       unsigned int num_dimensions) {
    if (!is_live(generator)) return CURAND_STATUS_NOT_INITIALIZED;
    if (!is_quasi(generator->type)) return CURAND_STATUS_TYPE_ERROR;
    if (num_dimensions == 0 || num_dimensions > cuemu::curand_host::curand_sobol_dimensions)
        return CURAND_STATUS_OUT_OF_RANGE;
    if (num_dimensions > quasi_dimensions(generator->type)) {
        cuemu::curand_host::report_missing_dimensions("curandSetQuasiRandomGeneratorDimensions",
                                                      num_dimensions);
        return CURAND_STATUS_OUT_OF_RANGE;
    }
    generator->dimensions = num_dimensions;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int* output_ptr, size_t num) {
    return generate("curandGenerate", generator, output_ptr, num, distribution::bits);
}
curandStatus_t curandGenerateLongLong(curandGenerator_t generator, unsigned long long* output_ptr,
                                      size_t num) {
    return generate("curandGenerateLongLong", generator, output_ptr, num, distribution::bits64);
}
curandStatus_t curandGenerateUniform(curandGenerator_t generator, float* output_ptr, size_t num) {
    return generate("curandGenerateUniform", generator, output_ptr, num, distribution::uniform);
}
curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double* output_ptr,
                                           size_t num) {
    return generate("curandGenerateUniformDouble", generator, output_ptr, num,
                    distribution::uniform_double);
}
curandStatus_t curandGenerateNormal(curandGenerator_t generator, float* output_ptr, size_t n,
                                    float mean, float stddev) {
    return generate("curandGenerateNormal", generator, output_ptr, n, distribution::normal, mean,
                    stddev);
}
curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double* output_ptr,
                                          size_t n, double mean, double stddev) {
    return generate("curandGenerateNormalDouble", generator, output_ptr, n,
                    distribution::normal_double, mean, stddev);
}
curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float* output_ptr, size_t n,
                                       float mean, float stddev) {
    return generate("curandGenerateLogNormal", generator, output_ptr, n, distribution::log_normal,
                    mean, stddev);
}
curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator, double* output_ptr,
                                             size_t n, double mean, double stddev) {
    return generate("curandGenerateLogNormalDouble", generator, output_ptr, n,
                    distribution::log_normal_double, mean, stddev);
}
curandStatus_t curandGeneratePoisson(curandGenerator_t generator, unsigned int* output_ptr,
                                     size_t n, double lambda) {
    return generate("curandGeneratePoisson", generator, output_ptr, n, distribution::poisson,
                    lambda);
}
