// test_warps.cu - warp functions on the emulator, checked against what CUDA
// specifies: shuffles (with width, out-of-range sources and partial warps),
// votes, __syncwarp, __activemask, and a warp-shuffle reduction. Every input is
// fresh random data, every output buffer is poisoned before the launch, and
// block sizes are chosen so that the last warp is partial.
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "device_buffer.h"

constexpr unsigned full_mask = 0xffffffffu;

// ---- kernels -------------------------------------------------------------------
// One record per thread: what each shuffle gave it.
struct shuffle_record {
    int idx, up, down, xor_, idx_width8, down_width8, up_width8, xor_width8, wrapped;
};

__global__ void shuffle_everything(const int* in, shuffle_record* out, int src_lane) {
    int t = threadIdx.x;
    int v = in[t];
    shuffle_record r;
    r.idx = __shfl_sync(full_mask, v, src_lane);
    r.up = __shfl_up_sync(full_mask, v, 3);
    r.down = __shfl_down_sync(full_mask, v, 5);
    r.xor_ = __shfl_xor_sync(full_mask, v, 6);
    r.idx_width8 = __shfl_sync(full_mask, v, src_lane, 8);
    r.down_width8 = __shfl_down_sync(full_mask, v, 2, 8);
    r.up_width8 = __shfl_up_sync(full_mask, v, 2, 8);
    r.xor_width8 = __shfl_xor_sync(full_mask, v, 9, 8);  // 9 crosses into another segment
    r.wrapped = __shfl_sync(full_mask, v, src_lane + 64);  // srcLane wraps within the width
    out[t] = r;
}

struct vote_record {
    unsigned ballot;
    int any, all, any_false, all_true;
    unsigned active;
};

__global__ void votes(const int* in, vote_record* out) {
    int t = threadIdx.x;
    bool odd = in[t] & 1;
    vote_record r;
    r.ballot = __ballot_sync(full_mask, odd);
    r.any = __any_sync(full_mask, odd);
    r.all = __all_sync(full_mask, odd);
    r.any_false = __any_sync(full_mask, 0);
    r.all_true = __all_sync(full_mask, 1);
    r.active = __activemask();
    out[t] = r;
}

// The classic warp reduction: after the loop, lane 0 holds the warp's sum.
// In a partial warp (block size not a multiple of 32) the lanes past the end
// do not exist, and a shuffle from them is undefined: add only what exists.
__device__ float warp_sum(float v) {
    int lane = threadIdx.x % warpSize;
    int lanes = min(warpSize, static_cast<int>(blockDim.x - threadIdx.x / warpSize * warpSize));
    for (int offset = warpSize / 2; offset > 0; offset /= 2) {
        float other = __shfl_down_sync(full_mask, v, offset);
        if (lane + offset < lanes) v += other;
    }
    return v;
}

// A block sum: each warp reduces with shuffles, warp 0 reduces the warps' sums.
__global__ void block_sums(const float* in, float* sums, int n) {
    __shared__ float warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    v = warp_sum(v);
    int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int warps = (blockDim.x + warpSize - 1) / warpSize;
        v = lane < warps ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) sums[blockIdx.x] = v;
    }
}

// Lanes 16..31 leave first; the rest vote with a full mask: the lanes that
// exited do not hold them up, and do not show in the ballot.
__global__ void vote_after_exit(unsigned* out) {
    if (threadIdx.x % 32 >= 16) return;
    out[threadIdx.x] = __ballot_sync(full_mask, 1);
}

// Two groups in one warp, each with its own mask, plus a __syncwarp that
// orders a write to shared memory before other lanes read it.
__global__ void two_groups(const int* in, int* out) {
    __shared__ int seen[32];
    int lane = threadIdx.x;
    unsigned mine = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    int v = __shfl_sync(mine, in[lane], lane < 16 ? 0 : 16);  // each half broadcasts its first lane
    seen[lane] = v;
    __syncwarp();
    out[lane] = seen[31 - lane];
}

template <class T>
__global__ void shuffle_wide(const T* in, T* out) {
    out[threadIdx.x] = __shfl_xor_sync(full_mask, in[threadIdx.x], 1);
}

// ---- helpers -------------------------------------------------------------------
// The value for a lane of a warp of `lanes` lanes (a partial warp has fewer
// than 32), from source lane `source` that PTX accepts: its value if that lane
// exists, else (undefined on a GPU) the emulator's all-one bits, -1 as an int.
static int from_lane(const std::vector<int>& v, int base, int lanes, int source) {
    return source < lanes ? v[base + source] : -1;
}

// ---- tests ---------------------------------------------------------------------
TEST_CASE("shuffles follow CUDA's rules in full and partial warps") {
    const int threads = 48;  // a full warp and a second warp of 16 lanes
    std::vector<int> in = random_ints(threads);
    const int src_lane = std::uniform_int_distribution<int>(0, 15)(rng());
    device_buffer<int> d_in(threads);
    device_buffer<shuffle_record> d_out(threads);
    d_in.write(in);
    shuffle_everything<<<1, threads>>>(d_in.ptr, d_out.ptr, src_lane);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<shuffle_record> out = d_out.read();
    for (int t = 0; t < threads; ++t) {
        CAPTURE(t);
        const int lane = t % 32, base = t - lane, lanes = t < 32 ? 32 : threads - 32;
        const int segment = lane & ~7;
        CHECK(out[t].idx == from_lane(in, base, lanes, src_lane));
        CHECK(out[t].wrapped == from_lane(in, base, lanes, (src_lane + 64) % 32));
        // up/down past the warp's end give the caller's own value
        CHECK(out[t].up == (lane >= 3 ? from_lane(in, base, lanes, lane - 3) : in[t]));
        if (lane + 5 > 31 || lane + 5 < lanes) {
            CHECK(out[t].down == (lane + 5 <= 31 ? from_lane(in, base, lanes, lane + 5) : in[t]));
        } else {
#ifdef CUEMU
            // From a lane the partial warp lacks: undefined in CUDA (an H200
            // gave 0); the emulator's -1 stands out.
            CHECK(out[t].down == -1);
#endif
        }
        CHECK(out[t].xor_ == from_lane(in, base, lanes, lane ^ 6));
        CHECK(out[t].idx_width8 == from_lane(in, base, lanes, segment + src_lane % 8));
        CHECK(out[t].down_width8 ==
              (lane % 8 + 2 < 8 ? from_lane(in, base, lanes, lane + 2) : in[t]));
        CHECK(out[t].up_width8 == (lane % 8 >= 2 ? from_lane(in, base, lanes, lane - 2) : in[t]));
        // xor may reach an earlier segment, not a later one
        const int x = lane ^ 9;
        CHECK(out[t].xor_width8 == (x <= segment + 7 ? from_lane(in, base, lanes, x) : in[t]));
    }
}

TEST_CASE("ballot, any, all and activemask count only the lanes a warp has") {
    const int threads = 48;
    std::vector<int> in = random_ints(threads);
    device_buffer<int> d_in(threads);
    device_buffer<vote_record> d_out(threads);
    d_in.write(in);
    votes<<<1, threads>>>(d_in.ptr, d_out.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<vote_record> out = d_out.read();
    for (int warp = 0; warp < 2; ++warp) {
        const int lanes = warp == 0 ? 32 : 16;
        unsigned expected = 0;
        for (int l = 0; l < lanes; ++l)
            if (in[warp * 32 + l] & 1) expected |= 1u << l;
        const unsigned existing = lanes == 32 ? full_mask : (1u << lanes) - 1;
        for (int l = 0; l < lanes; ++l) {
            CAPTURE(warp);
            CAPTURE(l);
            const vote_record& r = out[warp * 32 + l];
            CHECK(r.ballot == expected);
            CHECK(r.any == (expected != 0));
            CHECK(r.all == (expected == existing));
            CHECK(r.any_false == 0);
            CHECK(r.all_true == 1);
            CHECK(r.active == existing);
        }
    }
}

TEST_CASE("a warp-shuffle block reduction sums random data exactly") {
    for (int block : {32, 48, 256, 1000}) {  // 1000: a last warp of 8 lanes
        CAPTURE(block);
        const int n = 3 * block + 7;             // the last block is partly empty
        const int blocks = (n + block - 1) / block;
        std::uniform_int_distribution<int> dist(-64, 64);
        std::vector<float> in(n);
        for (float& x : in) x = static_cast<float>(dist(rng()));  // integers: sums are exact
        device_buffer<float> d_in(n), d_sums(blocks);
        d_in.write(in);
        block_sums<<<blocks, block>>>(d_in.ptr, d_sums.ptr, n);
        REQUIRE(cudaGetLastError() == cudaSuccess);
        std::vector<float> sums = d_sums.read();
        for (int b = 0; b < blocks; ++b) {
            float expected = 0.0f;
            for (int i = b * block; i < n && i < (b + 1) * block; ++i) expected += in[i];
            CHECK(sums[b] == expected);
        }
    }
}

TEST_CASE("lanes that exited do not hold up a warp function, nor vote") {
    device_buffer<unsigned> d_out(64);
    vote_after_exit<<<1, 64>>>(d_out.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<unsigned> out = d_out.read();
    for (int t = 0; t < 64; ++t)
        if (t % 32 < 16) CHECK(out[t] == 0x0000ffffu);
}

TEST_CASE("two groups with their own masks in one warp, and __syncwarp") {
    std::vector<int> in = random_ints(32);
    device_buffer<int> d_in(32), d_out(32);
    d_in.write(in);
    two_groups<<<1, 32>>>(d_in.ptr, d_out.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<int> out = d_out.read();
    for (int lane = 0; lane < 32; ++lane) {
        int reader_of = 31 - lane;  // out[lane] = what lane 31-lane got
        CHECK(out[lane] == in[reader_of < 16 ? 0 : 16]);
    }
}

TEST_CASE("shuffles move 8-byte values whole") {
    std::vector<double> h(32);
    std::uniform_real_distribution<double> dist(-1e300, 1e300);
    for (double& x : h) x = dist(rng());
    device_buffer<double> d_in(32), d_out(32);
    d_in.write(h);
    shuffle_wide<<<1, 32>>>(d_in.ptr, d_out.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<double> out = d_out.read();
    for (int lane = 0; lane < 32; ++lane) CHECK(out[lane] == h[lane ^ 1]);
}

// A reduction whose lanes past n leave early: their values are gone, and a
// shuffle that reads one is undefined on a GPU. The emulator makes it NaN.
__global__ void reduce_after_early_exit(const float* in, float* out, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    float v = in[i];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(full_mask, v, offset);
    if (i == 0) *out = v;
}

// Emulator-only: CUDA leaves the value undefined; on an H200 the sum was an
// ordinary number (2.4002).
TEST_CASE("a shuffle from a lane that exited gives a value that stands out (NaN)" *
          doctest::test_suite("emulator-only")) {
    std::vector<float> h(32);
    for (float& x : h) x = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng());
    device_buffer<float> d_in(32), d_out(1);
    d_in.write(h);
    reduce_after_early_exit<<<1, 32>>>(d_in.ptr, d_out.ptr, 32);  // every lane there: a number
    REQUIRE(cudaGetLastError() == cudaSuccess);
    float full = d_out.read()[0];
    CHECK(full == full);
    reduce_after_early_exit<<<1, 32>>>(d_in.ptr, d_out.ptr, 20);  // lanes 20..31 exited
    REQUIRE(cudaGetLastError() == cudaSuccess);
    float partial = d_out.read()[0];
    CHECK(partial != partial);  // NaN
}

// ---- __reduce_*_sync and __match_*_sync -----------------------------------------
// Each lane takes part in a group given by `groups`: lanes with the same
// (lane % groups) form one mask, so a warp holds several independent groups.
__device__ unsigned group_mask(int lane, int groups) {
    unsigned mask = 0;
    for (int l = lane % groups; l < 32; l += groups) mask |= 1u << l;
    return mask;
}

struct reduce_record {
    int add_i, min_i, max_i;
    unsigned add_u, min_u, max_u, and_u, or_u, xor_u;
};

// __reduce_*_sync need compute capability 8.0 on a GPU; nvcc also builds this
// file for compute_75, where the functions do not exist. The emulator (whose
// device reports 7.5) has them, and says so with CUEMU.
__global__ void warp_reductions(const int* in, reduce_record* out, int groups) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800 || defined(CUEMU)
    int t = threadIdx.x;
    unsigned mask = group_mask(t % 32, groups);
    int v = in[t];
    unsigned u = static_cast<unsigned>(v);
    reduce_record r;
    r.add_i = __reduce_add_sync(mask, v);
    r.min_i = __reduce_min_sync(mask, v);
    r.max_i = __reduce_max_sync(mask, v);
    r.add_u = __reduce_add_sync(mask, u);
    r.min_u = __reduce_min_sync(mask, u);
    r.max_u = __reduce_max_sync(mask, u);
    r.and_u = __reduce_and_sync(mask, u);
    r.or_u = __reduce_or_sync(mask, u);
    r.xor_u = __reduce_xor_sync(mask, u);
    out[threadIdx.x] = r;
#endif
}

struct match_record {
    unsigned any, all;
    int all_pred;
};

// in holds few distinct values, so lanes do match; `spoil` (when >= 0) makes
// one lane's value differ so that __match_all_sync must fail.
template <class T>
__global__ void warp_matches(const T* in, match_record* out, int spoil) {
    int t = threadIdx.x;
    T v = in[t];
    match_record r;
    r.any = __match_any_sync(full_mask, v);
    T same = t == spoil ? v : in[t - t % 32];  // every lane of the warp takes its first lane's value
    r.all = __match_all_sync(full_mask, same, &r.all_pred);
    out[t] = r;
}

template <class T>
static std::vector<T> few_values(int n) {
    // 3 distinct values; for 8-byte integers two of them share their low 32
    // bits, so a comparison of half the bits would take them for equal
    T big = static_cast<T>(1000000);
    if constexpr (sizeof(T) == 8) big = static_cast<T>(4294967303ull);  // 2^32 + 7
    const T choices[3] = {static_cast<T>(7), static_cast<T>(3), big};
    std::uniform_int_distribution<int> pick(0, 2);
    std::vector<T> v(n);
    for (T& x : v) x = choices[pick(rng())];
    return v;
}

template <class T>
static void check_matches(int threads) {
    CAPTURE(threads);
    std::vector<T> in = few_values<T>(threads);
    // a lane of warp 1 other than its first, whose value the other lanes take
    const int spoil = std::uniform_int_distribution<int>(33, threads - 1)(rng());
    std::vector<T> in_spoiled = in;
    // the spoiled lane's value must differ from its warp's first lane's
    in_spoiled[spoil] = in[spoil - spoil % 32] == static_cast<T>(7) ? static_cast<T>(3) : static_cast<T>(7);
    device_buffer<T> d_in(threads);
    device_buffer<match_record> d_out(threads);
    d_in.write(in_spoiled);
    warp_matches<T><<<1, threads>>>(d_in.ptr, d_out.ptr, spoil);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<match_record> out = d_out.read();
    for (int t = 0; t < threads; ++t) {
        CAPTURE(t);
        const int base = t - t % 32, lanes = std::min(32, threads - base);
        unsigned same = 0;
        for (int l = 0; l < lanes; ++l)
            if (std::memcmp(&in_spoiled[base + l], &in_spoiled[t], sizeof(T)) == 0) same |= 1u << l;
        CHECK(out[t].any == same);
        const unsigned existing = lanes == 32 ? full_mask : (1u << lanes) - 1;
        const bool warp_spoiled = base == spoil - spoil % 32;
        CHECK(out[t].all == (warp_spoiled ? 0u : existing));
        CHECK(out[t].all_pred == (warp_spoiled ? 0 : 1));
    }
}

TEST_CASE("__reduce_*_sync reduce each group of a mask, in full and partial warps") {
    for (int threads : {32, 45, 70}) {  // 45, 70: a last warp of 13 and 6 lanes
        for (int groups : {1, 3}) {  // 3: three interleaved masks in each warp
            CAPTURE(threads);
            CAPTURE(groups);
            std::vector<int> in(threads);
            // the whole int range: sums wrap around, and signed and unsigned order differ
            std::uniform_int_distribution<int> dist(std::numeric_limits<int>::min(),
                                                    std::numeric_limits<int>::max());
            for (int& x : in) x = dist(rng());
            device_buffer<int> d_in(threads);
            device_buffer<reduce_record> d_out(threads);
            d_in.write(in);
            warp_reductions<<<1, threads>>>(d_in.ptr, d_out.ptr, groups);
            REQUIRE(cudaGetLastError() == cudaSuccess);
            std::vector<reduce_record> out = d_out.read();
            for (int t = 0; t < threads; ++t) {
                CAPTURE(t);
                const int base = t - t % 32, lanes = std::min(32, threads - base);
                // the lanes of t's mask that exist
                unsigned add = 0, min_u = ~0u, max_u = 0, and_u = ~0u, or_u = 0, xor_u = 0;
                int min_i = std::numeric_limits<int>::max(), max_i = std::numeric_limits<int>::min();
                for (int l = (t % 32) % groups; l < lanes; l += groups) {
                    const int v = in[base + l];
                    const unsigned u = static_cast<unsigned>(v);
                    add += u;
                    min_i = std::min(min_i, v);
                    max_i = std::max(max_i, v);
                    min_u = std::min(min_u, u);
                    max_u = std::max(max_u, u);
                    and_u &= u;
                    or_u |= u;
                    xor_u ^= u;
                }
                const reduce_record& r = out[t];
                CHECK(static_cast<unsigned>(r.add_i) == add);
                CHECK(r.add_u == add);
                CHECK(r.min_i == min_i);
                CHECK(r.max_i == max_i);
                CHECK(r.min_u == min_u);
                CHECK(r.max_u == max_u);
                CHECK(r.and_u == and_u);
                CHECK(r.or_u == or_u);
                CHECK(r.xor_u == xor_u);
            }
        }
    }
}

TEST_CASE("__match_any_sync and __match_all_sync compare bits, for every CUDA type") {
    for (int threads : {64, 50}) {  // 50: a last warp of 18 lanes
        check_matches<int>(threads);
        check_matches<unsigned>(threads);
        check_matches<long>(threads);
        check_matches<unsigned long>(threads);
        check_matches<long long>(threads);
        check_matches<unsigned long long>(threads);
        check_matches<float>(threads);
        check_matches<double>(threads);
    }
}

__global__ void match_signed_zero(const float* in, unsigned* out) {
    out[threadIdx.x] = __match_any_sync(full_mask, in[threadIdx.x]);
}

TEST_CASE("__match_any_sync tells 0.0f from -0.0f, as bits do") {
    std::vector<float> h(32);
    unsigned negative = 0;
    for (int l = 0; l < 32; ++l) {
        const bool neg = std::uniform_int_distribution<int>(0, 1)(rng());
        h[l] = neg ? -0.0f : 0.0f;
        if (neg) negative |= 1u << l;
    }
    device_buffer<float> d_in(32);
    device_buffer<unsigned> d_out(32);
    d_in.write(h);
    match_signed_zero<<<1, 32>>>(d_in.ptr, d_out.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<unsigned> out = d_out.read();
    for (int l = 0; l < 32; ++l) CHECK(out[l] == (negative >> l & 1u ? negative : ~negative));
}
