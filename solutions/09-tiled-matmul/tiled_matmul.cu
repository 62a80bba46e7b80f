// Lesson 09: tiled matrix multiply - shared memory and __syncthreads().
//
// In the naive kernel (one thread per element of C) every multiply-add reads
// two floats from global memory, and the threads of a block read the same
// values over and over: all 16 threads in a row of a 16x16 block read the
// same row of A. Here each block walks along k one tile at a time. Its threads
// first copy a TILE x TILE tile of A and one of B into __shared__ memory (fast,
// on-chip, shared by the block), each thread one element of each; they wait
// for each other (__syncthreads); then every thread does TILE multiply-adds
// from shared memory; they wait again before the next tiles overwrite these.
// Every element loaded from global memory is now used TILE times.
//
// Build and run:   ./tutorial run 09 [--m 500] [--k 500] [--n 500] [--tile 16]
//                  ./tutorial run 09 --bench               (naive vs tiled, growing N)
//                  ./tutorial run 09 --no-second-barrier   (the race, demonstrated)
//                  ./tutorial check 09                     (the exercise's test)
//                  ./tutorial solution 09                  (the finished version)
// It prints the device, runs the naive and the tiled kernel, checks both
// against the CPU (PASS or FAIL) and times each with CUDA events.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference.h"

#include <algorithm>
#include <cstdio>
#include <vector>

// ---- kernels ----

// The naive kernel, for comparison: one thread per element of C,
// threadIdx.x along the columns, every operand read from global memory.
__global__ void naive_matmul_kernel(const float* a, const float* b, float* c, int m, int n,
                                    int k) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        float sum = 0.0f;
        for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[i * n + col];
        c[row * n + col] = sum;
    }
}

// The tiled kernel. Blocks are TILE x TILE threads, one per element of a
// TILE x TILE tile of C. TILE is a template parameter because the size of a
// __shared__ array must be known when the kernel is compiled; the launcher
// picks 8, 16 or 32 at run time.
//
// kSecondBarrier is for the demonstration only: false leaves out the second
// __syncthreads() to show the race it prevents. It is fixed when the kernel
// is compiled, the same for every thread, so no thread ever skips a barrier
// that another one waits at.
// [snippet: kernel]
template <int TILE, bool kSecondBarrier>
__global__ void tiled_matmul_kernel(const float* a, const float* b, float* c, int m, int n,
                                    int k) {
    __shared__ float a_tile[TILE][TILE];  // rows of this block, TILE columns of A
    __shared__ float b_tile[TILE][TILE];  // TILE rows of B, columns of this block
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;  // this thread's element of C
    const int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;

    // Slide the two tiles along k: A's to the right, B's down.
    const int tile_count = (k + TILE - 1) / TILE;
    for (int t = 0; t < tile_count; ++t) {
        // Each thread copies one element of each tile. Where the matrix ends
        // before the tile does (m, n or k not a multiple of TILE), it stores
        // 0 instead: a zero adds nothing to the sums. It must not skip ahead
        // or return early: every thread of the block has to reach both
        // barriers below, including threads whose element of C does not exist.
        const int a_col = t * TILE + tx;
        const int b_row = t * TILE + ty;
        a_tile[ty][tx] = (row < m && a_col < k) ? a[row * k + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < k && col < n) ? b[b_row * n + col] : 0.0f;
        // Barrier 1: the loop below reads elements that other threads stored.
        __syncthreads();

        for (int i = 0; i < TILE; ++i) sum += a_tile[ty][i] * b_tile[i][tx];

        // Barrier 2: the next pass overwrites the tiles; nobody may start that
        // while a slower thread still reads this pass's values.
        if constexpr (kSecondBarrier) __syncthreads();
    }
    // Only now, after the last barrier, may threads outside C drop out.
    if (row < m && col < n) c[row * n + col] = sum;
}
// [end snippet]

// ---- launching ----

bool tile_is_supported(int tile) { return tile == 8 || tile == 16 || tile == 32; }

static int blocks_for(int count, int block_size) {
    return (count + block_size - 1) / block_size;
}

template <int TILE, bool kSecondBarrier>
static void launch_tiled_with(const float* d_a, const float* d_b, float* d_c, int m, int n,
                              int k) {
    dim3 block(TILE, TILE);
    dim3 grid(blocks_for(n, TILE), blocks_for(m, TILE));  // x: columns, y: rows
    tiled_matmul_kernel<TILE, kSecondBarrier><<<grid, block>>>(d_a, d_b, d_c, m, n, k);
    CUDA_CHECK(cudaGetLastError());
}

// The tile size is a run-time number, TILE a compile-time one: one case per
// supported size. Returns false (and launches nothing) for any other tile.
template <bool kSecondBarrier>
static bool launch_tiled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                         int tile) {
    // [snippet: choose-tile]
    switch (tile) {
        case 8: launch_tiled_with<8, kSecondBarrier>(d_a, d_b, d_c, m, n, k); return true;
        case 16: launch_tiled_with<16, kSecondBarrier>(d_a, d_b, d_c, m, n, k); return true;
        case 32: launch_tiled_with<32, kSecondBarrier>(d_a, d_b, d_c, m, n, k); return true;
        default: return false;
    }
    // [end snippet]
}

static void launch_naive(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                         int block_size) {
    dim3 block(block_size, block_size);
    dim3 grid(blocks_for(n, block_size), blocks_for(m, block_size));
    naive_matmul_kernel<<<grid, block>>>(d_a, d_b, d_c, m, n, k);
    CUDA_CHECK(cudaGetLastError());
}

// Which kernel to run, and with what block or tile size.
enum class Kernel { naive, tiled, tiled_without_second_barrier };

static bool launch(Kernel kernel, const float* d_a, const float* d_b, float* d_c, int m, int n,
                   int k, int size) {
    switch (kernel) {
        case Kernel::naive: launch_naive(d_a, d_b, d_c, m, n, k, size); return true;
        case Kernel::tiled: return launch_tiled<true>(d_a, d_b, d_c, m, n, k, size);
        case Kernel::tiled_without_second_barrier:
            return launch_tiled<false>(d_a, d_b, d_c, m, n, k, size);
    }
    return false;
}

struct DeviceMatrices {
    float* d_a = nullptr;
    float* d_b = nullptr;
    float* d_c = nullptr;
};

static DeviceMatrices device_matrices_with_inputs(const float* h_a, const float* h_b, int m,
                                                  int n, int k) {
    DeviceMatrices dev;
    CUDA_CHECK(cudaMalloc(&dev.d_a, (size_t)m * k * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dev.d_b, (size_t)k * n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dev.d_c, (size_t)m * n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dev.d_a, h_a, (size_t)m * k * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dev.d_b, h_b, (size_t)k * n * sizeof(float), cudaMemcpyHostToDevice));
    return dev;
}

static void free_device_matrices(DeviceMatrices& dev) {
    CUDA_CHECK(cudaFree(dev.d_a));
    CUDA_CHECK(cudaFree(dev.d_b));
    CUDA_CHECK(cudaFree(dev.d_c));
    dev = DeviceMatrices{};
}

static bool matmul_with(Kernel kernel, const float* h_a, const float* h_b, float* h_c, int m,
                        int n, int k, int size) {
    DeviceMatrices dev = device_matrices_with_inputs(h_a, h_b, m, n, k);
    bool launched = launch(kernel, dev.d_a, dev.d_b, dev.d_c, m, n, k, size);
    if (launched)
        CUDA_CHECK(cudaMemcpy(h_c, dev.d_c, (size_t)m * n * sizeof(float),
                              cudaMemcpyDeviceToHost));
    free_device_matrices(dev);
    return launched;
}

// ---- launchers: host arrays in, host array out ----
// C (m x n) = A (m x k) * B (k x n), any sizes >= 1.

// The tiled kernel with tiles of tile x tile (8, 16 or 32). Returns false and
// leaves h_c alone for any other tile size.
bool tiled_matmul_on_gpu(const float* h_a, const float* h_b, float* h_c, int m, int n, int k,
                         int tile) {
    return matmul_with(Kernel::tiled, h_a, h_b, h_c, m, n, k, tile);
}

// DEMONSTRATION ONLY: the tiled kernel without its second __syncthreads().
// Fast threads overwrite the tiles while slow ones still read them. On the
// emulator the result is wrong, and wrong the same way, on every run; on a
// GPU it may be wrong or may happen to be right.
bool tiled_matmul_without_second_barrier_on_gpu(const float* h_a, const float* h_b, float* h_c,
                                                int m, int n, int k, int tile) {
    return matmul_with(Kernel::tiled_without_second_barrier, h_a, h_b, h_c, m, n, k, tile);
}

// The naive kernel, blocks of block_size x block_size threads (1 to 32).
void naive_matmul_on_gpu(const float* h_a, const float* h_b, float* h_c, int m, int n, int k,
                         int block_size) {
    matmul_with(Kernel::naive, h_a, h_b, h_c, m, n, k, block_size);
}

// ---- main: naive and tiled against the CPU, or the timing table ----
#ifndef TUTORIAL_TEST_BUILD

// Milliseconds per launch, kernel only (CUDA events, no copies), after one
// warm-up launch; averaged over enough launches to last about 0.2 s.
static float time_kernel_ms(Kernel kernel, const DeviceMatrices& dev, int m, int n, int k,
                            int size) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    float ms = 0.0f;
    int repeats = 1;
    launch(kernel, dev.d_a, dev.d_b, dev.d_c, m, n, k, size);  // warm-up
    for (int attempt = 0; attempt < 2; ++attempt) {
        CUDA_CHECK(cudaEventRecord(start));
        for (int r = 0; r < repeats; ++r) launch(kernel, dev.d_a, dev.d_b, dev.d_c, m, n, k, size);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));  // launches return at once: wait for the last
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        ms /= repeats;
        // One launch says how many fit in 0.2 s; a slow kernel is done after one.
        repeats = std::clamp((int)(200.0f / std::max(ms, 0.001f)), 1, 1000);
        if (repeats == 1) break;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms;
}

// A product is m*n*k multiply-adds: 2*m*n*k floating-point operations.
static double gflops(int m, int n, int k, double ms) {
    return 2.0 * m * n * k / (ms * 1e-3) / 1e9;
}

// Each element is a float sum of k products, rounded at every addition, so
// its error grows with k, while the reference sums in double. With inputs in
// [-1, 1] the products add up to at most k in size, so the absolute part
// grows with k too (it covers results near zero). A race or a wrong index is
// off by 0.1 or more.
static size_t compare_product(const char* label, const std::vector<float>& got,
                              const std::vector<float>& ref, int n, int k) {
    return compare_matrix(label, got.data(), ref.data(), got.size() / (size_t)n, (size_t)n,
                          1e-5 * k, 1e-5, 5);
}

// Naive (16 x 16 blocks) against tiled with each supported tile, square sizes
// 64, 128, ... Each size costs 8 times the one before, so the table stops
// once a single measurement takes more than 1 s (the next would take about 8 s).
// On the emulator it always stops after N = 256: its rows are CPU times that
// only grow (tiles stay slower there, see the README), and N = 512 alone took
// about 15 s of a 19 s table.
static int run_bench() {
    std::printf("square matrices, C = A * B with N x N each\n");
    std::printf("kernel only (CUDA events), no copies, after one warm-up launch;\n"
                "averaged over enough launches to last about 0.2 s\n\n");
    const Kernel kernels[4] = {Kernel::naive, Kernel::tiled, Kernel::tiled, Kernel::tiled};
    const int sizes[4] = {16, 8, 16, 32};
    const char* labels[4] = {"naive, 16 x 16", "tiled, 8 x 8", "tiled, 16 x 16",
                             "tiled, 32 x 32"};
    std::printf("%6s", "");
    for (const char* label : labels) std::printf(" %16s", label);
    std::printf("\n%6s", "N");
    for (int i = 0; i < 4; ++i) std::printf(" %8s %7s", "ms", "GFLOP/s");
    std::printf("\n");
    for (int size = 64; size <= 4096; size *= 2) {
        std::vector<float> h_a((size_t)size * size), h_b((size_t)size * size);
        fill_random(h_a.data(), h_a.size(), 11, -1.0f, 1.0f);
        fill_random(h_b.data(), h_b.size(), 12, -1.0f, 1.0f);
        DeviceMatrices dev = device_matrices_with_inputs(h_a.data(), h_b.data(), size, size, size);
        std::printf("%6d", size);
        float slowest = 0.0f;
        for (int i = 0; i < 4; ++i) {
            float ms = time_kernel_ms(kernels[i], dev, size, size, size, sizes[i]);
            std::printf(" %8.3f %7.2f", ms, gflops(size, size, size, ms));
            std::fflush(stdout);
            slowest = std::max(slowest, ms);
        }
        std::printf("\n");
        free_device_matrices(dev);
#ifdef CUEMU
        const bool enough = size >= 256;
#else
        const bool enough = slowest > 1000.0f;
#endif
        if (enough) {
            std::printf("(stopped: the next size would take 8 times as long)\n");
            break;
        }
    }
    return 0;
}

int main(int argc, char** argv) {
    long long m = 500, k = 500, n = 500, tile = 16, bench = 0, no_second_barrier = 0;
    cli_option options[] = {
        {"--m", "rows of A and C", CLI_INT, &m, 1, 4096},
        {"--k", "columns of A, rows of B", CLI_INT, &k, 1, 4096},
        {"--n", "columns of B and C", CLI_INT, &n, 1, 4096},
        {"--tile", "tile is tile x tile: 8, 16 or 32", CLI_INT, &tile, 8, 32},
        {"--bench", "time naive vs tiled for growing square sizes", CLI_FLAG, &bench, 0, 1},
        {"--no-second-barrier", "demonstration: run the tiled kernel without its second "
                                "__syncthreads", CLI_FLAG, &no_second_barrier, 0, 1},
    };
    cli_parse(argc, argv,
              "Multiplies matrices with shared-memory tiles; checks the naive and the tiled\n"
              "kernel against the CPU and times both.",
              options, 6);
    // cli_parse checks the range; the tile must also be one of the sizes the
    // kernel was compiled for.
    if (!tile_is_supported((int)tile)) {
        std::fprintf(stderr, "error: --tile must be 8, 16 or 32, got %lld\n", tile);
        return 2;
    }

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);
    if (bench) return run_bench();

    // Sizes this machine cannot hold, or finish in a few minutes, are refused
    // up front (run_limits.h). Seconds per multiply-add, measured for this
    // program at m = n = k = 1024 on a 2-core machine: 28 ns for all of it on
    // the emulator (both kernels, their timing runs and the CPU reference),
    // 4 ns for the CPU reference alone.
    const double mk = (double)m * k, kn = (double)k * n, mn = (double)m * n;
    run_limits_require_memory(4.0 * (mk + kn + 2.0 * mn), 4.0 * (mk + kn + mn));
    run_limits_check_duration(mn * (double)k, 28e-9, 4e-9, "--m, --n or --k");

    std::printf("C (%lld x %lld) = A (%lld x %lld) * B (%lld x %lld)\n", m, n, m, k, k, n);
    std::printf("tiles of %lld x %lld: a grid of %d x %d blocks, %d tile steps along k\n\n",
                tile, tile, blocks_for((int)n, (int)tile), blocks_for((int)m, (int)tile),
                blocks_for((int)k, (int)tile));

    std::vector<float> h_a((size_t)(m * k)), h_b((size_t)(k * n)), h_c((size_t)(m * n)),
        h_ref((size_t)(m * n));
    fill_random(h_a.data(), h_a.size(), 1, -1.0f, 1.0f);
    fill_random(h_b.data(), h_b.size(), 2, -1.0f, 1.0f);
    cpu_matmul(h_a.data(), h_b.data(), h_ref.data(), (int)m, (int)n, (int)k);

    if (no_second_barrier) {
        std::printf("DEMONSTRATION: the tiled kernel without its second __syncthreads()\n");
        fill_poison(h_c.data(), h_c.size());
        tiled_matmul_without_second_barrier_on_gpu(h_a.data(), h_b.data(), h_c.data(), (int)m,
                                                   (int)n, (int)k, (int)tile);
        size_t bad = compare_product("no second barrier", h_c, h_ref, (int)n, (int)k);
        std::printf("  %zu of %lld elements wrong: %s\n", bad, m * n,
                    bad ? "the likely cause: fast threads overwrote tiles that slower ones were still reading"
                        : "no visible damage this time; the race is still there");
        std::printf("\n%s\n", bad ? "FAIL" : "PASS (by luck)");
        return bad ? 1 : 0;
    }

    bool all_passed = true;
    float run_ms[2] = {0.0f, 0.0f};
    DeviceMatrices dev = device_matrices_with_inputs(h_a.data(), h_b.data(), (int)m, (int)n,
                                                     (int)k);
    struct {
        const char* label;
        Kernel kernel;
        int size;
    } runs[2] = {{"naive, 16 x 16 blocks", Kernel::naive, 16},
                 {"tiled, shared memory", Kernel::tiled, (int)tile}};
    for (int r = 0; r < 2; ++r) {
        const auto& run = runs[r];
        fill_poison(h_c.data(), h_c.size());  // NaN: an element no thread wrote cannot pass
        matmul_with(run.kernel, h_a.data(), h_b.data(), h_c.data(), (int)m, (int)n, (int)k,
                    run.size);
        bool passed = compare_product(run.label, h_c, h_ref, (int)n, (int)k) == 0;
        float ms = time_kernel_ms(run.kernel, dev, (int)m, (int)n, (int)k, run.size);
        run_ms[r] = ms;
        std::printf("%-22s %9.3f ms %8.2f GFLOP/s   %s\n", run.label, ms,
                    gflops((int)m, (int)n, (int)k, ms), passed ? "PASS" : "FAIL");
        all_passed &= passed;
    }
    free_device_matrices(dev);
    std::printf("\ntimes: kernel only (CUDA events, no copies), after a warm-up launch.\n");
    // Say what was measured, not what should have happened.
    bool tiled_faster = run_ms[1] < run_ms[0];
    std::printf("measured here: the tiled kernel was %.2f times %s than the naive one.\n",
                tiled_faster ? run_ms[0] / run_ms[1] : run_ms[1] / run_ms[0],
                tiled_faster ? "faster" : "slower");
#ifdef CUEMU
    std::printf("These are CPU times from the emulator, where every __syncthreads() is a\n"
                "switch between threads; what tiling saves is GPU memory traffic, so only\n"
                "a GPU shows its real effect.\n");
#endif
    std::printf("\n%s\n", all_passed ? "PASS" : "FAIL");
    return all_passed ? 0 : 1;
}
#endif
