// curand_device_dump.cu - prints what cuRAND's device API gives inside a kernel,
// as bit patterns, for every state the emulator has (XORWOW, Philox4_32_10,
// MRG32k3a) and every distribution, from three (seed, subsequence, offset)
// starts; then what each generator of the host API made with
// curandCreateGenerator (numbers written to device memory) gives. Built with nvcc and run on a GPU, its output was kept in
// docs/gpu-runs/ (the GPU's own sine, cosine, exp and log are in these
// numbers); built for the emulator, ctest compares the two line by line.
//
//   nvcc -arch=sm_90 curand_device_dump.cu -o dump -lcurand && ./dump > gpu.txt
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu_dump.h"

// ---- what one thread draws ---------------------------------------------------------
constexpr int kDraws = 8;  // values per (state, start, distribution)
constexpr int kStarts = 3;
__constant__ unsigned long long start_seed[kStarts] = {1234ull, 42ull, 0xdeadbeefcafeull};
__constant__ unsigned long long start_subsequence[kStarts] = {0, 5, 1000};
__constant__ unsigned long long start_offset[kStarts] = {0, 7, 123457};

// The distributions, in the order the output lists them.
enum { kBits, kUniform, kNormal, kNormal2, kLogNormal, kUniformDouble, kNormalDouble,
       kNormal2Double, kLogNormalDouble, kPoissonFirst };
constexpr int kLambdas = 14;
__constant__ double lambdas[kLambdas] = {0.1,  1.0,   4.5,    20.0,   63.5,    64.0,   100.0,
                                         517.25, 999.0, 1000.0, 1500.0, 4096.5, 1e5, 3e6};
const double host_lambdas[kLambdas] = {0.1,  1.0,   4.5,    20.0,   63.5,    64.0,   100.0,
                                       517.25, 999.0, 1000.0, 1500.0, 4096.5, 1e5, 3e6};
constexpr int kKinds = kPoissonFirst + kLambdas;
const char* kind_names[kPoissonFirst] = {"bits",           "uniform",       "normal",
                                         "normal2",        "log_normal",    "uniform_double",
                                         "normal_double",  "normal2_double", "log_normal_double"};

template <class State>
__device__ void draw(State* state, int kind, unsigned long long* out) {
    for (int i = 0; i < kDraws; ++i) {
        unsigned long long bits = 0;
        switch (kind) {
        case kBits: bits = curand(state); break;
        case kUniform: bits = __float_as_uint(curand_uniform(state)); break;
        case kNormal: bits = __float_as_uint(curand_normal(state)); break;
        case kNormal2: {
            float2 v = curand_normal2(state);
            bits = (static_cast<unsigned long long>(__float_as_uint(v.x)) << 32) |
                   __float_as_uint(v.y);
            break;
        }
        case kLogNormal: bits = __float_as_uint(curand_log_normal(state, 0.5f, 1.5f)); break;
        case kUniformDouble:
            bits = __double_as_longlong(curand_uniform_double(state));
            break;
        case kNormalDouble: bits = __double_as_longlong(curand_normal_double(state)); break;
        case kNormal2Double: {
            double2 v = curand_normal2_double(state);
            // Both halves matter; fold them so one line still shows each draw.
            bits = __double_as_longlong(v.x) ^ (__double_as_longlong(v.y) * 3ull);
            break;
        }
        case kLogNormalDouble:
            bits = __double_as_longlong(curand_log_normal_double(state, 0.5, 1.5));
            break;
        default: bits = curand_poisson(state, lambdas[kind - kPoissonFirst]); break;
        }
        out[i] = bits;
    }
}

// One thread for each (start, distribution): a fresh state, then kDraws values.
template <class State>
__global__ void dump_kernel(unsigned long long* out) {
    int job = blockIdx.x * blockDim.x + threadIdx.x;
    if (job >= kStarts * kKinds) return;
    int start = job / kKinds, kind = job % kKinds;
    State state;
    curand_init(start_seed[start], start_subsequence[start], start_offset[start], &state);
    draw(&state, kind, out + job * kDraws);
}

template <class State>
void dump(const char* name) {
    const int jobs = kStarts * kKinds;
    unsigned long long* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, jobs * kDraws * sizeof(unsigned long long)));
    dump_kernel<State><<<(jobs + 63) / 64, 64>>>(d_out);
    CHECK(cudaGetLastError());
    std::vector<unsigned long long> h_out(jobs * kDraws);
    CHECK(cudaMemcpy(h_out.data(), d_out, h_out.size() * sizeof(unsigned long long),
                     cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_out));
    for (int job = 0; job < jobs; ++job) {
        int start = job / kKinds, kind = job % kKinds;
        if (kind < kPoissonFirst) std::printf("%s start %d %s:", name, start, kind_names[kind]);
        else std::printf("%s start %d poisson %g:", name, start, host_lambdas[kind - kPoissonFirst]);
        for (int i = 0; i < kDraws; ++i) std::printf(" %llx", h_out[job * kDraws + i]);
        std::printf("\n");
    }
}

// ---- the host API's generators, writing device memory ------------------------------
#define CHECK_CURAND(call)                                                            \
    do {                                                                              \
        curandStatus_t st_ = (call);                                                  \
        if (st_ != CURAND_STATUS_SUCCESS) {                                           \
            std::printf("%s: status %d\n", #call, static_cast<int>(st_));             \
            return;                                                                   \
        }                                                                             \
    } while (0)

// FNV-1a over every value's bits, and the first six shown.
template <class T>
void print_digest(const char* label, const std::vector<T>& values) {
    unsigned long long hash = 1469598103934665603ull;
    for (const T& v : values) {
        unsigned long long bits = 0;
        std::memcpy(&bits, &v, sizeof v);
        for (unsigned i = 0; i < sizeof v; ++i) {
            hash ^= (bits >> (8 * i)) & 0xff;
            hash *= 1099511628211ull;
        }
    }
    std::printf("%s: hash %016llx first", label, hash);
    for (size_t i = 0; i < 6 && i < values.size(); ++i) {
        unsigned long long bits = 0;
        std::memcpy(&bits, &values[i], sizeof values[i]);
        std::printf(" %llx", bits);
    }
    std::printf("\n");
}

template <class T, class Generate>
void generate_and_print(const char* name, const char* kind, size_t n, Generate generate) {
    T* d_values = nullptr;
    CHECK(cudaMalloc(&d_values, n * sizeof(T)));
    curandStatus_t status = generate(d_values, n);
    char label[96];
    std::snprintf(label, sizeof label, "generator %s %s n %zu", name, kind, n);
    if (status != CURAND_STATUS_SUCCESS) {
        std::printf("%s: status %d\n", label, static_cast<int>(status));
    } else {
        std::vector<T> h_values(n);
        CHECK(cudaMemcpy(h_values.data(), d_values, n * sizeof(T), cudaMemcpyDeviceToHost));
        print_digest(label, h_values);
    }
    CHECK(cudaFree(d_values));
}

// `--skip NAME` (repeatable) leaves out the host API's generators of that name:
// the emulator's tests skip MT19937, whose twisters take many seconds to start.
void generators(int argc, char** argv) {
    auto skipped = [&](const char* name) {
        for (int i = 1; i + 1 < argc; ++i)
            if (std::strcmp(argv[i], "--skip") == 0 && std::strcmp(argv[i + 1], name) == 0) return true;
        return false;
    };
    struct kind_of_generator {
        const char* name;
        curandRngType_t type;
    };
    const kind_of_generator kinds[] = {
        {"xorwow", CURAND_RNG_PSEUDO_XORWOW},   {"mrg32k3a", CURAND_RNG_PSEUDO_MRG32K3A},
        {"philox", CURAND_RNG_PSEUDO_PHILOX4_32_10}, {"mt19937", CURAND_RNG_PSEUDO_MT19937},
        {"mtgp32", CURAND_RNG_PSEUDO_MTGP32},   {"sobol32", CURAND_RNG_QUASI_SOBOL32},
        {"sobol64", CURAND_RNG_QUASI_SOBOL64},
        {"scrambled_sobol32", CURAND_RNG_QUASI_SCRAMBLED_SOBOL32}};
    const size_t n = 10008;  // even, as the normals need; not a multiple of the states
    for (const kind_of_generator& k : kinds) {
        if (skipped(k.name)) continue;
        const bool quasi = k.type == CURAND_RNG_QUASI_SOBOL32 || k.type == CURAND_RNG_QUASI_SOBOL64 ||
                           k.type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL32;
        // A fresh generator for each kind of number, so each line stands alone.
        for (int what = 0; what < 6; ++what) {
            curandGenerator_t gen;
            if (curandCreateGenerator(&gen, k.type) != CURAND_STATUS_SUCCESS) {
                std::printf("generator %s: not created\n", k.name);
                break;
            }
            if (quasi) CHECK_CURAND(curandSetQuasiRandomGeneratorDimensions(gen, 3));
            else CHECK_CURAND(curandSetPseudoRandomGeneratorSeed(gen, 1234));
            switch (what) {
            case 0:
                if (k.type == CURAND_RNG_QUASI_SOBOL64)
                    generate_and_print<unsigned long long>(k.name, "bits", n, [&](unsigned long long* p, size_t m) { return curandGenerateLongLong(gen, p, m); });
                else
                    generate_and_print<unsigned>(k.name, "bits", n, [&](unsigned* p, size_t m) { return curandGenerate(gen, p, m); });
                break;
            case 1: generate_and_print<float>(k.name, "uniform", n, [&](float* p, size_t m) { return curandGenerateUniform(gen, p, m); }); break;
            case 2: generate_and_print<float>(k.name, "normal", n, [&](float* p, size_t m) { return curandGenerateNormal(gen, p, m, 0.5f, 2.0f); }); break;
            case 3: generate_and_print<double>(k.name, "normal_double", n, [&](double* p, size_t m) { return curandGenerateNormalDouble(gen, p, m, 0.5, 2.0); }); break;
            case 4: generate_and_print<float>(k.name, "log_normal", n, [&](float* p, size_t m) { return curandGenerateLogNormal(gen, p, m, 0.1f, 0.5f); }); break;
            case 5: generate_and_print<unsigned>(k.name, "poisson 7.5", n, [&](unsigned* p, size_t m) { return curandGeneratePoisson(gen, p, m, 7.5); }); break;
            }
            CHECK_CURAND(curandDestroyGenerator(gen));
        }
    }
    // Poisson over a sweep of lambdas, where the host API builds its tables.
    const double sweep[] = {0.25, 0.5, 1, 2, 3.5, 7, 12.25, 31, 63, 64, 65, 127.5, 200, 333.3,
                            500, 777, 999, 1000, 1234.5, 1999, 2000, 2001, 4321, 65536.5};
    const kind_of_generator swept[] = {{"xorwow", CURAND_RNG_PSEUDO_XORWOW},
                                       {"philox", CURAND_RNG_PSEUDO_PHILOX4_32_10},
                                       {"sobol32", CURAND_RNG_QUASI_SOBOL32}};
    for (const kind_of_generator& k : swept)
        for (double lambda : sweep) {
            curandGenerator_t gen;
            CHECK_CURAND(curandCreateGenerator(&gen, k.type));
            if (k.type != CURAND_RNG_QUASI_SOBOL32)
                CHECK_CURAND(curandSetPseudoRandomGeneratorSeed(gen, 99));
            char kind[32];
            std::snprintf(kind, sizeof kind, "poisson %g", lambda);
            generate_and_print<unsigned>(k.name, kind, n, [&](unsigned* p, size_t m) { return curandGeneratePoisson(gen, p, m, lambda); });
            CHECK_CURAND(curandDestroyGenerator(gen));
        }
}

int main(int argc, char** argv) {
    dump<curandState>("xorwow");
    dump<curandStatePhilox4_32_10_t>("philox");
    dump<curandStateMRG32k3a_t>("mrg32k3a");
    generators(argc, argv);
    return 0;
}
