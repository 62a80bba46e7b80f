// Lesson 23: random numbers and Monte Carlo.
//
// A Monte Carlo method answers a question with many random experiments and
// their mean. Throw points at the unit square: the share that lands inside
// the quarter circle x^2 + y^2 <= 1 tends to pi / 4. Let a share's price
// wander at random until a date: the mean of what an option pays then,
// discounted, tends to the option's price. Every experiment is independent,
// which suits a GPU: one thread, many experiments, a reduction at the end.
//
// The random numbers come from cuRAND. Its device API gives each thread a
// generator state of its own (curandState, 48 bytes), set up once by
// curand_init(seed, subsequence, offset, &state): one seed for the whole run,
// and each thread on its own subsequence, 2^67 numbers apart from the next
// thread's, so no two threads ever draw the same numbers. Its host API fills
// a device array with numbers in one call (curandGenerateUniform).
//
// Build and run:   ./tutorial run 23 [--threads 16384] [--block 256] [--points 256]
//                  ./tutorial run 23 --seed 7     (other numbers, the same checks)
//                  ./tutorial run 23 --bench      (time to set up and to draw)
//                  ./tutorial check 23            (the exercise's test)
//                  ./tutorial solution 23         (the finished version)
// It prints the size of each generator's state, pi estimated three ways
// (XORWOW and Philox states, and the host API) with the error each may have,
// whether any two threads drew the same numbers, a European call option
// priced by Monte Carlo against the Black-Scholes formula as the number of
// paths grows, and PASS when every estimate is within five standard errors.
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#include "cuda_check.h"
#include "curand_check.h"
#include "cli.h"
#include "run_limits.h"
#include "cpu_reference_monte_carlo.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

// The two kinds of per-thread generator state this lesson compares.
enum class Generator { xorwow, philox };

// The reductions keep one partial sum per thread in shared memory.
constexpr int kMaxBlock = 1024;

static bool block_size_is_valid(int block) {
    return block >= 32 && block <= kMaxBlock && (block & (block - 1)) == 0;
}

// ---- one generator per thread ----

// Each thread sets up the state it alone will draw from. The seed is the
// same for all; the subsequence tells the threads apart.
// [snippet: setup]
template <typename State>
__global__ void setup_generators_kernel(State* states, int count, unsigned long long seed) {
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= count) return;
    // TODO(23.1): give this thread a sequence of its own. As it is, every
    // thread starts on subsequence 0, so all of them draw the same numbers.
    // Keep the seed and the offset; choose the subsequence (see the README).
    curand_init(seed, 0, 0, &states[id]);
}
// [end snippet]

// The sum of one value from every thread of the block, returned to thread 0:
// the tree of lesson 12 (blockDim.x a power of two). Every thread must call it.
template <typename T>
__device__ T block_sum(T* partial, T mine) {
    partial[threadIdx.x] = mine;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    return partial[0];
}

__device__ bool inside_quarter_circle(float x, float y) { return x * x + y * y <= 1.0f; }

// ---- estimating pi ----

// Each thread throws `points` points, counts its hits, and writes the count
// (the test checks them one by one); the block adds its counts with a tree
// and thread 0 adds the block's total to the grand total: one atomic per
// block, not one per point.
// [snippet: count-hits]
template <typename State>
__global__ void count_hits_kernel(State* states, int count, int points,
                                  unsigned int* thread_hits, unsigned long long* total_hits) {
    __shared__ unsigned int partial[kMaxBlock];
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int hits = 0;
    if (id < count) {
        State local = states[id];  // a copy in registers: much faster to draw from
        for (int p = 0; p < points; ++p) {
            // TODO(23.2): draw a point (x, y) in the unit square, two numbers
            // from this thread's generator, and count it in hits when it
            // falls inside the quarter circle. As it is, nothing is counted.
        }
        states[id] = local;  // the next launch goes on where this one stopped
        thread_hits[id] = hits;
    }
    const unsigned int block_hits = block_sum(partial, hits);
    if (threadIdx.x == 0) atomicAdd(total_hits, (unsigned long long)block_hits);
}
// [end snippet]

// What each thread draws first, raw 32-bit numbers: how the test (and main)
// see whether two threads share their numbers.
template <typename State>
__global__ void first_draws_kernel(State* states, int count, int draws, unsigned int* out) {
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= count) return;
    State local = states[id];
    for (int d = 0; d < draws; ++d) out[(size_t)id * draws + d] = curand(&local);
}

// ---- pricing a European call ----

// The option and the market, per year: spot price, strike, interest rate,
// volatility, and the years to the option's date.
struct CallOption {
    float spot = 100.0f, strike = 105.0f, rate = 0.05f, volatility = 0.2f, years = 1.0f;
};

// Each path is one possible price of the share at the option's date,
// spot * exp((rate - volatility^2 / 2) * years + volatility * sqrt(years) * z)
// with z a standard normal number; the call then pays max(price - strike, 0).
// Each thread adds the payoffs of its paths and their squares (for the
// standard error); each block writes its two sums, and the host adds the
// blocks' sums in double: a second pass instead of atomics.
// [snippet: price-call]
template <typename State>
__global__ void price_call_kernel(State* states, int count, int paths, CallOption option,
                                  float* block_sums) {
    __shared__ float partial[kMaxBlock];
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    const float drift = (option.rate - 0.5f * option.volatility * option.volatility) * option.years;
    const float spread = option.volatility * sqrtf(option.years);
    float sum = 0.0f, sum_of_squares = 0.0f;
    if (id < count) {
        State local = states[id];
        for (int p = 0; p < paths; ++p) {
            const float price = option.spot * expf(drift + spread * curand_normal(&local));
            const float payoff = fmaxf(price - option.strike, 0.0f);
            sum += payoff;
            sum_of_squares += payoff * payoff;
        }
        states[id] = local;
    }
    const float block_total = block_sum(partial, sum);
    __syncthreads();  // partial is reused: everyone has read the first total
    const float block_squares = block_sum(partial, sum_of_squares);
    if (threadIdx.x == 0) {
        block_sums[2 * blockIdx.x] = block_total;
        block_sums[2 * blockIdx.x + 1] = block_squares;
    }
}
// [end snippet]

// ---- the host API: numbers in bulk ----

// Counts the points whose coordinates are numbers 2i and 2i + 1 of `xy`: the
// same count as count_hits_kernel, from numbers that the host API made.
__global__ void count_hits_in_array_kernel(const float* xy, long long points,
                                           unsigned long long* total_hits) {
    __shared__ unsigned int partial[kMaxBlock];
    unsigned int hits = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < points;
         i += (long long)gridDim.x * blockDim.x)
        if (inside_quarter_circle(xy[2 * i], xy[2 * i + 1])) ++hits;
    const unsigned int block_hits = block_sum(partial, hits);
    if (threadIdx.x == 0) atomicAdd(total_hits, (unsigned long long)block_hits);
}

// ---- launchers (the test calls these) ----

// Device memory for `count` generator states of the kind asked for, set up
// with `seed`; free it with cudaFree.
static void* make_generators(Generator g, int count, int block, unsigned long long seed) {
    const int blocks = (count + block - 1) / block;
    void* states = nullptr;
    if (g == Generator::xorwow) {
        CUDA_CHECK(cudaMalloc(&states, (size_t)count * sizeof(curandState)));
        setup_generators_kernel<<<blocks, block>>>((curandState*)states, count, seed);
    } else {
        CUDA_CHECK(cudaMalloc(&states, (size_t)count * sizeof(curandStatePhilox4_32_10_t)));
        setup_generators_kernel<<<blocks, block>>>((curandStatePhilox4_32_10_t*)states, count, seed);
    }
    CUDA_CHECK(cudaGetLastError());
    return states;
}

// pi from `threads` threads of `points` points each, blocks of `block`
// threads (a power of two, 32 to 1024; false otherwise). Writes each
// thread's hits to h_thread_hits (if not null) and their total to *h_total.
bool estimate_pi_on_gpu(Generator g, unsigned long long seed, int threads, int block,
                        int points, unsigned int* h_thread_hits, unsigned long long* h_total) {
    if (!block_size_is_valid(block) || threads < 1 || points < 1) return false;
    const int blocks = (threads + block - 1) / block;
    void* states = make_generators(g, threads, block, seed);
    unsigned int* d_thread_hits = nullptr;
    unsigned long long* d_total = nullptr;
    CUDA_CHECK(cudaMalloc(&d_thread_hits, (size_t)threads * sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d_total, 0, sizeof(unsigned long long)));
    if (g == Generator::xorwow)
        count_hits_kernel<<<blocks, block>>>((curandState*)states, threads, points,
                                             d_thread_hits, d_total);
    else
        count_hits_kernel<<<blocks, block>>>((curandStatePhilox4_32_10_t*)states, threads,
                                             points, d_thread_hits, d_total);
    CUDA_CHECK(cudaGetLastError());
    if (h_thread_hits)
        CUDA_CHECK(cudaMemcpy(h_thread_hits, d_thread_hits, (size_t)threads * sizeof(unsigned int),
                              cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_total, d_total, sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_total));
    CUDA_CHECK(cudaFree(d_thread_hits));
    CUDA_CHECK(cudaFree(states));
    return true;
}

// The first `draws` raw numbers of each of `threads` threads, thread by
// thread: h_draws[t * draws + d].
bool first_draws_on_gpu(Generator g, unsigned long long seed, int threads, int block, int draws,
                        unsigned int* h_draws) {
    if (!block_size_is_valid(block) || threads < 1 || draws < 1) return false;
    const int blocks = (threads + block - 1) / block;
    void* states = make_generators(g, threads, block, seed);
    unsigned int* d_draws = nullptr;
    const size_t bytes = (size_t)threads * draws * sizeof(unsigned int);
    CUDA_CHECK(cudaMalloc(&d_draws, bytes));
    if (g == Generator::xorwow)
        first_draws_kernel<<<blocks, block>>>((curandState*)states, threads, draws, d_draws);
    else
        first_draws_kernel<<<blocks, block>>>((curandStatePhilox4_32_10_t*)states, threads,
                                              draws, d_draws);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_draws, d_draws, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_draws));
    CUDA_CHECK(cudaFree(states));
    return true;
}

// The sums of a run of Monte Carlo paths: what the price and its standard
// error follow from.
struct PathSums {
    double paths = 0.0, sum = 0.0, sum_of_squares = 0.0;
};

// Prices `option` with `rounds` launches of `threads` threads, each of
// `paths` paths, the states going on from launch to launch: round r's sums
// go to h_rounds[r], each round's paths new ones.
bool price_call_on_gpu(Generator g, unsigned long long seed, int threads, int block,
                       const int* paths, int rounds, const CallOption& option, PathSums* h_rounds) {
    if (!block_size_is_valid(block) || threads < 1 || rounds < 1) return false;
    for (int r = 0; r < rounds; ++r)
        if (paths[r] < 1) return false;
    const int blocks = (threads + block - 1) / block;
    void* states = make_generators(g, threads, block, seed);
    float* d_block_sums = nullptr;
    CUDA_CHECK(cudaMalloc(&d_block_sums, 2 * (size_t)blocks * sizeof(float)));
    std::vector<float> block_sums(2 * (size_t)blocks);
    for (int r = 0; r < rounds; ++r) {
        if (g == Generator::xorwow)
            price_call_kernel<<<blocks, block>>>((curandState*)states, threads, paths[r], option,
                                                 d_block_sums);
        else
            price_call_kernel<<<blocks, block>>>((curandStatePhilox4_32_10_t*)states, threads,
                                                 paths[r], option, d_block_sums);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpy(block_sums.data(), d_block_sums, block_sums.size() * sizeof(float),
                              cudaMemcpyDeviceToHost));
        PathSums sums;
        sums.paths = (double)threads * paths[r];
        for (int b = 0; b < blocks; ++b) {  // the second pass, on the host, in double
            sums.sum += block_sums[2 * (size_t)b];
            sums.sum_of_squares += block_sums[2 * (size_t)b + 1];
        }
        h_rounds[r] = sums;
    }
    CUDA_CHECK(cudaFree(d_block_sums));
    CUDA_CHECK(cudaFree(states));
    return true;
}

// pi from `points` points whose coordinates the host API makes in one call,
// with a Philox generator: 2 * points floats in device memory at once.
// [snippet: host-api]
bool estimate_pi_with_host_api(unsigned long long seed, long long points, unsigned long long* h_total) {
    if (points < 1) return false;
    float* d_xy = nullptr;
    unsigned long long* d_total = nullptr;
    CUDA_CHECK(cudaMalloc(&d_xy, 2 * (size_t)points * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d_total, 0, sizeof(unsigned long long)));
    curandGenerator_t generator;
    CURAND_CHECK(curandCreateGenerator(&generator, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(generator, seed));
    CURAND_CHECK(curandGenerateUniform(generator, d_xy, 2 * (size_t)points));
    count_hits_in_array_kernel<<<256, 256>>>(d_xy, points, d_total);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_total, d_total, sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    CURAND_CHECK(curandDestroyGenerator(generator));
    CUDA_CHECK(cudaFree(d_total));
    CUDA_CHECK(cudaFree(d_xy));
    return true;
}
// [end snippet]

#ifndef TUTORIAL_TEST_BUILD
// ---- the program ----

static const char* generator_name(Generator g) {
    return g == Generator::xorwow ? "XORWOW" : "Philox4_32_10";
}

// How many threads drew the same first two numbers as an earlier thread (or
// as a later position of one, a sequence shifted by one draw): 0 when every
// thread has numbers of its own. Two 32-bit draws make a 64-bit key, so among
// a few million keys a chance repeat is a few in a million.
static long long threads_sharing_numbers(const std::vector<unsigned int>& draws, int threads) {
    std::vector<unsigned long long> keys;
    keys.reserve((size_t)threads * 2);
    for (int t = 0; t < threads; ++t)
        for (int d = 0; d < 2; ++d)
            keys.push_back((unsigned long long)draws[(size_t)t * 3 + d] << 32 |
                           draws[(size_t)t * 3 + d + 1]);
    std::sort(keys.begin(), keys.end());
    return (long long)(keys.size() - (size_t)(std::unique(keys.begin(), keys.end()) - keys.begin()));
}

static bool report_pi(const char* how, unsigned long long hits, double points) {
    const double estimate = 4.0 * (double)hits / points;
    const double error = std::fabs(estimate - kPi), allowed = 5.0 * pi_standard_error(points);
    const bool ok = error <= allowed;
    std::printf("  %-26s %12llu %10.6f %10.2e %10.2e   %s\n", how, hits, estimate, error, allowed,
                ok ? "PASS" : "FAIL");
    return ok;
}

// Mean milliseconds of one call of work(), by CUDA events around `reps` calls after one warm-up.
template <typename Work>
static double mean_ms(Work work, int reps) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    work();
    CUDA_CHECK(cudaEventRecord(start));
    for (int r = 0; r < reps; ++r) work();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return (double)ms / reps;
}

template <typename State>
static void bench_generator(const char* name, int threads, int block, int points, unsigned long long seed) {
    const int blocks = (threads + block - 1) / block;
    State* states = nullptr;
    unsigned int* d_thread_hits = nullptr;
    unsigned long long* d_total = nullptr;
    CUDA_CHECK(cudaMalloc(&states, (size_t)threads * sizeof(State)));
    CUDA_CHECK(cudaMalloc(&d_thread_hits, (size_t)threads * sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));
    const double setup = mean_ms([&] { setup_generators_kernel<<<blocks, block>>>(states, threads, seed); }, 3);
    const double draw = mean_ms([&] {
        count_hits_kernel<<<blocks, block>>>(states, threads, points, d_thread_hits, d_total);
    }, 3);
    CUDA_CHECK(cudaGetLastError());
    const double numbers = 2.0 * threads * points;
    std::printf("  %-14s %10.3f ms %10.3f ms   %.1f million numbers/s\n", name, setup, draw,
                numbers / (draw * 1e3));
    CUDA_CHECK(cudaFree(d_total));
    CUDA_CHECK(cudaFree(d_thread_hits));
    CUDA_CHECK(cudaFree(states));
}

int main(int argc, char** argv) {
    long long threads = 16384, block_size = 256, points = 256, seed = 1, bench = 0;
    cli_option options[] = {
        {"--threads", "threads, each with a generator of its own", CLI_INT, &threads, 1, 1 << 22},
        {"--block", "threads per block, a power of two", CLI_INT, &block_size, 32, 1024},
        {"--points", "points (and option paths) per thread", CLI_INT, &points, 1, 1 << 20},
        {"--seed", "the seed of every generator", CLI_INT, &seed, 0, 1LL << 40},
        {"--bench", "also time setting up and drawing, XORWOW against Philox", CLI_FLAG, &bench, 0, 1},
    };
    cli_parse(argc, argv,
              "Estimates pi and prices a European call option by Monte Carlo, with cuRAND's\n"
              "device API (a generator per thread) and host API (numbers in bulk).",
              options, 5);
    if (!block_size_is_valid((int)block_size)) {
        std::fprintf(stderr, "error: --block must be a power of two from 32 to 1024 (got %lld)\n", block_size);
        return 2;
    }
    const int count = (int)threads, block = (int)block_size, per_thread = (int)points;
    const double total_points = (double)count * per_thread;
    // Device: 64 bytes of state and 12 of first draws per thread, and the host
    // API's 8 bytes per point; host: the draws and the hits. Time on the 2-core
    // development machine (solution, 2 workers): the default run, 4.2 million
    // points three ways and as many option paths, took 0.96 s, about 0.23 us
    // per point; --bench adds 2 x 4 launches of every thread's points.
    run_limits_require_memory(16.0 * count, 76.0 * count + 8.0 * total_points);
    run_limits_check_duration(total_points * (bench ? 3.0 : 1.0), 0.25e-6, 0.0,
                              "--threads or --points");

    cudaDeviceProp prop = {};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);
    std::printf("a generator's state: curandState (XORWOW) %zu bytes, curandStatePhilox4_32_10_t %zu bytes\n",
                sizeof(curandState), sizeof(curandStatePhilox4_32_10_t));
    bool all_passed = true;

    // 1. Do the threads draw numbers of their own?
    std::vector<unsigned int> draws((size_t)count * 3);
    std::printf("\nthe first numbers of %d threads, seed %lld\n", count, seed);
    for (Generator g : {Generator::xorwow, Generator::philox}) {
        first_draws_on_gpu(g, (unsigned long long)seed, count, block, 3, draws.data());
        const long long shared = threads_sharing_numbers(draws, count);
        const bool ok = count == 1 || shared == 0;
        all_passed &= ok;
        std::printf("  %-14s thread 0: %10u %10u  thread %d: %10u %10u   %lld repeated pairs  %s\n",
                    generator_name(g), draws[0], draws[1], count - 1, draws[(size_t)(count - 1) * 3],
                    draws[(size_t)(count - 1) * 3 + 1], shared, ok ? "PASS" : "FAIL");
    }

    // 2. pi, three ways.
    std::printf("\npi from %d threads x %d points = %.0f points, seed %lld\n", count, per_thread,
                total_points, seed);
    std::printf("  %-26s %12s %10s %10s %10s\n", "", "hits", "estimate", "|error|", "5 std err");
    for (Generator g : {Generator::xorwow, Generator::philox}) {
        unsigned long long hits = 0;
        estimate_pi_on_gpu(g, (unsigned long long)seed, count, block, per_thread, nullptr, &hits);
        all_passed &= report_pi(generator_name(g), hits, total_points);
    }
    unsigned long long host_api_hits = 0;
    estimate_pi_with_host_api((unsigned long long)seed, (long long)total_points, &host_api_hits);
    all_passed &= report_pi("host API, Philox", host_api_hits, total_points);
    std::printf("  the host API held %.1f MB of numbers in device memory; the device API\n"
                "  held a state per thread (%.1f MB for XORWOW) and drew as it went\n",
                2.0 * total_points * sizeof(float) / 1e6, (double)count * sizeof(curandState) / 1e6);

    // 3. A European call: Monte Carlo against the formula, as the paths grow.
    const CallOption option;
    const double exact = black_scholes_call(option.spot, option.strike, option.rate,
                                            option.volatility, option.years);
    const double discount = std::exp(-(double)option.rate * option.years);
    std::printf("\na European call: spot %.0f, strike %.0f, rate %.0f%%, volatility %.0f%%, %.0f year\n",
                (double)option.spot, (double)option.strike, 100.0 * option.rate,
                100.0 * option.volatility, (double)option.years);
    std::printf("  Black-Scholes formula: %.6f\n", exact);
    std::printf("  %12s %10s %10s %10s %10s\n", "paths", "price", "|error|", "std error", "error/se");
    // Rounds of 1/256, 1/64, 1/16, 1/4 and all the paths per thread: N four
    // times larger each time, so the standard error should halve each time.
    std::vector<int> paths;
    for (int shift = 8; shift >= 0; shift -= 2) paths.push_back(std::max(1, per_thread >> shift));
    std::vector<PathSums> rounds(paths.size());
    price_call_on_gpu(Generator::philox, (unsigned long long)seed, count, block, paths.data(),
                      (int)paths.size(), option, rounds.data());
    for (const PathSums& r : rounds) {
        const double price = discount * sample_mean(r.sum, r.paths);
        const double se = discount * standard_error_of_mean(r.sum, r.sum_of_squares, r.paths);
        const double error = std::fabs(price - exact);
        const bool ok = error <= 5.0 * se;
        all_passed &= ok;
        std::printf("  %12.0f %10.4f %10.4f %10.4f %10.2f   %s\n", r.paths, price, error, se,
                    error / se, ok ? "PASS" : "FAIL");
    }
    std::printf("  four times the paths, half the standard error: it shrinks as 1/sqrt(N).\n"
                "  The error itself wanders around it (error/se is mostly below 2).\n");

    if (bench) {
        const bool emulated = std::strstr(prop.name, "emulator") != nullptr;
        std::printf("\ntiming on %s:\n%d threads, %d points each, mean of 3 calls after a warm-up\n",
                    prop.name, count, per_thread);
        std::printf("  %-14s %13s %13s   %s\n", "generator", "curand_init", "draw + count", "numbers drawn");
        bench_generator<curandState>("XORWOW", count, block, per_thread, (unsigned long long)seed);
        bench_generator<curandStatePhilox4_32_10_t>("Philox4_32_10", count, block, per_thread,
                                                    (unsigned long long)seed);
        if (emulated)
            std::printf("These are CPU times from the emulator; they say nothing about a GPU.\n");
    }

    std::printf("\n%s\n", all_passed ? "PASS" : "FAIL");
    return all_passed ? 0 : 1;
}
#endif  // TUTORIAL_TEST_BUILD
