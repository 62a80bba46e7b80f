// emu-speed.cu - how fast the emulator runs four ordinary kernels, against plain
// C++ loops doing the same work, all timed in the same run.
//
//   tools/emu-speed.sh                  # builds this with its CPU loops, 1 and 2 workers
//   CUEMU_WORKERS=1 ./emu-speed         # one worker thread instead of one per core
//
// The kernels:
// 1. vector add of 4 M (2^22) floats, 256 threads per block, no __syncthreads;
// 2. a 512 x 512 tiled matrix multiply, 16 x 16 tiles (256-thread blocks), two
//    __syncthreads per tile: every thread passes 2 x 512/16 = 64 barriers, so a
//    launch completes 512 * 512 * 64 = 16,777,216 barrier round trips (one
//    thread passing one barrier);
// 3. the sum of 2^22 ints, one per thread: __shfl_down_sync within each warp, the
//    warps' sums through shared memory and one __syncthreads to the first warp,
//    which shuffles them down to one atomicAdd per block;
// 4. a 256-bin histogram of 2^22 bytes, 16 per thread: a shared-memory
//    histogram per block (atomicAdd on shared memory), then one global
//    atomicAdd per bin and block;
// 5. an empty kernel of one thread: the fixed cost of a launch.
// Kernels 1 and 5 live in tools/emu-speed-vadd.cu, which has no shared memory
// and so is built without the race check's instrumentation, as a lesson's
// vector add is (bin/nvcc-emu instruments only sources that use __shared__).
//
// The yardsticks (tools/emu-speed-cpu.cpp, built with plain g++ -O2 -fopenmp):
// the same computation as a serial C++ loop and as an OpenMP loop on 2 threads;
// for the matmul also the tiled algorithm itself as serial loops, split at its
// barriers as a compiler for CPUs would split it. tools/emu-speed-opencl.cpp
// runs the same kernels on PoCL, with the same sizes and inputs
// (tools/emu-speed-common.h).
//
// Every figure is WALL-CLOCK time (std::chrono::steady_clock), the median of
// --rounds rounds; in each round every variant runs once, one after another, so
// a disturbance on the shared machine hits all of them alike. The emulator is
// timed two ways, each over --batch launches and given per launch: "sync",
// each launch followed by cudaDeviceSynchronize as a lesson does it, and
// "batch", the launches back to back and one synchronize. The sum and the
// histogram must start from zero, so each of their launches is a
// cudaMemsetAsync of the result and the kernel. Results are checked against
// the serial loop first.
// It is ordinary CUDA, so nvcc builds it too; on a GPU the figures are the GPU's.
#include <cuda_runtime.h>

#include <cstdio>
#include <functional>
#include <vector>

#include "cli.h"
#include "compare.h"
#include "cuda_check.h"
#include "emu-speed-common.h"

// tools/emu-speed-vadd.cu
void launch_vector_add(const float* a, const float* b, float* c, int n, int block);
void launch_empty_kernel();

// n must be a multiple of TILE: the benchmark keeps the kernel free of bounds
// checks so that the barriers, not the branches, dominate.
__global__ void tiled_matmul(const float* a, const float* b, float* c, int n) {
    __shared__ float ta[TILE][TILE], tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        ta[threadIdx.y][threadIdx.x] = a[row * n + t * TILE + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(t * TILE + threadIdx.y) * n + col];
        __syncthreads();  // the tile is loaded
        for (int k = 0; k < TILE; ++k) sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();  // everyone is done with it before the next load
    }
    c[row * n + col] = sum;
}

constexpr int WARP = 32;

__device__ int warp_sum(int v) {
    for (int offset = WARP / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;  // lane 0 holds the warp's sum
}

// Launched with BLOCK threads per block.
__global__ void sum_reduction(const int* x, int n, int* total) {
    __shared__ int warp_sums[BLOCK / WARP];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    int v = warp_sum(i < n ? x[i] : 0);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();  // every warp's sum is written
    if (warp == 0) {
        v = warp_sum(lane < BLOCK / WARP ? warp_sums[lane] : 0);
        if (lane == 0) atomicAdd(total, v);
    }
}

// Launched with BINS threads per block: each clears and publishes its own bin.
__global__ void histogram(const unsigned char* x, int n, unsigned* counts) {
    __shared__ unsigned block_counts[BINS];
    block_counts[threadIdx.x] = 0;
    __syncthreads();  // the bins are cleared
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&block_counts[x[i]], 1u);
    __syncthreads();  // the block's bytes are counted
    atomicAdd(&counts[threadIdx.x], block_counts[threadIdx.x]);
}

// Median seconds of serial loop, OpenMP loop, launch + synchronize, a batch of
// launches (per launch), and the tiled serial yardstick where there is one,
// over interleaved rounds.
struct Times {
    double serial, openmp, sync, batch, tiled;
};

static Times measure(int rounds, int batch, const std::function<void()>& serial,
                     const std::function<void()>& openmp, const std::function<void()>& launch,
                     const std::function<void()>& tiled = nullptr) {
    std::vector<double> s, o, y, b, t;
    auto checked_launch = [&] {
        launch();
        CUDA_CHECK(cudaGetLastError());
    };
    auto synchronize = [] { CUDA_CHECK(cudaDeviceSynchronize()); };
    for (int r = 0; r < rounds; ++r) {
        s.push_back(seconds_of(serial));
        o.push_back(seconds_of(openmp));
        if (tiled) t.push_back(seconds_of(tiled));
        y.push_back(sync_seconds(batch, checked_launch, synchronize));
        b.push_back(batch_seconds(batch, checked_launch, synchronize));
    }
    return {median(s), median(o), median(y), median(b), tiled ? median(t) : 0.0};
}

static void print_times(const char* what, const char* key, const Times& t) {
    std::printf("%s (wall-clock, median):\n", what);
    std::printf("  serial C++ loop      %9.3f ms\n", t.serial * 1e3);
    std::printf("  OpenMP, 2 threads    %9.3f ms\n", t.openmp * 1e3);
    if (t.tiled > 0) std::printf("  tiled serial loops   %9.3f ms\n", t.tiled * 1e3);
    std::printf("  kernel, launch+sync  %9.3f ms  = %.2fx the serial loop\n", t.sync * 1e3,
                t.sync / t.serial);
    std::printf("  kernel, batched      %9.3f ms  = %.2fx the serial loop\n", t.batch * 1e3,
                t.batch / t.serial);
    // One line for scripts (tools/emu-speed.sh reads it).
    std::printf("emu-speed: %s_serial_s=%.6g %s_openmp_s=%.6g %s_sync_s=%.6g %s_batch_s=%.6g",
                key, t.serial, key, t.openmp, key, t.sync, key, t.batch);
    if (t.tiled > 0) std::printf(" %s_tiled_s=%.6g", key, t.tiled);
    std::printf("\n");
}

// 3. The sum of n ints from the host into d_total, through d_ints; false
// when the kernel's sum is wrong.
static bool time_sum(int n, int rounds, int batch, bool small, int* d_ints, int* d_total) {
    const std::vector<int> h_ints = sum_input(n);
    CUDA_CHECK(cudaMemcpy(d_ints, h_ints.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    auto reduce = [&] {
        CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof(int)));
        sum_reduction<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_ints, n, d_total);
    };
    reduce();
    CUDA_CHECK(cudaGetLastError());
    int total = 0;
    CUDA_CHECK(cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost));
    const int expected = serial_sum(h_ints.data(), n), openmp = openmp_sum(h_ints.data(), n, 2);
    // Integer sums do not depend on the order of addition: exact agreement.
    if (total != expected || openmp != expected) {
        std::printf("sum: kernel %d, OpenMP %d, serial loop %d\n", total, openmp, expected);
        return false;
    }
    volatile int sink = 0;  // keeps the timed loops from being optimised away
    Times sum = measure(
        rounds, batch, [&] { sink = serial_sum(h_ints.data(), n); },
        [&] { sink = openmp_sum(h_ints.data(), n, 2); }, reduce);
    print_times(small ? "sum of 2^16 ints, warp shuffles" : "sum of 2^22 ints, warp shuffles", "sum", sum);
    return true;
}

// 4. The histogram of n random bytes, through d_bytes into d_counts; false when
// a bin is wrong.
static bool time_histogram(int n, int rounds, int batch, bool small, unsigned char* d_bytes,
                           unsigned* d_counts) {
    const std::vector<unsigned char> h_bytes = histogram_input(n);
    CUDA_CHECK(cudaMemcpy(d_bytes, h_bytes.data(), n, cudaMemcpyHostToDevice));
    const int blocks = (n + BINS * HISTOGRAM_ITEMS - 1) / (BINS * HISTOGRAM_ITEMS);
    auto count = [&] {
        CUDA_CHECK(cudaMemsetAsync(d_counts, 0, BINS * sizeof(unsigned)));
        histogram<<<blocks, BINS>>>(d_bytes, n, d_counts);
    };
    count();
    CUDA_CHECK(cudaGetLastError());
    std::vector<unsigned> got(BINS), expected(BINS), openmp(BINS);
    CUDA_CHECK(cudaMemcpy(got.data(), d_counts, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
    serial_histogram(h_bytes.data(), n, expected.data());
    openmp_histogram(h_bytes.data(), n, openmp.data(), 2);
    for (int v = 0; v < BINS; ++v)
        if (got[v] != expected[v] || openmp[v] != expected[v]) {
            std::printf("histogram, bin %d: kernel %u, OpenMP %u, serial loop %u\n", v, got[v],
                        openmp[v], expected[v]);
            return false;
        }
    Times histo = measure(
        rounds, batch, [&] { serial_histogram(h_bytes.data(), n, expected.data()); },
        [&] { openmp_histogram(h_bytes.data(), n, openmp.data(), 2); }, count);
    print_times(small ? "histogram of 2^16 bytes, 256 bins" : "histogram of 2^22 bytes, 256 bins", "histo", histo);
    return true;
}

int main(int argc, char** argv) {
    long long rounds = 9, batch = 4, small = 0, skip_sum_histogram = 0;
    cli_option opts[] = {
        {"--rounds", "rounds of measurement; each figure is their median", CLI_INT, &rounds, 1, 1000},
        {"--batch", "launches back to back in the batched measurement", CLI_INT, &batch, 1, 1000},
        {"--small", "2^16 elements and 128x128 matrices: only shows that it works", CLI_FLAG, &small, 0, 0},
        // The shuffles made the sum slow on the emulator's fibers (about a second a launch).
        {"--skip-sum-histogram", "time only the vector add, the matmul and the empty kernel",
         CLI_FLAG, &skip_sum_histogram, 0, 0},
    };
    cli_parse(argc, argv,
              "Times a vector add (2^22), a 512x512 tiled matmul, a sum and a histogram (2^22) "
              "and an empty kernel against serial and OpenMP C++ loops.\nSet CUEMU_WORKERS=N "
              "to choose the emulator's worker threads.",
              opts, 4);

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    // On the emulator the multiprocessor count is its number of worker threads.
    std::printf("device: %s, %d multiprocessors\n", prop.name, prop.multiProcessorCount);
    const Sizes size = problem_sizes(small);

    // ---- 1. vector add ----------------------------------------------------------
    const int n = size.vector;
    std::vector<float> h_a(n), h_b(n), h_c(n), h_ref(n);
    fill_random(h_a.data(), n, 1, -1.0f, 1.0f);
    fill_random(h_b.data(), n, 2, -1.0f, 1.0f);
    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_c, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_a, h_a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    auto add = [&] { launch_vector_add(d_a, d_b, d_c, n, BLOCK); };
    add();  // warm-up, and the launch whose result is checked
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_c.data(), d_c, n * sizeof(float), cudaMemcpyDeviceToHost));
    serial_vector_add(h_a.data(), h_b.data(), h_ref.data(), n);
    // One float addition on both sides: the results must agree exactly.
    if (compare_floats("vector add", h_c.data(), h_ref.data(), n, 0.0, 0.0, 5) != 0) return 1;
    openmp_vector_add(h_a.data(), h_b.data(), h_c.data(), n, 2);
    if (compare_floats("vector add, OpenMP", h_c.data(), h_ref.data(), n, 0.0, 0.0, 5) != 0) return 1;
    Times vadd = measure(
        int(rounds), int(batch), [&] { serial_vector_add(h_a.data(), h_b.data(), h_ref.data(), n); },
        [&] { openmp_vector_add(h_a.data(), h_b.data(), h_c.data(), n, 2); }, add);
    print_times(small ? "vector add, 2^16 floats" : "vector add, 2^22 floats", "vadd", vadd);

    // ---- 2. tiled matmul ----------------------------------------------------------
    const int m = size.matrix;
    std::vector<float> h_x(m * m), h_y(m * m), h_z(m * m), h_zref(m * m);
    fill_random(h_x.data(), h_x.size(), 3, -1.0f, 1.0f);
    fill_random(h_y.data(), h_y.size(), 4, -1.0f, 1.0f);
    // The inputs of the vector add are big enough to hold the matrices.
    CUDA_CHECK(cudaMemcpy(d_a, h_x.data(), m * m * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_y.data(), m * m * sizeof(float), cudaMemcpyHostToDevice));
    auto matmul = [&] {
        tiled_matmul<<<dim3(m / TILE, m / TILE), dim3(TILE, TILE)>>>(d_a, d_b, d_c, m);
    };
    matmul();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_z.data(), d_c, m * m * sizeof(float), cudaMemcpyDeviceToHost));
    serial_matmul(h_x.data(), h_y.data(), h_zref.data(), m);
    // 512 float products of values in [-1, 1) summed in float: the rounding error
    // grows with the sum of |terms| (at most 512), so atol covers 512 * 2^-24 * a
    // margin; rtol covers large results.
    if (compare_floats("tiled matmul", h_z.data(), h_zref.data(), h_z.size(), 1e-3, 1e-4, 5))
        return 1;
    openmp_matmul(h_x.data(), h_y.data(), h_z.data(), m, 2);
    if (compare_floats("matmul, OpenMP", h_z.data(), h_zref.data(), h_z.size(), 1e-3, 1e-4, 5))
        return 1;
    tiled_serial_matmul(h_x.data(), h_y.data(), h_z.data(), m);
    if (compare_floats("matmul, tiled serial loops", h_z.data(), h_zref.data(), h_z.size(), 1e-3,
                       1e-4, 5))
        return 1;
    Times mm = measure(
        int(rounds), int(batch), [&] { serial_matmul(h_x.data(), h_y.data(), h_zref.data(), m); },
        [&] { openmp_matmul(h_x.data(), h_y.data(), h_z.data(), m, 2); }, matmul,
        [&] { tiled_serial_matmul(h_x.data(), h_y.data(), h_z.data(), m); });
    print_times(small ? "tiled matmul 128x128, 16x16 tiles" : "tiled matmul 512x512, 16x16 tiles", "matmul", mm);

    if (!skip_sum_histogram) {
        // The vector add's buffers hold as many ints or more bytes.
        if (!time_sum(n, int(rounds), int(batch), small, reinterpret_cast<int*>(d_a),
                      reinterpret_cast<int*>(d_c)))
            return 1;
        if (!time_histogram(n, int(rounds), int(batch), small, reinterpret_cast<unsigned char*>(d_a),
                            reinterpret_cast<unsigned*>(d_c)))
            return 1;
    }

    // ---- 5. the fixed cost of a launch ----------------------------------------------
    // With the buffers above still allocated, as in a lesson.
    const int empties = 200;
    std::vector<double> each;
    for (int r = 0; r < int(rounds); ++r)
        each.push_back(sync_seconds(empties, [] {
            launch_empty_kernel();
            CUDA_CHECK(cudaGetLastError());
        }, [] { CUDA_CHECK(cudaDeviceSynchronize()); }));
    const double empty_s = median(each);
    std::printf("empty kernel <<<1, 1>>>, launch+sync: %.1f us per launch (wall-clock, median)\n",
                empty_s * 1e6);

    // The rates tools/emu-vs-numba.sh compares with numba's simulator (batched).
    const double threads_per_s = double(n) / vadd.batch;
    const double round_trips_per_s = double(m) * m * (2 * (m / TILE)) / mm.batch;
    std::printf("emu-speed: workers=%d empty_launch_s=%.6g threads_per_s=%.4g "
                "barrier_round_trips_per_s=%.4g\n",
                prop.multiProcessorCount, empty_s, threads_per_s, round_trips_per_s);
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    return 0;
}
