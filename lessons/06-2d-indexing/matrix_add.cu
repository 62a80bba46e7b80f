// Lesson 06: 2D indexing - a matrix add on a 2D grid of 2D blocks.
//
// Blocks and grids have three dimensions (x, y, z); a dim3 gives all three,
// and any left out are 1. A matrix maps naturally onto a 2D grid of 2D
// blocks: each thread takes one element, its column from the x coordinates
// and its row from the y coordinates:
//
//     col = blockIdx.x * blockDim.x + threadIdx.x
//     row = blockIdx.y * blockDim.y + threadIdx.y
//
// The matrix is stored row-major, one row after another, so element
// (row, col) of a rows x cols matrix is at [row * cols + col]. The grid
// covers the columns with ceil(cols / block.x) blocks across and the rows
// with ceil(rows / block.y) blocks down; the blocks on the right and bottom
// edges stick out, so each thread checks both row < rows and col < cols.
//
// Build and run:   ./tutorial run 06 [--rows 1500] [--cols 2500]
//                                    [--block-x 32] [--block-y 8] [--bench]
//                  ./tutorial check 06              (the exercise's test)
//                  ./tutorial solution 06           (the finished version)
// It prints the block and grid it launches, how they meet the matrix, and
// PASS or FAIL against the CPU. --bench times the kernel for several block
// shapes.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference.h"

#include <cstdio>
#include <vector>

// ---- kernel ----

// One thread per element of the rows x cols matrices a, b and c.
// [snippet: kernel]
__global__ void matrix_add_kernel(const float* a, const float* b, float* c, int rows, int cols) {
    // x runs along a row (across the columns), y runs down the columns (across
    // the rows). Neighbouring threads in x get neighbouring columns, which in
    // a row-major matrix are neighbouring addresses.
    int col = 0;  // TODO(06.1): this thread's column, from the x coordinates
                  //             (blockIdx.x, blockDim.x, threadIdx.x)
    int row = 0;  // TODO(06.1): this thread's row, from the y coordinates
    // The grid is a whole number of blocks in each direction, so the blocks on
    // the right edge have threads past the last column and the blocks on the
    // bottom edge have threads past the last row. Both checks are needed: a
    // thread with col >= cols but row < rows would otherwise write into the
    // start of the next row (or past the end of c on the last row).
    if (row < rows && col < cols) {
        int i = 0;  // TODO(06.2): the row-major index of element (row, col): skip
                    //             `row` whole rows of `cols` elements, then `col` more
        c[i] = a[i] + b[i];
    }
}
// [end snippet]

// ---- launch configuration ----

// Enough blocks of block.x x block.y threads to cover a rows x cols matrix:
// the columns need cols / block.x blocks across, rounded up, and the rows
// rows / block.y blocks down, rounded up.
// [snippet: grid-for]
dim3 grid_for(int rows, int cols, dim3 block) {
    // TODO(06.3): enough blocks across for the columns and down for the rows,
    //             each rounded up. One block covers only its own corner.
    return dim3(1, 1);
}
// [end snippet]

// Launches the kernel on matrices already on the device (the launcher below
// and the benchmark in main share it).
// [snippet: launch]
static void launch_matrix_add(const float* d_a, const float* d_b, float* d_c, int rows, int cols,
                              dim3 block) {
    dim3 grid = grid_for(rows, cols, block);
    matrix_add_kernel<<<grid, block>>>(d_a, d_b, d_c, rows, cols);
    CUDA_CHECK(cudaGetLastError());
}
// [end snippet]

// ---- launcher: host matrices in, host matrix out ----

// c = a + b for rows x cols row-major matrices, with blocks of
// block_x x block_y threads (block_x * block_y at most 1024).
void matrix_add_on_gpu(const float* h_a, const float* h_b, float* h_c, int rows, int cols,
                       int block_x, int block_y) {
    const size_t bytes = (size_t)rows * cols * sizeof(float);
    float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    CUDA_CHECK(cudaMalloc(&d_c, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));

    launch_matrix_add(d_a, d_b, d_c, rows, cols, dim3(block_x, block_y));

    CUDA_CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
}

// ---- main: one launch against the CPU, and an optional benchmark ----
#ifndef TUTORIAL_TEST_BUILD

// Says how one side of the grid meets the matrix, from the launch's numbers
// alone: what the kernel then does with spare or missing threads is up to it.
static void describe_side(const char* edge, long long threads, int elements, const char* what) {
    long long spare = threads - elements;
    if (spare == 0)
        std::printf("  %s: no idle threads, every %s has one\n", edge, what);
    else if (spare > 0)
        std::printf("  %s: %lld spare %s%s of threads, for the bounds check to keep out\n", edge,
                    spare, what, spare == 1 ? "" : "s");
    else
        std::printf("  %s: too few threads, %lld %s%s no thread\n", edge, -spare, what,
                    spare == -1 ? " has" : "s have");
}

// Prints the launch and how its threads meet the matrix.
static void describe_launch(int rows, int cols, dim3 block) {
    dim3 grid = grid_for(rows, cols, block);
    long long threads_x = (long long)grid.x * block.x, threads_y = (long long)grid.y * block.y;
    std::printf("matrix: %d rows x %d columns, row-major: (row, col) is at [row * %d + col]\n",
                rows, cols, cols);
    std::printf("block:  dim3(%u, %u) = %u threads, %u across (x) by %u down (y)\n", block.x,
                block.y, block.x * block.y, block.x, block.y);
    unsigned long long blocks = (unsigned long long)grid.x * grid.y;
    std::printf("grid:   dim3(%u, %u) = %llu block%s, %u across (x) by %u down (y)\n", grid.x,
                grid.y, blocks, blocks == 1 ? "" : "s", grid.x, grid.y);
    std::printf("threads: %lld across by %lld down, for %d columns by %d rows\n", threads_x,
                threads_y, cols, rows);
    describe_side("right edge", threads_x, cols, "column");
    describe_side("bottom edge", threads_y, rows, "row");
}

// Times the kernel alone for several block shapes: a warm-up launch, then
// `repeats` launches between two CUDA events.
static void bench(const char* device_name, int rows, int cols, const float* d_a,
                  const float* d_b, float* d_c, dim3 user_block) {
    const dim3 shapes[] = {user_block, dim3(32, 8), dim3(16, 16), dim3(8, 32),
                           dim3(256, 1), dim3(1, 256), dim3(32, 32)};
    const int repeats = 5;
    // Each element: read a and b, write c.
    const double bytes_moved = 3.0 * rows * cols * sizeof(float);
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::printf("\nbenchmark on %s, %d x %d floats\n"
                "kernel only: CUDA events around %d launches after a warm-up;\n"
                "the copies to and from the device are not included\n",
                device_name, rows, cols, repeats);
    std::printf("  %-10s %-12s %12s %10s\n", "block", "grid", "ms/launch", "GB/s");
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
        dim3 block = shapes[s];
        if (s > 0 && block.x == user_block.x && block.y == user_block.y) continue;
        dim3 grid = grid_for(rows, cols, block);
        launch_matrix_add(d_a, d_b, d_c, rows, cols, block);  // warm-up
        CUDA_CHECK(cudaEventRecord(start));
        for (int r = 0; r < repeats; ++r) launch_matrix_add(d_a, d_b, d_c, rows, cols, block);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        double per_launch = ms / repeats;
        char block_text[32], grid_text[32];
        std::snprintf(block_text, sizeof block_text, "%ux%u", block.x, block.y);
        std::snprintf(grid_text, sizeof grid_text, "%ux%u", grid.x, grid.y);
        std::printf("  %-10s %-12s %12.3f %10.1f\n", block_text, grid_text, per_launch,
                    bytes_moved / (per_launch * 1e-3) / 1e9);
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
}

int main(int argc, char** argv) {
    long long rows = 1500, cols = 2500, block_x = 32, block_y = 8, run_bench = 0;
    cli_option options[] = {
        {"--rows", "matrix rows", CLI_INT, &rows, 1, 10000},
        {"--cols", "matrix columns", CLI_INT, &cols, 1, 10000},
        {"--block-x", "threads per block across a row (x)", CLI_INT, &block_x, 1, 1024},
        {"--block-y", "threads per block down a column (y)", CLI_INT, &block_y, 1, 1024},
        {"--bench", "time the kernel for several block shapes", CLI_FLAG, &run_bench, 0, 1},
    };
    cli_parse(argc, argv, "Adds two matrices with a 2D grid of 2D blocks.", options, 5);
    // Each side may be up to 1024, but a block holds at most 1024 threads in all.
    if (block_x * block_y > 1024) {
        std::fprintf(stderr,
                     "error: a block of %lld x %lld = %lld threads is more than the 1024 a "
                     "block can hold (lower --block-x or --block-y)\n",
                     block_x, block_y, block_x * block_y);
        return 2;
    }
    // A, B, C and the reference on the host, A, B and C on the device.
    run_limits_require_memory(4.0 * 4.0 * (double)rows * (double)cols,
                              3.0 * 4.0 * (double)rows * (double)cols);

    cudaDeviceProp prop = {};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);

    const size_t count = (size_t)rows * cols;
    std::vector<float> h_a(count), h_b(count), h_c(count), h_ref(count);
    fill_random(h_a.data(), count, 1, -1.0f, 1.0f);
    fill_random(h_b.data(), count, 2, -1.0f, 1.0f);
    cpu_matrix_add(h_a.data(), h_b.data(), h_ref.data(), (int)rows, (int)cols);

    dim3 block((unsigned)block_x, (unsigned)block_y);
    describe_launch((int)rows, (int)cols, block);
    fill_poison(h_c.data(), count);  // NaN: an element no thread wrote cannot pass
    matrix_add_on_gpu(h_a.data(), h_b.data(), h_c.data(), (int)rows, (int)cols, (int)block_x,
                      (int)block_y);
    // One float addition is correctly rounded on the CPU and on the GPU alike,
    // so the sums must be identical: no tolerance at all.
    size_t mismatches = compare_matrix("matrix add", h_c.data(), h_ref.data(), (size_t)rows,
                                       (size_t)cols, 0.0, 0.0, 5);
    bool passed = mismatches == 0;
    std::printf("matrix add: %s\n", passed ? "PASS" : "FAIL");

    if (run_bench) {
        const size_t bytes = count * sizeof(float);
        float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
        CUDA_CHECK(cudaMalloc(&d_a, bytes));
        CUDA_CHECK(cudaMalloc(&d_b, bytes));
        CUDA_CHECK(cudaMalloc(&d_c, bytes));
        CUDA_CHECK(cudaMemcpy(d_a, h_a.data(), bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_b, h_b.data(), bytes, cudaMemcpyHostToDevice));
        bench(prop.name, (int)rows, (int)cols, d_a, d_b, d_c, block);
        CUDA_CHECK(cudaFree(d_a));
        CUDA_CHECK(cudaFree(d_b));
        CUDA_CHECK(cudaFree(d_c));
    }

    std::printf("\n%s\n", passed ? "PASS" : "FAIL");
    return passed ? 0 : 1;
}
#endif
