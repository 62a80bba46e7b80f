// test_async_copy.cu - <cuda_pipeline.h>'s primitives and
// cooperative_groups::memcpy_async on the emulator (common/emu/include:
// cuda_pipeline_primitives.h, cooperative_groups/memcpy_async.h).
//
//   copy:*  the samples' patterns against CPU loops: a tile staged into
//           shared memory a word per thread (with zero fill), in 16-byte
//           pieces, double-buffered by stages, and by whole groups (a block,
//           tiles of 8) with byte and element counts. These also run under
//           CUEMU_CHECK=race, where they must give no report.
//   race:*  a thread reads what another copied before the barrier or wait
//           that orders it: under CUEMU_CHECK=race, one report naming the
//           read and the copy's line (a process each: the error is sticky).
// Genuine CUDA: it also compiles with nvcc (emu_tests_nvcc_compile_check).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "device_buffer.h"
#include "stderr_capture.h"
#include "tile_race_report.h"

namespace cg = cooperative_groups;

namespace {

constexpr int kBlock = 96;  // three warps; the sizes below are not multiples of it

std::vector<int> numbers(int n) {
    std::vector<int> v(n);
    for (int i = 0; i < n; ++i) v[i] = (i * 7919 + 13) % 10007 - 5000;
    return v;
}

// Each thread stages one word, the last thread's zero-filled; after the wait
// and a barrier every thread reads its neighbour's.
__global__ void neighbours_through_pipeline(const int* in, int* out) {
    __shared__ __align__(16) int tile[kBlock];
    const int t = threadIdx.x;
    __pipeline_memcpy_async(&tile[t], &in[blockIdx.x * kBlock + t], sizeof(int), t == kBlock - 1 ? sizeof(int) : 0);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * kBlock + t] = tile[(t + 1) % kBlock];
}

// Two stages in flight: stage s + 1 is issued before stage s is waited for,
// each thread copying 16 bytes (four ints) per stage.
__global__ void sum_by_stages(const int4* in, int stages, int* out) {
    __shared__ __align__(16) int4 buffer[2][kBlock];
    const int t = threadIdx.x;
    __pipeline_memcpy_async(&buffer[0][t], &in[t], sizeof(int4));
    __pipeline_commit();
    int total = 0;
    for (int s = 0; s < stages; ++s) {
        if (s + 1 < stages) __pipeline_memcpy_async(&buffer[(s + 1) % 2][t], &in[(s + 1) * kBlock + t], sizeof(int4));
        __pipeline_commit();  // an empty batch on the last stage keeps the count
        __pipeline_wait_prior(1);
        __syncthreads();
        const int4 v = buffer[s % 2][(t + 5) % kBlock];  // another thread's copy
        total += v.x + v.y + v.z + v.w;
        __syncthreads();  // before the buffer is refilled
    }
    out[t] = total;
}

// A whole block copies a tile of n ints (bytes), reverses it through shared
// memory; tiles of 8 copy their own slices (element counts).
template <int N>
__global__ void group_copies(const int* in, int* reversed, int* by_tiles) {
    __shared__ __align__(16) int tile[N];
    __shared__ __align__(16) int slices[N];
    auto block = cg::this_thread_block();
    cg::memcpy_async(block, tile, in, sizeof(int) * N);
    auto tile8 = cg::tiled_partition<8>(block);
    const int per_tile = N / (kBlock / 8);
    const int first = static_cast<int>(tile8.meta_group_rank()) * per_tile;
    cg::memcpy_async(tile8, slices + first, static_cast<size_t>(per_tile), in + first, static_cast<size_t>(N));
    cg::wait(block);
    for (int i = threadIdx.x; i < N; i += kBlock) reversed[i] = tile[N - 1 - i];
    cg::wait_prior<0>(tile8);
    for (int i = static_cast<int>(tile8.thread_rank()); i < per_tile; i += 8) by_tiles[first + i] = slices[first + i];
}

TEST_CASE("copy:word-per-thread-with-zero-fill") {
    const int blocks = 3, n = blocks * kBlock;
    const std::vector<int> h = numbers(n);
    device_buffer<int> in(n), out(n);
    in.write(h);
    neighbours_through_pipeline<<<blocks, kBlock>>>(in.ptr, out.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> got = out.read();
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < kBlock; ++t) {
            const int from = (t + 1) % kBlock;
            CHECK(got[b * kBlock + t] == (from == kBlock - 1 ? 0 : h[b * kBlock + from]));
        }
}

TEST_CASE("copy:two-stages-of-16-bytes") {
    const int stages = 7;
    const std::vector<int> h = numbers(stages * kBlock * 4);
    device_buffer<int> in(static_cast<int>(h.size())), out(kBlock);
    in.write(h);
    sum_by_stages<<<1, kBlock>>>(reinterpret_cast<const int4*>(in.ptr), stages, out.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> got = out.read();
    for (int t = 0; t < kBlock; ++t) {
        int expected = 0;
        for (int s = 0; s < stages; ++s)
            for (int k = 0; k < 4; ++k) expected += h[(s * kBlock + (t + 5) % kBlock) * 4 + k];
        CHECK(got[t] == expected);
    }
}

TEST_CASE("copy:groups") {
    constexpr int n = 12 * 37;  // 12 tiles of 8 in the block, 37 ints each
    const std::vector<int> h = numbers(n);
    device_buffer<int> in(n), reversed(n), by_tiles(n);
    in.write(h);
    group_copies<n><<<1, kBlock>>>(in.ptr, reversed.ptr, by_tiles.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> r = reversed.read(), s = by_tiles.read();
    for (int i = 0; i < n; ++i) {
        CHECK(r[i] == h[n - 1 - i]);
        CHECK(s[i] == h[i]);
    }
}

#ifdef CUEMU
// ---- races the check must see (CUEMU_CHECK=race, a process each) -----------------------
// Waiting for one's own copies is not enough: the neighbour's word is read
// with no barrier after its copy.
__global__ void read_neighbour_without_barrier(const int* in, int* out) {
    __shared__ __align__(16) int tile[kBlock];
    const int t = threadIdx.x;
    __pipeline_memcpy_async(&tile[t], &in[t], sizeof(int));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[t] = tile[(t + 1) % kBlock];
}
constexpr int pipeline_read_line = __LINE__ - 2;
constexpr int pipeline_copy_line = __LINE__ - 6;

// The group's copy is read before cg::wait().
__global__ void read_group_copy_before_wait(const int* in, int* out) {
    __shared__ __align__(16) int tile[kBlock];
    auto block = cg::this_thread_block();
    cg::memcpy_async(block, tile, in, sizeof(int) * kBlock);
    const int early = tile[(threadIdx.x + 1) % kBlock];
    cg::wait(block);
    out[threadIdx.x] = early;
}
constexpr int group_read_line = __LINE__ - 4;
constexpr int group_copy_line = __LINE__ - 6;

TEST_CASE("race:pipeline-read-without-barrier") {
    // The report names the neighbour's read and the copy in __pipeline_memcpy_async.
    check_tile_race(read_neighbour_without_barrier, kBlock, "test_async_copy.cu", pipeline_read_line,
                    pipeline_copy_line);
}

TEST_CASE("race:group-copy-read-before-wait") {
    // The copy's write is named at the cg::memcpy_async call, the member's share.
    check_tile_race(read_group_copy_before_wait, kBlock, "test_async_copy.cu", group_read_line,
                    group_copy_line);
}
#endif

}  // namespace
