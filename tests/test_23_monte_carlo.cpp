// test_23_monte_carlo.cpp - lesson 23: cuRAND generators, pi and an option by Monte Carlo.
//
// Built twice, against lessons/23-monte-carlo/monte_carlo.cu (the exercise,
// which must fail here as shipped) and solutions/23-monte-carlo/monte_carlo.cu
// (which must pass), for the emulator and for nvcc.
//
// A Monte Carlo answer is random, so it is checked within a tolerance that
// follows from its standard error (cpu_reference_monte_carlo.h): five
// standard errors, which a correct program exceeds about once in 1.7 million
// checks. The seeds come from the test's seed (printed at start-up), so a
// failure can be repeated with TUTORIAL_SEED.
#include "test_support.h"
#include "cpu_reference_monte_carlo.h"

#include <algorithm>
#include <string>
#include <cmath>
#include <vector>

// The launchers from the lesson file (the same declarations as there).
enum class Generator { xorwow, philox };
struct CallOption {
    float spot = 100.0f, strike = 105.0f, rate = 0.05f, volatility = 0.2f, years = 1.0f;
};
struct PathSums {
    double paths = 0.0, sum = 0.0, sum_of_squares = 0.0;
};
bool estimate_pi_on_gpu(Generator g, unsigned long long seed, int threads, int block,
                        int points, unsigned int* h_thread_hits, unsigned long long* h_total);
bool first_draws_on_gpu(Generator g, unsigned long long seed, int threads, int block, int draws,
                        unsigned int* h_draws);
bool price_call_on_gpu(Generator g, unsigned long long seed, int threads, int block,
                       const int* paths, int rounds, const CallOption& option, PathSums* h_rounds);
bool estimate_pi_with_host_api(unsigned long long seed, long long points, unsigned long long* h_total);

static const Generator kGenerators[] = {Generator::xorwow, Generator::philox};

static std::string name_of(Generator g) { return g == Generator::xorwow ? "XORWOW" : "Philox"; }

// A seed of its own for each use, from the run's seed.
static unsigned long long seed_for(unsigned long long use) {
    return test_seed() * 0x9E3779B97F4A7C15ull + use * 0xD1B54A32D192ED03ull;
}

// Thread counts: one, not a multiple of the block, and a few blocks' worth.
static const int kThreadCounts[] = {1, 1000, 4099};

TEST_CASE("pi: within five standard errors, and the hits of the threads add up to the total") {
    for (Generator g : kGenerators)
        for (int threads : kThreadCounts) {
            const int points = 100;
            CAPTURE(name_of(g));
            CAPTURE(threads);
            std::vector<unsigned int> thread_hits((size_t)threads, 0xFFFFFFFFu);
            unsigned long long total = 0;
            REQUIRE(estimate_pi_on_gpu(g, seed_for(1), threads, 256, points, thread_hits.data(), &total));
            unsigned long long added = 0;
            for (unsigned int h : thread_hits) {
                REQUIRE(h <= (unsigned int)points);  // each thread wrote a count, none too large
                added += h;
            }
            REQUIRE(added == total);  // the tree and the one atomic per block lose nothing
            const double n = (double)threads * points;
            const double estimate = 4.0 * (double)total / n;
            INFO("your pi is " << estimate << " from " << total << " hits in " << n
                               << " points; allowed: pi +- " << 5.0 * pi_standard_error(n));
            REQUIRE(std::fabs(estimate - kPi) <= 5.0 * pi_standard_error(n));
        }
}

TEST_CASE("distinct threads draw distinct numbers: no shared or shifted sequences") {
    // Each thread's first three raw numbers give two overlapping pairs, 64-bit
    // keys. A repeated key means two threads drew the same pair: the same
    // sequence (both on one subsequence), or one sequence a draw or two
    // ahead of the other. Among 2 x 4099 random 64-bit keys a chance repeat
    // has a probability of about 2^-38.
    const int threads = 4099, draws = 3;
    for (Generator g : kGenerators) {
        CAPTURE(name_of(g));
        std::vector<unsigned int> got((size_t)threads * draws);
        REQUIRE(first_draws_on_gpu(g, seed_for(2), threads, 256, draws, got.data()));
        std::vector<unsigned long long> keys;
        for (int t = 0; t < threads; ++t)
            for (int d = 0; d + 1 < draws; ++d)
                keys.push_back((unsigned long long)got[(size_t)t * draws + d] << 32 |
                               got[(size_t)t * draws + d + 1]);
        std::sort(keys.begin(), keys.end());
        const size_t repeated = keys.size() - (size_t)(std::unique(keys.begin(), keys.end()) - keys.begin());
        INFO("thread 0 drew " << got[0] << ", " << got[1] << "; thread 1 drew " << got[3] << ", "
                              << got[4] << ": " << repeated
                              << " of the threads' pairs of numbers repeat another pair");
        REQUIRE(repeated == 0);
    }
}

TEST_CASE("a fixed seed gives every thread the same result again, whatever the block size") {
    // A thread's numbers depend on the seed and its own index only: not on
    // the run, nor on how the threads are cut into blocks. Another seed
    // gives other numbers.
    const int threads = 1000, points = 64;
    for (Generator g : kGenerators) {
        CAPTURE(name_of(g));
        std::vector<unsigned int> first((size_t)threads), again((size_t)threads),
            other_blocks((size_t)threads), other_seed((size_t)threads);
        unsigned long long total = 0, total_again = 0, unused = 0;
        REQUIRE(estimate_pi_on_gpu(g, seed_for(3), threads, 256, points, first.data(), &total));
        REQUIRE(estimate_pi_on_gpu(g, seed_for(3), threads, 256, points, again.data(), &total_again));
        REQUIRE(estimate_pi_on_gpu(g, seed_for(3), threads, 64, points, other_blocks.data(), &unused));
        REQUIRE(estimate_pi_on_gpu(g, seed_for(4), threads, 256, points, other_seed.data(), &unused));
        REQUIRE(total_again == total);
        INFO("thread 0 counted " << first[0] << " hits, and " << again[0]
                                 << " in a second run with the same seed");
        REQUIRE(again == first);
        INFO("with blocks of 64 threads instead of 256, thread 0 counted " << other_blocks[0]);
        REQUIRE(other_blocks == first);
        // 1000 binomial counts of 64 points all equal by chance: never.
        INFO("with another seed, thread 0 counted " << other_seed[0]
                                                    << ": the same counts for every thread");
        REQUIRE(other_seed != first);
    }
}

TEST_CASE("the host API's pi is within five standard errors") {
    for (long long points : {1LL, 1000LL, 123457LL}) {
        CAPTURE(points);
        unsigned long long total = ~0ull;
        REQUIRE(estimate_pi_with_host_api(seed_for(5), points, &total));
        REQUIRE(total <= (unsigned long long)points);
        REQUIRE(std::fabs(4.0 * (double)total / (double)points - kPi) <=
                5.0 * pi_standard_error((double)points));
    }
}

TEST_CASE("a European call: Monte Carlo within five standard errors of Black-Scholes") {
    // The standard error is estimated from the same paths (their spread);
    // with 2 x 10^5 paths that estimate is itself within a few percent.
    const CallOption option;
    const double exact = black_scholes_call(option.spot, option.strike, option.rate,
                                            option.volatility, option.years);
    const double discount = std::exp(-(double)option.rate * option.years);
    const int threads = 1000, paths[] = {16, 200};
    for (Generator g : kGenerators) {
        CAPTURE(name_of(g));
        PathSums rounds[2];
        REQUIRE(price_call_on_gpu(g, seed_for(6), threads, 128, paths, 2, option, rounds));
        for (const PathSums& r : rounds) {
            const double price = discount * sample_mean(r.sum, r.paths);
            const double se = discount * standard_error_of_mean(r.sum, r.sum_of_squares, r.paths);
            CAPTURE(r.paths);
            INFO("your price is " << price << ", Black-Scholes says " << exact
                                  << ", standard error " << se);
            REQUIRE(se > 0.0);
            REQUIRE(std::fabs(price - exact) <= 5.0 * se);
        }
        // Twelve and a half times the paths: the standard error about 3.5 times smaller.
        const double se_small = standard_error_of_mean(rounds[0].sum, rounds[0].sum_of_squares, rounds[0].paths);
        const double se_large = standard_error_of_mean(rounds[1].sum, rounds[1].sum_of_squares, rounds[1].paths);
        CHECK(se_small / se_large == doctest::Approx(std::sqrt(200.0 / 16.0)).epsilon(0.1));
    }
}

TEST_CASE("block sizes other than a power of two from 32 to 1024 are refused") {
    unsigned long long total = 0;
    unsigned int draws[8] = {};
    for (int block : {0, 16, 96, 1000, 2048}) {
        CAPTURE(block);
        CHECK_FALSE(estimate_pi_on_gpu(Generator::xorwow, 1, 100, block, 10, nullptr, &total));
        CHECK_FALSE(first_draws_on_gpu(Generator::philox, 1, 1, block, 8, draws));
    }
}
