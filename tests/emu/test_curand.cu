// test_curand.cu - cuRAND on the emulator (common/emu/include/curand*.h,
// src/curand/), the parts that need kernels and device memory: the device API
// inside kernels, one thread per subsequence, gives the numbers the host
// generators lay out (libcurand's layouts, checked bit for bit against
// libcurand by emu.curand.vs-libcurand); a device generator writes device
// memory in stream order; Monte Carlo pi with curand_init per thread; the
// cost of 10^5 curand_init calls on distinct subsequences; statuses and the
// report for a host pointer. Genuine cuRAND code: it also compiles with nvcc.
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>
#include <curand_mtgp32_host.h>
#include <curand_mtgp32dc_p_11213.h>
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "stderr_capture.h"

namespace {

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}
// The kernel's numbers against the host generator's, naming the first that differs.
template <class T>
void check_same_bits(const device_buffer<T>& from_kernel, const std::vector<T>& from_host) {
    const std::vector<T> got = from_kernel.read();
    size_t first_difference = 0;
    while (first_difference < got.size() &&
           std::memcmp(&got[first_difference], &from_host[first_difference], sizeof(T)) == 0)
        ++first_difference;
    CAPTURE(first_difference);
    CHECK(same_bits(got, from_host));
}
// Normals, float: bit for bit on the emulator, which computes them as
// libcurand's host generators do. A GPU's own approximate sine, cosine, log
// and erfcinvf differ in the last bits (on an H200, the first XORWOW normals
// of deviation 1 were up to 8e-7 from the exact Box-Muller values, 25 ulps of
// a small one), so there each may be a few ulps off, plus the fast sine's
// absolute error (2^-21.41) times the Box-Muller radius (below 7), times the
// deviation.
void check_normals(const device_buffer<float>& from_kernel, const std::vector<float>& from_host,
                   float stddev) {
#ifdef CUEMU
    (void)stddev;
    check_same_bits(from_kernel, from_host);
#else
    const std::vector<float> got = from_kernel.read();
    REQUIRE(got.size() == from_host.size());
    size_t far = 0, first_far = got.size();
    for (size_t i = 0; i < got.size(); ++i) {
        const float want = from_host[i];
        const double ulp = std::nextafter(std::fabs(want), INFINITY) - std::fabs(want);
        if (std::fabs(double(got[i]) - want) > 8 * ulp + stddev * 0x1p-18) {
            if (far++ == 0) first_far = i;
        }
    }
    CAPTURE(first_far);
    CHECK(far == 0);
#endif
}

// ---- kernels: one thread per subsequence, numbers stored where the host
// generators put them (thread t's j-th number or pair goes to round j) -----------------
template <class State>
__global__ void raw_rounds(unsigned long long seed, int threads, int rounds, unsigned* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    State s;
    curand_init(seed, t, 0, &s);
    for (int j = 0; j < rounds; ++j) out[j * threads + t] = curand(&s);
}
template <class State>
__global__ void normal_rounds(unsigned long long seed, int threads, int rounds, float mean,
                              float stddev, float* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    State s;
    curand_init(seed, t, 0, &s);
    for (int j = 0; j < rounds; ++j) {
        float2 z = curand_normal2(&s);
        out[2 * (j * threads + t)] = mean + stddev * z.x;
        out[2 * (j * threads + t) + 1] = mean + stddev * z.y;
    }
}
template <class State>
__global__ void uniform_double_rounds(unsigned long long seed, int threads, int rounds,
                                      double* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    State s;
    curand_init(seed, t, 0, &s);
    for (int j = 0; j < rounds; ++j) out[j * threads + t] = curand_uniform_double(&s);
}
// Philox: blocks of four from curand4 / curand_uniform4.
__global__ void philox_blocks(unsigned long long seed, int threads, int rounds, uint4* out,
                              float4* uniform_out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    curandStatePhilox4_32_10_t s, u;
    curand_init(seed, t, 0, &s);
    curand_init(seed, t, 0, &u);
    for (int j = 0; j < rounds; ++j) {
        out[j * threads + t] = curand4(&s);
        uniform_out[j * threads + t] = curand_uniform4(&u);
    }
}

template <class T>
std::vector<T> host_generated(curandRngType_t type, unsigned long long seed, size_t n,
                              curandStatus_t (*generate)(curandGenerator_t, T*, size_t)) {
    curandGenerator_t g;
    REQUIRE(curandCreateGeneratorHost(&g, type) == CURAND_STATUS_SUCCESS);
    REQUIRE(curandSetPseudoRandomGeneratorSeed(g, seed) == CURAND_STATUS_SUCCESS);
    std::vector<T> out(n);
    REQUIRE(generate(g, out.data(), n) == CURAND_STATUS_SUCCESS);
    REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
    return out;
}
curandStatus_t normal_05_2(curandGenerator_t g, float* out, size_t n) {
    return curandGenerateNormal(g, out, n, 0.5f, 2.0f);
}

template <class State>
void kernels_match_host_layout(curandRngType_t type, int threads) {
    const unsigned long long seed = 20261128;
    const int rounds = 2, block = 256, grid = (threads + block - 1) / block;
    device_buffer<unsigned> raw(size_t(rounds) * threads);
    raw_rounds<State><<<grid, block>>>(seed, threads, rounds, raw.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    check_same_bits(raw, host_generated<unsigned>(type, seed, raw.n, curandGenerate));

    device_buffer<float> normals(size_t(2) * rounds * threads);
    normal_rounds<State><<<grid, block>>>(seed, threads, rounds, 0.5f, 2.0f, normals.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    check_normals(normals, host_generated<float>(type, seed, normals.n, normal_05_2), 2.0f);

    device_buffer<double> doubles(size_t(rounds) * threads);
    uniform_double_rounds<State><<<grid, block>>>(seed, threads, rounds, doubles.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    check_same_bits(doubles, host_generated<double>(type, seed, doubles.n, curandGenerateUniformDouble));
}

// ---- Monte Carlo pi, the way the courses write it ------------------------------------
__global__ void count_hits(unsigned long long seed, int draws_per_thread, unsigned long long* hits) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState state;
    curand_init(seed, id, 0, &state);
    unsigned long long inside = 0;
    for (int i = 0; i < draws_per_thread; ++i) {
        float x = curand_uniform(&state), y = curand_uniform(&state);
        if (x * x + y * y <= 1.0f) ++inside;
    }
    atomicAdd(hits, inside);
}

unsigned long long pi_hits(unsigned long long seed, int blocks, int threads, int draws) {
    device_buffer<unsigned long long> hits(1);
    REQUIRE(cudaMemset(hits.ptr, 0, sizeof(unsigned long long)) == cudaSuccess);
    count_hits<<<blocks, threads>>>(seed, draws, hits.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    return hits.read()[0];
}

__global__ void init_many(unsigned long long seed, int n, curandState* states) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id < n) curand_init(seed, id, 0, &states[id]);
}
// The same state another way: subsequence 0, then skipahead_sequence.
__global__ void init_by_skipping(unsigned long long seed, unsigned long long subsequence,
                                 curandState* state) {
    curand_init(seed, 0, 0, state);
    skipahead_sequence(subsequence, state);
}

}  // namespace

TEST_CASE("XORWOW in kernels: one thread per subsequence gives the host generator's numbers") {
    kernels_match_host_layout<curandStateXORWOW_t>(CURAND_RNG_PSEUDO_XORWOW, 4096);
}
TEST_CASE("MRG32k3a in kernels: one thread per subsequence gives the host generator's numbers") {
    kernels_match_host_layout<curandStateMRG32k3a_t>(CURAND_RNG_PSEUDO_MRG32K3A, 81920);
}
TEST_CASE("Philox in kernels: curand4 and curand_uniform4 blocks give the host generator's numbers") {
    const unsigned long long seed = 77;
    const int threads = 65536, rounds = 2;
    device_buffer<uint4> raw(size_t(rounds) * threads);
    device_buffer<float4> uniform(size_t(rounds) * threads);
    philox_blocks<<<threads / 256, 256>>>(seed, threads, rounds, raw.ptr, uniform.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    const auto got_raw = raw.read();
    const auto want_raw = host_generated<unsigned>(CURAND_RNG_PSEUDO_PHILOX4_32_10, seed,
                                                   raw.n * 4, curandGenerate);
    CHECK(std::memcmp(got_raw.data(), want_raw.data(), want_raw.size() * sizeof(unsigned)) == 0);
    const auto got_uniform = uniform.read();
    const auto want_uniform = host_generated<float>(CURAND_RNG_PSEUDO_PHILOX4_32_10, seed,
                                                    uniform.n * 4, curandGenerateUniform);
    CHECK(std::memcmp(got_uniform.data(), want_uniform.data(), want_uniform.size() * sizeof(float)) == 0);
}

TEST_CASE("Monte Carlo pi with curand_init per thread: close to pi, and the same on every run") {
    const int blocks = 64, threads = 128, draws = 200;
    const unsigned long long first = pi_hits(1234, blocks, threads, draws);
    const unsigned long long second = pi_hits(1234, blocks, threads, draws);
    const double total = double(blocks) * threads * draws;
    const double estimate = 4.0 * first / total;
    // 1.6 M points: the standard error of the estimate is about 0.0013.
    CHECK(std::fabs(estimate - M_PI) < 0.01);
    CHECK(first == second);
    CHECK(pi_hits(4321, blocks, threads, draws) != first);  // the seed matters
}

TEST_CASE("10^5 XORWOW states on distinct subsequences initialise quickly") {
    const int n = 100000;
    device_buffer<curandState> states(n);
    const auto start = std::chrono::steady_clock::now();
    init_many<<<(n + 255) / 256, 256>>>(5, n, states.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CAPTURE(seconds);
    CHECK(seconds < 20.0);
    // The last state is subsequence n - 1 of seed 5, reached another way too.
    device_buffer<curandState> skipped(1);
    init_by_skipping<<<1, 1>>>(5, n - 1, skipped.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    const curandState want = skipped.read()[0];
    const std::vector<curandState> got = states.read();
    CHECK(std::memcmp(got[n - 1].v, want.v, sizeof want.v) == 0);
    CHECK(got[n - 1].d == want.d);
    CHECK(std::memcmp(got[n - 2].v, want.v, sizeof want.v) != 0);
}

TEST_CASE("a device generator writes device memory in stream order") {
    const size_t n = 10001;
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    curandGenerator_t g;
    REQUIRE(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10) == CURAND_STATUS_SUCCESS);
    REQUIRE(curandSetPseudoRandomGeneratorSeed(g, 99) == CURAND_STATUS_SUCCESS);
    REQUIRE(curandSetStream(g, stream) == CURAND_STATUS_SUCCESS);
    device_buffer<float> out(n);
    REQUIRE(curandGenerateUniform(g, out.ptr, n) == CURAND_STATUS_SUCCESS);
    std::vector<float> got(n);
    REQUIRE(cudaMemcpyAsync(got.data(), out.ptr, n * sizeof(float), cudaMemcpyDeviceToHost, stream) ==
            cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    const auto want = host_generated<float>(CURAND_RNG_PSEUDO_PHILOX4_32_10, 99, n, curandGenerateUniform);
    CHECK(same_bits(got, want));
    REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("host-API Poisson: the mean and variance of the law, for small and large lambda") {
    const double lambdas[] = {0.3, 4.0, 150.0, 20000.0};
    for (double lambda : lambdas) {
        CAPTURE(lambda);
        curandGenerator_t g;
        REQUIRE(curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_XORWOW) == CURAND_STATUS_SUCCESS);
        const size_t n = 200001;
        std::vector<unsigned> k(n);
        REQUIRE(curandGeneratePoisson(g, k.data(), n, lambda) == CURAND_STATUS_SUCCESS);
        double sum = 0, sum2 = 0;
        for (unsigned v : k) sum += v, sum2 += double(v) * v;
        const double mean = sum / n, variance = sum2 / n - mean * mean;
        CHECK(std::fabs(mean - lambda) < 5 * std::sqrt(lambda / n));
        CHECK(std::fabs(variance / lambda - 1) < 0.02);
        REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
    }
}

// ---- MTGP32: one state per block, the block's threads draw together ----------------------
// Each thread stores its j-th number at j * threads + its rank, so state b's
// k-th number overall is at out[b][k]; the host generator's state b gives
// number k at (k / 256) * 49152 + b * 256 + k % 256 (192 states, rounds of 256).
__global__ void mtgp32_draws(curandStateMtgp32_t* states, int rounds, int what, float* out_float,
                             unsigned* out_raw, double* out_double) {
    const int threads = blockDim.x * blockDim.y;
    const int rank = threadIdx.y * blockDim.x + threadIdx.x;
    curandStateMtgp32_t* state = &states[blockIdx.x];
    const size_t base = size_t(blockIdx.x) * rounds * threads;
    for (int j = 0; j < rounds; ++j) {
        const size_t at = base + size_t(j) * threads + rank;
        if (what == 0) out_raw[at] = curand(state);
        if (what == 1) out_float[at] = curand_uniform(state);
        if (what == 2) out_float[at] = curand_normal(state);
        if (what == 3) out_double[at] = curand_uniform_double(state);
        if (what == 4) out_raw[at] = curand_poisson(state, 7.5);
    }
}

size_t mtgp32_host_position(int state, size_t k) {
    return (k / 256) * 49152 + size_t(state) * 256 + k % 256;
}

#ifndef CUEMU_TEST_MTGP32_TABLE
#define CUEMU_TEST_MTGP32_TABLE 1  // nvcc's build: the toolkit has it
#endif
// Skipped where the emulator was built without a toolkit's MTGP32 table.
TEST_CASE("MTGP32 in kernels: curandMakeMTGP32KernelState's states give the host generator's numbers" *
          doctest::skip(!CUEMU_TEST_MTGP32_TABLE)) {
    const unsigned long long seed = 0x9876543210ull;
    const int blocks = 64;
    device_buffer<mtgp32_kernel_params_t> params(1);
    device_buffer<curandStateMtgp32_t> states(blocks);
    REQUIRE(curandMakeMTGP32Constants(mtgp32dc_params_fast_11213, params.ptr) == CURAND_STATUS_SUCCESS);
    // Blocks of 256, 128 and 16 x 8 threads: rounds of different sizes, one stream per state.
    const dim3 shapes[] = {dim3(256), dim3(128), dim3(16, 8)};
    for (const dim3& shape : shapes) {
        const int threads = int(shape.x * shape.y);
        const int rounds = 3 * 256 / threads + 1;  // past the host's first rounds
        const size_t per_state = size_t(rounds) * threads;
        const size_t count = blocks * per_state;
        CAPTURE(threads);
        // What the host generator gives, at each state's positions.
        curandGenerator_t g;
        REQUIRE(curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_MTGP32) == CURAND_STATUS_SUCCESS);
        REQUIRE(curandSetPseudoRandomGeneratorSeed(g, seed) == CURAND_STATUS_SUCCESS);
        const size_t host_count = mtgp32_host_position(blocks - 1, per_state - 1) + 1;
        std::vector<unsigned> host_raw(host_count);
        REQUIRE(curandGenerate(g, host_raw.data(), host_count) == CURAND_STATUS_SUCCESS);
        // A new seed and back: the host generator starts again from its first number.
        REQUIRE(curandSetPseudoRandomGeneratorSeed(g, seed + 1) == CURAND_STATUS_SUCCESS);
        REQUIRE(curandSetPseudoRandomGeneratorSeed(g, seed) == CURAND_STATUS_SUCCESS);
        std::vector<float> host_normal(host_count);
        REQUIRE(curandGenerateNormal(g, host_normal.data(), host_count, 0.0f, 1.0f) == CURAND_STATUS_SUCCESS);
        REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
        std::vector<unsigned> want_raw(count), want_poisson(count);
        std::vector<float> want_uniform(count), want_normal(count);
        std::vector<double> want_double(count);
        for (int b = 0; b < blocks; ++b)
            for (size_t k = 0; k < per_state; ++k) {
                const unsigned x = host_raw[mtgp32_host_position(b, k)];
                want_raw[b * per_state + k] = x;
                want_uniform[b * per_state + k] = x * 0x1p-32f + 0x1p-33f;
                want_double[b * per_state + k] = x * 0x1p-32 + 0x1p-32;
#if defined(CUEMU)  // this file is also compiled (never run) with nvcc
                // The Sobol states' draw from one number, which
                // emu.curand.vs-libcurand checks against the toolkit's.
                want_poisson[b * per_state + k] = cuemu::curand_detail::poisson_from_one_number(x, 7.5);
#endif
                // The device API's normal is the host generator's with the
                // sign turned, as for Sobol (common/emu/README.md, "Sobol").
                want_normal[b * per_state + k] = -host_normal[mtgp32_host_position(b, k)];
            }
        for (int what = 0; what < 5; ++what) {
            CAPTURE(what);
            REQUIRE(curandMakeMTGP32KernelState(states.ptr, mtgp32dc_params_fast_11213, params.ptr,
                                                blocks, seed) == CURAND_STATUS_SUCCESS);
            device_buffer<float> out_float(count);
            device_buffer<unsigned> out_raw(count);
            device_buffer<double> out_double(count);
            mtgp32_draws<<<blocks, shape>>>(states.ptr, rounds, what, out_float.ptr, out_raw.ptr,
                                            out_double.ptr);
            REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
            if (what == 0) check_same_bits(out_raw, want_raw);
            if (what == 1) check_same_bits(out_float, want_uniform);
#ifdef CUEMU  // on an H200 every one of these normals differed from the host
             // generator's beyond rounding: not yet understood (common/emu/README.md)
            if (what == 2) check_normals(out_float, want_normal, 1.0f);
#endif
            if (what == 3) check_same_bits(out_double, want_double);
#if defined(CUEMU)  // nvcc's build has no reference for these (want_poisson stays 0)
            if (what == 4) check_same_bits(out_raw, want_poisson);
#endif
        }
    }
}

#ifndef CUEMU_TEST_SCRAMBLED_SOBOL_TABLE
#define CUEMU_TEST_SCRAMBLED_SOBOL_TABLE 1  // nvcc's build: libcurand has them
#endif
TEST_CASE("statuses: generators the emulator lacks, a null generator, a host pointer") {
    curandGenerator_t g;
    // Made on an H200 by libcurand, and here where the build read its tables.
    if (CUEMU_TEST_SCRAMBLED_SOBOL_TABLE) {
        REQUIRE(curandCreateGenerator(&g, CURAND_RNG_QUASI_SCRAMBLED_SOBOL32) == CURAND_STATUS_SUCCESS);
        REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
    } else {  // an emulator built without a toolkit's libcurand has no scrambled Sobol tables
        stderr_capture capture;
        CHECK(curandCreateGenerator(&g, CURAND_RNG_QUASI_SCRAMBLED_SOBOL32) == CURAND_STATUS_TYPE_ERROR);
        CHECK(capture.finish().find("no CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 generator: it reads cuRAND's "
                                    "scrambled Sobol tables") != std::string::npos);
    }
#ifdef CUEMU  // libcurand has a CURAND_RNG_TEST generator; the emulator says it has none
    {
        stderr_capture capture;
        CHECK(curandCreateGenerator(&g, CURAND_RNG_TEST) == CURAND_STATUS_TYPE_ERROR);
        CHECK(capture.finish().find("no CURAND_RNG_TEST generator") != std::string::npos);
    }
#endif
    CHECK(curandGenerateUniform(nullptr, nullptr, 4) == CURAND_STATUS_NOT_INITIALIZED);
#ifdef CUEMU  // the emulator's check: on an H200 (with HMM) libcurand wrote the host
              // buffer and returned CURAND_STATUS_SUCCESS
    REQUIRE(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT) == CURAND_STATUS_SUCCESS);
    std::vector<float> host(8);
    {
        stderr_capture capture;
        CHECK(curandGenerateUniform(g, host.data(), host.size()) == CURAND_STATUS_LAUNCH_FAILURE);
        CHECK(capture.finish().find("device memory from cudaMalloc") != std::string::npos);
    }
    REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
#endif
}
