// test_cub.cu - CUB on the emulator (common/emu/cub, README "CUB"): the
// block and warp primitives inside hand-written kernels, with TempStorage in
// __shared__ memory, and the device-wide algorithms with the two-call
// temporary-storage protocol, each against a plain CPU loop at sizes that are
// not multiples of anything, with block sizes of a whole number of warps, a
// partial warp (48) and a 2D block (8 x 12).
//
//   block:*, warp:*, device:*  results against loops.
//   race:reuse-without-barrier  a kernel that reuses BlockReduce's
//               TempStorage with no __syncthreads() in between: under
//               CUEMU_CHECK=race, a race report (its own process).
//   The other cases also run under CUEMU_CHECK=race (emu.cub.race-clean),
//   where the correct kernels must give no report.
// Genuine CUB code: it also compiles with nvcc (emu_tests_nvcc_compile_check).
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cub/cub.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "device_buffer.h"
#include "stderr_capture.h"

namespace {

struct max_op {
    template <typename T>
    __host__ __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct plus_op {
    template <typename T>
    __host__ __device__ T operator()(const T& a, const T& b) const { return a + b; }
};

template <typename T>
std::vector<T> random_values(int n, int lo = -1000, int hi = 1000) {
    std::vector<int> ints = random_ints(n, lo, hi);
    return std::vector<T>(ints.begin(), ints.end());  // floats hold small integers exactly
}

// ---- BlockReduce ------------------------------------------------------------
// Per block: the sum, the maximum (an operator), the sum of the block's valid
// items (the last block is partial) and the sum of 3 items per thread.
template <typename T, int BX, int BY>
__global__ void block_reduce_kernel(const T* in, int n, T* sums, T* maxima, T* valid_sums, T* triple_sums) {
    using Reduce = cub::BlockReduce<T, BX, cub::BLOCK_REDUCE_WARP_REDUCTIONS, BY>;
    __shared__ typename Reduce::TempStorage temp;
    const int tid = threadIdx.x + threadIdx.y * BX, threads = BX * BY;
    const int base = blockIdx.x * threads;
    const int i = base + tid;
    const T x = i < n ? in[i] : T(0);
    const T sum = Reduce(temp).Sum(x);
    __syncthreads();
    const T biggest = Reduce(temp).Reduce(i < n ? in[i] : in[base], max_op());
    __syncthreads();
    const T valid = Reduce(temp).Sum(x, n - base);
    __syncthreads();
    T three[3];
    for (int k = 0; k < 3; ++k) three[k] = static_cast<T>(x * static_cast<T>(k + 1));
    const T triple = Reduce(temp).Sum(three);
    if (tid == 0) {
        sums[blockIdx.x] = sum;
        maxima[blockIdx.x] = biggest;
        valid_sums[blockIdx.x] = valid;
        triple_sums[blockIdx.x] = triple;
    }
}

template <typename T, int BX, int BY>
void check_block_reduce(int n) {
    const int threads = BX * BY, blocks = (n + threads - 1) / threads;
    const std::vector<T> h = random_values<T>(n);
    device_buffer<T> in(n), sums(blocks), maxima(blocks), valid(blocks), triple(blocks);
    in.write(h);
    block_reduce_kernel<T, BX, BY><<<blocks, dim3(BX, BY)>>>(in.ptr, n, sums.ptr, maxima.ptr, valid.ptr, triple.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    const std::vector<T> s = sums.read(), m = maxima.read(), v = valid.read(), t = triple.read();
    for (int b = 0; b < blocks; ++b) {
        T sum = 0, biggest = h[b * threads];
        for (int i = b * threads; i < std::min(n, (b + 1) * threads); ++i) {
            sum += h[i];
            biggest = std::max(biggest, h[i]);
        }
        CHECK(s[b] == sum);
        CHECK(m[b] == biggest);
        CHECK(v[b] == sum);
        CHECK(t[b] == static_cast<T>(6 * sum));
    }
}

TEST_CASE("block:reduce") {
    for (int n : {1, 37, 1000}) {
        CAPTURE(n);
        check_block_reduce<int, 128, 1>(n);
        check_block_reduce<int, 48, 1>(n);
        check_block_reduce<float, 8, 12>(n);
    }
}

// ---- BlockScan --------------------------------------------------------------
// The running total of a sequence carried from tile to tile by one block.
struct running_prefix {
    int total;
    __device__ int operator()(int tile_aggregate) {
        const int before = total;
        total += tile_aggregate;
        return before;
    }
};

template <typename T, int BX, int BY>
__global__ void block_scan_kernel(const T* in, int n, T* exclusive, T* inclusive_max, T* aggregates, T* triple_inclusive) {
    using Scan = cub::BlockScan<T, BX, cub::BLOCK_SCAN_RAKING, BY>;
    __shared__ typename Scan::TempStorage temp;
    const int tid = threadIdx.x + threadIdx.y * BX, threads = BX * BY;
    const int i = blockIdx.x * threads + tid;
    const T x = i < n ? in[i] : T(0);
    T out, aggregate;
    Scan(temp).ExclusiveSum(x, out, aggregate);
    if (i < n) exclusive[i] = out;
    if (tid == 0) aggregates[blockIdx.x] = aggregate;
    __syncthreads();
    Scan(temp).InclusiveScan(x, out, max_op());
    if (i < n) inclusive_max[i] = out;
    __syncthreads();
    T items[3], sums[3];
    for (int k = 0; k < 3; ++k) items[k] = (3 * i + k) < 3 * n ? in[(3 * i + k) % n] : T(0);
    Scan(temp).InclusiveSum(items, sums);
    for (int k = 0; k < 3; ++k)
        if (3 * i + k < 3 * n) triple_inclusive[3 * i + k] = sums[k];
}

// One block walks the whole input tile by tile with a prefix callback, and
// also ExclusiveScan with an initial value.
template <int BLOCK>
__global__ void tiled_scan_kernel(const int* in, int n, int* running, int* seeded) {
    using Scan = cub::BlockScan<int, BLOCK>;
    __shared__ typename Scan::TempStorage temp;
    running_prefix prefix{0};
    for (int base = 0; base < n; base += BLOCK) {
        const int i = base + static_cast<int>(threadIdx.x);
        const int x = i < n ? in[i] : 0;
        int out;
        Scan(temp).ExclusiveScan(x, out, plus_op(), prefix);
        if (i < n) running[i] = out;
        __syncthreads();
        Scan(temp).ExclusiveScan(x, out, 100, plus_op());
        if (i < n) seeded[i] = out;
        __syncthreads();
    }
}

template <typename T, int BX, int BY>
void check_block_scan(int n) {
    const int threads = BX * BY, blocks = (n + threads - 1) / threads;
    const std::vector<T> h = random_values<T>(n);
    device_buffer<T> in(n), excl(n), incl_max(n), aggregates(blocks), triple(3 * n);
    in.write(h);
    block_scan_kernel<T, BX, BY><<<blocks, dim3(BX, BY)>>>(in.ptr, n, excl.ptr, incl_max.ptr, aggregates.ptr, triple.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    const std::vector<T> e = excl.read(), im = incl_max.read(), a = aggregates.read(), t = triple.read();
    for (int b = 0; b < blocks; ++b) {
        T sum = 0, biggest = 0;
        for (int i = b * threads; i < std::min(n, (b + 1) * threads); ++i) {
            CHECK(e[i] == sum);
            sum += h[i];
            biggest = i == b * threads ? h[i] : std::max(biggest, h[i]);
            CHECK(im[i] == biggest);
        }
        CHECK(a[b] == sum);
        T triple_sum = 0;
        for (int j = b * threads * 3; j < std::min(3 * n, (b + 1) * threads * 3); ++j) {
            triple_sum += h[j % n];
            CHECK(t[j] == triple_sum);
        }
    }
}

TEST_CASE("block:scan") {
    for (int n : {1, 37, 1000}) {
        CAPTURE(n);
        check_block_scan<int, 128, 1>(n);
        check_block_scan<int, 48, 1>(n);
        check_block_scan<float, 8, 12>(n);
        const std::vector<int> h = random_ints(n, -1000, 1000);
        device_buffer<int> in(n), running(n), seeded(n);
        in.write(h);
        tiled_scan_kernel<96><<<1, 96>>>(in.ptr, n, running.ptr, seeded.ptr);
        const std::vector<int> r = running.read(), s = seeded.read();
        int total = 0;
        for (int i = 0; i < n; ++i) {
            CHECK(r[i] == total);
            total += h[i];
        }
        for (int base = 0; base < n; base += 96) {
            int tile = 100;
            for (int i = base; i < std::min(n, base + 96); ++i) {
                CHECK(s[i] == tile);
                tile += h[i];
            }
        }
    }
}

// ---- the other forms: default-constructed primitives (their own TempStorage),
// ExclusiveScan without an initial value, prefix callbacks on sums, WarpScan's
// Scan and Broadcast.
__global__ void other_forms_kernel(const int* in, int* block_sum, int* exclusive_max, int* callback_sums,
                                   int* warp_inclusive, int* warp_exclusive, int* broadcast) {
    const int t = threadIdx.x, x = in[t];
    const int sum = cub::BlockReduce<int, 64>().Sum(x);
    if (t == 0) *block_sum = sum;
    int out = -1;
    cub::BlockScan<int, 64>().ExclusiveScan(x, out, max_op());
    if (t > 0) exclusive_max[t] = out;  // thread 0's is undefined in CUB
    __syncthreads();
    running_prefix prefix{1000};
    cub::BlockScan<int, 64>().InclusiveSum(x, out, prefix);
    callback_sums[t] = out;
    using WarpScan = cub::WarpScan<int, 8>;
    __shared__ typename WarpScan::TempStorage warp_temp[8];
    int inclusive, exclusive = -1;
    WarpScan(warp_temp[t / 8]).Scan(x, inclusive, exclusive, 5, plus_op());
    warp_inclusive[t] = inclusive;
    warp_exclusive[t] = exclusive;
    broadcast[t] = WarpScan(warp_temp[t / 8]).Broadcast(x, 3);
}

TEST_CASE("block:other-forms") {
    const std::vector<int> h = random_ints(64, -1000, 1000);
    device_buffer<int> in(64), sum(1), excl_max(64), callback(64), w_incl(64), w_excl(64), bcast(64);
    in.write(h);
    other_forms_kernel<<<1, 64>>>(in.ptr, sum.ptr, excl_max.ptr, callback.ptr, w_incl.ptr, w_excl.ptr, bcast.ptr);
    const std::vector<int> e = excl_max.read(), c = callback.read(), wi = w_incl.read(), we = w_excl.read(),
                           b = bcast.read();
    int total = 0, biggest = h[0];
    for (int t = 0; t < 64; ++t) {
        if (t > 0) CHECK(e[t] == biggest);
        biggest = std::max(biggest, h[t]);
        total += h[t];
        CHECK(c[t] == 1000 + total);
        int in_group = 5;  // logical warps of 8 lanes, seeded with 5
        for (int l = t / 8 * 8; l < t; ++l) in_group += h[l];
        CHECK(we[t] == in_group);
        CHECK(wi[t] == in_group + h[t]);
        CHECK(b[t] == h[t / 8 * 8 + 3]);
    }
    CHECK(sum.read()[0] == total);
}

// ---- WarpReduce, WarpScan ----------------------------------------------------
// Per logical warp of 16: the maximum of its first 10 lanes; per warp of 32:
// the sum; per thread: the exclusive sum and inclusive maximum in its warp.
__global__ void warp_kernel(const int* in, int* warp_sums, int* half_maxima, int* exclusive, int* inclusive_max) {
    using Reduce32 = cub::WarpReduce<int>;
    using Reduce16 = cub::WarpReduce<int, 16>;
    using Scan = cub::WarpScan<int>;
    __shared__ typename Reduce32::TempStorage reduce32[2];
    __shared__ typename Reduce16::TempStorage reduce16[4];
    __shared__ typename Scan::TempStorage scan[2];
    const int t = threadIdx.x, warp = t / 32, half = t / 16;
    const int x = in[t];
    const int sum = Reduce32(reduce32[warp]).Sum(x);
    if (t % 32 == 0) warp_sums[warp] = sum;
    const int biggest = Reduce16(reduce16[half]).Reduce(x, max_op(), 10);
    if (t % 16 == 0) half_maxima[half] = biggest;
    int out;
    Scan(scan[warp]).ExclusiveSum(x, out);
    exclusive[t] = out;
    Scan(scan[warp]).InclusiveScan(x, out, max_op());
    inclusive_max[t] = out;
}

TEST_CASE("warp:reduce-and-scan") {
    const std::vector<int> h = random_ints(64, -1000, 1000);
    device_buffer<int> in(64), sums(2), maxima(4), excl(64), incl(64);
    in.write(h);
    warp_kernel<<<1, 64>>>(in.ptr, sums.ptr, maxima.ptr, excl.ptr, incl.ptr);
    const std::vector<int> s = sums.read(), m = maxima.read(), e = excl.read(), im = incl.read();
    for (int w = 0; w < 2; ++w) {
        int sum = 0, biggest = h[32 * w];
        for (int l = 0; l < 32; ++l) {
            CHECK(e[32 * w + l] == sum);
            sum += h[32 * w + l];
            biggest = std::max(biggest, h[32 * w + l]);
            CHECK(im[32 * w + l] == biggest);
        }
        CHECK(s[w] == sum);
    }
    for (int q = 0; q < 4; ++q) CHECK(m[q] == *std::max_element(h.begin() + 16 * q, h.begin() + 16 * q + 10));
}

// ---- BlockLoad, BlockStore ---------------------------------------------------
// Copies in to out tile by tile through each algorithm pair (guarded: the last
// tile is partial), and records each thread's items to check the arrangement.
template <int BLOCK, cub::BlockLoadAlgorithm LOAD, cub::BlockStoreAlgorithm STORE>
__global__ void load_store_kernel(const int* in, int n, int* out, int* arranged) {
    constexpr int ITEMS = 3, TILE = BLOCK * ITEMS;
    using Load = cub::BlockLoad<int, BLOCK, ITEMS, LOAD>;
    using Store = cub::BlockStore<int, BLOCK, ITEMS, STORE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Store::TempStorage store;
    } temp;
    const int base = blockIdx.x * TILE, valid = n - base < TILE ? n - base : TILE;
    int items[ITEMS];
    Load(temp.load).Load(in + base, items, valid, -7);
    for (int k = 0; k < ITEMS; ++k) arranged[base + threadIdx.x * ITEMS + k] = items[k];
    __syncthreads();
    Store(temp.store).Store(out + base, items, valid);
}

template <int BLOCK, cub::BlockLoadAlgorithm LOAD, cub::BlockStoreAlgorithm STORE>
void check_load_store(int n, bool striped) {
    constexpr int TILE = BLOCK * 3;
    const int blocks = (n + TILE - 1) / TILE;
    const std::vector<int> h = random_ints(n, -1000, 1000);
    device_buffer<int> in(n), out(n), arranged(blocks * TILE);
    in.write(h);
    load_store_kernel<BLOCK, LOAD, STORE><<<blocks, BLOCK>>>(in.ptr, n, out.ptr, arranged.ptr);
    CHECK(out.read() == h);
    const std::vector<int> a = arranged.read();
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < BLOCK; ++t)
            for (int k = 0; k < 3; ++k) {
                const int from = b * TILE + (striped ? k * BLOCK + t : t * 3 + k);
                CHECK(a[b * TILE + t * 3 + k] == (from < n ? h[from] : -7));
            }
}

TEST_CASE("block:load-store") {
    for (int n : {1, 37, 1000}) {
        CAPTURE(n);
        check_load_store<48, cub::BLOCK_LOAD_DIRECT, cub::BLOCK_STORE_DIRECT>(n, false);
        check_load_store<48, cub::BLOCK_LOAD_STRIPED, cub::BLOCK_STORE_STRIPED>(n, true);
        check_load_store<48, cub::BLOCK_LOAD_VECTORIZE, cub::BLOCK_STORE_VECTORIZE>(n, false);
        check_load_store<48, cub::BLOCK_LOAD_TRANSPOSE, cub::BLOCK_STORE_TRANSPOSE>(n, false);
        check_load_store<64, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE>(n, false);
    }
}

// ---- BlockRadixSort ----------------------------------------------------------
// Each block sorts its tile: keys ascending (blocked), pairs descending by
// bits [4, 12) (striped), float keys ascending.
template <int BX, int BY>
__global__ void block_sort_kernel(int* keys, int* pair_keys, int* pair_values, float* float_keys) {
    constexpr int ITEMS = 4, THREADS = BX * BY, TILE = THREADS * ITEMS;
    using Sort = cub::BlockRadixSort<int, BX, ITEMS, cub::NullType, 4, true, cub::BLOCK_SCAN_WARP_SCANS,
                                     cudaSharedMemBankSizeFourByte, BY>;
    using PairSort = cub::BlockRadixSort<int, BX, ITEMS, int, 4, true, cub::BLOCK_SCAN_WARP_SCANS,
                                         cudaSharedMemBankSizeFourByte, BY>;
    using FloatSort = cub::BlockRadixSort<float, BX, ITEMS, cub::NullType, 4, true, cub::BLOCK_SCAN_WARP_SCANS,
                                          cudaSharedMemBankSizeFourByte, BY>;
    __shared__ union {
        typename Sort::TempStorage keys;
        typename PairSort::TempStorage pairs;
    } temp;
    __shared__ typename FloatSort::TempStorage float_temp;
    const int tid = threadIdx.x + threadIdx.y * BX, base = blockIdx.x * TILE + tid * ITEMS;
    int k[ITEMS], pk[ITEMS], pv[ITEMS];
    float fk[ITEMS];
    for (int i = 0; i < ITEMS; ++i) {
        k[i] = keys[base + i];
        pk[i] = pair_keys[base + i];
        pv[i] = pair_values[base + i];
        fk[i] = float_keys[base + i];
    }
    Sort(temp.keys).Sort(k);
    __syncthreads();
    PairSort(temp.pairs).SortDescendingBlockedToStriped(pk, pv, 4, 12);
    FloatSort(float_temp).Sort(fk);
    for (int i = 0; i < ITEMS; ++i) {
        keys[base + i] = k[i];
        float_keys[base + i] = fk[i];
        const int striped = blockIdx.x * TILE + i * THREADS + tid;
        pair_keys[striped] = pk[i];
        pair_values[striped] = pv[i];
    }
}

template <int BX, int BY>
void check_block_sort() {
    constexpr int TILE = BX * BY * 4, BLOCKS = 3, N = TILE * BLOCKS;
    const std::vector<int> h = random_ints(N, -100000, 100000);
    std::vector<int> values(N);
    for (int i = 0; i < N; ++i) values[i] = i;
    const std::vector<float> hf = random_values<float>(N);
    device_buffer<int> keys(N), pair_keys(N), pair_values(N);
    device_buffer<float> float_keys(N);
    keys.write(h);
    pair_keys.write(h);
    pair_values.write(values);
    float_keys.write(hf);
    block_sort_kernel<BX, BY><<<BLOCKS, dim3(BX, BY)>>>(keys.ptr, pair_keys.ptr, pair_values.ptr, float_keys.ptr);
    const std::vector<int> k = keys.read(), pk = pair_keys.read(), pv = pair_values.read();
    const std::vector<float> fk = float_keys.read();
    for (int b = 0; b < BLOCKS; ++b) {
        std::vector<int> expect(h.begin() + b * TILE, h.begin() + (b + 1) * TILE);
        std::sort(expect.begin(), expect.end());
        CHECK(std::equal(expect.begin(), expect.end(), k.begin() + b * TILE));
        std::vector<float> expect_f(hf.begin() + b * TILE, hf.begin() + (b + 1) * TILE);
        std::sort(expect_f.begin(), expect_f.end());
        CHECK(std::equal(expect_f.begin(), expect_f.end(), fk.begin() + b * TILE));
        // Descending by bits 4..11 of the sign-flipped key, stable: the values
        // (original positions) say which key each is.
        std::vector<int> order(TILE);
        for (int i = 0; i < TILE; ++i) order[i] = b * TILE + i;
        auto digit = [&](int i) { return ((static_cast<unsigned>(h[i]) ^ 0x80000000u) >> 4) & 0xffu; };
        std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return digit(x) > digit(y); });
        for (int i = 0; i < TILE; ++i) {
            CHECK(pv[b * TILE + i] == order[i]);
            CHECK(pk[b * TILE + i] == h[order[i]]);
        }
    }
}

TEST_CASE("block:radix-sort") {
    check_block_sort<128, 1>();
    check_block_sort<48, 1>();
    check_block_sort<8, 12>();
}

// ---- the race check on TempStorage reuse --------------------------------------
// Two reductions through one TempStorage: the first one's reads of the warp
// partials race with the second one's writes unless a barrier comes between.
// Histogram() into one shared histogram; InitHistogram() and Composite()
// twice into another (so it holds every count twice), with the barriers CUB
// asks for between them.
template <int BLOCK, int ITEMS, int BINS, cub::BlockHistogramAlgorithm ALGORITHM>
__global__ void block_histogram_kernel(const unsigned char* in, unsigned* once, unsigned* twice) {
    using histogram = cub::BlockHistogram<unsigned char, BLOCK, ITEMS, BINS, ALGORITHM>;
    __shared__ typename histogram::TempStorage storage;
    __shared__ unsigned bins_once[BINS];
    __shared__ unsigned bins_twice[BINS];
    unsigned char items[ITEMS];
    for (int i = 0; i < ITEMS; ++i) items[i] = in[(blockIdx.x * BLOCK + threadIdx.x) * ITEMS + i];
    histogram(storage).Histogram(items, bins_once);
    __syncthreads();
    histogram(storage).InitHistogram(bins_twice);
    __syncthreads();
    histogram(storage).Composite(items, bins_twice);
    __syncthreads();
    histogram(storage).Composite(items, bins_twice);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += BLOCK) {
        once[blockIdx.x * BINS + b] = bins_once[b];
        twice[blockIdx.x * BINS + b] = bins_twice[b];
    }
}

template <int BLOCK, int ITEMS, int BINS, cub::BlockHistogramAlgorithm ALGORITHM>
void check_block_histogram(int blocks) {
    const int n = blocks * BLOCK * ITEMS;
    const std::vector<int> values = random_ints(n, 0, BINS - 1);
    const std::vector<unsigned char> h(values.begin(), values.end());
    device_buffer<unsigned char> in(n);
    device_buffer<unsigned> once(blocks * BINS), twice(blocks * BINS);
    in.write(h);
    block_histogram_kernel<BLOCK, ITEMS, BINS, ALGORITHM><<<blocks, BLOCK>>>(in.ptr, once.ptr, twice.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<unsigned> expected(blocks * BINS, 0);
    for (int i = 0; i < n; ++i) ++expected[i / (BLOCK * ITEMS) * BINS + h[i]];
    const std::vector<unsigned> got_once = once.read(), got_twice = twice.read();
    for (int i = 0; i < blocks * BINS; ++i) {
        CHECK(got_once[i] == expected[i]);
        CHECK(got_twice[i] == 2 * expected[i]);
    }
}

TEST_CASE("block:histogram") {
    check_block_histogram<48, 3, 37, cub::BLOCK_HISTO_SORT>(5);  // fewer bins than threads, a partial warp
    check_block_histogram<48, 3, 37, cub::BLOCK_HISTO_ATOMIC>(5);
    check_block_histogram<96, 5, 256, cub::BLOCK_HISTO_SORT>(3);  // more bins than threads
    check_block_histogram<96, 5, 256, cub::BLOCK_HISTO_ATOMIC>(3);
}

struct larger {
    __host__ __device__ int operator()(int a, int b) const { return a < b ? b : a; }
};

// Segmented warp reductions over 32-lane warps and 8-lane logical warps, the
// runs set by random flags; only each run's first lane has a defined result.
__global__ void warp_segmented_kernel(const int* in, const int* flags, int* head_sums, int* tail_maxima,
                                      int* head_sums_8) {
    using warp = cub::WarpReduce<int>;
    using warp8 = cub::WarpReduce<int, 8>;
    __shared__ typename warp::TempStorage storage[2];
    __shared__ typename warp8::TempStorage storage8[8];
    const int t = threadIdx.x;
    head_sums[t] = warp(storage[t / 32]).HeadSegmentedSum(in[t], flags[t]);
    tail_maxima[t] = warp(storage[t / 32]).TailSegmentedReduce(in[t], flags[t], larger());
    head_sums_8[t] = warp8(storage8[t / 8]).HeadSegmentedSum(in[t], flags[t]);
}

// The first lane of each run of a logical warp of `width` lanes, and the
// lane past its end, from head flags (a flag starts a run) or tail flags (a
// flag ends one).
std::vector<std::pair<int, int>> runs_of(const std::vector<int>& flags, int width, bool head_flags) {
    std::vector<std::pair<int, int>> runs;
    for (int base = 0; base < static_cast<int>(flags.size()); base += width) {
        int start = base;
        for (int lane = base; lane < base + width; ++lane) {
            const bool ends_here = head_flags ? (lane + 1 < base + width && flags[lane + 1] != 0) : flags[lane] != 0;
            if (ends_here || lane == base + width - 1) {
                runs.push_back({start, lane + 1});
                start = lane + 1;
            }
        }
    }
    return runs;
}

TEST_CASE("warp:segmented-reduce") {
    const std::vector<int> h = random_ints(64, -1000, 1000);
    std::vector<int> flags = random_ints(64, 0, 3);
    for (int& f : flags) f = f == 0 ? 1 : 0;  // about one lane in four
    device_buffer<int> in(64), flag_buffer(64), head_sums(64), tail_maxima(64), head_sums_8(64);
    in.write(h);
    flag_buffer.write(flags);
    warp_segmented_kernel<<<1, 64>>>(in.ptr, flag_buffer.ptr, head_sums.ptr, tail_maxima.ptr, head_sums_8.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> sums = head_sums.read(), maxima = tail_maxima.read(), sums8 = head_sums_8.read();
    for (auto run : runs_of(flags, 32, true))
        CHECK(sums[run.first] == std::accumulate(h.begin() + run.first, h.begin() + run.second, 0));
    for (auto run : runs_of(flags, 32, false))
        CHECK(maxima[run.first] == *std::max_element(h.begin() + run.first, h.begin() + run.second));
    for (auto run : runs_of(flags, 8, true))
        CHECK(sums8[run.first] == std::accumulate(h.begin() + run.first, h.begin() + run.second, 0));
}

template <bool BARRIER>
__global__ void reduce_twice(const int* in, int* out) {
    using Reduce = cub::BlockReduce<int, 128>;
    __shared__ typename Reduce::TempStorage temp;
    const int x = in[threadIdx.x];
    const int first = Reduce(temp).Sum(x);
    if (BARRIER) __syncthreads();
    const int second = Reduce(temp).Reduce(x, max_op());
    if (threadIdx.x == 0) {
        out[0] = first;
        out[1] = second;
    }
}
constexpr int reuse_first_call_line = __LINE__ - 8;  // the report names the program's lines
constexpr int reuse_second_call_line = __LINE__ - 7;

TEST_CASE("block:reuse-with-barrier") {
    const std::vector<int> h = random_ints(128, -1000, 1000);
    device_buffer<int> in(128), out(2);
    in.write(h);
    reduce_twice<true><<<1, 128>>>(in.ptr, out.ptr);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> r = out.read();
    int sum = 0;
    for (int x : h) sum += x;
    CHECK(r[0] == sum);
    CHECK(r[1] == *std::max_element(h.begin(), h.end()));
}

// Emulator-only: the race check's report. On an H200 the launch ended with cudaSuccess.
TEST_CASE("race:reuse-without-barrier" * doctest::test_suite("emulator-only")) {
    // Raw buffers: the sticky error the race leaves fails every later cudaFree.
    int *in = nullptr, *out = nullptr;
    REQUIRE(cudaMalloc(&in, 128 * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&out, 2 * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMemset(in, 0, 128 * sizeof(int)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    reduce_twice<false><<<1, 128>>>(in, out);
    const std::string text = capture.finish();
    CHECK(text.find("cuemu: race on shared memory (CUEMU_CHECK=race)") != std::string::npos);
    CHECK(text.find("'temp'") != std::string::npos);
    CHECK(text.find("write-after-read hazard") != std::string::npos);
    CHECK(text.find("test_cub.cu:" + std::to_string(reuse_first_call_line) + "\n") != std::string::npos);
    CHECK(text.find("test_cub.cu:" + std::to_string(reuse_second_call_line) + "\n") != std::string::npos);
    CHECK(text.find("hint: add a __syncthreads() after line " + std::to_string(reuse_first_call_line) +
                    " and before line " + std::to_string(reuse_second_call_line)) != std::string::npos);
    check_sticky(cudaErrorLaunchFailure);
}

// ---- device-wide algorithms --------------------------------------------------
const int device_sizes[] = {1, 37, 1000, 100003};

// The two-call protocol: the size, then the call with that much device memory.
template <typename Call>
cudaError_t with_temp_storage(Call call) {
    size_t bytes = 0;
    REQUIRE(call(nullptr, bytes) == cudaSuccess);
    REQUIRE(bytes > 0);
    void* temp = nullptr;
    REQUIRE(cudaMalloc(&temp, bytes) == cudaSuccess);
    const cudaError_t result = call(temp, bytes);
    CHECK(cudaFree(temp) == cudaSuccess);
    return result;
}

TEST_CASE("device:reduce") {
    for (int n : device_sizes) {
        CAPTURE(n);
        const std::vector<int> h = random_ints(n, -1000, 1000);
        const std::vector<float> hf = random_values<float>(n);
        device_buffer<int> in(n), out(5);
        device_buffer<float> in_f(n), out_f(1);
        device_buffer<cub::KeyValuePair<int, int>> arg(2);
        device_buffer<long long> index(1);
        in.write(h);
        in_f.write(hf);
        cudaStream_t stream;
        REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) { return cub::DeviceReduce::Sum(t, b, in.ptr, out.ptr, n, stream); }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) { return cub::DeviceReduce::Max(t, b, in.ptr, out.ptr + 1, n); }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) { return cub::DeviceReduce::Min(t, b, in.ptr, out.ptr + 2, n); }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceReduce::Reduce(t, b, in.ptr, out.ptr + 3, n, max_op(), -5000, stream);
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) { return cub::DeviceReduce::ArgMax(t, b, in.ptr, arg.ptr, n); }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) { return cub::DeviceReduce::ArgMin(t, b, in.ptr, arg.ptr + 1, n); }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceReduce::ArgMax(t, b, in.ptr, out.ptr + 4, index.ptr, n);
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) { return cub::DeviceReduce::Sum(t, b, in_f.ptr, out_f.ptr, n); }) == cudaSuccess);
        CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
        CHECK(cudaStreamDestroy(stream) == cudaSuccess);
        const std::vector<int> r = out.read();
        const auto biggest = std::max_element(h.begin(), h.end()), smallest = std::min_element(h.begin(), h.end());
        long long sum = 0;
        double sum_f = 0;
        for (int i = 0; i < n; ++i) {
            sum += h[i];
            sum_f += hf[i];
        }
        CHECK(r[0] == sum);
        CHECK(r[1] == *biggest);
        CHECK(r[2] == *smallest);
        CHECK(r[3] == std::max(*biggest, -5000));
        const std::vector<cub::KeyValuePair<int, int>> a = arg.read();
        CHECK(a[0].key == biggest - h.begin());
        CHECK(a[0].value == *biggest);
        CHECK(a[1].key == smallest - h.begin());
        CHECK(a[1].value == *smallest);
        CHECK(r[4] == *biggest);
        CHECK(index.read()[0] == biggest - h.begin());
        CHECK(out_f.read()[0] == static_cast<float>(sum_f));  // small integers: exact
    }
}

TEST_CASE("device:scan") {
    for (int n : device_sizes) {
        CAPTURE(n);
        const std::vector<int> h = random_ints(n, -1000, 1000);
        device_buffer<int> in(n), incl(n), excl(n), incl_max(n), excl_seeded(n), in_place(n);
        in.write(h);
        in_place.write(h);
        CHECK(with_temp_storage([&](void* t, size_t& b) { return cub::DeviceScan::InclusiveSum(t, b, in.ptr, incl.ptr, n); }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) { return cub::DeviceScan::ExclusiveSum(t, b, in.ptr, excl.ptr, n); }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceScan::InclusiveScan(t, b, in.ptr, incl_max.ptr, max_op(), n);
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceScan::ExclusiveScan(t, b, in.ptr, excl_seeded.ptr, plus_op(), 7, n);
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceScan::InclusiveSum(t, b, in_place.ptr, in_place.ptr, n);
              }) == cudaSuccess);
        const std::vector<int> i1 = incl.read(), e1 = excl.read(), im = incl_max.read(), es = excl_seeded.read(),
                               ip = in_place.read();
        int sum = 0, biggest = h[0];
        for (int i = 0; i < n; ++i) {
            CHECK(e1[i] == sum);
            CHECK(es[i] == sum + 7);
            sum += h[i];
            biggest = std::max(biggest, h[i]);
            CHECK(i1[i] == sum);
            CHECK(ip[i] == sum);
            CHECK(im[i] == biggest);
        }
    }
}

TEST_CASE("device:radix-sort") {
    for (int n : device_sizes) {
        CAPTURE(n);
        const std::vector<int> h = random_ints(n, -1000000, 1000000);
        std::vector<float> values(n);
        for (int i = 0; i < n; ++i) values[i] = static_cast<float>(i);
        device_buffer<int> keys(n), keys_out(n), pair_keys_out(n), desc_out(n), alt(n);
        device_buffer<float> vals(n), vals_out(n), vals_alt(n);
        keys.write(h);
        vals.write(values);
        CHECK(with_temp_storage([&](void* t, size_t& b) { return cub::DeviceRadixSort::SortKeys(t, b, keys.ptr, keys_out.ptr, n); }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceRadixSort::SortPairs(t, b, keys.ptr, pair_keys_out.ptr, vals.ptr, vals_out.ptr, n);
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceRadixSort::SortKeysDescending(t, b, keys.ptr, desc_out.ptr, n, 8, 20);
              }) == cudaSuccess);
        std::vector<int> sorted = h;
        std::sort(sorted.begin(), sorted.end());
        CHECK(keys_out.read() == sorted);
        CHECK(pair_keys_out.read() == sorted);
        const std::vector<float> v = vals_out.read();
        const std::vector<int> pk = pair_keys_out.read();
        for (int i = 0; i < n; ++i) CHECK(h[static_cast<int>(v[i])] == pk[i]);
        std::vector<int> by_bits = h;
        auto digit = [](int k) { return ((static_cast<unsigned>(k) ^ 0x80000000u) >> 8) & 0xfffu; };
        std::stable_sort(by_bits.begin(), by_bits.end(), [&](int a, int b) { return digit(a) > digit(b); });
        CHECK(desc_out.read() == by_bits);
        // DoubleBuffer pairs: the result is in Current().
        cub::DoubleBuffer<int> kb(keys.ptr, alt.ptr);
        cub::DoubleBuffer<float> vb(vals.ptr, vals_alt.ptr);
        CHECK(with_temp_storage([&](void* t, size_t& b) { return cub::DeviceRadixSort::SortPairsDescending(t, b, kb, vb, n); }) == cudaSuccess);
        std::vector<int> result(n);
        REQUIRE(cudaMemcpy(result.data(), kb.Current(), n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
        std::reverse(sorted.begin(), sorted.end());
        CHECK(result == sorted);
        // DoubleBuffer keys alone, ascending, from where the last sort left them.
        CHECK(with_temp_storage([&](void* t, size_t& b) { return cub::DeviceRadixSort::SortKeys(t, b, kb, n); }) == cudaSuccess);
        REQUIRE(cudaMemcpy(result.data(), kb.Current(), n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
        std::reverse(sorted.begin(), sorted.end());
        CHECK(result == sorted);
    }
}

// Stream order: a kernel fills the input on a stream, the scan follows it
// there, a kernel reads the scan's output; no host wait in between. Fresh
// cudaMalloc memory throughout, so under CUEMU_CHECK=uninit (emu.cub.uninit)
// the scan's output must count as written.
__global__ void fill_index(int* data, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = i % 7;
}
__global__ void double_each(const int* in, int* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2 * in[i];
}

TEST_CASE("device:stream-order") {
    const int n = 100003;
    int *in, *scanned, *doubled;
    void* temp = nullptr;
    size_t bytes = 0;
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    REQUIRE(cudaMalloc(&in, n * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&scanned, n * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&doubled, n * sizeof(int)) == cudaSuccess);
    REQUIRE(cub::DeviceScan::InclusiveSum(temp, bytes, in, scanned, n, stream) == cudaSuccess);
    REQUIRE(cudaMalloc(&temp, bytes) == cudaSuccess);
    fill_index<<<(n + 255) / 256, 256, 0, stream>>>(in, n);
    CHECK(cub::DeviceScan::InclusiveSum(temp, bytes, in, scanned, n, stream) == cudaSuccess);
    double_each<<<(n + 255) / 256, 256, 0, stream>>>(scanned, doubled, n);
    std::vector<int> h(n);
    CHECK(cudaMemcpyAsync(h.data(), doubled, n * sizeof(int), cudaMemcpyDeviceToHost, stream) == cudaSuccess);
    CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
    long long sum = 0;
    for (int i = 0; i < n; ++i) {
        sum += i % 7;
        REQUIRE(h[i] == 2 * sum);
    }
    // An empty input: Sum writes 0, Max the type's lowest value.
    CHECK(cub::DeviceReduce::Sum(temp, bytes, in, doubled, 0, stream) == cudaSuccess);
    CHECK(cub::DeviceReduce::Max(temp, bytes, in, doubled + 1, 0, stream) == cudaSuccess);
    CHECK(cudaMemcpyAsync(h.data(), doubled, 2 * sizeof(int), cudaMemcpyDeviceToHost, stream) == cudaSuccess);
    CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
    CHECK(h[0] == 0);
    CHECK(h[1] == std::numeric_limits<int>::lowest());
    CHECK(cudaFree(temp) == cudaSuccess);
    CHECK(cudaFree(in) == cudaSuccess);
    CHECK(cudaFree(scanned) == cudaSuccess);
    CHECK(cudaFree(doubled) == cudaSuccess);
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
}

// CUB's examples allocate through a CachingDeviceAllocator.
TEST_CASE("device:caching-allocator") {
    cub::CachingDeviceAllocator allocator(true);
    const int n = 1000;
    const std::vector<int> h = random_ints(n, -1000, 1000);
    int *in = nullptr, *out = nullptr;
    REQUIRE(allocator.DeviceAllocate(reinterpret_cast<void**>(&in), n * sizeof(int)) == cudaSuccess);
    REQUIRE(allocator.DeviceAllocate(reinterpret_cast<void**>(&out), sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
    void* temp = nullptr;
    size_t bytes = 0;
    REQUIRE(cub::DeviceReduce::Sum(temp, bytes, in, out, n) == cudaSuccess);
    REQUIRE(allocator.DeviceAllocate(&temp, bytes) == cudaSuccess);
    CHECK(cub::DeviceReduce::Sum(temp, bytes, in, out, n) == cudaSuccess);
    int sum = 0;
    REQUIRE(cudaMemcpy(&sum, out, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    int expected = 0;
    for (int x : h) expected += x;
    CHECK(sum == expected);
    CHECK(CubDebug(allocator.DeviceFree(temp)) == cudaSuccess);
    CHECK(CubDebug(cudaErrorInvalidValue) == cudaErrorInvalidValue);
    CHECK(allocator.DeviceFree(in) == cudaSuccess);
    CHECK(allocator.DeviceFree(out) == cudaSuccess);
}

struct is_even {
    __host__ __device__ bool operator()(int x) const { return x % 2 == 0; }
};

TEST_CASE("device:select") {
    for (int n : device_sizes) {
        CAPTURE(n);
        const std::vector<int> h = random_ints(n, 0, 9);  // small values: runs to remove
        std::vector<char> flags(n);
        for (int i = 0; i < n; ++i) flags[i] = static_cast<char>(h[i] > 4);
        device_buffer<int> in(n), out_if(n), out_flagged(n), out_unique(n), counts(3);
        device_buffer<char> d_flags(n);
        in.write(h);
        d_flags.write(flags);
        CHECK(with_temp_storage([&](void* t, size_t& b) { return cub::DeviceSelect::If(t, b, in.ptr, out_if.ptr, counts.ptr, n, is_even()); }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceSelect::Flagged(t, b, in.ptr, d_flags.ptr, out_flagged.ptr, counts.ptr + 1, n);
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) { return cub::DeviceSelect::Unique(t, b, in.ptr, out_unique.ptr, counts.ptr + 2, n); }) == cudaSuccess);
        std::vector<int> evens, big, unique;
        for (int i = 0; i < n; ++i) {
            if (h[i] % 2 == 0) evens.push_back(h[i]);
            if (flags[i]) big.push_back(h[i]);
            if (i == 0 || h[i] != h[i - 1]) unique.push_back(h[i]);
        }
        const std::vector<int> c = counts.read(), oi = out_if.read(), of = out_flagged.read(), ou = out_unique.read();
        REQUIRE(c[0] == static_cast<int>(evens.size()));
        REQUIRE(c[1] == static_cast<int>(big.size()));
        REQUIRE(c[2] == static_cast<int>(unique.size()));
        CHECK(std::equal(evens.begin(), evens.end(), oi.begin()));
        CHECK(std::equal(big.begin(), big.end(), of.begin()));
        CHECK(std::equal(unique.begin(), unique.end(), ou.begin()));
    }
}

TEST_CASE("device:runs") {
    for (int n : device_sizes) {
        CAPTURE(n);
        const std::vector<int> keys = random_ints(n, 0, 3);  // small keys: runs of several
        const std::vector<int> values = random_ints(n, -1000, 1000);
        device_buffer<int> d_keys(n), d_values(n), unique(n), counts(n), offsets(n), lengths(n), sums(n), unique2(n),
            num_runs(3);
        d_keys.write(keys);
        d_values.write(values);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceRunLengthEncode::Encode(t, b, d_keys.ptr, unique.ptr, counts.ptr, num_runs.ptr, n);
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceRunLengthEncode::NonTrivialRuns(t, b, d_keys.ptr, offsets.ptr, lengths.ptr,
                                                                    num_runs.ptr + 1, n);
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceReduce::ReduceByKey(t, b, d_keys.ptr, unique2.ptr, d_values.ptr, sums.ptr,
                                                        num_runs.ptr + 2, plus_op(), n);
              }) == cudaSuccess);
        std::vector<int> run_keys, run_lengths, run_sums, long_offsets, long_lengths;
        for (int i = 0; i < n; ++i) {
            if (i == 0 || keys[i] != keys[i - 1]) {
                run_keys.push_back(keys[i]);
                run_lengths.push_back(0);
                run_sums.push_back(0);
            }
            run_lengths.back()++;
            run_sums.back() += values[i];
        }
        for (int i = 0, r = 0; r < static_cast<int>(run_lengths.size()); i += run_lengths[r++])
            if (run_lengths[r] > 1) {
                long_offsets.push_back(i);
                long_lengths.push_back(run_lengths[r]);
            }
        const std::vector<int> runs = num_runs.read(), u = unique.read(), c = counts.read(), o = offsets.read(),
                               l = lengths.read(), s = sums.read(), u2 = unique2.read();
        REQUIRE(runs[0] == static_cast<int>(run_keys.size()));
        REQUIRE(runs[1] == static_cast<int>(long_offsets.size()));
        REQUIRE(runs[2] == static_cast<int>(run_keys.size()));
        CHECK(std::equal(run_keys.begin(), run_keys.end(), u.begin()));
        CHECK(std::equal(run_lengths.begin(), run_lengths.end(), c.begin()));
        CHECK(std::equal(long_offsets.begin(), long_offsets.end(), o.begin()));
        CHECK(std::equal(long_lengths.begin(), long_lengths.end(), l.begin()));
        CHECK(std::equal(run_keys.begin(), run_keys.end(), u2.begin()));
        CHECK(std::equal(run_sums.begin(), run_sums.end(), s.begin()));
    }
}

struct larger_magnitude {  // a comparator of the program's own: |a| > |b|
    __host__ __device__ bool operator()(int a, int b) const { return (a < 0 ? -a : a) > (b < 0 ? -b : b); }
};

TEST_CASE("device:merge-sort-and-partition") {
    for (int n : device_sizes) {
        CAPTURE(n);
        const std::vector<int> h = random_ints(n, -1000, 1000);
        std::vector<int> index(n);
        for (int i = 0; i < n; ++i) index[i] = i;
        device_buffer<int> keys(n), items(n), keys_copy(n), items_copy(n), only_keys(n), parted(n), count(1);
        keys.write(h);
        items.write(index);
        only_keys.write(h);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceMergeSort::SortPairsCopy(t, b, keys.ptr, items.ptr, keys_copy.ptr, items_copy.ptr, n,
                                                             larger_magnitude());
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceMergeSort::SortPairs(t, b, keys.ptr, items.ptr, n, larger_magnitude());
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceMergeSort::StableSortKeys(t, b, only_keys.ptr, n, larger_magnitude());
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DevicePartition::If(t, b, only_keys.ptr, parted.ptr, count.ptr, n, is_even());
              }) == cudaSuccess);
        std::vector<int> order = index;
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return larger_magnitude()(h[a], h[b]); });
        std::vector<int> sorted(n);
        for (int i = 0; i < n; ++i) sorted[i] = h[order[i]];
        CHECK(keys.read() == sorted);
        CHECK(items.read() == order);
        CHECK(keys_copy.read() == sorted);
        CHECK(items_copy.read() == order);
        CHECK(only_keys.read() == sorted);
        std::vector<int> expect_parted;
        for (int x : sorted)
            if (x % 2 == 0) expect_parted.push_back(x);
        const int selected = static_cast<int>(expect_parted.size());
        for (int i = n - 1; i >= 0; --i)  // the rejected ones at the back, in reverse order
            if (sorted[i] % 2 != 0) expect_parted.push_back(sorted[i]);
        CHECK(count.read()[0] == selected);
        CHECK(parted.read() == expect_parted);
    }
}

TEST_CASE("device:histogram") {
    for (int n : device_sizes) {
        CAPTURE(n);
        const std::vector<float> h = random_values<float>(n, -120, 120);
        const std::vector<float> levels = {-100.0f, -50.0f, -10.0f, 0.0f, 3.0f, 90.0f};
        device_buffer<float> samples(n), d_levels(levels.size());
        device_buffer<int> even(10), range(levels.size() - 1);
        samples.write(h);
        d_levels.write(levels);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceHistogram::HistogramEven(t, b, samples.ptr, even.ptr, 11, -100.0f, 100.0f, n);
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceHistogram::HistogramRange(t, b, samples.ptr, range.ptr, static_cast<int>(levels.size()), d_levels.ptr, n);
              }) == cudaSuccess);
        std::vector<int> expect_even(10, 0), expect_range(levels.size() - 1, 0);
        for (float x : h) {
            if (x >= -100 && x < 100) expect_even[static_cast<int>((x + 100) / 20)]++;
            for (size_t b = 0; b + 1 < levels.size(); ++b)
                if (x >= levels[b] && x < levels[b + 1]) expect_range[b]++;
        }
        CHECK(even.read() == expect_even);
        CHECK(range.read() == expect_range);
        // Integer samples, 7 bins over [0, 100): sample s is in bin b when
        // b * 100 / 7 <= s < (b + 1) * 100 / 7, as exact fractions.
        const std::vector<int> hi = random_ints(n, -10, 110);
        device_buffer<int> int_samples(n), int_even(7);
        int_samples.write(hi);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceHistogram::HistogramEven(t, b, int_samples.ptr, int_even.ptr, 8, 0, 100, n);
              }) == cudaSuccess);
        std::vector<int> expect_int(7, 0);
        for (int x : hi)
            for (int b = 0; b < 7; ++b)
                if (b * 100 <= 7 * x && 7 * x < (b + 1) * 100) expect_int[b]++;
        CHECK(int_even.read() == expect_int);
    }
}

TEST_CASE("device:segmented-reduce") {
    for (int n : device_sizes) {
        CAPTURE(n);
        const std::vector<int> h = random_ints(n, -1000, 1000);
        std::vector<int> offsets = {0};  // segments of 0 to 40 items, some empty
        while (offsets.back() < n) offsets.push_back(std::min(n, offsets.back() + random_ints(1, 0, 40)[0]));
        const int segments = static_cast<int>(offsets.size()) - 1;
        device_buffer<int> in(n), d_offsets(offsets.size()), sums(segments), maxima(segments);
        in.write(h);
        d_offsets.write(offsets);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceSegmentedReduce::Sum(t, b, in.ptr, sums.ptr, segments, d_offsets.ptr, d_offsets.ptr + 1);
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceSegmentedReduce::Reduce(t, b, in.ptr, maxima.ptr, segments, d_offsets.ptr,
                                                            d_offsets.ptr + 1, max_op(), -9999);
              }) == cudaSuccess);
        const std::vector<int> s = sums.read(), m = maxima.read();
        for (int g = 0; g < segments; ++g) {
            int sum = 0, biggest = -9999;
            for (int i = offsets[g]; i < offsets[g + 1]; ++i) {
                sum += h[i];
                biggest = std::max(biggest, h[i]);
            }
            CHECK(s[g] == sum);
            CHECK(m[g] == biggest);
        }
    }
}

// Segments with gaps between them (items in no segment must stay as they
// were) and empty ones; each sorted on its own against std::stable_sort.
TEST_CASE("device:segmented-sort") {
    for (int n : {1, 37, 1000, 10007}) {
        CAPTURE(n);
        std::vector<int> begins, ends;
        for (int at = 0; at < n;) {
            const int length = random_ints(1, 0, 60)[0];
            begins.push_back(at);
            ends.push_back(std::min(n, at + length));
            at = ends.back() + random_ints(1, 0, 3)[0];  // sometimes a gap
        }
        const int segments = static_cast<int>(begins.size());
        const std::vector<int> h = random_ints(n, -100000, 100000);
        std::vector<int> index(n);
        std::iota(index.begin(), index.end(), 0);
        device_buffer<int> keys(n), values(n), d_begins(segments), d_ends(segments);
        device_buffer<int> radix_keys(n), radix_values(n), bits_keys(n), stable_keys(n), stable_values(n), alt(n), values_alt(n);
        keys.write(h);
        values.write(index);
        d_begins.write(begins);
        d_ends.write(ends);
        const std::vector<int> untouched(n, -7);
        for (device_buffer<int>* out : {&radix_keys, &radix_values, &bits_keys, &stable_keys, &stable_values}) out->write(untouched);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceSegmentedRadixSort::SortPairs(t, b, keys.ptr, radix_keys.ptr, values.ptr, radix_values.ptr,
                                                                  n, segments, d_begins.ptr, d_ends.ptr);
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceSegmentedRadixSort::SortKeysDescending(t, b, keys.ptr, bits_keys.ptr, n, segments,
                                                                           d_begins.ptr, d_ends.ptr, 4, 12);
              }) == cudaSuccess);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceSegmentedSort::StableSortPairsDescending(t, b, keys.ptr, stable_keys.ptr, values.ptr,
                                                                             stable_values.ptr, n, segments, d_begins.ptr,
                                                                             d_ends.ptr);
              }) == cudaSuccess);
        // DoubleBuffer keys, ascending: the result is in Current().
        cub::DoubleBuffer<int> key_buffers(keys.ptr, alt.ptr);
        cub::DoubleBuffer<int> value_buffers(values.ptr, values_alt.ptr);
        CHECK(with_temp_storage([&](void* t, size_t& b) {
                  return cub::DeviceSegmentedSort::SortPairs(t, b, key_buffers, value_buffers, n, segments, d_begins.ptr,
                                                             d_ends.ptr);
              }) == cudaSuccess);
        std::vector<int> buffered(n);
        REQUIRE(cudaMemcpy(buffered.data(), key_buffers.Current(), n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);

        auto digit = [](int k) { return ((static_cast<unsigned>(k) ^ 0x80000000u) >> 4) & 0xffu; };
        std::vector<int> ascending_keys = untouched, ascending_values = untouched, by_bits = untouched,
                         descending_keys = untouched, descending_values = untouched;
        for (int s = 0; s < segments; ++s) {
            std::vector<int> order(index.begin() + begins[s], index.begin() + ends[s]);
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return h[a] < h[b]; });
            for (std::size_t i = 0; i < order.size(); ++i) {
                ascending_keys[begins[s] + i] = h[order[i]];
                ascending_values[begins[s] + i] = order[i];
            }
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return a < b; });
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return digit(h[a]) > digit(h[b]); });
            for (std::size_t i = 0; i < order.size(); ++i) by_bits[begins[s] + i] = h[order[i]];
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return a < b; });
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return h[a] > h[b]; });
            for (std::size_t i = 0; i < order.size(); ++i) {
                descending_keys[begins[s] + i] = h[order[i]];
                descending_values[begins[s] + i] = order[i];
            }
        }
        CHECK(radix_keys.read() == ascending_keys);
        CHECK(radix_values.read() == ascending_values);
        CHECK(bits_keys.read() == by_bits);
        CHECK(stable_keys.read() == descending_keys);
        CHECK(stable_values.read() == descending_values);
        for (int i = 0; i < n; ++i)
            if (ascending_keys[i] != -7) CHECK(buffered[i] == ascending_keys[i]);
    }
}

// What CUDA 13 offers instead of CUB's removed CountingInputIterator
// (detail/removed_in_cuda_13.cuh): any iterator, here a hand-made counting
// one. (libcu++'s function objects as operators: test_libcudacxx.cu.)
struct counting_from {
    using iterator_category = std::random_access_iterator_tag;
    using value_type = long long;
    using difference_type = std::ptrdiff_t;
    using pointer = const long long*;
    using reference = long long;
    long long first;
    __host__ __device__ long long operator*() const { return first; }
    __host__ __device__ long long operator[](difference_type i) const { return first + i; }
    __host__ __device__ counting_from operator+(difference_type i) const { return {first + i}; }
};

TEST_CASE("device:hand-made-iterator") {
    const int n = 101;
    device_buffer<long long> count_sum(1);
    CHECK(with_temp_storage([&](void* t, size_t& b) {
              return cub::DeviceReduce::Sum(t, b, counting_from{5}, count_sum.ptr, n);
          }) == cudaSuccess);
    CHECK(count_sum.read()[0] == 5LL * n + 1LL * n * (n - 1) / 2);
}

#ifdef CUEMU
// Its own process: the report leaves a sticky error.
TEST_CASE("misuse:host-pointer") {
    int* out = nullptr;
    REQUIRE(cudaMalloc(&out, sizeof(int)) == cudaSuccess);
    std::vector<int> host(100, 1);
    size_t bytes = 0;
    REQUIRE(cub::DeviceReduce::Sum(nullptr, bytes, host.data(), out, 100) == cudaSuccess);
    void* temp = nullptr;
    REQUIRE(cudaMalloc(&temp, bytes) == cudaSuccess);
    size_t too_few = bytes - 1;
    CHECK(cub::DeviceReduce::Sum(temp, too_few, out, out, 1) == cudaErrorInvalidValue);
    stderr_capture capture(capture_until::device_idle);
    CHECK(cub::DeviceReduce::Sum(temp, bytes, host.data(), out, 100) == cudaSuccess);
    const int report_line = __LINE__ - 1;
    const std::string text = capture.finish();
    CHECK(text.find("cuemu: cub::DeviceReduce::Sum at ") != std::string::npos);
    CHECK(text.find("test_cub.cu:" + std::to_string(report_line) + ": d_in is ") != std::string::npos);
    CHECK(text.find("host memory the device cannot reach") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}
#endif

}  // namespace
