// Lesson 14: histogram - atomics, contention, and private per-block counts.
//
// A histogram counts how often each value occurs: here the 256 grey levels of
// a generated grey-scale picture, one byte per pixel. Every thread reads a
// pixel and adds one to that pixel's bin. Many threads hit the same bin at the
// same time, so a plain `bins[v]++` loses counts (two threads read 7, both
// write 8); atomicAdd makes each read-add-write indivisible. But atomics on
// ONE counter queue up behind each other: a picture that is mostly one grey
// level (skewed) sends most threads to the same bin. The fix is to privatise:
// each block counts its pixels into its own 256 bins in __shared__ memory
// (fast, on-chip, contended only by the block's own threads), then adds its
// 256 totals into the global bins: one atomic per bin per block instead of one
// per pixel. A grid-stride loop lets a fixed number of blocks each count many
// pixels, so there are fewer blocks to merge.
//
// Build and run:   ./tutorial run 14 [--n 1000000] [--block 256] [--blocks B] [--skewed]
//                  ./tutorial run 14 --bench        (every kernel, uniform and skewed)
//                  ./tutorial check 14              (the exercise's test)
//                  ./tutorial solution 14           (the finished version)
// It counts the same picture with global atomics, with shared-memory bins
// (one pixel per thread) and with shared-memory bins and a fixed grid, checks
// each against the CPU exactly (PASS or FAIL) and times each.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "run_limits.h"
#include "cpu_reference_histogram.h"

#include <algorithm>
#include <cstdio>
#include <vector>

// ---- kernels ----

// One thread per pixel, one atomic on a global bin per pixel. Correct, and
// simple; every pixel of the same grey level goes to the same counter.
// [snippet: global-kernel]
__global__ void histogram_global_atomics_kernel(const unsigned char* pixels, int n,
                                                unsigned int* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[pixels[i]], 1u);
}
// [end snippet]

// Privatised: the block's own 256 counters in shared memory. Any block size
// works: with fewer than 256 threads each thread looks after several bins,
// with more some threads look after none. The grid-stride loop covers every
// pixel whatever the grid: one pixel per thread when the grid is large enough,
// many when it is not.
// [snippet: shared-kernel]
__global__ void histogram_shared_kernel(const unsigned char* pixels, int n, unsigned int* bins) {
    __shared__ unsigned int block_bins[HISTOGRAM_BINS];

    // Shared memory is not cleared for a new block: it holds whatever was
    // there before. Each thread zeroes bins threadIdx.x, + blockDim.x, ...
    // TODO(14.1): set every one of the block's bins to 0, the threads of the
    //             block sharing the work (any block size: 1 to 1024 threads).
    // Nobody may count into a bin before it is zeroed.
    __syncthreads();

    // Count this block's pixels: the atomics contend only with this block's
    // own threads, in fast on-chip memory.
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        // TODO(14.2): add one to the block's bin of pixel i's grey level,
        //             safely: other threads of the block may hit the same bin.
    }
    // TODO(14.3): the merge reads bins that other threads of the block
    //             counted into: wait for all of them.

    // Merge: one global atomic per bin that this block saw at all.
    // TODO(14.4): add each of the block's bins to the same bin of the global
    //             histogram, one atomic per bin (a bin at 0 may be skipped).
}
// [end snippet]

// ---- launching ----

static int blocks_for(int count, int block_size) {
    return (count + block_size - 1) / block_size;
}

enum class Kernel { global_atomics, shared_bins };

// blocks == 0 means enough blocks for one pixel per thread. The caller zeroes
// d_bins first: the kernels only add to it.
static void launch(Kernel kernel, const unsigned char* d_pixels, int n, unsigned int* d_bins,
                   int block, int blocks) {
    int grid = blocks > 0 ? blocks : blocks_for(n, block);
    if (kernel == Kernel::global_atomics)
        histogram_global_atomics_kernel<<<grid, block>>>(d_pixels, n, d_bins);
    else
        histogram_shared_kernel<<<grid, block>>>(d_pixels, n, d_bins);
    CUDA_CHECK(cudaGetLastError());
}

struct DeviceHistogram {
    unsigned char* d_pixels = nullptr;
    unsigned int* d_bins = nullptr;
};

static DeviceHistogram device_histogram_with_pixels(const unsigned char* h_pixels, int n) {
    DeviceHistogram dev;
    CUDA_CHECK(cudaMalloc(&dev.d_pixels, (size_t)n));
    CUDA_CHECK(cudaMalloc(&dev.d_bins, HISTOGRAM_BINS * sizeof(unsigned int)));
    CUDA_CHECK(cudaMemcpy(dev.d_pixels, h_pixels, (size_t)n, cudaMemcpyHostToDevice));
    return dev;
}

static void free_device_histogram(DeviceHistogram& dev) {
    CUDA_CHECK(cudaFree(dev.d_pixels));
    CUDA_CHECK(cudaFree(dev.d_bins));
    dev = DeviceHistogram{};
}

static void histogram_with(Kernel kernel, const unsigned char* h_pixels, int n,
                           unsigned int* h_bins, int block, int blocks) {
    DeviceHistogram dev = device_histogram_with_pixels(h_pixels, n);
    // The counts start at zero; every kernel only adds.
    CUDA_CHECK(cudaMemset(dev.d_bins, 0, HISTOGRAM_BINS * sizeof(unsigned int)));
    launch(kernel, dev.d_pixels, n, dev.d_bins, block, blocks);
    CUDA_CHECK(cudaMemcpy(h_bins, dev.d_bins, HISTOGRAM_BINS * sizeof(unsigned int),
                          cudaMemcpyDeviceToHost));
    free_device_histogram(dev);
}

// ---- launchers: host pixels in, 256 host bins out ----

// One global atomicAdd per pixel, blocks of `block` threads (1 to 1024).
void histogram_global_atomics_on_gpu(const unsigned char* h_pixels, int n,
                                     unsigned int* h_bins, int block) {
    histogram_with(Kernel::global_atomics, h_pixels, n, h_bins, block, 0);
}

// Shared-memory bins per block, merged at the end. blocks == 0: enough blocks
// for one pixel per thread; otherwise exactly `blocks` blocks, each counting
// every (blocks * block)-th pixel from its start.
void histogram_shared_on_gpu(const unsigned char* h_pixels, int n, unsigned int* h_bins,
                             int block, int blocks) {
    histogram_with(Kernel::shared_bins, h_pixels, n, h_bins, block, blocks);
}

// ---- main: every kernel against the CPU, or the timing table ----
#ifndef TUTORIAL_TEST_BUILD

// Milliseconds per launch, kernel only (CUDA events, no copies, the bins not
// zeroed between launches: only the time matters here), after one warm-up
// launch; averaged over enough launches to last about 0.2 s.
static float time_kernel_ms(Kernel kernel, const DeviceHistogram& dev, int n, int block,
                            int blocks) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    float ms = 0.0f;
    int repeats = 1;
    launch(kernel, dev.d_pixels, n, dev.d_bins, block, blocks);  // warm-up
    for (int attempt = 0; attempt < 2; ++attempt) {
        CUDA_CHECK(cudaEventRecord(start));
        for (int r = 0; r < repeats; ++r) launch(kernel, dev.d_pixels, n, dev.d_bins, block, blocks);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));  // launches return at once: wait for the last
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        ms /= repeats;
        repeats = std::clamp((int)(200.0f / std::max(ms, 0.001f)), 1, 1000);
        if (repeats == 1) break;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms;
}

// Each pixel is one byte read: the natural rate is bytes (pixels) per second.
static double gb_per_s(int n, double ms) { return n / (ms * 1e-3) / 1e9; }

struct Variant {
    const char* label;
    Kernel kernel;
    int blocks;  // 0: one pixel per thread
};

// What the emulator's times can and cannot say; printed under every table.
static void explain_emulator_times() {
#ifdef CUEMU
    std::printf("These are CPU times from the emulator. It runs a block's threads one after\n"
                "another on one CPU core, so they never contend for a bin (only blocks on\n"
                "different cores can), and each __syncthreads() is a switch between threads,\n"
                "which makes the one-pixel-per-thread run, two barriers per block, the slowest\n"
                "here. On a GPU thousands of threads may hit one bin at the same moment: global\n"
                "atomics may slow down on the skewed picture while the shared-memory bins may\n"
                "not; only a GPU run shows by how much.\n");
#endif
}

static int run_bench(const char* device_name, int block, int blocks) {
    // A GPU counts 64 Mi pixels in about a millisecond or less; the emulator
    // takes seconds for 1 Mi (the one-pixel-per-thread run is the slow one).
#ifdef CUEMU
    const int n = 1 << 20;
#else
    const int n = 1 << 26;
#endif
    const Variant variants[3] = {{"global atomics", Kernel::global_atomics, 0},
                                 {"shared, 1 pixel/thread", Kernel::shared_bins, 0},
                                 {"shared, fixed grid", Kernel::shared_bins, blocks}};
    std::printf("timing on %s\n", device_name);
    std::printf("%d pixels (%d MiB), blocks of %d threads, fixed grid of %d blocks\n", n,
                n >> 20, block, blocks);
    std::printf("uniform: every grey level equally likely; skewed: 90%% of the pixels one level\n");
    std::printf("kernel only (CUDA events), no copies, after one warm-up launch; averaged\n"
                "over enough launches to last about 0.2 s; GB/s: pixels (bytes) read per second\n\n");
    std::printf("%-24s %21s   %21s\n", "", "uniform", "skewed");
    std::printf("%-24s %10s %10s   %10s %10s\n", "kernel", "ms", "GB/s", "ms", "GB/s");
    std::vector<unsigned char> uniform((size_t)n), skewed((size_t)n);
    fill_grey_image(uniform.data(), uniform.size(), 21, 0);
    fill_grey_image(skewed.data(), skewed.size(), 22, 1);
    DeviceHistogram dev_uniform = device_histogram_with_pixels(uniform.data(), n);
    DeviceHistogram dev_skewed = device_histogram_with_pixels(skewed.data(), n);
    for (const Variant& v : variants) {
        float ms_uniform = time_kernel_ms(v.kernel, dev_uniform, n, block, v.blocks);
        float ms_skewed = time_kernel_ms(v.kernel, dev_skewed, n, block, v.blocks);
        std::printf("%-24s %10.3f %10.3f   %10.3f %10.3f\n", v.label, ms_uniform,
                    gb_per_s(n, ms_uniform), ms_skewed, gb_per_s(n, ms_skewed));
        std::fflush(stdout);
    }
    free_device_histogram(dev_uniform);
    free_device_histogram(dev_skewed);
    std::printf("\n");
    explain_emulator_times();
    return 0;
}

int main(int argc, char** argv) {
    // The fixed grid's default depends on the device: a few blocks per
    // multiprocessor keep all of them busy while leaving each block many
    // pixels to count, so each pays for its 256-bin merge only once. Ask before
    // parsing, so that --help shows it; with no usable device keep 32 for now
    // (the checked call below then stops the program).
    cudaDeviceProp prop = {};
    long long blocks = 32;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        blocks = std::clamp(4LL * prop.multiProcessorCount, 1LL, 65535LL);

    long long n = 1000000, block = 256, skewed = 0, bench = 0;
    cli_option options[] = {
        {"--n", "number of pixels (bytes) to count", CLI_INT, &n, 1, 1 << 28},
        {"--block", "threads per block", CLI_INT, &block, 1, 1024},
        {"--blocks", "blocks of the fixed grid; 4 per multiprocessor", CLI_INT, &blocks, 1, 65535},
        {"--skewed", "a dark picture: 90% of the pixels one grey level", CLI_FLAG, &skewed, 0, 1},
        {"--bench", "time every kernel on uniform and skewed pictures", CLI_FLAG, &bench, 0, 1},
    };
    cli_parse(argc, argv,
              "Counts the 256 grey levels of a generated picture with global atomics and with\n"
              "per-block shared-memory bins; checks each against the CPU and times it.",
              options, 5);

    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);
    if (bench) return run_bench(prop.name, (int)block, (int)blocks);

    // Refuse up front what cannot fit or finish (run_limits.h): one byte per
    // pixel on the host and on the device. On the emulator the time grows
    // with the pixels and with the blocks of the one-pixel-per-thread run
    // (each zeroes and merges 256 bins, and switches between its threads at
    // two barriers). Measured for this whole program on a 2-core machine under
    // CUEMU_CHECK=race, with other jobs running: about 1.6 us per pixel at
    // blocks of 256, and a block costing about 36 pixels' worth (--block 1:
    // 58 s for 10^6 pixels); 2 us per unit leaves a margin. On a GPU only the
    // input and the CPU reference take time: a generous 10 ns per pixel.
    run_limits_require_memory((double)n, (double)n);
    const double blocks_of_one_pixel_each = (double)blocks_for((int)n, (int)block);
    run_limits_check_duration((double)n + 36.0 * blocks_of_one_pixel_each, 2e-6, 1e-8,
                              "--n");

    std::printf("%lld pixels, %s\n", n,
                skewed ? "skewed: about 90% of them grey level 16, the rest any level"
                       : "uniform: every grey level 0..255 equally likely");
    std::printf("blocks of %lld threads; the fixed grid has %lld blocks\n\n", block, blocks);

    std::vector<unsigned char> h_pixels((size_t)n);
    fill_grey_image(h_pixels.data(), h_pixels.size(), skewed ? 2 : 1, (int)skewed);
    unsigned int ref[HISTOGRAM_BINS], got[HISTOGRAM_BINS];
    cpu_histogram(h_pixels.data(), h_pixels.size(), ref);

    const Variant variants[3] = {{"global atomics", Kernel::global_atomics, 0},
                                 {"shared, 1 pixel/thread", Kernel::shared_bins, 0},
                                 {"shared, fixed grid", Kernel::shared_bins, (int)blocks}};
    bool all_passed = true;
    float run_ms[3] = {0.0f, 0.0f, 0.0f};
    DeviceHistogram dev = device_histogram_with_pixels(h_pixels.data(), (int)n);
    for (int v = 0; v < 3; ++v) {
        std::fill(got, got + HISTOGRAM_BINS, 0xFFFFFFFFu);  // poison: a bin never copied back stands out
        histogram_with(variants[v].kernel, h_pixels.data(), (int)n, got, (int)block,
                       variants[v].blocks);
        bool passed = compare_histograms(variants[v].label, got, ref) == 0;
        run_ms[v] = time_kernel_ms(variants[v].kernel, dev, (int)n, (int)block, variants[v].blocks);
        std::printf("%-24s %9.3f ms %8.3f GB/s   %s\n", variants[v].label, run_ms[v],
                    gb_per_s((int)n, run_ms[v]), passed ? "PASS" : "FAIL");
        all_passed &= passed;
    }
    free_device_histogram(dev);
    std::printf("\ntimes: kernel only (CUDA events, no copies), after a warm-up launch.\n");
    // Say what was measured, not what should have happened.
    bool shared_faster = run_ms[2] < run_ms[0];
    std::printf("measured here: the fixed-grid shared-memory kernel was %.2f times %s than\n"
                "global atomics.\n",
                shared_faster ? run_ms[0] / run_ms[2] : run_ms[2] / run_ms[0],
                shared_faster ? "faster" : "slower");
    explain_emulator_times();
    std::printf("\n%s\n", all_passed ? "PASS" : "FAIL");
    return all_passed ? 0 : 1;
}
#endif
