// test_cg_multi_warp_tiles.cu - cooperative groups' tiles of more than one
// warp (thread_block_tile<64> to <1024>) on the emulator, checked against
// what CUDA 13 declares for them: ranks, sizes and meta groups (also in blocks
// that are not a multiple of the tile), sync() ordering shared memory between
// the tile's warps, shfl() from one rank, any(), all(), cg::reduce, the scans
// (their _update forms: test_cg_scan.cu), also in a last tile short of lanes,
// tiles of such a tile, block_tile_memory with this_thread_block(scratch), and
// the reports of a tile call some thread never reaches, of a tile the block
// lacks whole warps of, of a scratch too small and of a race a tile's sync()
// does not prevent (each in a process of its own: tests/emu/CMakeLists.txt). Inputs are fresh random data,
// outputs are poisoned. The same file compiles with nvcc.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "stderr_capture.h"

namespace cg = cooperative_groups;

// ---- everything a tile of N threads has ---------------------------------------------
struct big_tile_record {
    unsigned rank, size, num_threads, meta_rank, meta_size;
    unsigned plain_meta_rank, plain_meta_size;  // through a thread_block_tile<N> (no parent type)
    int shfl;                 // the value of rank src
    double wide;              // an 8-byte shuffle
    int shfl_sum;             // every rank's value, one shfl at a time
    int shared_sum;           // a tree in shared memory, tile.sync() between its steps
    int reduce_sum, reduce_max;
    int inclusive_sum, exclusive_max;  // cg::inclusive_scan, cg::exclusive_scan
    int any_odd, all_odd, all_true, any_none;
    unsigned warp_rank, warp_meta_rank, warp_meta_size;  // tiled_partition<32>(tile)
    int warp_sum;                                        // cg::reduce over that tile of 32
    unsigned half_rank, half_meta_rank, half_meta_size;  // tiled_partition<N / 2>(tile), N > 64
};

template <unsigned N>
__device__ big_tile_record everything_of(const cg::thread_block& block, const int* in, int src) {
    __shared__ int stage[1024];
    cg::thread_block_tile<N, cg::thread_block> tile = cg::tiled_partition<N>(block);
    cg::thread_block_tile<N> plain = tile;
    const unsigned t = block.thread_rank();
    const int v = in[t];
    big_tile_record rec;
    rec.rank = tile.thread_rank();
    rec.size = tile.size();
    rec.num_threads = tile.num_threads();
    rec.meta_rank = tile.meta_group_rank();
    rec.meta_size = tile.meta_group_size();
    rec.plain_meta_rank = plain.meta_group_rank();
    rec.plain_meta_size = plain.meta_group_size();
    rec.shfl = tile.shfl(v, src);
    rec.wide = tile.shfl(static_cast<double>(v) * 0.5, (src + 1) % N);
    int sum = 0;
    for (unsigned r = 0; r < N; ++r) sum += tile.shfl(v, r);
    rec.shfl_sum = sum;
    // A tree over the tile's part of `stage`: each step reads what another
    // warp of the tile wrote in the step before.
    stage[t] = v;
    for (unsigned half = N / 2; half > 0; half /= 2) {
        tile.sync();
        if (rec.rank < half) stage[t] += stage[t + half];
    }
    tile.sync();
    rec.shared_sum = stage[t - rec.rank];
    rec.reduce_sum = cg::reduce(tile, v, cg::plus<int>());
    rec.reduce_max = cg::reduce(tile, v, cg::greater<int>());
    rec.inclusive_sum = cg::inclusive_scan(tile, v);
    rec.exclusive_max = cg::exclusive_scan(tile, v, cg::greater<int>());
    rec.any_odd = tile.any(v & 1);
    rec.all_odd = tile.all(v & 1);
    rec.all_true = tile.all(1);
    rec.any_none = tile.any(0);
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(tile);
    rec.warp_rank = warp.thread_rank();
    rec.warp_meta_rank = warp.meta_group_rank();
    rec.warp_meta_size = warp.meta_group_size();
    rec.warp_sum = cg::reduce(warp, v, cg::plus<int>());
    if constexpr (N > 64) {
        cg::thread_block_tile<N / 2> half = cg::tiled_partition<N / 2>(tile);
        rec.half_rank = half.thread_rank();
        rec.half_meta_rank = half.meta_group_rank();
        rec.half_meta_size = half.meta_group_size();
        half.sync();
    }
    return rec;
}

// with_scratch: the block as nvcc needs it below compute capability 8.0.
template <unsigned N, bool with_scratch>
__global__ void big_tile_everything(const int* in, big_tile_record* out, int src) {
    if constexpr (with_scratch) {
        __shared__ cg::block_tile_memory<1024> scratch;
        cg::thread_block block = cg::this_thread_block(scratch);
        out[block.thread_rank()] = everything_of<N>(block, in, src);
    } else {
        cg::thread_block block = cg::this_thread_block();
        out[block.thread_rank()] = everything_of<N>(block, in, src);
    }
}

template <unsigned N, bool with_scratch>
static void check_big_tiles(int threads) {
    CAPTURE(N);
    CAPTURE(threads);
    CAPTURE(with_scratch);
    std::vector<int> in = random_ints(threads, -1000, 1000);
    const int src = std::uniform_int_distribution<int>(0, N - 1)(rng());
    device_buffer<int> d_in(threads);
    device_buffer<big_tile_record> d_out(threads);
    d_in.write(in);
    big_tile_everything<N, with_scratch><<<1, threads>>>(d_in.ptr, d_out.ptr, src);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<big_tile_record> out = d_out.read();
    for (int t = 0; t < threads; ++t) {
        CAPTURE(t);
        const int rank = t % N, first = t - rank;
        const big_tile_record& r = out[t];
        int sum = 0, max = in[first], odd = 0, warp_sum = 0, prefix = 0, max_below = 0;
        for (unsigned k = 0; k < N; ++k) {
            sum += in[first + k];
            max = std::max(max, in[first + k]);
            odd += in[first + k] & 1;
            if (static_cast<int>(k) <= rank) prefix += in[first + k];
            if (static_cast<int>(k) < rank) max_below = k == 0 ? in[first] : std::max(max_below, in[first + k]);
        }
        for (int k = 0; k < 32; ++k) warp_sum += in[t - t % 32 + k];
        CHECK(r.rank == static_cast<unsigned>(rank));
        CHECK(r.size == N);
        CHECK(r.num_threads == N);
        CHECK(r.meta_rank == static_cast<unsigned>(t / N));
        CHECK(r.meta_size == (threads + N - 1) / N);
        CHECK(r.plain_meta_rank == r.meta_rank);
        CHECK(r.plain_meta_size == r.meta_size);
        CHECK(r.shfl == in[first + src]);
        CHECK(r.wide == in[first + (src + 1) % N] * 0.5);
        CHECK(r.shfl_sum == sum);
        CHECK(r.shared_sum == sum);
        CHECK(r.reduce_sum == sum);
        CHECK(r.reduce_max == max);
        CHECK(r.inclusive_sum == prefix);
        CHECK(r.exclusive_max == max_below);  // rank 0: int{}
        CHECK(r.any_odd == (odd > 0));
        CHECK(r.all_odd == (odd == static_cast<int>(N)));
        CHECK(r.all_true == 1);
        CHECK(r.any_none == 0);
        CHECK(r.warp_rank == static_cast<unsigned>(rank % 32));
        CHECK(r.warp_meta_rank == static_cast<unsigned>(rank / 32));
        CHECK(r.warp_meta_size == N / 32);
        CHECK(r.warp_sum == warp_sum);
        if (N > 64) {
            CHECK(r.half_rank == static_cast<unsigned>(rank % (N / 2)));
            CHECK(r.half_meta_rank == static_cast<unsigned>(rank / (N / 2)));
            CHECK(r.half_meta_size == 2u);
        }
    }
}

TEST_CASE("thread_block_tile<64> and <256>: ranks, meta groups, shfl, votes, reduce, sync") {
    check_big_tiles<64, false>(192);
    check_big_tiles<64, true>(64);
    check_big_tiles<256, false>(512);
    check_big_tiles<256, true>(256);
}

TEST_CASE("thread_block_tile<128>, <512> and <1024>") {
    check_big_tiles<128, true>(384);
    check_big_tiles<512, false>(1024);
    check_big_tiles<1024, true>(1024);
}


// ---- ranks in blocks that are not a multiple of the tile -----------------------------
struct rank_record {
    unsigned rank, meta_rank, meta_size, warp_rank, warp_meta_rank, warp_meta_size;
};

template <unsigned N>
__global__ void big_tile_ranks(rank_record* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(tile);
    rank_record rec;
    rec.rank = tile.thread_rank();
    rec.meta_rank = tile.meta_group_rank();
    rec.meta_size = tile.meta_group_size();
    rec.warp_rank = warp.thread_rank();
    rec.warp_meta_rank = warp.meta_group_rank();
    rec.warp_meta_size = warp.meta_group_size();
    out[block.thread_rank()] = rec;
}
static const int big_tile_ranks_line = __LINE__ - 11;

template <unsigned N>
static void check_ranks(dim3 block) {
    const int threads = static_cast<int>(block.x * block.y * block.z);
    CAPTURE(N);
    CAPTURE(threads);
    device_buffer<rank_record> d_out(threads);
    big_tile_ranks<N><<<1, block>>>(d_out.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<rank_record> out = d_out.read();
    for (int t = 0; t < threads; ++t) {
        CAPTURE(t);
        const rank_record& r = out[t];
        CHECK(r.rank == static_cast<unsigned>(t % N));
        CHECK(r.meta_rank == static_cast<unsigned>(t / N));
        CHECK(r.meta_size == (threads + N - 1) / N);
        CHECK(r.warp_rank == static_cast<unsigned>(t % 32));
        CHECK(r.warp_meta_rank == static_cast<unsigned>(t % N / 32));
        CHECK(r.warp_meta_size == N / 32);
    }
}

// Each last tile has every warp of its own, the last of them short of lanes
// (a tile lacking whole warps: the reports below).
TEST_CASE("multi-warp tiles: ranks and meta ranks in blocks of odd sizes") {
    check_ranks<64>(dim3(100));           // a last tile of 36 threads
    check_ranks<128>(dim3(10, 5, 2));     // 100 threads, x fastest: warps 0 to 3, the last of 4 lanes
    check_ranks<256>(dim3(23, 10));       // 230 threads: warps 0 to 7, the last of 6 lanes
}

// ---- calls in a last tile that lacks lanes of its last warp --------------------------
// A GPU runs them over the threads the tile has (measured on an H200 with a
// block of 100 threads: sync() and shfl() in the tile of threads 64 to 99).
struct short_tile_record {
    int across;          // from shared memory, 32 ranks on (modulo the threads there are), after tile.sync()
    int first, last;     // tile.shfl() from rank 0 and from the tile's last thread
    int sum, max;        // cg::reduce
    int prefix;          // cg::inclusive_scan
    int any_odd, all_odd;
};

template <unsigned N>
__global__ void short_tile_calls(const int* in, short_tile_record* out) {
    __shared__ int stage[1024];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    const unsigned t = block.thread_rank(), first = t - tile.thread_rank();
    const unsigned there = block.size() - first < N ? block.size() - first : N;
    const int v = in[t];
    short_tile_record rec;
    stage[t] = v;
    tile.sync();
    rec.across = stage[first + (tile.thread_rank() + 32) % there];
    rec.first = tile.shfl(v, 0);
    rec.last = tile.shfl(v, there - 1);
    rec.sum = cg::reduce(tile, v, cg::plus<int>());
    rec.max = cg::reduce(tile, v, cg::greater<int>());
    rec.prefix = cg::inclusive_scan(tile, v);
    rec.any_odd = tile.any(v & 1);
    rec.all_odd = tile.all(v & 1);
    out[t] = rec;
}

template <unsigned N>
static void check_short_tile(int threads, bool all_odd) {
    CAPTURE(N);
    CAPTURE(threads);
    CAPTURE(all_odd);
    std::vector<int> in = random_ints(threads, -1000, 1000);
    if (all_odd)
        for (int& v : in) v |= 1;
    device_buffer<int> d_in(threads);
    device_buffer<short_tile_record> d_out(threads);
    d_in.write(in);
    short_tile_calls<N><<<1, threads>>>(d_in.ptr, d_out.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<short_tile_record> out = d_out.read();
    for (int t = 0; t < threads; ++t) {
        CAPTURE(t);
        const int rank = t % N, first = t - rank, there = std::min(threads - first, static_cast<int>(N));
        int sum = 0, max = in[first], odd = 0, prefix = 0;
        for (int k = 0; k < there; ++k) {
            sum += in[first + k];
            max = std::max(max, in[first + k]);
            odd += in[first + k] & 1;
            if (k <= rank) prefix += in[first + k];
        }
        const short_tile_record& r = out[t];
        CHECK(r.across == in[first + (rank + 32) % there]);
        CHECK(r.first == in[first]);
        CHECK(r.last == in[first + there - 1]);
        CHECK(r.sum == sum);
        CHECK(r.max == max);
        CHECK(r.prefix == prefix);
        CHECK(r.any_odd == (odd > 0));
        CHECK(r.all_odd == (odd == there));
    }
}

TEST_CASE("multi-warp tiles: calls in a last tile that lacks lanes") {
    check_short_tile<64>(100, false);   // tile 1: threads 64 to 99, its second warp of 4 lanes
    check_short_tile<64>(100, true);
    check_short_tile<128>(100, false);  // one tile, warps 0 to 3, the last of 4 lanes
    check_short_tile<256>(230, true);   // one tile, warps 0 to 7, the last of 6 lanes
    check_short_tile<512>(993, false);  // tile 1: threads 512 to 992, its last warp of 1 lane
}

// A block whose last tile lacks whole warps: the launch fails (the report: below).
template <unsigned N>
static void check_ranks_stops(dim3 block) {
    rank_record* d = nullptr;
    REQUIRE(cudaMalloc(&d, block.x * block.y * block.z * sizeof(rank_record)) == cudaSuccess);
    big_tile_ranks<N><<<1, block>>>(d);
}

// ---- what is reported ----------------------------------------------------------------
// Each case below checks the emulator's report of a bug whose outcome CUDA leaves
// undefined, so all are in the test suite "emulator-only". On an H200 (CUDA 13.0)
// tile-shfl-against-syncthreads hung and the others' launches ended with cudaSuccess.
static bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}
static std::string at(int line) { return std::string(__FILE__) + ":" + std::to_string(line); }

// Thread 40 leaves before the tile's sync(); the 63 others of its tile wait there.
__global__ void tile_sync_after_return(int* data) {
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cg::this_thread_block());
    if (tile.thread_rank() == 40) return;
    data[threadIdx.x] = 1;
    tile.sync();
    data[threadIdx.x] += data[threadIdx.x ^ 1];
}
static const int tile_sync_line = __LINE__ - 3;

// Each ends with a sticky error: the buffer is never freed.
TEST_CASE("tile-sync-not-reached" * doctest::test_suite("emulator-only")) {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, 64 * sizeof(int)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    const int launch_line = __LINE__ + 1;
    tile_sync_after_return<<<1, 64>>>(d);
    std::string report = capture.finish();
    CHECK(contains(report, "cuemu: thread_block_tile<64>::sync() not reached by every thread of the tile in kernel "
                           "'tile_sync_after_return' (launched at " + at(launch_line) + ")"));
    CHECK(contains(report, "thread (0,0,0) waits in thread_block_tile<64>::sync() at " + at(tile_sync_line) +
                               " (its tile: threads (0,0,0) to (63,0,0)), but thread (40,0,0) has exited "
                               "without reaching it"));
    CHECK(contains(report, "waiting there: 63 threads: (0,0,0) to (39,0,0), (41,0,0) to (63,0,0)"));
    CHECK(contains(report, "exited:        1 thread: (40,0,0)"));
    CHECK(contains(report, "cudaErrorLaunchFailure (\"unspecified launch failure\")"));
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
    CHECK(cudaGetLastError() == cudaErrorLaunchFailure);  // sticky
}

// Thread 70 waits at a __syncthreads() that the tile's other threads, waiting
// in its shfl(), never reach.
__global__ void tile_shfl_against_block_sync(int* data) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
    if (block.thread_rank() == 70) block.sync();
    data[block.thread_rank()] = tile.shfl(static_cast<int>(block.thread_rank()), 0);
}
static const int block_sync_line = __LINE__ - 3, tile_shfl_line = __LINE__ - 2;

TEST_CASE("tile-shfl-against-syncthreads" * doctest::test_suite("emulator-only")) {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, 128 * sizeof(int)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    tile_shfl_against_block_sync<<<1, 128>>>(d);
    std::string report = capture.finish();
    CHECK(contains(report, "cuemu: thread_block_tile<64>::shfl() not reached by every thread of the tile"));
    CHECK(contains(report, "thread (64,0,0) waits in thread_block_tile<64>::shfl() at " + at(tile_shfl_line) +
                               " (its tile: threads (64,0,0) to (127,0,0)), but thread (70,0,0) waits at the "
                               "__syncthreads() at " + at(block_sync_line)));
    CHECK(contains(report, "elsewhere:     1 thread: (70,0,0)"));
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
}

// A block of 96 threads has one whole tile of 64; the second has warp 2 and
// lacks warp 3, which its barrier waits for: an H200 hung in tiled_partition.
__global__ void tile_lacking_a_warp(int* data) {
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cg::this_thread_block());
    tile.sync();
    data[threadIdx.x] = static_cast<int>(tile.thread_rank());
}
static const int tile_lacking_a_warp_line = __LINE__ - 4;

TEST_CASE("tile-not-filled" * doctest::test_suite("emulator-only")) {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, 96 * sizeof(int)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    tile_lacking_a_warp<<<1, 96>>>(d);
    std::string report = capture.finish();
    CHECK(contains(report, "cuemu: a multi-warp tile with whole warps past the end of the block"));
    CHECK(contains(report, "thread (64,0,0) called it at " + at(tile_lacking_a_warp_line)));
    CHECK(contains(report, "the block has 96 threads (warps 0 to 2), so its thread_block_tile<64> of thread "
                           "ranks 64 to 127\n  (warps 2 to 3) lacks warp 3 entirely"));
    CHECK(contains(report, "a warp the\n  block does not have never arrives: the kernel hangs"));
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
}

// Blocks of odd sizes whose last tile lacks whole warps: big_tile_ranks stops
// where it makes that tile.
TEST_CASE("tile-128-lacks-a-warp" * doctest::test_suite("emulator-only")) {
    stderr_capture capture(capture_until::device_idle);
    check_ranks_stops<128>(dim3(10, 7, 3));  // 210 threads: warps 0 to 6
    std::string report = capture.finish();
    CHECK(contains(report, "thread (8,5,1) called it at " + at(big_tile_ranks_line)));
    CHECK(contains(report, "the block has 210 threads (warps 0 to 6), so its thread_block_tile<128> of thread "
                           "ranks 128 to 255\n  (warps 4 to 7) lacks warp 7 entirely"));
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
}

TEST_CASE("tile-256-lacks-warps" * doctest::test_suite("emulator-only")) {
    stderr_capture capture(capture_until::device_idle);
    check_ranks_stops<256>(dim3(13, 31));  // 403 threads: warps 0 to 12
    std::string report = capture.finish();
    CHECK(contains(report, "thread (9,19,0) called it at " + at(big_tile_ranks_line)));
    CHECK(contains(report, "the block has 403 threads (warps 0 to 12), so its thread_block_tile<256> of thread "
                           "ranks 256 to 511\n  (warps 8 to 15) lacks warps 13 to 15 entirely"));
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
}

// A scratch for blocks of up to 64 threads, in a block of 128.
__global__ void scratch_too_small(int* data) {
    __shared__ cg::block_tile_memory<64> scratch;
    cg::thread_block block = cg::this_thread_block(scratch);
    data[block.thread_rank()] = static_cast<int>(cg::tiled_partition<64>(block).thread_rank());
}
static const int scratch_line = __LINE__ - 3;

TEST_CASE("scratch-too-small" * doctest::test_suite("emulator-only")) {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, 128 * sizeof(int)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    scratch_too_small<<<1, 128>>>(d);
    std::string report = capture.finish();
    CHECK(contains(report, "cuemu: this_thread_block(scratch) in a block larger than the scratch's MaxBlockSize"));
    CHECK(contains(report, "thread (0,0,0) called it at " + at(scratch_line)));
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
}

// A tile's sync() orders the tile's threads only: the second tile reads what
// the first one wrote before its own sync(), with nothing between for the
// second tile (it needed block.sync()).
__global__ void tile_sync_is_not_block_sync(int* out) {
    __shared__ int stage[128];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
    const unsigned t = block.thread_rank();
    stage[t] = static_cast<int>(t);
    tile.sync();
    if (tile.meta_group_rank() == 1) out[t] = stage[t ^ 64];
}
static const int other_tile_write_line = __LINE__ - 4, other_tile_read_line = __LINE__ - 2;

// In forward order the tile's last thread to arrive at its sync() goes on first.
TEST_CASE("race-across-tiles" * doctest::test_suite("emulator-only")) {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, 128 * sizeof(int)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    tile_sync_is_not_block_sync<<<1, 128>>>(d);
    std::string report = capture.finish();
    CHECK(contains(report, "cuemu: race on shared memory"));
    CHECK(contains(report, "write by thread (63,0,0) at " + at(other_tile_write_line)));
    CHECK(contains(report, "read  by thread (127,0,0) at " + at(other_tile_read_line)));
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
}
