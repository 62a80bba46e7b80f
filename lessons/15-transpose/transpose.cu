// Lesson 15: matrix transpose - coalescing, shared-memory tiles and banks.
//
// A transpose does no arithmetic at all: every float is read once and written
// once, somewhere else. Its speed is all memory traffic, so it is the cleanest
// place to see how the ORDER of accesses matters. A plain copy kernel, which
// reads and writes consecutive addresses with consecutive threads, is the
// ceiling. The naive transpose reads like the copy but writes with a stride of
// a whole row. The tiled transpose reads a TILE x TILE tile into __shared__
// memory with consecutive addresses, waits (__syncthreads), and writes it out
// transposed, again with consecutive addresses: the reordering happens in
// shared memory. Read down a column of that tile, though, and all 32 threads
// of a warp land in one of shared memory's 32 banks; one extra float per tile
// row (TILE x (TILE + 1)) spreads them over all 32.
//
// Build and run:   ./tutorial run 15 [--rows 1000] [--cols 1500]
//                  ./tutorial run 15 --bench      (the four kernels, growing sizes)
//                  ./tutorial check 15            (the exercise's test)
//                  ./tutorial solution 15         (the finished version)
// It prints the device, runs the copy, the naive, the tiled and the padded
// tiled transpose, checks each against the CPU (PASS or FAIL), times each with
// CUDA events, and prints which bank each thread of a warp reads from.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference_transpose.h"

#include <algorithm>
#include <cstdio>
#include <vector>

// ---- kernels ----

// Every kernel here runs blocks of TILE x TILE threads, one thread per element
// of a TILE x TILE tile of the input: threadIdx.x along the columns, so that
// the 32 threads of a warp (same threadIdx.y, threadIdx.x 0 to 31) touch 32
// consecutive floats of one row.
constexpr int TILE = 32;

// Row length, in floats, of the shared tile. TILE alone puts every element of
// a tile COLUMN in the same bank; one spare float per row shifts each row by
// one bank.
constexpr int kPlainPitch = TILE;
// [snippet: padded-pitch]
// TODO(15.3): pad each row of the tile by one float, so that the 32 floats
//             of a tile column fall into 32 different banks. As shipped the
//             padded tile is the plain one.
constexpr int kPaddedPitch = TILE;
// [end snippet]

// The ceiling: the same amount of reading and writing as a transpose, with
// both sides consecutive. A warp reads 32 neighbouring floats (128 bytes) and
// writes 32 neighbouring floats: each is one wide memory transaction.
// [snippet: copy-kernel]
__global__ void copy_kernel(const float* in, float* out, int rows, int cols) {
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < rows && col < cols) out[row * cols + col] = in[row * cols + col];
}
// [end snippet]

// The naive transpose: out (cols x rows) has rows `rows` floats long. The read
// is the copy's; the write of a warp goes to 32 different rows of out, `rows`
// floats apart: 32 separate memory transactions for 32 floats.
// [snippet: naive-kernel]
__global__ void naive_transpose_kernel(const float* in, float* out, int rows, int cols) {
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < rows && col < cols) out[col * rows + row] = in[row * cols + col];
}
// [end snippet]

// The tiled transpose. Block (bx, by) reads tile (by, bx) of the input, rows
// by-th, columns bx-th, and writes its transpose as tile (bx, by) of the output.
// Both the read and the write are row by row, consecutive threads at
// consecutive addresses; the turn happens when a thread reads the shared tile
// at [tx][ty] instead of [ty][tx]. PITCH is the row length of the shared
// tile: kPlainPitch or kPaddedPitch.
// [snippet: tiled-kernel]
template <int PITCH>
__global__ void tiled_transpose_kernel(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[TILE][PITCH];
    const int tx = threadIdx.x, ty = threadIdx.y;

    // Read: element (in_row, in_col) of the input, a row of the tile per warp.
    const int in_row = blockIdx.y * TILE + ty;
    const int in_col = blockIdx.x * TILE + tx;
    if (in_row < rows && in_col < cols) tile[ty][tx] = in[in_row * cols + in_col];

    // TODO(15.2): every thread below reads an element that ANOTHER thread
    //             stored: wait until the whole tile is in shared memory.

    // Write: the output has `cols` rows of `rows` floats.
    // TODO(15.1): the tile that came from block column bx, block row by of the
    //             input goes to block row bx, block column by of the output;
    //             inside it, tx again runs along a row. As shipped the tile
    //             goes back to where it came from, which is right only for
    //             the tiles on the diagonal.
    const int out_row = blockIdx.y * TILE + ty;
    const int out_col = blockIdx.x * TILE + tx;
    if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = tile[tx][ty];
}
// [end snippet]

// ---- launching ----

// The four kernels the lesson compares.
enum class Kernel { copy, naive, tiled, tiled_padded };

static int blocks_for(int count) { return (count + TILE - 1) / TILE; }

// One launch on device buffers. The grid covers the INPUT: x along its
// columns, y along its rows.
static void launch(Kernel kernel, const float* d_in, float* d_out, int rows, int cols) {
    dim3 block(TILE, TILE);
    dim3 grid(blocks_for(cols), blocks_for(rows));
    switch (kernel) {
        case Kernel::copy: copy_kernel<<<grid, block>>>(d_in, d_out, rows, cols); break;
        case Kernel::naive: naive_transpose_kernel<<<grid, block>>>(d_in, d_out, rows, cols); break;
        case Kernel::tiled:
            tiled_transpose_kernel<kPlainPitch><<<grid, block>>>(d_in, d_out, rows, cols);
            break;
        case Kernel::tiled_padded:
            tiled_transpose_kernel<kPaddedPitch><<<grid, block>>>(d_in, d_out, rows, cols);
            break;
    }
    CUDA_CHECK(cudaGetLastError());
}

struct DeviceBuffers {
    float* d_in = nullptr;
    float* d_out = nullptr;
};

static DeviceBuffers device_buffers_with_input(const float* h_in, int rows, int cols) {
    const size_t bytes = (size_t)rows * cols * sizeof(float);
    DeviceBuffers dev;
    CUDA_CHECK(cudaMalloc(&dev.d_in, bytes));
    CUDA_CHECK(cudaMalloc(&dev.d_out, bytes));
    CUDA_CHECK(cudaMemcpy(dev.d_in, h_in, bytes, cudaMemcpyHostToDevice));
    return dev;
}

static void free_device_buffers(DeviceBuffers& dev) {
    CUDA_CHECK(cudaFree(dev.d_in));
    CUDA_CHECK(cudaFree(dev.d_out));
    dev = DeviceBuffers{};
}

// Host arrays in and out: allocate, copy in, launch, copy back, free.
static void run_on_gpu(Kernel kernel, const float* h_in, float* h_out, int rows, int cols) {
    DeviceBuffers dev = device_buffers_with_input(h_in, rows, cols);
    launch(kernel, dev.d_in, dev.d_out, rows, cols);
    CUDA_CHECK(cudaMemcpy(h_out, dev.d_out, (size_t)rows * cols * sizeof(float),
                          cudaMemcpyDeviceToHost));
    free_device_buffers(dev);
}

// ---- launchers: host arrays in, host array out ----
// in is rows x cols, out cols x rows (the copy's out: rows x cols), any sizes >= 1.

void copy_matrix_on_gpu(const float* h_in, float* h_out, int rows, int cols) {
    run_on_gpu(Kernel::copy, h_in, h_out, rows, cols);
}

void naive_transpose_on_gpu(const float* h_in, float* h_out, int rows, int cols) {
    run_on_gpu(Kernel::naive, h_in, h_out, rows, cols);
}

// padded: the shared tile is TILE x kPaddedPitch instead of TILE x TILE.
void tiled_transpose_on_gpu(const float* h_in, float* h_out, int rows, int cols, bool padded) {
    run_on_gpu(padded ? Kernel::tiled_padded : Kernel::tiled, h_in, h_out, rows, cols);
}

// ---- shared-memory banks ----
// On NVIDIA GPUs shared memory is split into 32 banks, each 4 bytes wide:
// 4-byte word w of a block's shared memory is in bank w % 32. Each bank serves
// one word per turn, so when the threads of a warp touch k different words in
// the same bank, the access takes k turns (a k-way bank conflict). Several
// threads reading the SAME word share it in one turn.

constexpr int kBanks = 32;

int tile_pitch(bool padded) { return padded ? kPaddedPitch : kPlainPitch; }

// The bank of each thread of a warp (threadIdx.x = lane 0..31, one threadIdx.y)
// when it reads tile[lane][ty] of a tile with rows `pitch` floats long: word
// lane * pitch + ty. This is arithmetic on the layout, not a measurement.
void column_read_banks(int pitch, int ty, int banks[kBanks]) {
    for (int lane = 0; lane < kBanks; ++lane) banks[lane] = (lane * pitch + ty) % kBanks;
}

// How many turns that read takes: the most lanes that share one bank (each
// lane reads a different word here).
int column_read_turns(int pitch) {
    int banks[kBanks], lanes_in_bank[kBanks] = {};
    column_read_banks(pitch, 0, banks);
    for (int lane = 0; lane < kBanks; ++lane) ++lanes_in_bank[banks[lane]];
    return *std::max_element(lanes_in_bank, lanes_in_bank + kBanks);
}

// ---- main: the four kernels against the CPU, or the timing table ----
#ifndef TUTORIAL_TEST_BUILD

static const char* kernel_name(Kernel kernel) {
    switch (kernel) {
        case Kernel::copy: return "copy (the ceiling)";
        case Kernel::naive: return "naive transpose";
        case Kernel::tiled: return "tiled, 32 x 32 tile";
        case Kernel::tiled_padded: return "tiled, 32 x 33 tile";
    }
    return "?";
}

// Milliseconds per launch, kernel only (CUDA events, no copies), after one
// warm-up launch; averaged over enough launches to last about 0.2 s.
static float time_kernel_ms(Kernel kernel, const DeviceBuffers& dev, int rows, int cols) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    float ms = 0.0f;
    int repeats = 1;
    launch(kernel, dev.d_in, dev.d_out, rows, cols);  // warm-up
    for (int attempt = 0; attempt < 2; ++attempt) {
        CUDA_CHECK(cudaEventRecord(start));
        for (int r = 0; r < repeats; ++r) launch(kernel, dev.d_in, dev.d_out, rows, cols);
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

// Effective bandwidth: every float is read once and written once, 2 * 4 bytes
// per element, whatever the kernel does in between.
static double effective_gb_per_s(int rows, int cols, double ms) {
    return 2.0 * rows * cols * sizeof(float) / (ms * 1e-3) / 1e9;
}

static const char* device_name() {
    static cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    return prop.name;
}

static const Kernel kKernels[4] = {Kernel::copy, Kernel::naive, Kernel::tiled,
                                   Kernel::tiled_padded};

static void print_where_it_ran() {
#ifdef CUEMU
    std::printf("These are CPU times from the emulator. It has no memory transactions to\n"
                "coalesce and no shared-memory banks, so neither the naive kernel's strided\n"
                "writes nor the unpadded tile's bank conflicts cost what they may cost on a\n"
                "GPU; each __syncthreads() is a switch between threads. On a GPU the copy is\n"
                "the ceiling, the naive transpose may reach a fraction of it, and the tiled\n"
                "kernels may come close to it, the padded one closest: only a GPU run shows\n"
                "by how much.\n");
#endif
}

// The four kernels at a few square sizes. The emulator stops at 1024 x 1024
// (the whole table takes a few seconds there); a GPU goes on to 8192 x 8192
// (256 MiB per matrix), where launch overheads no longer hide the memory time.
static int run_bench() {
#ifdef CUEMU
    const int sizes[] = {256, 512, 1024};
#else
    const int sizes[] = {1024, 2048, 4096, 8192};
#endif
    std::printf("timing on %s\n", device_name());
    std::printf("transpose of an N x N matrix of floats; effective bandwidth =\n"
                "2 * N * N * 4 bytes / time (each float read once, written once)\n"
                "kernel only (CUDA events), no copies, after one warm-up launch;\n"
                "averaged over enough launches to last about 0.2 s\n\n");
    const char* headings[4] = {"copy", "naive", "tiled 32 x 32", "tiled 32 x 33"};
    std::printf("%6s", "");
    for (const char* heading : headings) std::printf(" %17s", heading);
    std::printf("\n%6s", "N");
    for (int i = 0; i < 4; ++i) std::printf(" %9s %7s", "ms", "GB/s");
    std::printf("\n");
    for (int n : sizes) {
        std::vector<float> h_in((size_t)n * n);
        fill_random(h_in.data(), h_in.size(), 11, -1.0f, 1.0f);
        DeviceBuffers dev = device_buffers_with_input(h_in.data(), n, n);
        std::printf("%6d", n);
        for (Kernel kernel : kKernels) {
            float ms = time_kernel_ms(kernel, dev, n, n);
            std::printf(" %9.3f %7.2f", ms, effective_gb_per_s(n, n, ms));
            std::fflush(stdout);
        }
        std::printf("\n");
        free_device_buffers(dev);
    }
    std::printf("\n");
    print_where_it_ran();
    return 0;
}

// Which bank each lane of warp 0 (threadIdx.y = 0) reads when it reads down a
// column of the tile, for both row lengths.
static void print_bank_picture() {
    std::printf("\nshared-memory banks (on a GPU: 32 banks of 4 bytes; word w is in bank w %% 32)\n"
                "the write-out reads tile[tx][ty]: warp 0 (ty = 0, tx = 0..31) reads words tx * pitch\n");
    for (bool padded : {false, true}) {
        int pitch = tile_pitch(padded), banks[kBanks];
        column_read_banks(pitch, 0, banks);
        std::printf("  pitch %d, banks:", pitch);
        for (int lane = 0; lane < kBanks; ++lane) std::printf(" %d", banks[lane]);
        int turns = column_read_turns(pitch);
        if (turns == 1)
            std::printf("\n    -> one lane per bank: the warp's read takes 1 turn (no bank conflict)\n");
        else
            std::printf("\n    -> up to %d lanes in one bank: %d turns, one after another (a %d-way bank"
                        " conflict)\n", turns, turns, turns);
    }
}

int main(int argc, char** argv) {
    long long rows = 1000, cols = 1500, bench = 0;
    cli_option options[] = {
        {"--rows", "rows of the input (columns of the output)", CLI_INT, &rows, 1, 16384},
        {"--cols", "columns of the input (rows of the output)", CLI_INT, &cols, 1, 16384},
        {"--bench", "time the four kernels for growing square sizes", CLI_FLAG, &bench, 0, 1},
    };
    cli_parse(argc, argv,
              "Transposes a matrix with a naive and a tiled kernel (with and without padding);\n"
              "checks each against the CPU and compares their bandwidth with a plain copy.",
              options, 3);

    std::printf("device 0: %s\n", device_name());
    if (bench) return run_bench();

    // Sizes this machine cannot hold, or finish in a few minutes, are refused
    // up front (run_limits.h): the input, the output and the CPU reference on
    // the host, input and output on the device. Seconds per element, measured
    // for this program at 2048 x 2048 on a 2-core machine: 1.4 us for all of
    // it on the emulator under CUEMU_CHECK=race (1.1 us without), and a
    // generous 10 ns for the CPU reference and the random input on a GPU.
    const double elements = (double)rows * cols;
    run_limits_require_memory(3.0 * 4.0 * elements, 2.0 * 4.0 * elements);
    run_limits_check_duration(elements, 1.4e-6, 1e-8, "--rows or --cols");

    std::printf("in: %lld x %lld, out: %lld x %lld (row-major floats)\n", rows, cols, cols, rows);
    std::printf("blocks of %d x %d threads, one per element of a tile: a grid of %d x %d blocks\n\n",
                TILE, TILE, blocks_for((int)cols), blocks_for((int)rows));

    const size_t count = (size_t)(rows * cols);
    std::vector<float> h_in(count), h_out(count), h_ref(count);
    fill_random(h_in.data(), count, 1, -1.0f, 1.0f);
    cpu_transpose(h_in.data(), h_ref.data(), (int)rows, (int)cols);

    DeviceBuffers dev = device_buffers_with_input(h_in.data(), (int)rows, (int)cols);
    std::printf("%-20s %10s %9s\n", "kernel", "ms", "GB/s");
    bool all_passed = true;
    float ms_of[4] = {};
    for (int i = 0; i < 4; ++i) {
        Kernel kernel = kKernels[i];
        fill_poison(h_out.data(), count);  // NaN: an element no thread wrote cannot pass
        run_on_gpu(kernel, h_in.data(), h_out.data(), (int)rows, (int)cols);
        // A transpose moves floats and computes nothing: it must be exact.
        // The copy is checked against its input, the transposes against the
        // CPU's transpose (cols x rows).
        bool is_copy = kernel == Kernel::copy;
        bool passed = compare_matrix(kernel_name(kernel), h_out.data(),
                                     is_copy ? h_in.data() : h_ref.data(),
                                     is_copy ? (size_t)rows : (size_t)cols,
                                     is_copy ? (size_t)cols : (size_t)rows, 0.0, 0.0, 5) == 0;
        ms_of[i] = time_kernel_ms(kernel, dev, (int)rows, (int)cols);
        std::printf("%-20s %10.3f %9.2f   %s\n", kernel_name(kernel), ms_of[i],
                    effective_gb_per_s((int)rows, (int)cols, ms_of[i]), passed ? "PASS" : "FAIL");
        all_passed &= passed;
    }
    free_device_buffers(dev);

    std::printf("\ntimes: kernel only (CUDA events, no copies), after a warm-up launch;\n"
                "GB/s: 2 * rows * cols * 4 bytes / time (each float read once, written once).\n");
    // Say what was measured, not what should have happened.
    std::printf("measured here, as a share of the copy's bandwidth: naive %.0f%%, tiled %.0f%%,"
                " padded %.0f%%.\n",
                100.0 * ms_of[0] / ms_of[1], 100.0 * ms_of[0] / ms_of[2],
                100.0 * ms_of[0] / ms_of[3]);
    print_where_it_ran();
    print_bank_picture();
    std::printf("\n%s\n", all_passed ? "PASS" : "FAIL");
    return all_passed ? 0 : 1;
}
#endif
