// test_split_shuffles.cu - kernels with warp shuffles that the emulator runs
// as loops over each block's threads, cut at the shuffles (rewriter/
// split_shuffle.cpp, cuemu/split_block.h), where the race check leaves a
// launch out (CUEMU_CHECK=none here). Each result is checked against the
// CUDA rule worked out on the host, and the same cases run with CUEMU_SPLIT=0
// (every block on fibers): both paths must give these answers. A block with a
// partial warp is left to the fibers; kernels the rewriter must not cut (a
// mask it cannot read, a value that changes something, an atomic) still run
// right, and so does a block the split version declines (a partial warp, an
// if that splits a warp, calls of an order-sensitive function by several
// threads).
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_check.h"
#include "device_buffer.h"

#include "split_counts.h"

#define FULL_WARP 0xffffffffu

// ---- kernels ---------------------------------------------------------------------
// Every kind of shuffle, with widths 32, 16 and 8, one output each.
__global__ void shuffle_kinds(const int* in, int* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int down = __shfl_down_sync(0xffffffffu, v, 3);
    int up = __shfl_up_sync(0xffffffff, v, 5, 16);
    int x = __shfl_xor_sync(~0u, v, 6, 8);
    int idx = __shfl_sync(0xFFFFFFFFU, v + 1, (threadIdx.x * 7) % 32, 16);
    int wide = __shfl_sync(0xffffffffu, v, 40);  // srcLane wraps within the warp
    out[5 * i] = down;
    out[5 * i + 1] = up;
    out[5 * i + 2] = x;
    out[5 * i + 3] = idx;
    out[5 * i + 4] = wide;
}

// A butterfly sum in segments of 16 lanes, floats in a loop the same for
// every thread, its body one statement without braces.
__global__ void segment_sums(const float* in, float* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    for (int offset = 8; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset, 16);
    out[i] = v;
}

// A block's sum: each warp's by shuffles, then the warps' sums through
// shared memory, added by shuffles again; doubles, 8 bytes a value.
__global__ void block_sums(const double* in, double* sums) {
    __shared__ double warp_sums[32];
    const unsigned tid = threadIdx.x;
    double v = in[blockIdx.x * blockDim.x + tid];
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    if (tid % 32 == 0) warp_sums[tid / 32] = v;
    __syncthreads();
    double w = tid < blockDim.x / 32 ? warp_sums[tid] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) w += __shfl_down_sync(0xffffffffu, w, offset);
    if (tid == 0) sums[blockIdx.x] = w;
}

// Lanes 20 to 31 of each warp return first: a shuffle from them gives all
// one bits in the emulator (undefined on a GPU).
__global__ void some_lanes_exit(const int* in, int* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 7;
    if (threadIdx.x % 32 >= 20) return;
    int v = in[i];
    int got = __shfl_down_sync(0xffffffffu, v, 16);
    out[i] = got;
}

// Kept on fibers: a mask from memory, a value with a side effect, an atomic.
__global__ void mask_from_memory(const unsigned* mask, int* data) {
    int v = data[threadIdx.x];
    int got = __shfl_xor_sync(mask[0], v, 1);
    data[threadIdx.x] = got;
}
__global__ void value_with_effect(int* data) {
    int v = data[threadIdx.x];
    int got = __shfl_xor_sync(0xffffffffu, v++, 1);
    data[threadIdx.x] = got + v;
}
__global__ void atomic_after_shuffle(const int* in, int* total) {
    int v = in[threadIdx.x];
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    atomicAdd(total, v);
}

// tools/emu-speed.cu's reduction: warp sums by shuffles, then the first warp
// adds the warps' sums (an if the same for each warp's lanes), and thread 0
// alone adds the block's sum to the total (one thread: split).
constexpr int kWarp = 32;
__device__ int warp_sum(int v) {
    for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}
__global__ void sum_reduction(const int* x, int n, int* total) {
    __shared__ int warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
    int v = warp_sum(i < n ? x[i] : 0);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < static_cast<int>(blockDim.x) / kWarp ? warp_sums[lane] : 0);
        if (lane == 0) atomicAdd(total, v);
    }
}
// Each warp's lane 0 adds its warp's sum: calls by more than one thread of
// the block, whose order the fiber path decides: those blocks run on fibers.
__global__ void warp_totals(const int* x, int* total) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % 32;
    int v = x[i];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    if (lane == 0) atomicAdd(total, v);
}
// An if around shuffles whose condition splits a warp: the split version
// declines such a block (the fiber path runs it).
__global__ void half_warp_branch(const int* in, int* out) {
    const unsigned tid = threadIdx.x;
    int v = in[tid];
    if (tid % 32 < 16) {
        v += __shfl_xor_sync(0xffffffff, v, 1, 16);
    }
    out[tid] = v;
}
// Lesson 12's last warp: the condition of tid only, and a uniform loop inside.
__global__ void last_warp(const float* x, float* sums) {
    const int tid = threadIdx.x;
    float v = x[blockIdx.x * blockDim.x + tid];
    if (tid < kWarp) {
        for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (tid == 0) sums[blockIdx.x] = v;
    }
}

// Votes and __syncwarp: each warp's ballot of its lanes' signs, whether any
// or all pass, and a neighbour's value through shared memory after the warp
// has synchronized. Lanes 28 to 31 of the last warp return first where
// `early` is set (they take no part in the votes: emulator-only).
__global__ void votes(const int* in, int* out, int early) {
    __shared__ int s[128];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (early && threadIdx.x >= blockDim.x - 4) return;
    int v = in[i];
    unsigned b = __ballot_sync(0xffffffffu, v > 0);
    int any = __any_sync(0xffffffff, v > 900000);
    int all = __all_sync(~0u, v > -900000);
    s[threadIdx.x] = v;
    __syncwarp();
    out[4 * i] = static_cast<int>(b);
    out[4 * i + 1] = any;
    out[4 * i + 2] = all;
    out[4 * i + 3] = s[threadIdx.x ^ 1];
}

// ---- the host's answers ----------------------------------------------------------
using namespace split_counts;

namespace {
enum class op { idx, up, down, xor_ };
// CUDA's rule for a whole warp: the source lane of each lane, or its own
// value where the source is outside its segment of `width` lanes.
template <class T>
std::vector<T> host_shuffle(const std::vector<T>& warp, op o, const std::vector<int>& param, int width) {
    std::vector<T> got(32);
    for (int lane = 0; lane < 32; ++lane) {
        const int base = lane / width * width;
        int source = lane;
        switch (o) {
            case op::idx: source = base + (param[lane] % width + width) % width; break;
            case op::up: source = lane - param[lane] >= base ? lane - param[lane] : lane; break;
            case op::down: source = lane + param[lane] < base + width ? lane + param[lane] : lane; break;
            case op::xor_: source = (lane ^ param[lane]) < base + width ? lane ^ param[lane] : lane; break;
        }
        got[lane] = warp[source];
    }
    return got;
}
std::vector<int> same(int p) { return std::vector<int>(32, p); }
// A warp's values after `v += __shfl_down_sync(~0u, v, offset)` for offsets
// 16, 8, 4, 2, 1: lane 0 holds the warp's sum, in the tree's order.
template <class T>
std::vector<T> down_tree(std::vector<T> v) {
    for (int offset = 16; offset > 0; offset /= 2) {
        std::vector<T> next(v);
        for (int l = 0; l < 32; ++l) next[l] = v[l] + v[l + offset < 32 ? l + offset : l];
        v = next;
    }
    return v;
}

}  // namespace

TEST_SUITE("split blocks: shuffles") {

TEST_CASE("down, up, xor and idx shuffles of widths 32, 16 and 8, in a block of 96") {
    const int n = 96;
    std::vector<int> in = random_ints(n);
    device_buffer<int> d_in(n), d_out(5 * n);
    d_in.write(in);
    const long long before = split_blocks();
    shuffle_kinds<<<1, n>>>(d_in.ptr, d_out.ptr);
    CUDA_CHECK(cudaGetLastError());
    const std::vector<int> out = d_out.read();
    for (int w = 0; w < n / 32; ++w) {
        std::vector<int> warp(in.begin() + 32 * w, in.begin() + 32 * w + 32), plus_one(warp), lanes(32);
        for (int l = 0; l < 32; ++l) {
            plus_one[l] += 1;
            lanes[l] = (l * 7) % 32;
        }
        const std::vector<int> down = host_shuffle(warp, op::down, same(3), 32),
                               up = host_shuffle(warp, op::up, same(5), 16),
                               x = host_shuffle(warp, op::xor_, same(6), 8),
                               idx = host_shuffle(plus_one, op::idx, lanes, 16),
                               wide = host_shuffle(warp, op::idx, same(40), 32);
        for (int l = 0; l < 32; ++l) {
            const int i = 32 * w + l;
            CHECK(out[5 * i] == down[l]);
            CHECK(out[5 * i + 1] == up[l]);
            CHECK(out[5 * i + 2] == x[l]);
            CHECK(out[5 * i + 3] == idx[l]);
            CHECK(out[5 * i + 4] == wide[l]);
        }
    }
    check_split(before, 1);
}

TEST_CASE("a butterfly sum of floats in segments of 16, in blocks of 96 (split) and 80 (fibers)") {
    for (const int block : {96, 80}) {
        CAPTURE(block);
        const int blocks = 3, n = block * blocks;
        std::vector<float> in(n);
        for (int i = 0; i < n; ++i) in[i] = static_cast<float>((i * 37) % 101) * 0.37f - 11.0f;
        device_buffer<float> d_in(n), d_out(n);
        d_in.write(in);
        const long long before = split_blocks();
        segment_sums<<<blocks, block>>>(d_in.ptr, d_out.ptr);
        CUDA_CHECK(cudaGetLastError());
        const std::vector<float> out = d_out.read();
        // Each warp's lanes, or the 16 lanes of a partial last warp, in
        // segments of 16: the butterfly as each lane adds it.
        for (int s = 0; s < n / 16; ++s) {
            std::vector<float> v(in.begin() + 16 * s, in.begin() + 16 * s + 16);
            for (int offset = 8; offset > 0; offset /= 2) {
                std::vector<float> next(16);
                for (int l = 0; l < 16; ++l) next[l] = v[l] + v[l ^ offset];
                v = next;
            }
            for (int l = 0; l < 16; ++l) CHECK(out[16 * s + l] == v[l]);
        }
        // A block of 80 has a partial warp: its split version declines it.
        check_split(before, block % 32 == 0 ? blocks : 0);
    }
}

TEST_CASE("a block's sum of doubles: shuffles around a __syncthreads") {
    const int block = 128, blocks = 4, n = block * blocks;
    std::vector<double> in(n);
    for (int i = 0; i < n; ++i) in[i] = static_cast<double>((i * 53) % 97) * 0.125 - 3.0;
    device_buffer<double> d_in(n), d_sums(blocks);
    d_in.write(in);
    const long long before = split_blocks();
    block_sums<<<blocks, block>>>(d_in.ptr, d_sums.ptr);
    CUDA_CHECK(cudaGetLastError());
    const std::vector<double> sums = d_sums.read();
    for (int b = 0; b < blocks; ++b) {
        // shfl_down's tree for lane 0, per warp, then over the warps' sums.
        std::vector<double> warp_sums(32, 0.0);
        for (int w = 0; w < block / 32; ++w)
            warp_sums[w] =
                down_tree(std::vector<double>(in.begin() + b * block + 32 * w, in.begin() + b * block + 32 * w + 32))[0];
        CHECK(sums[b] == down_tree(warp_sums)[0]);
    }
    check_split(before, blocks);
}

TEST_CASE("kernels with shuffles the rewriter must not cut run right on fibers") {
    std::vector<int> data = random_ints(32), expect(32);
    for (int l = 0; l < 32; ++l) expect[l] = data[l ^ 1];
    device_buffer<unsigned> d_mask(1);
    d_mask.write({FULL_WARP});
    device_buffer<int> d_data(32), d_effect(32), d_total(1);
    d_data.write(data);
    d_effect.write(data);
    d_total.write({0});
    const long long before = split_blocks();
    mask_from_memory<<<1, 32>>>(d_mask.ptr, d_data.ptr);
    value_with_effect<<<1, 32>>>(d_effect.ptr);
    std::vector<int> in = random_ints(32, -1000, 1000);
    device_buffer<int> d_in(32);
    d_in.write(in);
    atomic_after_shuffle<<<1, 32>>>(d_in.ptr, d_total.ptr);
    CUDA_CHECK(cudaGetLastError());
    CHECK(d_data.read() == expect);
    std::vector<int> effect(32);
    for (int l = 0; l < 32; ++l) effect[l] = data[l ^ 1] + data[l] + 1;
    CHECK(d_effect.read() == effect);
    int total = 0;
    for (int l = 0; l < 32; ++l) total += in[l] + in[l ^ 1];
    CHECK(d_total.read()[0] == total);
    check_none_split(before);
}

TEST_CASE("emu-speed's reduction: an if the same for each warp, one thread's atomicAdd") {
    for (const int block : {256, 96}) {
        CAPTURE(block);
        const int n = 1000, blocks = (n + block - 1) / block;
        std::vector<int> x = random_ints(n, -1000, 1000);
        long long expect = 0;
        for (int v : x) expect += v;
        device_buffer<int> d_x(n), d_total(1);
        d_x.write(x);
        d_total.write({0});
        const long long before = split_blocks();
        sum_reduction<<<blocks, block>>>(d_x.ptr, n, d_total.ptr);
        CUDA_CHECK(cudaGetLastError());
        CHECK(d_total.read()[0] == expect);
        check_split(before, blocks);
    }
}

TEST_CASE("a block where several threads call atomicAdd runs right on fibers") {
    std::vector<int> x = random_ints(128, -1000, 1000);
    long long expect = 0;
    for (int v : x) expect += v;
    device_buffer<int> d_x(128), d_total(1);
    d_x.write(x);
    d_total.write({0});
    const long long before = split_blocks();
    warp_totals<<<1, 128>>>(d_x.ptr, d_total.ptr);  // four threads call atomicAdd
    CUDA_CHECK(cudaGetLastError());
    CHECK(d_total.read()[0] == expect);
    check_none_split(before);
}

// A full-mask shuffle that half a warp skips is undefined on a GPU; the
// fiber path shuffles among the lanes that call it, and the split version
// leaves such a block to it.
TEST_CASE("an if that splits a warp: the block runs on fibers" * doctest::test_suite("emulator-only")) {
    std::vector<int> x = random_ints(64, -1000, 1000);
    device_buffer<int> d_x(64), d_out(64);
    d_x.write(x);
    const long long before = split_blocks();
    half_warp_branch<<<1, 64>>>(d_x.ptr, d_out.ptr);
    CUDA_CHECK(cudaGetLastError());
    const std::vector<int> out = d_out.read();
    for (int i = 0; i < 64; ++i) CHECK(out[i] == (i % 32 < 16 ? x[i] + x[i ^ 1] : x[i]));
    check_none_split(before);
}

TEST_CASE("lesson 12's last warp: an if of the thread's index around a loop of shuffles") {
    const int block = 64, blocks = 3;
    std::vector<float> x(block * blocks);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 29) % 31) * 0.5f - 7.0f;
    device_buffer<float> d_x(x.size()), d_sums(blocks);
    d_x.write(x);
    const long long before = split_blocks();
    last_warp<<<blocks, block>>>(d_x.ptr, d_sums.ptr);
    CUDA_CHECK(cudaGetLastError());
    const std::vector<float> sums = d_sums.read();
    for (int b = 0; b < blocks; ++b)
        CHECK(sums[b] == down_tree(std::vector<float>(x.begin() + b * block, x.begin() + b * block + 32))[0]);
    check_split(before, blocks);
}

TEST_CASE("votes and __syncwarp, in a block of 96") {
    const int n = 96;
    std::vector<int> in = random_ints(n);
    in[5] = 950000;  // one warp with a lane over 900000 at least
    device_buffer<int> d_in(n), d_out(4 * n);
    d_in.write(in);
    const long long before = split_blocks();
    votes<<<1, n>>>(d_in.ptr, d_out.ptr, 0);
    CUDA_CHECK(cudaGetLastError());
    const std::vector<int> out = d_out.read();
    for (int w = 0; w < n / 32; ++w) {
        unsigned ballot = 0;
        bool any = false, all = true;
        for (int l = 0; l < 32; ++l) {
            const int v = in[32 * w + l];
            if (v > 0) ballot |= 1u << l;
            any = any || v > 900000;
            all = all && v > -900000;
        }
        for (int l = 0; l < 32; ++l) {
            const int i = 32 * w + l;
            CHECK(static_cast<unsigned>(out[4 * i]) == ballot);
            CHECK(out[4 * i + 1] == (any ? 1 : 0));
            CHECK(out[4 * i + 2] == (all ? 1 : 0));
            CHECK(out[4 * i + 3] == in[i ^ 1]);
        }
    }
    check_split(before, 1);
}

TEST_CASE("votes leave out the lanes that returned" * doctest::test_suite("emulator-only")) {
    const int n = 64;
    std::vector<int> in = random_ints(n);
    device_buffer<int> d_in(n), d_out(4 * n);
    d_in.write(in);
    const long long before = split_blocks();
    votes<<<1, n>>>(d_in.ptr, d_out.ptr, 1);
    CUDA_CHECK(cudaGetLastError());
    const std::vector<int> out = d_out.read();
    unsigned ballot = 0;
    bool all = true;
    for (int l = 0; l < 28; ++l) {
        if (in[32 + l] > 0) ballot |= 1u << l;
        all = all && in[32 + l] > -900000;
    }
    for (int l = 0; l < 28; ++l) {
        CHECK(static_cast<unsigned>(out[4 * (32 + l)]) == ballot);
        CHECK(out[4 * (32 + l) + 2] == (all ? 1 : 0));
    }
    check_split(before, 1);
}

// The emulator's own answer where a GPU's is undefined: the same on both paths.
TEST_CASE("a shuffle from a lane that returned gives all one bits" * doctest::test_suite("emulator-only")) {
    const int n = 64;
    std::vector<int> in = random_ints(n);
    device_buffer<int> d_in(n), d_out(n);
    d_in.write(in);
    const long long before = split_blocks();
    some_lanes_exit<<<1, n>>>(d_in.ptr, d_out.ptr);
    CUDA_CHECK(cudaGetLastError());
    const std::vector<int> out = d_out.read();
    for (int i = 0; i < n; ++i) {
        const int lane = i % 32;
        CAPTURE(i);
        if (lane >= 20) CHECK(out[i] == 7);
        else if (lane < 4) CHECK(out[i] == in[i + 16]);
        else if (lane < 16) CHECK(out[i] == -1);
        else CHECK(out[i] == in[i]);
    }
    check_split(before, 1);
}

}  // TEST_SUITE
