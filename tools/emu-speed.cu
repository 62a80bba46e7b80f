// emu-speed.cu - the emulator's two speed figures, measured on ordinary CUDA.
//
//   bin/nvcc-emu tools/emu-speed.cu -o /tmp/emu-speed && /tmp/emu-speed
//   CUEMU_WORKERS=1 /tmp/emu-speed       # one worker thread instead of one per core
//   tools/emu-vs-numba.sh                # both worker counts and numba's simulator
//
// 1. Barrier-free threads per second: a vector add of 1 M (2^20) threads, 256 per
//    block, no __syncthreads. Rate = threads launched / time. On the emulator a
//    block with no barrier runs its threads one after another on one fiber, so
//    this is the cost of a CUDA thread that never waits.
// 2. Barrier round trips per second: a 512 x 512 tiled matrix multiply with
//    16 x 16 tiles (256-thread blocks), two __syncthreads per tile. One barrier
//    round trip is one thread passing one __syncthreads: it arrives, waits until
//    all 256 threads of its block have arrived, and carries on. Every thread
//    passes 2 x (512 / 16) = 64 barriers, so one launch completes
//    512 * 512 * 64 = 16,777,216 round trips. Rate = round trips / time; the time
//    includes the loads and multiply-adds between the barriers, as in any real
//    kernel. On the emulator each round trip is a fiber switch.
//
// Each kernel is launched once to warm up and checked against the CPU; then
// batches of 1, 2, 4, ... launches are timed with CUDA events until one batch
// takes at least --ms milliseconds, and that batch gives the rate. On the
// emulator these are CPU times. It is ordinary CUDA, so nvcc builds it too, and
// on a GPU the figures are the GPU's.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "cli.h"
#include "compare.h"
#include "cpu_reference.h"
#include "cuda_check.h"
#include "random_data.h"

constexpr int TILE = 16;

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

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

struct Timing {
    int launches;
    double seconds;
};

// Times batches of 1, 2, 4, ... launches until one takes at least min_ms.
template <class Launch>
static Timing time_batches(Launch launch, double min_ms) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    Timing result{0, 0.0};
    for (int launches = 1;; launches *= 2) {
        CUDA_CHECK(cudaEventRecord(start));
        for (int i = 0; i < launches; ++i) {
            launch();
            CUDA_CHECK(cudaGetLastError());
        }
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        result = {launches, ms * 1e-3};
        if (ms >= min_ms || launches >= (1 << 20)) break;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return result;
}

int main(int argc, char** argv) {
    long long min_ms = 1000;
    cli_option opts[] = {
        {"--ms", "time each rate over at least this many milliseconds (0: one launch)",
         CLI_INT, &min_ms, 0, 60000},
    };
    cli_parse(argc, argv,
              "Measures barrier-free threads/s (1 M-thread vector add) and barrier round "
              "trips/s (512x512 tiled matmul).\nSet CUEMU_WORKERS=N to choose the "
              "emulator's worker threads.",
              opts, 1);

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    // On the emulator the multiprocessor count is its number of worker threads.
    std::printf("device: %s, %d multiprocessors\n", prop.name, prop.multiProcessorCount);

    // ---- 1. barrier-free threads: vector add -----------------------------------
    const int n = 1 << 20, block = 256;
    std::vector<float> h_a(n), h_b(n), h_c(n), h_ref(n);
    fill_random(h_a.data(), n, 1, -1.0f, 1.0f);
    fill_random(h_b.data(), n, 2, -1.0f, 1.0f);
    cpu_vector_add(h_a.data(), h_b.data(), h_ref.data(), n);
    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_c, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_a, h_a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    auto add = [&] { vector_add<<<(n + block - 1) / block, block>>>(d_a, d_b, d_c, n); };
    add();  // warm-up, and the launch whose result is checked
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_c.data(), d_c, n * sizeof(float), cudaMemcpyDeviceToHost));
    // One float addition on both sides: the results must agree exactly.
    if (compare_floats("vector add", h_c.data(), h_ref.data(), n, 0.0, 0.0, 5) != 0) return 1;
    Timing t = time_batches(add, double(min_ms));
    const double threads_per_s = double(n) * t.launches / t.seconds;
    std::printf("vector add, %d threads x %d launches in %.3f s: %.1f M threads/s\n", n,
                t.launches, t.seconds, threads_per_s / 1e6);

    // ---- 2. barrier round trips: tiled matmul -----------------------------------
    const int m = 512;
    std::vector<float> h_x(m * m), h_y(m * m), h_z(m * m), h_zref(m * m);
    fill_random(h_x.data(), h_x.size(), 3, -1.0f, 1.0f);
    fill_random(h_y.data(), h_y.size(), 4, -1.0f, 1.0f);
    cpu_matmul(h_x.data(), h_y.data(), h_zref.data(), m, m, m);
    // The inputs of the vector add are big enough to hold the matrices.
    CUDA_CHECK(cudaMemcpy(d_a, h_x.data(), m * m * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_y.data(), m * m * sizeof(float), cudaMemcpyHostToDevice));
    auto matmul = [&] {
        tiled_matmul<<<dim3(m / TILE, m / TILE), dim3(TILE, TILE)>>>(d_a, d_b, d_c, m);
    };
    matmul();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_z.data(), d_c, m * m * sizeof(float), cudaMemcpyDeviceToHost));
    // 512 float products of values in [-1, 1) summed in float: the rounding error
    // grows with the sum of |terms| (at most 512), so atol covers 512 * 2^-24 * a
    // margin; rtol covers large results.
    if (compare_floats("tiled matmul", h_z.data(), h_zref.data(), h_z.size(), 1e-3, 1e-4, 5))
        return 1;
    t = time_batches(matmul, double(min_ms));
    const double round_trips = double(m) * m * (2 * (m / TILE));  // see the top comment
    const double round_trips_per_s = round_trips * t.launches / t.seconds;
    std::printf("tiled matmul %dx%d, %.0f barrier round trips x %d launches in %.3f s: "
                "%.1f M round trips/s\n",
                m, m, round_trips, t.launches, t.seconds, round_trips_per_s / 1e6);

    // One line for scripts (tools/emu-vs-numba.sh reads it).
    std::printf("emu-speed: workers=%d threads_per_s=%.4g barrier_round_trips_per_s=%.4g\n",
                prop.multiProcessorCount, threads_per_s, round_trips_per_s);
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    return 0;
}
