// Lesson 08: matrix multiply - one thread per output element.
//
// C = A * B, with A m x k, B k x n and C m x n, all row-major. Each element
// of C is the dot product of one row of A with one column of B:
//
//     C[row][col] = sum over i of A[row][i] * B[i][col]
//
// and no element needs any other, so each gets its own thread: a 2D grid of
// 2D blocks, one thread per (row, col). The same kernel is then run with the
// two ways of mapping the block's x and y onto rows and columns. Which one
// lets neighbouring threads (consecutive threadIdx.x) read neighbouring
// addresses decides how fast GPU memory can serve them.
//
// Build and run:   ./tutorial run 08 [--m 512] [--k 512] [--n 512] [--block 16]
//                  ./tutorial run 08 --bench        (CPU vs GPU as the size grows)
//                  ./tutorial check 08              (the exercise's test)
//                  ./tutorial solution 08           (the finished version)
// It prints the device, runs both mappings, checks each against the CPU
// (PASS or FAIL) and times each kernel with CUDA events.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference.h"
#include "timer.h"

#include <algorithm>
#include <cstdio>
#include <vector>

// ---- kernels ----

// Row `row` of A times column `col` of B. A row of A is k consecutive floats
// starting at row * k; a column of B is k floats, one per row of B, n apart.
// [snippet: dot-row-col]
__device__ float dot_row_col(const float* a, const float* b, int row, int col, int n, int k) {
    float sum = 0.0f;
    // TODO(08.2): add up A[row][i] * B[i][col] for i = 0 to k - 1. Both are
    //             row-major: A has k columns and B has n.
    return sum;
}
// [end snippet]

// One thread per element of C, threadIdx.x along the columns. The threads of
// a warp have consecutive threadIdx.x, so they have consecutive columns: in
// every step of the loop they read B[i][col], B[i][col+1], ... (neighbouring
// addresses, served together) and all read the same A[row][i] (one value,
// broadcast). This is the mapping to use.
// [snippet: kernel]
__global__ void matmul_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    int col = 0;  // TODO(08.1): this thread's column, from the x coordinates
    int row = 0;  // TODO(08.1): this thread's row, from the y coordinates
    // The grid is a whole number of blocks in each direction, so the last
    // blocks stick out past the right and bottom edges of C.
    if (row < m && col < n) c[row * n + col] = dot_row_col(a, b, row, col, n, k);
}
// [end snippet]

// The same work with x and y swapped: threadIdx.x along the rows. Now the
// threads of a warp have consecutive rows, and in every step they read
// A[row][i], A[row+1][i], ... which are k floats apart: scattered addresses,
// each its own trip to memory. Same answer, same arithmetic, slower on a GPU.
__global__ void matmul_rows_from_x_kernel(const float* a, const float* b, float* c, int m, int n,
                                          int k) {
    int row = 0;  // TODO(08.1): this time the row comes from the x coordinates
    int col = 0;  // TODO(08.1): and the column from the y coordinates
    if (row < m && col < n) c[row * n + col] = dot_row_col(a, b, row, col, n, k);
}

// ---- launching ----

enum class Mapping { columns_from_x, rows_from_x };

// Enough blocks of block_size threads to cover count items: rounded up.
static int blocks_for(int count, int block_size) {
    return (count + block_size - 1) / block_size;
}

// Launches one product on device buffers: blocks of block_size x block_size
// threads, the grid sized so that x covers what threadIdx.x walks along.
// [snippet: launch]
static void launch_matmul(Mapping mapping, const float* d_a, const float* d_b, float* d_c,
                          int m, int n, int k, int block_size) {
    dim3 block(block_size, block_size);
    if (mapping == Mapping::columns_from_x) {
        dim3 grid(blocks_for(n, block_size), blocks_for(m, block_size));
        matmul_kernel<<<grid, block>>>(d_a, d_b, d_c, m, n, k);
    } else {
        dim3 grid(blocks_for(m, block_size), blocks_for(n, block_size));
        matmul_rows_from_x_kernel<<<grid, block>>>(d_a, d_b, d_c, m, n, k);
    }
    CUDA_CHECK(cudaGetLastError());
}
// [end snippet]

struct DeviceMatrices {
    float* d_a = nullptr;
    float* d_b = nullptr;
    float* d_c = nullptr;
};

// Allocates A, B and C on the device and copies A and B in.
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

static void matmul_with_mapping(Mapping mapping, const float* h_a, const float* h_b, float* h_c,
                                int m, int n, int k, int block_size) {
    DeviceMatrices dev = device_matrices_with_inputs(h_a, h_b, m, n, k);
    launch_matmul(mapping, dev.d_a, dev.d_b, dev.d_c, m, n, k, block_size);
    CUDA_CHECK(cudaMemcpy(h_c, dev.d_c, (size_t)m * n * sizeof(float), cudaMemcpyDeviceToHost));
    free_device_matrices(dev);
}

// ---- launchers: host arrays in, host array out ----

// C (m x n) = A (m x k) * B (k x n), threadIdx.x along the columns.
// Any sizes >= 1; block_size 1 to 32 (a block of block_size^2 <= 1024 threads).
void matmul_on_gpu(const float* h_a, const float* h_b, float* h_c, int m, int n, int k,
                   int block_size) {
    matmul_with_mapping(Mapping::columns_from_x, h_a, h_b, h_c, m, n, k, block_size);
}

// The same product with threadIdx.x along the rows (the slow mapping).
void matmul_rows_from_x_on_gpu(const float* h_a, const float* h_b, float* h_c, int m, int n,
                               int k, int block_size) {
    matmul_with_mapping(Mapping::rows_from_x, h_a, h_b, h_c, m, n, k, block_size);
}

// ---- timing ----

// Milliseconds per kernel launch: the kernel only, copies not included.
// One warm-up launch first (on a GPU the first launch also loads the kernel),
// then CUDA events around `repeats` launches.
float time_matmul_kernel_ms(Mapping mapping, const float* h_a, const float* h_b, int m, int n,
                            int k, int block_size, int repeats) {
    DeviceMatrices dev = device_matrices_with_inputs(h_a, h_b, m, n, k);
    launch_matmul(mapping, dev.d_a, dev.d_b, dev.d_c, m, n, k, block_size);
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    for (int r = 0; r < repeats; ++r)
        launch_matmul(mapping, dev.d_a, dev.d_b, dev.d_c, m, n, k, block_size);
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));  // launches return at once: wait for the last one
    float total_ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&total_ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    free_device_matrices(dev);
    return total_ms / repeats;
}

// ---- main: both mappings against the CPU, or the timing table ----
#ifndef TUTORIAL_TEST_BUILD

// A product does m*n*k multiply-adds: 2*m*n*k floating-point operations.
static double gflops(int m, int n, int k, double ms) {
    return 2.0 * m * n * k / (ms * 1e-3) / 1e9;
}

static const char* mapping_name(Mapping mapping) {
    return mapping == Mapping::columns_from_x ? "threadIdx.x -> column" : "threadIdx.x -> row";
}

// Each element is a float sum of k products, rounded at every addition, and
// the errors grow with k; the CPU reference sums in double. The products of
// numbers in [-1, 1] add up to at most k in size, so the absolute part grows
// with k (it covers results near zero, where terms cancel); a real bug is off
// by 0.1 or more.
static size_t compare_product(const char* label, const std::vector<float>& got,
                              const std::vector<float>& ref, int n, int k) {
    return compare_matrix(label, got.data(), ref.data(), got.size() / (size_t)n, (size_t)n,
                          1e-5 * k, 1e-5, 5);
}

// CPU vs GPU (both mappings) for square sizes 64, 128, 256, ... Each size
// costs 8 times the one before, so the table stops before a single
// measurement would take more than about 20 s. On the emulator it always stops
// after N = 512: there both columns are this CPU's own times, and N = 1024
// alone took about 25 s of a 30 s table.
static int run_bench(int block_size) {
    std::printf("square matrices, C = A * B with N x N each, %d x %d threads per block\n",
                block_size, block_size);
    std::printf("CPU: the plain triple loop of cpu_reference.h, one core, run once\n");
    std::printf("GPU: kernel only (CUDA events), no copies, after one warm-up launch;\n");
    std::printf("     averaged over enough launches to last about 0.2 s\n\n");
    std::printf("         CPU     GPU, x -> column     GPU, x -> row     CPU time /\n");
    std::printf("     N     ms          ms  GFLOP/s        ms  GFLOP/s   x -> column\n");
    for (int size = 64; size <= 4096; size *= 2) {
        std::vector<float> h_a((size_t)size * size), h_b((size_t)size * size),
            h_c((size_t)size * size);
        fill_random(h_a.data(), h_a.size(), 11, -1.0f, 1.0f);
        fill_random(h_b.data(), h_b.size(), 12, -1.0f, 1.0f);

        double start = wall_time_ms();
        cpu_matmul(h_a.data(), h_b.data(), h_c.data(), size, size, size);
        double cpu_ms = wall_time_ms() - start;

        float gpu_ms[2];
        Mapping mappings[2] = {Mapping::columns_from_x, Mapping::rows_from_x};
        for (int i = 0; i < 2; ++i) {
            // One timed launch says how many fit in about 0.2 s.
            float once = time_matmul_kernel_ms(mappings[i], h_a.data(), h_b.data(), size, size,
                                               size, block_size, 1);
            int repeats = std::clamp((int)(200.0 / std::max(once, 0.001f)), 1, 1000);
            gpu_ms[i] = repeats == 1 ? once
                                     : time_matmul_kernel_ms(mappings[i], h_a.data(), h_b.data(),
                                                             size, size, size, block_size, repeats);
        }
        std::printf("%6d %9.1f %11.3f %8.2f %10.3f %8.2f %10.1fx\n", size, cpu_ms, gpu_ms[0],
                    gflops(size, size, size, gpu_ms[0]), gpu_ms[1],
                    gflops(size, size, size, gpu_ms[1]), cpu_ms / gpu_ms[0]);
        std::fflush(stdout);
#ifdef CUEMU
        const bool enough = size >= 512;
#else
        const double stop_after_ms = 20000.0 / 8.0;
        const bool enough = std::max({cpu_ms, (double)gpu_ms[0], (double)gpu_ms[1]}) > stop_after_ms;
#endif
        if (enough) {
            std::printf("(stopped: the next size would take 8 times as long)\n");
            break;
        }
    }
    return 0;
}

int main(int argc, char** argv) {
    long long m = 512, k = 512, n = 512, block_size = 16, bench = 0;
    cli_option options[] = {
        {"--m", "rows of A and C", CLI_INT, &m, 1, 4096},
        {"--k", "columns of A, rows of B", CLI_INT, &k, 1, 4096},
        {"--n", "columns of B and C", CLI_INT, &n, 1, 4096},
        {"--block", "block is block x block threads", CLI_INT, &block_size, 1, 32},
        {"--bench", "time CPU vs GPU for growing square sizes", CLI_FLAG, &bench, 0, 1},
    };
    cli_parse(argc, argv,
              "Multiplies matrices with one thread per element of C, threadIdx.x along the\n"
              "columns and then along the rows; checks both against the CPU and times them.",
              options, 5);

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);
    if (bench) return run_bench((int)block_size);

    // Sizes this machine cannot hold, or finish in a few minutes, are refused
    // up front (run_limits.h). Seconds per multiply-add, measured for this
    // program at m = n = k = 1024 on a 2-core machine: 15 ns for all of it on
    // the emulator, 4 ns for the CPU reference alone.
    const double mk = (double)m * k, kn = (double)k * n, mn = (double)m * n;
    run_limits_require_memory(4.0 * (mk + kn + 2.0 * mn), 4.0 * (mk + kn + mn));
    run_limits_check_duration(mn * (double)k, 15e-9, 4e-9, "--m, --n or --k");

    std::printf("C (%lld x %lld) = A (%lld x %lld) * B (%lld x %lld): %.0f million "
                "multiply-adds\n", m, n, m, k, k, n, (double)m * n * k / 1e6);
    std::printf("blocks of %lld x %lld threads, one thread per element of C\n\n", block_size,
                block_size);

    std::vector<float> h_a((size_t)(m * k)), h_b((size_t)(k * n)), h_c((size_t)(m * n)),
        h_ref((size_t)(m * n));
    fill_random(h_a.data(), h_a.size(), 1, -1.0f, 1.0f);
    fill_random(h_b.data(), h_b.size(), 2, -1.0f, 1.0f);
    double start = wall_time_ms();
    cpu_matmul(h_a.data(), h_b.data(), h_ref.data(), (int)m, (int)n, (int)k);
    double cpu_ms = wall_time_ms() - start;

    bool all_passed = true;
    for (Mapping mapping : {Mapping::columns_from_x, Mapping::rows_from_x}) {
        fill_poison(h_c.data(), h_c.size());  // NaN: an element no thread wrote cannot pass
        if (mapping == Mapping::columns_from_x)
            matmul_on_gpu(h_a.data(), h_b.data(), h_c.data(), (int)m, (int)n, (int)k,
                          (int)block_size);
        else
            matmul_rows_from_x_on_gpu(h_a.data(), h_b.data(), h_c.data(), (int)m, (int)n,
                                      (int)k, (int)block_size);
        bool passed = compare_product(mapping_name(mapping), h_c, h_ref, (int)n, (int)k) == 0;
        float ms = time_matmul_kernel_ms(mapping, h_a.data(), h_b.data(), (int)m, (int)n,
                                         (int)k, (int)block_size, 1);
        std::printf("%-21s: %9.3f ms %8.2f GFLOP/s   %s\n", mapping_name(mapping), ms,
                    gflops((int)m, (int)n, (int)k, ms), passed ? "PASS" : "FAIL");
        all_passed &= passed;
    }
    std::printf("CPU reference:         %9.3f ms %8.2f GFLOP/s   (one core, sums in double)\n",
                cpu_ms, gflops((int)m, (int)n, (int)k, cpu_ms));
    std::printf("\nGPU times: one kernel launch after a warm-up launch, CUDA events, copies\n"
                "not included. On the CPU emulator they are CPU times.\n");
    std::printf("\n%s\n", all_passed ? "PASS" : "FAIL");
    return all_passed ? 0 : 1;
}
#endif
