// test_cooperative_groups.cu - cooperative groups on the emulator, checked
// against what CUDA specifies: the block, fixed-size tiles (also of a tile),
// dynamic partitions, coalesced groups, labeled and binary partitions,
// cg::reduce with every operator, the
// grid's ranks, and the report for grid.sync() without a cooperative launch.
// Inputs are fresh random data, outputs are poisoned, and block sizes leave a
// partial last warp. The same file compiles with nvcc (tests/emu/CMakeLists.txt).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "stderr_capture.h"

namespace cg = cooperative_groups;

// ---- the block -----------------------------------------------------------------
struct block_record {
    unsigned rank, size, num_threads;
    dim3 group_index, thread_index, group_dim, dim_threads;
    int reversed;          // written after block.sync()
    int reversed_again;    // after cg::sync(block) and a sync through a thread_group
    unsigned long long group_rank, group_size;  // through a thread_group
};

__global__ void block_everything(const int* in, block_record* out) {
    cg::thread_block block = cg::this_thread_block();
    __shared__ int stage[1024];
    const unsigned r = block.thread_rank(), n = block.size();
    block_record rec;
    rec.rank = r;
    rec.size = n;
    rec.num_threads = block.num_threads();
    rec.group_index = block.group_index();
    rec.thread_index = block.thread_index();
    rec.group_dim = block.group_dim();
    rec.dim_threads = block.dim_threads();
    const unsigned base = (blockIdx.x * gridDim.y + blockIdx.y) * n;
    stage[r] = in[base + r];
    block.sync();  // without it, threads would read slots not yet written
    rec.reversed = stage[n - 1 - r];
    cg::sync(block);
    stage[r] = rec.reversed * 2;
    cg::thread_group as_group = block;
    as_group.sync();
    rec.reversed_again = stage[n - 1 - r];
    rec.group_rank = as_group.thread_rank();
    rec.group_size = as_group.size();
    out[base + r] = rec;
}

TEST_CASE("thread_block: ranks, sizes, indices and sync in a 3-D block") {
    const dim3 block(7, 3, 2), grid(2, 3);  // 42 threads: a warp and a partial one
    const int per_block = 42, total = per_block * 6;
    std::vector<int> in = random_ints(total);
    device_buffer<int> d_in(total);
    device_buffer<block_record> d_out(total);
    d_in.write(in);
    block_everything<<<grid, block>>>(d_in.ptr, d_out.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<block_record> out = d_out.read();
    for (unsigned bx = 0; bx < 2; ++bx)
        for (unsigned by = 0; by < 3; ++by)
            for (unsigned z = 0; z < 2; ++z)
                for (unsigned y = 0; y < 3; ++y)
                    for (unsigned x = 0; x < 7; ++x) {
                        const unsigned r = (z * 3 + y) * 7 + x, base = (bx * 3 + by) * per_block;
                        CAPTURE(base + r);
                        const block_record& rec = out[base + r];
                        CHECK(rec.rank == r);
                        CHECK(rec.size == 42u);
                        CHECK(rec.num_threads == 42u);
                        CHECK((rec.group_index.x == bx && rec.group_index.y == by && rec.group_index.z == 0));
                        CHECK((rec.thread_index.x == x && rec.thread_index.y == y && rec.thread_index.z == z));
                        CHECK((rec.group_dim.x == 7 && rec.group_dim.y == 3 && rec.group_dim.z == 2));
                        CHECK((rec.dim_threads.x == 7 && rec.dim_threads.y == 3 && rec.dim_threads.z == 2));
                        CHECK(rec.reversed == in[base + 41 - r]);
                        CHECK(rec.reversed_again == 2 * in[base + r]);
                        CHECK(rec.group_rank == r);
                        CHECK(rec.group_size == 42u);
                    }
}

// ---- fixed-size tiles -----------------------------------------------------------
struct tile_record {
    unsigned rank, size, num_threads, meta_rank, meta_size;
    int shfl, shfl_down, shfl_up, shfl_xor, after_sync;
    int any, all;
    unsigned ballot, match_any, match_all;
    int match_all_pred;
    unsigned match_all_own;  // of each lane's own value: 0 unless the tile's values agree
    int match_all_own_pred;
    double wide;  // an 8-byte shuffle
    unsigned sub_rank, sub_meta_rank, sub_meta_size, sub_ballot;  // a tile of 2 of this tile
};

template <unsigned N>
__global__ void tile_everything(const int* in, tile_record* out, int src, unsigned delta,
                                unsigned lane_mask) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    __shared__ int stage[1024];
    const unsigned t = block.thread_rank();
    const int v = in[t];
    tile_record rec;
    rec.rank = tile.thread_rank();
    rec.size = tile.size();
    rec.num_threads = tile.num_threads();
    rec.meta_rank = tile.meta_group_rank();
    rec.meta_size = tile.meta_group_size();
    rec.shfl = tile.shfl(v, src);
    rec.shfl_down = tile.shfl_down(v, delta);
    rec.shfl_up = tile.shfl_up(v, delta);
    rec.shfl_xor = tile.shfl_xor(v, lane_mask);
    stage[t] = v;
    tile.sync();  // the tile's first thread reads what its last one wrote
    rec.after_sync = stage[t - tile.thread_rank() + N - 1];
    const bool odd = v & 1;
    rec.any = tile.any(odd);
    rec.all = tile.all(odd);
    rec.ballot = tile.ballot(odd);
    rec.match_any = tile.match_any(v % 3);
    rec.match_all = tile.match_all(tile.shfl(v, 0), rec.match_all_pred);  // the same everywhere
    rec.match_all_own = tile.match_all(v, rec.match_all_own_pred);
    rec.wide = tile.shfl_xor(static_cast<double>(v) * 0.5, lane_mask);
    if constexpr (N > 2) {  // a tile of a tile must be smaller than its parent
        cg::thread_block_tile<2> pair = cg::tiled_partition<2>(tile);
        rec.sub_rank = pair.thread_rank();
        rec.sub_meta_rank = pair.meta_group_rank();
        rec.sub_meta_size = pair.meta_group_size();
        rec.sub_ballot = pair.ballot(odd);
    }
    out[t] = rec;
}

template <unsigned N>
static void check_tiles(int threads) {
    CAPTURE(N);
    CAPTURE(threads);
    std::vector<int> in = random_ints(threads);
    const int src = std::uniform_int_distribution<int>(0, N - 1)(rng());
    const unsigned delta = std::uniform_int_distribution<unsigned>(1, N > 1 ? N - 1 : 1)(rng());
    const unsigned lane_mask = std::uniform_int_distribution<unsigned>(0, N - 1)(rng());
    device_buffer<int> d_in(threads);
    device_buffer<tile_record> d_out(threads);
    d_in.write(in);
    tile_everything<N><<<1, threads>>>(d_in.ptr, d_out.ptr, src, delta, lane_mask);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<tile_record> out = d_out.read();
    for (int t = 0; t < threads; ++t) {
        CAPTURE(t);
        const int rank = t % N, first = t - rank;
        const tile_record& r = out[t];
        CHECK(r.rank == static_cast<unsigned>(rank));
        CHECK(r.size == N);
        CHECK(r.num_threads == N);
        CHECK(r.meta_rank == static_cast<unsigned>(t / N));
        CHECK(r.meta_size == (threads + N - 1) / N);
        CHECK(r.shfl == in[first + src]);
        CHECK(r.shfl_down == (rank + delta < N ? in[t + delta] : in[t]));
        CHECK(r.shfl_up == (rank >= static_cast<int>(delta) ? in[t - delta] : in[t]));
        CHECK(r.shfl_xor == in[first + (rank ^ lane_mask)]);
        CHECK(r.wide == in[first + (rank ^ lane_mask)] * 0.5);
        CHECK(r.after_sync == in[first + N - 1]);
        unsigned ballot = 0, same = 0;
        bool all_agree = true;
        for (int k = 0; k < static_cast<int>(N); ++k) {
            if (in[first + k] & 1) ballot |= 1u << k;
            if (in[first + k] % 3 == in[t] % 3) same |= 1u << k;
            all_agree = all_agree && in[first + k] == in[first];
        }
        const unsigned everyone = N == 32 ? 0xffffffffu : (1u << N) - 1;
        CHECK(r.ballot == ballot);
        CHECK(r.any == (ballot != 0));
        CHECK(r.all == (ballot == everyone));
        CHECK(r.match_any == same);
        CHECK(r.match_all == everyone);
        CHECK(r.match_all_pred == 1);
        CHECK(r.match_all_own == (all_agree ? everyone : 0u));
        CHECK(r.match_all_own_pred == (all_agree ? 1 : 0));
        if (N > 2) {
            CHECK(r.sub_rank == static_cast<unsigned>(rank % 2));
            CHECK(r.sub_meta_rank == static_cast<unsigned>(rank / 2));
            CHECK(r.sub_meta_size == N / 2);
            const int pair_first = t - t % 2;
            CHECK(r.sub_ballot == ((in[pair_first] & 1u) | (in[pair_first + 1] & 1u) << 1));
        }
    }
}

TEST_CASE("thread_block_tile<N>: ranks, meta groups, shuffles, votes, matches, sync") {
    // Block sizes whose every tile exists whole, with a partial last warp
    // where a tile is smaller than a warp.
    check_tiles<32>(96);
    check_tiles<16>(48);   // the second warp has 16 lanes: one whole tile
    check_tiles<8>(40);
    check_tiles<4>(100);   // a last warp of 4 lanes
    check_tiles<2>(34);
}

// ---- dynamic partitions ------------------------------------------------------------
struct dynamic_record {
    unsigned long long rank, size;
    int after_sync;
};

__global__ void dynamic_tiles(const int* in, dynamic_record* out, unsigned tile_size) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile = cg::tiled_partition(block, tile_size);
    __shared__ int stage[1024];
    const unsigned t = block.thread_rank();
    stage[t] = in[t];
    tile.sync();  // the tile's first member reads what its last one wrote
    dynamic_record rec;
    rec.rank = tile.thread_rank();
    rec.size = tile.size();
    rec.after_sync = stage[t - rec.rank + rec.size - 1];
    out[t] = rec;
}

TEST_CASE("tiled_partition(block, n): tiles cut short by the end of the block") {
    const int threads = 40;  // the second warp has 8 lanes
    for (unsigned n : {4u, 8u, 16u, 32u}) {
        CAPTURE(n);
        std::vector<int> in = random_ints(threads);
        device_buffer<int> d_in(threads);
        device_buffer<dynamic_record> d_out(threads);
        d_in.write(in);
        dynamic_tiles<<<1, threads>>>(d_in.ptr, d_out.ptr, n);
        REQUIRE(cudaGetLastError() == cudaSuccess);
        std::vector<dynamic_record> out = d_out.read();
        for (int t = 0; t < threads; ++t) {
            CAPTURE(t);
            const unsigned first = t / n * n, size = std::min<unsigned>(n, threads - first);
            CHECK(out[t].rank == t - first);
            CHECK(out[t].size == size);
            CHECK(out[t].after_sync == in[first + size - 1]);
        }
    }
}

// ---- coalesced groups and cg::reduce -------------------------------------------------------
struct coalesced_record {
    unsigned rank, size;
    int shfl, shfl_down, shfl_up;
    unsigned ballot;
    int any, all;
    int sum, minimum, maximum;
    unsigned ands, ors, xors;
};

// Every lane of the warp runs together here, so the group is the lanes the
// warp has, on a GPU and on the emulator alike.
__global__ void coalesced_everything(const int* in, coalesced_record* out, unsigned src, unsigned delta) {
    cg::coalesced_group group = cg::coalesced_threads();
    const int t = threadIdx.x, v = in[t];
    const unsigned u = static_cast<unsigned>(v);
    coalesced_record rec;
    rec.rank = group.thread_rank();
    rec.size = group.size();
    rec.shfl = group.shfl(v, src);
    rec.shfl_down = group.shfl_down(v, delta);
    rec.shfl_up = group.shfl_up(v, delta);
    rec.ballot = group.ballot(v & 1);
    rec.any = group.any(v & 1);
    rec.all = group.all(v & 1);
    group.sync();
    rec.sum = cg::reduce(group, v, cg::plus<int>());
    rec.minimum = cg::reduce(group, v, cg::less<int>());
    rec.maximum = cg::reduce(group, v, cg::greater<int>());
    rec.ands = cg::reduce(group, u, cg::bit_and<unsigned>());
    rec.ors = cg::reduce(group, u, cg::bit_or<unsigned>());
    rec.xors = cg::reduce(group, u, cg::bit_xor<unsigned>());
    out[t] = rec;
}

TEST_CASE("coalesced_threads(): ranks, shuffles, votes and cg::reduce in a partial warp") {
    const int threads = 45;  // the second warp has 13 lanes
    std::vector<int> in = random_ints(threads, -2000000000, 2000000000);
    const unsigned src = std::uniform_int_distribution<unsigned>(0, 12)(rng());
    const unsigned delta = std::uniform_int_distribution<unsigned>(1, 12)(rng());
    device_buffer<int> d_in(threads);
    device_buffer<coalesced_record> d_out(threads);
    d_in.write(in);
    coalesced_everything<<<1, threads>>>(d_in.ptr, d_out.ptr, src, delta);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<coalesced_record> out = d_out.read();
    for (int t = 0; t < threads; ++t) {
        CAPTURE(t);
        const int first = t / 32 * 32, size = std::min(32, threads - first), rank = t - first;
        const coalesced_record& r = out[t];
        CHECK(r.rank == static_cast<unsigned>(rank));
        CHECK(r.size == static_cast<unsigned>(size));
        CHECK(r.shfl == in[first + src]);
        CHECK(r.shfl_down == (rank + static_cast<int>(delta) < size ? in[t + delta] : in[t]));
        CHECK(r.shfl_up == (rank >= static_cast<int>(delta) ? in[t - delta] : in[t]));
        unsigned ballot = 0, ands = ~0u, ors = 0, xors = 0;
        int sum = 0, minimum = in[first], maximum = in[first];
        for (int k = 0; k < size; ++k) {
            const int v = in[first + k];
            if (v & 1) ballot |= 1u << k;
            // the int sum wraps around, as on a GPU: add as unsigned
            sum = static_cast<int>(static_cast<unsigned>(sum) + static_cast<unsigned>(v));
            minimum = std::min(minimum, v);
            maximum = std::max(maximum, v);
            ands &= static_cast<unsigned>(v);
            ors |= static_cast<unsigned>(v);
            xors ^= static_cast<unsigned>(v);
        }
        const unsigned everyone = size == 32 ? 0xffffffffu : (1u << size) - 1;
        CHECK(r.ballot == ballot);
        CHECK(r.any == (ballot != 0));
        CHECK(r.all == (ballot == everyone));
        CHECK(r.sum == sum);
        CHECK(r.minimum == minimum);
        CHECK(r.maximum == maximum);
        CHECK(r.ands == ands);
        CHECK(r.ors == ors);
        CHECK(r.xors == xors);
    }
}

// cg::reduce on tiles of every size, with every operator, and with float.
template <unsigned N>
__global__ void tile_reductions(const int* in, const float* in_f, int* out, float* out_f) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    const unsigned t = block.thread_rank();
    const int v = in[t];
    const unsigned u = static_cast<unsigned>(v);
    out[6 * t + 0] = cg::reduce(tile, v, cg::plus<int>());
    out[6 * t + 1] = cg::reduce(tile, v, cg::less<int>());
    out[6 * t + 2] = cg::reduce(tile, v, cg::greater<int>());
    out[6 * t + 3] = static_cast<int>(cg::reduce(tile, u, cg::bit_and<unsigned>()));
    out[6 * t + 4] = static_cast<int>(cg::reduce(tile, u, cg::bit_or<unsigned>()));
    out[6 * t + 5] = static_cast<int>(cg::reduce(tile, u, cg::bit_xor<unsigned>()));
    out_f[t] = cg::reduce(tile, in_f[t], cg::plus<float>());
}

template <unsigned N>
static void check_tile_reductions(int threads) {
    CAPTURE(N);
    CAPTURE(threads);
    std::vector<int> in = random_ints(threads);
    std::vector<float> in_f(threads);
    for (float& x : in_f) x = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng());
    device_buffer<int> d_in(threads), d_out(6 * threads);
    device_buffer<float> d_in_f(threads), d_out_f(threads);
    d_in.write(in);
    d_in_f.write(in_f);
    tile_reductions<N><<<1, threads>>>(d_in.ptr, d_in_f.ptr, d_out.ptr, d_out_f.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<int> out = d_out.read();
    std::vector<float> out_f = d_out_f.read();
    for (int t = 0; t < threads; ++t) {
        CAPTURE(t);
        const int first = t - t % N;
        int sum = 0, minimum = in[first], maximum = in[first];
        unsigned ands = ~0u, ors = 0, xors = 0;
        double sum_f = 0.0, magnitude = 0.0;
        for (int k = first; k < first + static_cast<int>(N); ++k) {
            sum += in[k];
            minimum = std::min(minimum, in[k]);
            maximum = std::max(maximum, in[k]);
            ands &= static_cast<unsigned>(in[k]);
            ors |= static_cast<unsigned>(in[k]);
            xors ^= static_cast<unsigned>(in[k]);
            sum_f += in_f[k];
            magnitude += std::abs(in_f[k]);
        }
        CHECK(out[6 * t + 0] == sum);
        CHECK(out[6 * t + 1] == minimum);
        CHECK(out[6 * t + 2] == maximum);
        CHECK(static_cast<unsigned>(out[6 * t + 3]) == ands);
        CHECK(static_cast<unsigned>(out[6 * t + 4]) == ors);
        CHECK(static_cast<unsigned>(out[6 * t + 5]) == xors);
        // float sums in a different order: each of the N - 1 additions may
        // round by half an ulp of a partial sum no larger than the sum of |x|
        CHECK(std::abs(out_f[t] - sum_f) <= 1e-6 + N * 6e-8 * magnitude);
    }
}

TEST_CASE("cg::reduce on tiles: plus, less, greater, bit_and, bit_or, bit_xor") {
    check_tile_reductions<32>(64);
    check_tile_reductions<16>(48);
    check_tile_reductions<8>(72);
    check_tile_reductions<4>(36);
    check_tile_reductions<1>(5);
}

// ---- partitions by label ------------------------------------------------------------
struct labeled_record {
    unsigned rank, size, meta_rank, meta_size;
    int sum;  // cg::reduce over the partition: only its own members' values
    unsigned binary_rank, binary_size, binary_meta_rank, binary_meta_size;
    unsigned by_pointer_size, by_pointer_meta_size;
};

// Labels are the input mod `kinds`; the binary split is the input's low bit,
// and the pointer labels are the address of one of two anchors by that bit.
__device__ int label_anchors[2];

template <class Parent>
__device__ labeled_record partition_by(const Parent& parent, int value, int label) {
    cg::coalesced_group by_label = cg::labeled_partition(parent, label);
    cg::coalesced_group split = cg::binary_partition(parent, (value & 1) != 0);
    cg::coalesced_group by_pointer = cg::labeled_partition(parent, &label_anchors[value & 1]);
    labeled_record rec;
    rec.rank = by_label.thread_rank();
    rec.size = by_label.size();
    rec.meta_rank = by_label.meta_group_rank();
    rec.meta_size = by_label.meta_group_size();
    rec.sum = cg::reduce(by_label, value, cg::plus<int>());
    rec.binary_rank = split.thread_rank();
    rec.binary_size = split.size();
    rec.binary_meta_rank = split.meta_group_rank();
    rec.binary_meta_size = split.meta_group_size();
    rec.by_pointer_size = by_pointer.size();
    rec.by_pointer_meta_size = by_pointer.meta_group_size();
    return rec;
}

// from_tile: the parent is a 32-thread tile (full warps), else coalesced_threads().
__global__ void labeled_groups(const int* in, labeled_record* out, int kinds, bool from_tile) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const int value = in[t];
    const int label = ((value % kinds) + kinds) % kinds;
    out[t] = from_tile ? partition_by(cg::tiled_partition<32>(cg::this_thread_block()), value, label)
                       : partition_by(cg::coalesced_threads(), value, label);
}

// What CUDA specifies, worked out on the CPU for one warp's lanes [first, first + n).
void check_labeled_warp(const std::vector<int>& in, const std::vector<labeled_record>& out, int first, int n,
                        int kinds) {
    auto label_of = [&](int t) { return ((in[t] % kinds) + kinds) % kinds; };
    std::vector<int> group_order;  // labels by their lowest lane
    for (int k = 0; k < n; ++k)
        if (std::find(group_order.begin(), group_order.end(), label_of(first + k)) == group_order.end())
            group_order.push_back(label_of(first + k));
    int odd = 0;
    for (int k = 0; k < n; ++k) odd += in[first + k] & 1;
    for (int k = 0; k < n; ++k) {
        const int t = first + k;
        CAPTURE(t);
        const labeled_record& r = out[t];
        unsigned rank = 0, size = 0, same_bit_rank = 0, same_bit = 0;
        int sum = 0;
        for (int j = 0; j < n; ++j) {
            if (label_of(first + j) == label_of(t)) {
                ++size;
                rank += j < k;
                sum = static_cast<int>(static_cast<unsigned>(sum) + static_cast<unsigned>(in[first + j]));
            }
            if ((in[first + j] & 1) == (in[t] & 1)) {
                ++same_bit;
                same_bit_rank += j < k;
            }
        }
        const auto meta = std::find(group_order.begin(), group_order.end(), label_of(t)) - group_order.begin();
        CHECK(r.rank == rank);
        CHECK(r.size == size);
        CHECK(r.meta_rank == static_cast<unsigned>(meta));
        CHECK(r.meta_size == group_order.size());
        CHECK(r.sum == sum);
        const bool one_side = odd == 0 || odd == n;  // every lane passed the same bool
        CHECK(r.binary_rank == same_bit_rank);
        CHECK(r.binary_size == same_bit);
        CHECK(r.binary_meta_rank == (one_side ? 0u : static_cast<unsigned>(in[t] & 1)));
        CHECK(r.binary_meta_size == (one_side ? 1u : 2u));
        CHECK(r.by_pointer_size == same_bit);
        CHECK(r.by_pointer_meta_size == (one_side ? 1u : 2u));
    }
}

TEST_CASE("labeled_partition and binary_partition: groups by value, ordered by their lowest lane") {
    for (const bool from_tile : {false, true}) {
        for (const int kinds : {1, 3, 7}) {
            CAPTURE(from_tile);
            CAPTURE(kinds);
            // Tiles of 32 need whole warps; coalesced groups get a partial one.
            const int threads = from_tile ? 64 : 45;
            std::vector<int> in = random_ints(threads, -1000, 1000);
            device_buffer<int> d_in(threads);
            device_buffer<labeled_record> d_out(threads);
            d_in.write(in);
            labeled_groups<<<1, threads>>>(d_in.ptr, d_out.ptr, kinds, from_tile);
            REQUIRE(cudaGetLastError() == cudaSuccess);
            const std::vector<labeled_record> out = d_out.read();
            for (int first = 0; first < threads; first += 32)
                check_labeled_warp(in, out, first, std::min(32, threads - first), kinds);
        }
    }
}

// ---- the grid ---------------------------------------------------------------------
struct grid_record {
    unsigned long long rank, size, num_threads;
    int valid;
};

__global__ void grid_ranks(grid_record* out) {
    cg::grid_group grid = cg::this_grid();
    grid_record rec;
    rec.rank = grid.thread_rank();
    rec.size = grid.size();
    rec.num_threads = grid.num_threads();
    rec.valid = grid.is_valid();
    out[grid.thread_rank()] = rec;
}

TEST_CASE("this_grid(): ranks and size; not valid without a cooperative launch") {
    const dim3 grid(3, 2), block(10, 5);  // 50 threads a block
    const int total = 6 * 50;
    device_buffer<grid_record> d_out(total);
    grid_ranks<<<grid, block>>>(d_out.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<grid_record> out = d_out.read();
    for (int i = 0; i < total; ++i) {
        CAPTURE(i);
        CHECK(out[i].rank == static_cast<unsigned long long>(i));
        CHECK(out[i].size == static_cast<unsigned long long>(total));
        CHECK(out[i].num_threads == static_cast<unsigned long long>(total));
        CHECK(out[i].valid == 0);  // a <<<...>>> launch, on a GPU too
    }
}

// ---- grid.sync(): a report, a failed launch (a process of its own: sticky) -----------

__global__ void grid_wide_barrier(int* data) {
    cg::grid_group grid = cg::this_grid();
    data[grid.thread_rank()] = 1;
    grid.sync();
    data[grid.thread_rank()] += 1;
}
static const int grid_sync_call_line = __LINE__ - 3;

TEST_CASE("grid-sync-needs-cooperative-launch") {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, 4 * 64 * sizeof(int)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    const int launch_line = __LINE__ + 1;
    grid_wide_barrier<<<4, 64>>>(d);
    CHECK(cudaGetLastError() == cudaSuccess);  // the launch itself is fine
    std::string report = capture.finish();
#ifdef CUEMU  // the emulator's report; on an H200 the launch failed the same way, silently
    const std::string file = __FILE__;
    CHECK(report.find("cuemu: this_grid().sync() needs a cooperative launch in kernel 'grid_wide_barrier' "
                      "(launched at " + file + ":" + std::to_string(launch_line) + ")") != std::string::npos);
    CHECK(report.find("thread (0,0,0) called it at " + file + ":" + std::to_string(grid_sync_call_line)) !=
          std::string::npos);
    CHECK(report.find("cudaLaunchCooperativeKernel") != std::string::npos);
    CHECK(report.find("cudaErrorLaunchFailure (\"unspecified launch failure\")") != std::string::npos);
#endif
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
    CHECK(cudaGetLastError() == cudaErrorLaunchFailure);  // sticky
    CHECK(cudaMalloc(&d, 16) == cudaErrorLaunchFailure);
}
