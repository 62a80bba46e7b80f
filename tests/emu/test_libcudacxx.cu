// test_libcudacxx.cu - libcu++ on the emulator (common/emu/README.md, "libcu++"):
// libcu++'s own atomics and utilities, and the emulator's cuda::barrier,
// cuda::pipeline, cuda::memcpy_async and cuda::std::span, each against a plain
// CPU computation.
//
//   atomics:*, barrier:*, pipeline:*, span:*, utilities:*
//               right answers; run as they are, in reverse schedule order, on
//               one worker, and under CUEMU_CHECK=race (no report).
//   race:*      a thread reads a shared tile before the barrier or pipeline
//               wait that orders the copy into it: one report naming the tile
//               and the reading line. One process per case, under CUEMU_CHECK=race.
//   stuck:*     a thread leaves without arriving: a report instead of a hang.
//               One process per case (the error is sticky).
// The whole file also compiles with nvcc.
#include <cub/cub.cuh>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/cmath>
#include <cuda/functional>
#include <cuda/pipeline>
#include <cuda/std/array>
#include <cuda/std/atomic>
#include <cuda/std/chrono>
#include <cuda/std/complex>
#include <cuda/std/cstdint>
#include <cuda/std/functional>
#include <cuda/std/limits>
#include <cuda/std/span>
#include <cuda/std/tuple>
#include <cuda/std/type_traits>
#include <cuda/std/utility>

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <new>
#include <numeric>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "stderr_capture.h"
#include "tile_race_report.h"

namespace cg = cooperative_groups;

// nvcc warns that a __shared__ cuda::pipeline_shared_state has a constructor
// it will not run; the pipeline sets the state up itself (the CUDA samples
// silence the warning the same way).
#ifdef __NVCC__
#pragma nv_diag_suppress static_var_with_dynamic_init
#endif

namespace {

// ---- atomics with thread scopes --------------------------------------------------------
struct atomic_totals {
    int count;         // every thread adds one (atomic_ref, device scope)
    unsigned largest;  // fetch_max of the global thread index
    unsigned smallest; // fetch_min of the global thread index
    int block_sums;    // sum of each block's shared count (atomic_ref, block scope)
    float cas_sum;     // a float sum by compare_exchange (whole numbers: exact)
};

using device_counter = cuda::atomic<int, cuda::thread_scope_device>;

// A cuda::atomic object lives where it is constructed: here, in device memory.
__global__ void make_counter(device_counter* counter) { new (counter) device_counter(0); }

__global__ void scoped_atomics(atomic_totals* totals, device_counter* launched) {
    __shared__ int block_count;
    const unsigned global = blockIdx.x * blockDim.x + threadIdx.x;
    cuda::atomic_ref<int, cuda::thread_scope_block> shared_count(block_count);
    if (threadIdx.x == 0) shared_count.store(0, cuda::std::memory_order_relaxed);
    __syncthreads();
    shared_count.fetch_add(1, cuda::std::memory_order_relaxed);
    launched->fetch_add(1, cuda::std::memory_order_relaxed);

    cuda::atomic_ref<int, cuda::thread_scope_device> count(totals->count);
    count.fetch_add(1, cuda::std::memory_order_relaxed);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> largest(totals->largest);
    largest.fetch_max(global);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> smallest(totals->smallest);
    smallest.fetch_min(global);

    cuda::std::atomic_ref<float> sum(totals->cas_sum);
    float seen = sum.load(cuda::std::memory_order_relaxed);
    while (!sum.compare_exchange_weak(seen, seen + static_cast<float>(threadIdx.x % 4),
                                      cuda::std::memory_order_acq_rel, cuda::std::memory_order_relaxed)) {
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_system> sums(totals->block_sums);
        sums.fetch_add(shared_count.load(cuda::std::memory_order_acquire));
    }
}

TEST_CASE("atomics:scoped-counts-at-several-grid-sizes") {
    const int block = 65;
    device_counter* launched = nullptr;
    REQUIRE(cudaMalloc(&launched, sizeof(device_counter)) == cudaSuccess);
    make_counter<<<1, 1>>>(launched);
    int threads_so_far = 0;
    for (int blocks : {1, 7, 33}) {
        CAPTURE(blocks);
        device_buffer<atomic_totals> d_totals(1);
        d_totals.write({atomic_totals{0, 0u, ~0u, 0, 0.0f}});
        scoped_atomics<<<blocks, block>>>(d_totals.ptr, launched);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const atomic_totals t = d_totals.read()[0];
        threads_so_far += blocks * block;
        int launched_count = 0;  // cuda::atomic<int> holds just the int
        REQUIRE(cudaMemcpy(&launched_count, launched, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
        CHECK(launched_count == threads_so_far);
        float cas_expected = 0;
        for (int b = 0; b < blocks; ++b)
            for (int i = 0; i < block; ++i) cas_expected += static_cast<float>(i % 4);
        CHECK(t.count == blocks * block);
        CHECK(t.largest == static_cast<unsigned>(blocks * block - 1));
        CHECK(t.smallest == 0u);
        CHECK(t.block_sums == blocks * block);
        CHECK(t.cas_sum == cas_expected);
    }
    CHECK(cudaFree(launched) == cudaSuccess);
}

// A histogram in shared memory with block-scope atomic_ref, added into the
// global one with device-scope atomic_ref.
constexpr int kBins = 16;

__global__ void shared_histogram(const int* values, int n, unsigned* bins) {
    __shared__ unsigned local[kBins];
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_block> bin(local[values[i] % kBins]);
        bin.fetch_add(1u, cuda::std::memory_order_relaxed);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> total(bins[b]);
        total.fetch_add(local[b], cuda::std::memory_order_relaxed);
    }
}

TEST_CASE("atomics:atomic-ref-on-shared-and-global-memory") {
    const int n = 10007;
    const std::vector<int> values = random_ints(n, 0, 1000);
    std::vector<unsigned> expected(kBins, 0);
    for (int v : values) ++expected[v % kBins];
    device_buffer<int> d_values(n);
    d_values.write(values);
    device_buffer<unsigned> d_bins(kBins);
    REQUIRE(cudaMemset(d_bins.ptr, 0, kBins * sizeof(unsigned)) == cudaSuccess);
    shared_histogram<<<5, 96>>>(d_values.ptr, n, d_bins.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(d_bins.read() == expected);
}

// wait() and notify_all() within one block: thread 0 waits for a value a
// thread of another warp stores later (in forward order thread 0 runs first,
// so its wait must let the others run).
__global__ void wait_for_flag(int* seen) {
    __shared__ cuda::atomic<int, cuda::thread_scope_block> flag;
    if (threadIdx.x == 0) flag.store(0, cuda::std::memory_order_relaxed);
    __syncthreads();
    if (threadIdx.x == 0) {
        flag.wait(0, cuda::std::memory_order_acquire);
        seen[blockIdx.x] = flag.load(cuda::std::memory_order_relaxed);
    } else if (threadIdx.x == blockDim.x - 1) {
        flag.store(static_cast<int>(blockIdx.x) + 1, cuda::std::memory_order_release);
        flag.notify_all();
    }
}

TEST_CASE("atomics:wait-and-notify-in-a-block") {
    const int blocks = 4;
    device_buffer<int> d_seen(blocks);
    wait_for_flag<<<blocks, 64>>>(d_seen.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> seen = d_seen.read();
    for (int b = 0; b < blocks; ++b) CHECK(seen[b] == b + 1);
}

// ---- cuda::barrier -----------------------------------------------------------------------
// Counts the phases a barrier completes (its completion function runs once per phase).
struct count_phases {
    int* phases;
    __device__ void operator()() noexcept { ++*phases; }
};

// Two phases of producer and consumer: each thread writes its slot, arrives,
// may do work of its own before it waits, then reads its neighbour's slot;
// in the second phase the other way round.
__global__ void two_phase_exchange(int* out, int* phases) {
    using barrier_t = cuda::barrier<cuda::thread_scope_block, count_phases>;
    __shared__ barrier_t bar;
    __shared__ int slots[128];
    __shared__ int phase_count;
    const int t = threadIdx.x, n = blockDim.x;
    if (t == 0) {
        phase_count = 0;
        init(&bar, n, count_phases{&phase_count});
    }
    __syncthreads();

    slots[t] = 10 * t + blockIdx.x;
    barrier_t::arrival_token token = bar.arrive();
    const int own = 3 * t;  // work that needs no one else's data
    bar.wait(cuda::std::move(token));
    const int right = slots[(t + 1) % n];
    bar.arrive_and_wait();  // every read is done before any slot is written again

    slots[t] = right + own;
    bar.arrive_and_wait();
    out[blockIdx.x * n + t] = slots[(t + n - 1) % n];
    if (t == 0) phases[blockIdx.x] = phase_count;
}

TEST_CASE("barrier:two-phase-producer-consumer") {
    const int blocks = 3, block = 96;
    device_buffer<int> d_out(blocks * block), d_phases(blocks);
    two_phase_exchange<<<blocks, block>>>(d_out.ptr, d_phases.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> out = d_out.read(), phases = d_phases.read();
    for (int b = 0; b < blocks; ++b) {
        CHECK(phases[b] == 3);
        for (int t = 0; t < block; ++t) {
            const int left = (t + block - 1) % block;
            const int expected = 10 * ((left + 1) % block) + b + 3 * left;
            CAPTURE(b);
            CAPTURE(t);
            CHECK(out[b * block + t] == expected);
        }
    }
}

// Half the threads leave after the first phase with arrive_and_drop; the
// rest go on for two more phases, which complete only if the drops lowered
// the expected count.
__global__ void drop_half(int* phases, int* stayers) {
    __shared__ cuda::barrier<cuda::thread_scope_block, count_phases> bar;
    __shared__ int phase_count;
    __shared__ int staying;
    if (threadIdx.x == 0) {
        phase_count = 0;
        staying = 0;
        init(&bar, blockDim.x, count_phases{&phase_count});
    }
    __syncthreads();
    if (threadIdx.x % 2 == 1) {
        bar.arrive_and_drop();
        return;
    }
    bar.arrive_and_wait();
    cuda::atomic_ref<int, cuda::thread_scope_block>(staying).fetch_add(1);
    bar.arrive_and_wait();
    bar.arrive_and_wait();
    if (threadIdx.x == 0) {
        phases[blockIdx.x] = phase_count;
        stayers[blockIdx.x] = staying;
    }
}

TEST_CASE("barrier:arrive-and-drop") {
    const int blocks = 2, block = 70;
    device_buffer<int> d_phases(blocks), d_stayers(blocks);
    drop_half<<<blocks, block>>>(d_phases.ptr, d_stayers.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(d_phases.read() == std::vector<int>(blocks, 3));
    CHECK(d_stayers.read() == std::vector<int>(blocks, block / 2));
}

// The samples' simpleAWBarrier/LargeChunkAWBarrier shape: the block copies a
// tile with memcpy_async bound to a barrier, waits, and sums it.
constexpr int kTile = 256;

__global__ void tile_sums_with_barrier(const float* in, float* sums) {
    __shared__ __align__(16) float tile[kTile];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, tile, in + blockIdx.x * kTile, cuda::aligned_size_t<16>(sizeof(tile)), bar);
    bar.arrive_and_wait();
    if (threadIdx.x == 0) {
        float sum = 0;
        for (int i = 0; i < kTile; ++i) sum += tile[i];
        sums[blockIdx.x] = sum;
    }
}

std::vector<float> small_floats(int n) {
    std::vector<float> v(n);
    const std::vector<int> ints = random_ints(n, 0, 9);
    for (int i = 0; i < n; ++i) v[i] = static_cast<float>(ints[i]);  // every sum order is exact
    return v;
}

TEST_CASE("barrier:memcpy-async-tile") {
    const int blocks = 5;
    const std::vector<float> in = small_floats(blocks * kTile);
    device_buffer<float> d_in(in.size()), d_sums(blocks);
    d_in.write(in);
    tile_sums_with_barrier<<<blocks, 64>>>(d_in.ptr, d_sums.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float> sums = d_sums.read();
    for (int b = 0; b < blocks; ++b) {
        float expected = 0;
        for (int i = 0; i < kTile; ++i) expected += in[b * kTile + i];
        CHECK(sums[b] == expected);
    }
}

// The samples' LargeChunkAWBarrier shape: a quarter of the threads each copy
// one float4 of a 16 x 16 tile (typed memcpy_async with a barrier), then every
// thread reads a column of it.
__global__ void column_sums_float4_chunks(const float* in, float* sums) {
    constexpr int side = 16;
    __shared__ __align__(16) float tile[side][side];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0 && threadIdx.y == 0) init(&bar, blockDim.x * blockDim.y);
    __syncthreads();
    const int t4x = threadIdx.x * 4;
    if (t4x < side) {
        float4* const to = reinterpret_cast<float4*>(&tile[threadIdx.y][t4x]);
        const float4* const from = reinterpret_cast<const float4*>(&in[threadIdx.y * side + t4x]);
        cuda::memcpy_async(to, from, sizeof(float4), bar);
    }
    bar.arrive_and_wait();
    if (threadIdx.y == 0) {
        float sum = 0;
        for (int r = 0; r < side; ++r) sum += tile[r][threadIdx.x];
        sums[threadIdx.x] = sum;
    }
}

TEST_CASE("barrier:memcpy-async-float4-chunks") {
    const std::vector<float> in = small_floats(16 * 16);
    device_buffer<float> d_in(in.size()), d_sums(16);
    d_in.write(in);
    column_sums_float4_chunks<<<1, dim3(16, 16)>>>(d_in.ptr, d_sums.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float> sums = d_sums.read();
    for (int c = 0; c < 16; ++c) {
        float expected = 0;
        for (int r = 0; r < 16; ++r) expected += in[r * 16 + c];
        CHECK(sums[c] == expected);
    }
}

// ---- cuda::pipeline ----------------------------------------------------------------------
// The samples' globalToShmemAsyncCopy shape: a block-scope pipeline of two
// stages, tiles copied one ahead of the one being summed. Each thread sums
// one column of every tile.
constexpr int kStages = 2;
constexpr int kCols = 32;

__global__ void column_sums_double_buffered(const float* in, int rows, float* sums) {
    __shared__ __align__(16) float tile[kStages][kCols];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
    auto block = cg::this_thread_block();
    cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state);
    float sum = 0;
    for (int fetch = 0, use = 0; use < rows; ++use) {
        for (; fetch < rows && fetch < use + kStages; ++fetch) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, tile[fetch % kStages], in + fetch * kCols,
                               cuda::aligned_size_t<16>(sizeof(tile[0])), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        sum += tile[use % kStages][threadIdx.x];
        pipe.consumer_release();
    }
    sums[threadIdx.x] = sum;
}

std::vector<float> column_sums(const std::vector<float>& in, int rows) {
    std::vector<float> sums(kCols, 0.0f);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < kCols; ++c) sums[c] += in[r * kCols + c];
    return sums;
}

TEST_CASE("pipeline:block-scope-double-buffering") {
    for (int rows : {1, 2, 7, 40}) {
        CAPTURE(rows);
        const std::vector<float> in = small_floats(rows * kCols);
        device_buffer<float> d_in(in.size()), d_sums(kCols);
        d_in.write(in);
        column_sums_double_buffered<<<1, kCols>>>(d_in.ptr, rows, d_sums.ptr);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(d_sums.read() == column_sums(in, rows));
    }
}

// The same with roles: warp 0 copies, warps 1 and 2 sum (half the columns each).
__global__ void column_sums_producer_consumer(const float* in, int rows, float* sums) {
    __shared__ __align__(16) float tile[kStages][kCols];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
    auto block = cg::this_thread_block();
    const bool producer = threadIdx.x < 32;
    auto pipe = cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer
                                                            : cuda::pipeline_role::consumer);
    if (producer) {
        for (int r = 0; r < rows; ++r) {
            pipe.producer_acquire();
            cuda::memcpy_async(&tile[r % kStages][threadIdx.x], &in[r * kCols + threadIdx.x], sizeof(float), pipe);
            pipe.producer_commit();
        }
        return;
    }
    const int column = (threadIdx.x - 32) % kCols;
    float sum = 0;
    for (int r = 0; r < rows; ++r) {
        pipe.consumer_wait();
        sum += tile[r % kStages][column];
        pipe.consumer_release();
    }
    if (threadIdx.x < 64) sums[column] = sum;
}

TEST_CASE("pipeline:producer-and-consumer-roles") {
    const int rows = 9;
    const std::vector<float> in = small_floats(rows * kCols);
    device_buffer<float> d_in(in.size()), d_sums(kCols);
    d_in.write(in);
    column_sums_producer_consumer<<<1, 96>>>(d_in.ptr, rows, d_sums.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(d_sums.read() == column_sums(in, rows));
}

// A thread-scope pipeline (cuda::make_pipeline()) as the samples' single-stage
// kernels use it: each thread copies its element, waits for its own copies,
// then the block synchronizes before reading its neighbours'.
__global__ void neighbour_sums_thread_pipeline(const float* in, float* out) {
    __shared__ float tile[kCols];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(&tile[threadIdx.x], &in[blockIdx.x * kCols + threadIdx.x], sizeof(float), pipe);
    pipe.producer_commit();
    cuda::pipeline_consumer_wait_prior<0>(pipe);
    __syncthreads();
    out[blockIdx.x * kCols + threadIdx.x] = tile[threadIdx.x] + tile[(threadIdx.x + 1) % kCols];
}

TEST_CASE("pipeline:thread-scope-wait-prior") {
    const int blocks = 3;
    const std::vector<float> in = small_floats(blocks * kCols);
    device_buffer<float> d_in(in.size()), d_out(in.size());
    d_in.write(in);
    neighbour_sums_thread_pipeline<<<blocks, kCols>>>(d_in.ptr, d_out.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float> out = d_out.read();
    for (int b = 0; b < blocks; ++b)
        for (int c = 0; c < kCols; ++c)
            CHECK(out[b * kCols + c] == in[b * kCols + c] + in[b * kCols + (c + 1) % kCols]);
}

// ---- cuda::std::span ---------------------------------------------------------------------
// A span is a pointer and a length: it passes into a kernel by value.
__global__ void scale_middle(cuda::std::span<const float> in, cuda::std::span<float> out, float factor) {
    cuda::std::span<const float> middle = in.subspan(1, in.size() - 2);
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < middle.size()) out[i] = factor * middle[i];
    if (i == 0) {
        float first_three = 0;
        for (float x : in.first(3)) first_three += x;
        out[out.size() - 1] = first_three + in.last<1>()[0] + static_cast<float>(in.size_bytes());
    }
}

TEST_CASE("span:subspans-in-a-kernel") {
    const int n = 1001;
    const std::vector<float> in = small_floats(n);
    device_buffer<float> d_in(n), d_out(n - 1);
    d_in.write(in);
    scale_middle<<<(n + 127) / 128, 128>>>(cuda::std::span<const float>(d_in.ptr, n),
                                            cuda::std::span<float>(d_out.ptr, n - 1), 2.0f);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float> out = d_out.read();
    for (int i = 0; i < n - 2; ++i) CHECK(out[i] == 2.0f * in[i + 1]);
    CHECK(out[n - 2] == in[0] + in[1] + in[2] + in[n - 1] + static_cast<float>(n * sizeof(float)));
}

TEST_CASE("span:static-extent-and-containers") {
    int raw[5] = {1, 2, 3, 4, 5};
    cuda::std::span<int, 5> fixed(raw);
    static_assert(decltype(fixed)::extent == 5, "a span of a C array keeps its length");
    CHECK(fixed.last<2>()[0] == 4);
    CHECK(fixed.subspan<1, 3>().size() == 3);
    std::vector<int> v = {7, 8, 9};
    cuda::std::span<const int> of_vector(v);
    CHECK(of_vector.size() == 3);
    CHECK(of_vector.back() == 9);
    CHECK(cuda::std::span<int>().empty());
    int reversed_first = *fixed.rbegin();
    CHECK(reversed_first == 5);
}

// ---- <cuda/std/...> utilities in device code -----------------------------------------------
struct utility_results {
    long long int_max;
    int tuple_second;
    int array_sum;
    float complex_real, complex_imag;
    long long millis;
    int traits_ok;
};

__global__ void use_utilities(utility_results* r) {
    r->int_max = cuda::std::numeric_limits<int>::max();
    cuda::std::tuple<int, int> pair = cuda::std::make_tuple(3, 4);
    r->tuple_second = cuda::std::get<1>(pair);
    cuda::std::array<int, 4> a = {1, 2, 3, 4};
    int sum = 0;
    for (int x : a) sum += x;
    r->array_sum = sum;
    const cuda::std::complex<float> z(1.0f, 2.0f);
    const cuda::std::complex<float> z2 = z * z;
    r->complex_real = z2.real();
    r->complex_imag = z2.imag();
    const cuda::std::chrono::seconds two(2);
    r->millis = cuda::std::chrono::duration_cast<cuda::std::chrono::milliseconds>(two).count();
    r->traits_ok = cuda::std::is_same<cuda::std::remove_const_t<const cuda::std::int32_t>, int>::value &&
                   cuda::std::is_trivially_copyable<cuda::std::span<int>>::value;
}

TEST_CASE("utilities:limits-tuple-array-complex-chrono-traits") {
    device_buffer<utility_results> d_r(1);
    use_utilities<<<1, 1>>>(d_r.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const utility_results r = d_r.read()[0];
    CHECK(r.int_max == 2147483647LL);
    CHECK(r.tuple_second == 4);
    CHECK(r.array_sum == 10);
    CHECK(r.complex_real == -3.0f);
    CHECK(r.complex_imag == 4.0f);
    CHECK(r.millis == 2000);
    CHECK(r.traits_ok == 1);
}

// ---- what CUDA 13 offers instead of the names its CUB removed ---------------------------
// cub::Sum, Max, Min, CUB_QUOTIENT_CEILING, CUB_ROUND_UP_NEAREST
// (cub/detail/removed_in_cuda_13.cuh): libcu++'s function objects as CUB's
// operators, in a kernel and device-wide, and <cuda/cmath>'s arithmetic; and
// cuda::std::identity, which stands for Thrust's removed thrust::identity.
__global__ void block_extremes(const int* in, int n, int* out) {
    using reduce = cub::BlockReduce<int, 128>;
    __shared__ typename reduce::TempStorage storage;
    const int x = threadIdx.x < n ? in[threadIdx.x] : in[0];
    const int biggest = reduce(storage).Reduce(x, cuda::maximum<>{});
    __syncthreads();
    const int smallest = reduce(storage).Reduce(x, cuda::minimum<int>{});
    if (threadIdx.x == 0) {
        out[0] = biggest;
        out[1] = smallest;
    }
}

// DeviceReduce::Reduce with the two-call temporary-storage protocol.
template <typename Op>
int device_reduce(const int* in, int n, Op op, int initial) {
    device_buffer<int> result(1);
    size_t bytes = 0;
    REQUIRE(cub::DeviceReduce::Reduce(nullptr, bytes, in, result.ptr, n, op, initial) == cudaSuccess);
    device_buffer<char> temp(static_cast<int>(bytes));
    REQUIRE(cub::DeviceReduce::Reduce(temp.ptr, bytes, in, result.ptr, n, op, initial) == cudaSuccess);
    return result.read()[0];
}

TEST_CASE("cub:cuda-13-replacements") {
    const int n = 101;
    std::vector<int> h(n);
    for (int i = 0; i < n; ++i) h[i] = i % 10 == 3 ? 0 : (i * 7919 + 11) % 2001 - 1000;  // some zeros
    device_buffer<int> in(n), extremes(2);
    in.write(h);
    const int biggest = *std::max_element(h.begin(), h.end());
    const int smallest = *std::min_element(h.begin(), h.end());
    CHECK(device_reduce(in.ptr, n, cuda::maximum<>{}, -100000) == biggest);
    CHECK(device_reduce(in.ptr, n, cuda::minimum<>{}, 100000) == smallest);
    CHECK(device_reduce(in.ptr, n, cuda::std::plus<>{}, 0) == std::accumulate(h.begin(), h.end(), 0));
    block_extremes<<<1, 128>>>(in.ptr, n, extremes.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(extremes.read() == std::vector<int>{biggest, smallest});
    CHECK(cuda::ceil_div(n, 32) == 4);
    CHECK(cuda::ceil_div(96u, 32) == 3u);
    CHECK(cuda::ceil_div(0, 7) == 0);
    CHECK(cuda::ceil_div(std::numeric_limits<unsigned>::max(), 2u) == 2147483648u);
    CHECK(cuda::round_up(n, 32) == 128);
    CHECK(cuda::round_up(96, 32) == 96);
    CHECK(cuda::round_down(n, 32) == 96);
    // thrust::identity's successor, here as DeviceSelect's predicate: the nonzero items.
    device_buffer<int> selected(n), count(1);
    size_t bytes = 0;
    REQUIRE(cub::DeviceSelect::If(nullptr, bytes, in.ptr, selected.ptr, count.ptr, n, cuda::std::identity{}) == cudaSuccess);
    device_buffer<char> temp(static_cast<int>(bytes));
    REQUIRE(cub::DeviceSelect::If(temp.ptr, bytes, in.ptr, selected.ptr, count.ptr, n, cuda::std::identity{}) ==
            cudaSuccess);
    std::vector<int> nonzero;
    for (int x : h)
        if (x != 0) nonzero.push_back(x);
    const std::vector<int> got = selected.read();
    CHECK(count.read()[0] == static_cast<int>(nonzero.size()));
    CHECK(std::vector<int>(got.begin(), got.begin() + nonzero.size()) == nonzero);
}

// ---- races the check must see (CUEMU_CHECK=race, a process each) -----------------------
// The consumer reads its neighbour's column before consumer_wait(): the
// neighbour's copy into the tile is not ordered before that read.
__global__ void read_tile_before_pipeline_wait(const float* in, float* out) {
    __shared__ __align__(16) float tile[kCols];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 1> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    pipe.producer_acquire();
    cuda::memcpy_async(&tile[threadIdx.x], &in[threadIdx.x], sizeof(float), pipe);
    pipe.producer_commit();
    const float early = tile[(threadIdx.x + 1) % kCols];
    pipe.consumer_wait();
    out[threadIdx.x] = early + tile[threadIdx.x];
    pipe.consumer_release();
}
constexpr int early_pipeline_read_line = __LINE__ - 5;
constexpr int pipeline_copy_line = __LINE__ - 8;

// The same with a barrier: the tile is read between arrive() and wait().
__global__ void read_tile_before_barrier_wait(const float* in, float* out) {
    __shared__ __align__(16) float tile[kCols];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    cuda::memcpy_async(&tile[threadIdx.x], &in[threadIdx.x], sizeof(float), bar);
    cuda::barrier<cuda::thread_scope_block>::arrival_token token = bar.arrive();
    const float early = tile[(threadIdx.x + 1) % kCols];
    bar.wait(cuda::std::move(token));
    out[threadIdx.x] = early + tile[threadIdx.x];
}
constexpr int early_barrier_read_line = __LINE__ - 4;
constexpr int barrier_copy_line = __LINE__ - 7;

// The race and stuck:* cases check the emulator's reports of bugs CUDA leaves
// undefined (emulator-only). On an H200 the racing launches ended with
// cudaSuccess and the barrier a thread left without arriving hung.
TEST_CASE("race:read-before-pipeline-wait" * doctest::test_suite("emulator-only")) {
    check_tile_race(read_tile_before_pipeline_wait, kCols, "test_libcudacxx.cu", early_pipeline_read_line,
                    pipeline_copy_line);
}

TEST_CASE("race:read-before-barrier-wait" * doctest::test_suite("emulator-only")) {
    check_tile_race(read_tile_before_barrier_wait, kCols, "test_libcudacxx.cu", early_barrier_read_line,
                    barrier_copy_line);
}

// ---- a barrier that can never complete (a process of its own: sticky) ------------------
__global__ void thread_leaves_without_arriving(int* out) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    if (threadIdx.x == 5) return;  // should have called bar.arrive_and_drop() first
    bar.arrive_and_wait();
    out[threadIdx.x] = 1;
}

TEST_CASE("stuck:thread-leaves-without-arriving" * doctest::test_suite("emulator-only")) {
    int* out = nullptr;
    REQUIRE(cudaMalloc(&out, 64 * sizeof(int)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    thread_leaves_without_arriving<<<1, 64>>>(out);
    const std::string text = capture.finish();
    CHECK(text.find("cuemu: a cuda::barrier can never complete its phase in kernel "
                    "'thread_leaves_without_arriving'") != std::string::npos);
    CHECK(text.find("still lacks 1 of its 64 arrivals") != std::string::npos);
    CHECK(text.find("arrive_and_drop()") != std::string::npos);
    check_sticky(cudaErrorLaunchFailure);
}

}  // namespace
