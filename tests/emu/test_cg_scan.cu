// test_cg_scan.cu - cg::inclusive_scan and cg::exclusive_scan (and their
// _update forms) on the emulator, checked against CPU loops: tiles of every
// size in blocks that end in a partial warp, coalesced groups, the split
// groups of binary_partition (members that are not neighbours), every
// operator of <cooperative_groups/functional>, float, an operator that is not
// commutative (to pin the order nvcc's header calls it in), and the _update
// forms adding each group's total to an atomic (also from tiles of more than
// one warp). The same file compiles with nvcc (tests/emu/CMakeLists.txt).
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "device_buffer.h"
#include "stderr_capture.h"

#if __has_include(<cuda/atomic>)
#include <cuda/atomic>
#define TEST_SCAN_UPDATE 1
#endif

namespace cg = cooperative_groups;

// x -> a x + b over 32-bit words: composing two of them is associative and
// not commutative, so a scan with it shows which side each partial goes.
struct affine {
    unsigned a, b;
};
struct compose {
    // op(later, earlier): apply the earlier map first, then the later one.
    __host__ __device__ affine operator()(const affine& later, const affine& earlier) const {
        return affine{later.a * earlier.a, later.a * earlier.b + later.b};
    }
};

// The scans of every member of a group, the CPU's way: `members` lists the
// block ranks of one group in rank order.
struct expected_scans {
    int sum, minimum, maximum, exclusive_sum;
    unsigned xors;
    double sum_f, magnitude;
    affine composed;
};

static expected_scans scan_on_cpu(const std::vector<int>& members, int upto, const std::vector<int>& in,
                                  const std::vector<float>& in_f, const std::vector<affine>& in_a) {
    expected_scans e{0, in[members[0]], in[members[0]], 0, 0u, 0.0, 0.0, affine{1u, 0u}};
    for (int i = 0; i <= upto; ++i) {
        const int v = in[members[i]];
        if (i < upto) e.exclusive_sum += v;
        e.sum += v;
        e.minimum = std::min(e.minimum, v);
        e.maximum = std::max(e.maximum, v);
        e.xors ^= static_cast<unsigned>(v);
        e.sum_f += in_f[members[i]];
        e.magnitude += std::abs(in_f[members[i]]);
    }
    // op(later, earlier) folded from the member's own value down to rank 0.
    e.composed = in_a[members[upto]];
    for (int i = upto - 1; i >= 0; --i) e.composed = compose()(e.composed, in_a[members[i]]);
    return e;
}

struct scan_record {
    int sum, minimum, maximum, exclusive_sum, exclusive_min;
    unsigned xors;
    float sum_f;
    affine composed;
};

template <class Group>
__device__ scan_record scan_everything(const Group& group, int v, float f, affine m) {
    scan_record rec;
    rec.sum = cg::inclusive_scan(group, v);
    rec.minimum = cg::inclusive_scan(group, v, cg::less<int>());
    rec.maximum = cg::inclusive_scan(group, v, cg::greater<int>());
    rec.exclusive_sum = cg::exclusive_scan(group, v);
    rec.exclusive_min = cg::exclusive_scan(group, v, cg::less<int>());
    rec.xors = cg::inclusive_scan(group, static_cast<unsigned>(v), cg::bit_xor<unsigned>());
    rec.sum_f = cg::inclusive_scan(group, f, cg::plus<float>());
    rec.composed = cg::inclusive_scan(group, m, compose());
    return rec;
}

static void check_record(const scan_record& got, const expected_scans& want, int rank) {
    CHECK(got.sum == want.sum);
    CHECK(got.minimum == want.minimum);
    CHECK(got.maximum == want.maximum);
    CHECK(got.exclusive_sum == want.exclusive_sum);
    // Rank 0's exclusive result is a value-initialized int for every op.
    if (rank == 0) CHECK(got.exclusive_min == 0);
    CHECK(got.xors == want.xors);
    // float partial sums in another order: each addition may round by half an
    // ulp of a partial sum no larger than the sum of |x|
    CHECK(std::abs(got.sum_f - want.sum_f) <= 1e-6 + 32 * 6e-8 * want.magnitude);
    CHECK(got.composed.a == want.composed.a);
    CHECK(got.composed.b == want.composed.b);
}

struct scan_inputs {
    std::vector<int> in;
    std::vector<float> in_f;
    std::vector<affine> in_a;
    device_buffer<int> d_in;
    device_buffer<float> d_in_f;
    device_buffer<affine> d_in_a;
    device_buffer<scan_record> d_out;
    explicit scan_inputs(int threads)
        : in(random_ints(threads)), in_f(threads), in_a(threads), d_in(threads), d_in_f(threads),
          d_in_a(threads), d_out(threads) {
        for (float& x : in_f) x = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng());
        for (affine& m : in_a) m = affine{static_cast<unsigned>(rng()()) | 1u, static_cast<unsigned>(rng()())};
        d_in.write(in);
        d_in_f.write(in_f);
        d_in_a.write(in_a);
    }
};

// Checks every thread's record against the CPU's scan over the members that
// members_of(t) lists (block ranks in rank order, ending with t).
template <class MembersOf>
static void check_scans(const scan_inputs& inputs, int threads, MembersOf members_of) {
    REQUIRE(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<scan_record> out = inputs.d_out.read();
    for (int t = 0; t < threads; ++t) {
        CAPTURE(t);
        const std::vector<int> members = members_of(t);
        const int rank = static_cast<int>(members.size()) - 1;
        check_record(out[t], scan_on_cpu(members, rank, inputs.in, inputs.in_f, inputs.in_a), rank);
    }
}

// The members of t's group up to t, when groups are runs of `size` threads.
static std::vector<int> run_up_to(int t, int size) {
    std::vector<int> members;
    for (int k = t - t % size; k <= t; ++k) members.push_back(k);
    return members;
}

// ---- tiles ---------------------------------------------------------------------
template <unsigned N>
__global__ void tile_scans(const int* in, const float* in_f, const affine* in_a, scan_record* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    const unsigned t = block.thread_rank();
    out[t] = scan_everything(tile, in[t], in_f[t], in_a[t]);
}

template <unsigned N>
static void check_tile_scans(int threads) {
    CAPTURE(N);
    CAPTURE(threads);
    scan_inputs inputs(threads);
    tile_scans<N><<<1, threads>>>(inputs.d_in.ptr, inputs.d_in_f.ptr, inputs.d_in_a.ptr, inputs.d_out.ptr);
    check_scans(inputs, threads, [](int t) { return run_up_to(t, static_cast<int>(N)); });
}

TEST_CASE("cg scans on tiles of 32, 16, 8, 4, 2 and 1, with a partial last warp") {
    check_tile_scans<32>(64);
    check_tile_scans<32>(48);  // the second tile lacks 16 lanes: its members that exist come first
    check_tile_scans<16>(80);
    check_tile_scans<8>(72);
    check_tile_scans<4>(36);
    check_tile_scans<2>(6);
    check_tile_scans<1>(5);
}

// ---- coalesced groups and the split groups of a partition -------------------------
__global__ void coalesced_scans(const int* in, const float* in_f, const affine* in_a, scan_record* out) {
    const unsigned t = threadIdx.x;
    out[t] = scan_everything(cg::coalesced_threads(), in[t], in_f[t], in_a[t]);
}

// Odd and even values apart: members of each group are not neighbours.
__global__ void partition_scans(const int* in, const float* in_f, const affine* in_a, scan_record* out) {
    const unsigned t = threadIdx.x;
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    cg::coalesced_group same_parity = cg::binary_partition(warp, (in[t] & 1) != 0);
    out[t] = scan_everything(same_parity, in[t], in_f[t], in_a[t]);
}

TEST_CASE("cg scans on coalesced groups: a whole warp, a partial warp, and members apart") {
    const int threads = 40;  // the second warp has 8 lanes
    SUBCASE("coalesced_threads()") {
        scan_inputs inputs(threads);
        coalesced_scans<<<1, threads>>>(inputs.d_in.ptr, inputs.d_in_f.ptr, inputs.d_in_a.ptr, inputs.d_out.ptr);
        check_scans(inputs, threads, [](int t) { return run_up_to(t, 32); });
    }
    SUBCASE("binary_partition by parity") {
        scan_inputs inputs(threads);
        partition_scans<<<1, threads>>>(inputs.d_in.ptr, inputs.d_in_f.ptr, inputs.d_in_a.ptr, inputs.d_out.ptr);
        check_scans(inputs, threads, [&inputs](int t) {
            std::vector<int> members;  // same warp, same parity, up to t
            for (int k : run_up_to(t, 32))
                if ((inputs.in[k] & 1) == (inputs.in[t] & 1)) members.push_back(k);
            return members;
        });
    }
}

#ifdef TEST_SCAN_UPDATE
// ---- the _update forms ---------------------------------------------------------------
// Each tile of Tile threads (16; 128, more than one warp) adds its total to
// one counter through an atomic_ref; the members' results are the counter's
// value before the tile's update plus their own (inclusive or exclusive) prefix.
template <unsigned Tile>
__global__ void scan_updates(const int* in, int* counters, int* inclusive, int* exclusive) {
    cg::thread_block_tile<Tile> tile = cg::tiled_partition<Tile>(cg::this_thread_block());
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    cuda::atomic_ref<int, cuda::thread_scope_device> first(counters[0]);
    inclusive[t] = cg::inclusive_scan_update(tile, first, in[t]);
    cuda::atomic_ref<int, cuda::thread_scope_device> second(counters[1]);
    exclusive[t] = cg::exclusive_scan_update(tile, second, in[t], cg::plus<int>());
}

// The same with a cuda::atomic object, and a maximum instead of a sum.
__device__ cuda::atomic<int, cuda::thread_scope_device> running_max(-2000000);

__global__ void scan_update_max(const int* in, int* out) {
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
    const unsigned t = threadIdx.x;
    out[t] = cg::inclusive_scan_update(tile, running_max, in[t], cg::greater<int>());
}

template <unsigned Tile>
static void check_scan_updates(int blocks, int threads) {
    CAPTURE(Tile);
    const int total = blocks * threads, tile = static_cast<int>(Tile);
    // Positive values: every tile's total is positive, so the order of the
    // tiles' updates is the order of the values the counter had before them.
    const std::vector<int> in = random_ints(total, 1, 1000);
    device_buffer<int> d_in(total), d_counters(2), d_inclusive(total), d_exclusive(total);
    d_in.write(in);
    d_counters.write({7, -5});  // the starting values come first in every result
    scan_updates<Tile><<<blocks, threads>>>(d_in.ptr, d_counters.ptr, d_inclusive.ptr, d_exclusive.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> counters = d_counters.read(), inclusive = d_inclusive.read(),
                           exclusive = d_exclusive.read();
    int sum = 0;
    for (int v : in) sum += v;
    CHECK(counters[0] == 7 + sum);
    CHECK(counters[1] == -5 + sum);
    for (int which = 0; which < 2; ++which) {
        CAPTURE(which);
        const std::vector<int>& got = which == 0 ? inclusive : exclusive;
        std::vector<std::pair<int, int>> before_and_total;  // per tile
        for (int first = 0; first < total; first += tile) {
            CAPTURE(first);
            // result = value before the tile's update + own prefix, the same
            // value before for every member of the tile
            int prefix = 0, before = 0;
            for (int k = first; k < first + tile; ++k) {
                if (which == 0) prefix += in[k];
                if (k == first) before = got[k] - prefix;
                CHECK(got[k] - prefix == before);
                if (which == 1) prefix += in[k];
            }
            before_and_total.push_back({before, prefix});
        }
        // In the order of the updates, each starts where the one before ended.
        std::sort(before_and_total.begin(), before_and_total.end());
        int running = which == 0 ? 7 : -5;
        for (const auto& [before, tile_total] : before_and_total) {
            CHECK(before == running);
            running = before + tile_total;
        }
    }
}

TEST_CASE("cg scan_update: each group's total goes into an atomic once") {
    check_scan_updates<16>(3, 64);
    check_scan_updates<128>(2, 256);  // tiles of more than one warp
    const int threads = 64;
    const std::vector<int> small = random_ints(threads, -1000000, 1000000);
    device_buffer<int> d_small(threads), d_max(threads);
    d_small.write(small);
    scan_update_max<<<1, threads>>>(d_small.ptr, d_max.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> maxima = d_max.read();
    for (int first = 0; first < threads; first += 8) {
        CAPTURE(first);
        // result = max(value before the tile's update, own prefix maximum):
        // where it is not the prefix maximum, it is one value for the tile,
        // the start or another tile's value
        int own = small[first], before = 0;
        bool before_seen = false;
        for (int t = first; t < first + 8; ++t) {
            CAPTURE(t);
            own = std::max(own, small[t]);
            CHECK(maxima[t] >= own);
            if (maxima[t] == own) continue;
            if (!before_seen) before = maxima[t];
            before_seen = true;
            CHECK(maxima[t] == before);
        }
        if (before_seen)
            CHECK((before == -2000000 || std::find(small.begin(), small.end(), before) != small.end()));
    }
    int last_max = 0;
    REQUIRE(cudaMemcpyFromSymbol(&last_max, running_max, sizeof(int)) == cudaSuccess);
    CHECK(last_max == *std::max_element(small.begin(), small.end()));
}
#endif

#ifdef CUEMU
// ---- a report names the scan's line ------------------------------------------------
// Lane 5 waits at a __syncthreads while the others scan: the warp function
// under the scan can never finish, and the report names the kernel's line of
// the scan, not the header's.
__global__ void scan_against_a_barrier(int* out) {
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    if (threadIdx.x == 5) {
        __syncthreads();
        return;
    }
    out[threadIdx.x] = cg::inclusive_scan(warp, 1);
}
constexpr int scan_against_a_barrier_line = __LINE__ - 2;

TEST_CASE("report: a scan names its own line") {
    int* out = nullptr;  // not freed: the report leaves a sticky error
    REQUIRE(cudaMalloc(&out, 32 * sizeof(int)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    scan_against_a_barrier<<<1, 32>>>(out);
    const std::string text = capture.finish();
    INFO(text);
    CHECK(text.find("deadlock between a warp function and __syncthreads()") != std::string::npos);
    CHECK(text.find("test_cg_scan.cu:" + std::to_string(scan_against_a_barrier_line)) != std::string::npos);
    CHECK(text.find("scan.h:") == std::string::npos);
}
#endif
