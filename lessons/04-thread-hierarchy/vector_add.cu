// Lesson 04: the thread hierarchy - blocks, grids, and the global index.
//
// One block holds at most 1024 threads, so a launch of <<<1, 500000>>> is
// refused. A kernel is launched as a grid of blocks instead: <<<blocks, threads>>>.
// Every thread finds its element from where it sits in the grid:
//
//     i = blockIdx.x * blockDim.x + threadIdx.x
//
// Enough blocks for n elements is ceil(n / block) = (n + block - 1) / block;
// the last block usually sticks out past the end, so each thread checks
// i < n before touching memory. A second kernel shows the grid-stride loop:
// a fixed number of blocks covers any n, each thread handling several elements.
//
// Build and run:   ./tutorial run 04 [--n 1000000] [--block 256] [--blocks B]
//                  ./tutorial check 04              (the exercise's test)
//                  ./tutorial solution 04           (the finished version)
// It prints the device's limits, shows the refused <<<1, 500000>>> launch and
// its error, then runs both kernels and checks them against the CPU: PASS or FAIL.
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

// One thread per element. Launched with at least n threads in all, spread
// over as many blocks as it takes.
// [snippet: kernel]
__global__ void vector_add_kernel(const float* a, const float* b, float* c, int n) {
    // threadIdx.x only counts within one block: every block has a thread 0.
    // Skip the blockIdx.x whole blocks before this one, then count within it.
    int i = 0;  // TODO(04.1): this thread's index in the whole grid, from
                //             blockIdx.x, blockDim.x and threadIdx.x
    // A grid is a whole number of blocks, so unless n is a multiple of the
    // block size the last block has threads past the end of the arrays.
    // Without this check they would write outside c.
    if (i < n) c[i] = a[i] + b[i];
}
// [end snippet]

// Grid-stride loop: any number of blocks covers any n. Each thread starts at
// its global index and jumps ahead by the number of threads in the whole grid,
// so on every pass neighbouring threads still work on neighbouring elements
// and no element is visited twice.
// [snippet: grid-stride-kernel]
__global__ void vector_add_grid_stride_kernel(const float* a, const float* b, float* c, int n) {
    int first = 0;  // TODO(04.1): the same global index as in vector_add_kernel
    // TODO(04.3): the stride is the number of threads in the whole grid (use
    //             gridDim.x and blockDim.x). This placeholder stops every
    //             thread after one element. (Never leave it at 0: i would
    //             never grow and the loop would never end.)
    int stride = n;
    // The loop condition is also the bounds check: a thread whose first
    // element is already past n does nothing.
    for (int i = first; i < n; i += stride) c[i] = a[i] + b[i];
}
// [end snippet]

// ---- device memory (lesson 03's steps, shared by the launchers below) ----

struct DeviceBuffers {
    float* d_a = nullptr;
    float* d_b = nullptr;
    float* d_c = nullptr;
};

// Allocates a, b and c (n floats each) on the device and copies h_a, h_b in.
static DeviceBuffers device_buffers_with_inputs(const float* h_a, const float* h_b, int n) {
    const size_t bytes = (size_t)n * sizeof(float);
    DeviceBuffers buf;
    CUDA_CHECK(cudaMalloc(&buf.d_a, bytes));
    CUDA_CHECK(cudaMalloc(&buf.d_b, bytes));
    CUDA_CHECK(cudaMalloc(&buf.d_c, bytes));
    CUDA_CHECK(cudaMemcpy(buf.d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(buf.d_b, h_b, bytes, cudaMemcpyHostToDevice));
    return buf;
}

// Frees all three.
static void free_buffers(DeviceBuffers& buf) {
    CUDA_CHECK(cudaFree(buf.d_a));
    CUDA_CHECK(cudaFree(buf.d_b));
    CUDA_CHECK(cudaFree(buf.d_c));
    buf = DeviceBuffers{};
}

// Copies c back to h_c (this waits for the kernel to finish) and frees all three.
static void copy_result_and_free(DeviceBuffers& buf, float* h_c, int n) {
    CUDA_CHECK(cudaMemcpy(h_c, buf.d_c, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    free_buffers(buf);
}

// ---- launchers: host arrays in, host array out ----

// How many blocks of block_size threads it takes to give each of n elements a
// thread: n / block_size rounded up. Integer division rounds down, so add
// block_size - 1 first; the result is one block more only when there is a
// remainder.
// [snippet: blocks-for]
static int blocks_for(int n, int block_size) {
    return 1;  // TODO(04.2): enough blocks for n elements, rounded up, in
               //             integer arithmetic (one block is not enough)
}
// [end snippet]

// c = a + b with one thread per element; any n >= 1, block_size 1 to 1024.
// [snippet: launcher]
void vector_add_on_gpu(const float* h_a, const float* h_b, float* h_c, int n, int block_size) {
    DeviceBuffers buf = device_buffers_with_inputs(h_a, h_b, n);
    int num_blocks = blocks_for(n, block_size);
    vector_add_kernel<<<num_blocks, block_size>>>(buf.d_a, buf.d_b, buf.d_c, n);
    CUDA_CHECK(cudaGetLastError());
    copy_result_and_free(buf, h_c, n);
}
// [end snippet]

// c = a + b with a grid of exactly num_blocks blocks, whatever n is.
void vector_add_grid_stride_on_gpu(const float* h_a, const float* h_b, float* h_c, int n,
                                   int block_size, int num_blocks) {
    DeviceBuffers buf = device_buffers_with_inputs(h_a, h_b, n);
    vector_add_grid_stride_kernel<<<num_blocks, block_size>>>(buf.d_a, buf.d_b, buf.d_c, n);
    CUDA_CHECK(cudaGetLastError());
    copy_result_and_free(buf, h_c, n);
}

// ---- the limit: one block of n threads ----

// Launches vector_add_kernel as ONE block of n threads on real buffers of n
// floats, and returns what cudaGetLastError() says about that launch:
// cudaSuccess while n fits in a block, an error beyond (main says which).
// This is the one launch in the lesson not wrapped in CUDA_CHECK: the error is
// the point, so it is returned to the caller instead of ending the program.
cudaError_t try_single_block_launch(int n) {
    std::vector<float> h_zeros((size_t)n, 0.0f);
    DeviceBuffers buf = device_buffers_with_inputs(h_zeros.data(), h_zeros.data(), n);
    vector_add_kernel<<<1, n>>>(buf.d_a, buf.d_b, buf.d_c, n);
    cudaError_t launch_status = cudaGetLastError();
    // A refused launch runs nothing and leaves the device healthy, so the
    // calls below succeed either way; an accepted one finishes here. c is not
    // copied back: after a refused launch nothing wrote it, and reading it
    // would read memory nobody wrote (compute-sanitizer's initcheck says so).
    CUDA_CHECK(cudaDeviceSynchronize());
    free_buffers(buf);
    return launch_status;
}

// ---- main: device limits, the refused launch, both kernels against the CPU ----
#ifndef TUTORIAL_TEST_BUILD

// Prints a launch's grid and how its threads meet the n elements.
static void describe_grid(long long num_blocks, long long block_size, long long n,
                          bool grid_stride) {
    long long threads = num_blocks * block_size;
    std::printf("  grid: %lld block%s x %lld threads = %lld threads for %lld elements\n",
                num_blocks, num_blocks == 1 ? "" : "s", block_size, threads, n);
    if (threads == n)
        std::printf("  every thread has exactly one element\n");
    else if (threads > n)
        std::printf("  the last %lld threads have no element: the kernel's bounds check must keep them idle\n",
                    threads - n);
    else if (grid_stride)
        std::printf("  each thread loops over up to %lld elements, %lld apart\n",
                    (n + threads - 1) / threads, threads);
    else
        std::printf("  too few threads: %lld elements have no thread of their own\n",
                    n - threads);
}

// Compares with the CPU reference and prints PASS or FAIL for one kernel.
static bool report(const char* label, const std::vector<float>& got,
                   const std::vector<float>& ref) {
    // One float addition is correctly rounded on the CPU and on the GPU alike,
    // so the results should agree exactly; the tiny tolerance is a margin only.
    size_t mismatches = compare_floats(label, got.data(), ref.data(), got.size(), 1e-6, 1e-6, 5);
    std::printf("  %s: %s\n", label, mismatches == 0 ? "PASS" : "FAIL");
    return mismatches == 0;
}

int main(int argc, char** argv) {
    // The default for --blocks depends on the device, so ask it before
    // parsing the flags. If there is no usable device, keep a default of 1 for
    // now: --help and a bad flag should get their answer even then. The
    // checked call after the flags stops the program.
    cudaDeviceProp prop = {};
    long long num_blocks = 1;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        // A few blocks per multiprocessor keeps every one of them busy, while
        // leaving each thread several elements to loop over.
        num_blocks = std::clamp(4LL * prop.multiProcessorCount, 1LL, 65535LL);

    long long n = 1000000, block_size = 256;
    cli_option options[] = {
        {"--n", "number of elements", CLI_INT, &n, 1, 100000000},
        {"--block", "threads per block", CLI_INT, &block_size, 1, 1024},
        {"--blocks", "grid-stride blocks; 4 per multiprocessor", CLI_INT, &num_blocks, 1, 65535},
    };
    cli_parse(argc, argv,
              "Adds two vectors with a grid of many blocks, then with a grid-stride loop.",
              options, 3);
    // Four host arrays, three device arrays: refused up front if they do not fit.
    run_limits_require_memory(4.0 * 4.0 * (double)n, 3.0 * 4.0 * (double)n);
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));

    std::printf("device 0: %s\n", prop.name);
    std::printf("  multiprocessors:          %d\n", prop.multiProcessorCount);
    std::printf("  max threads per block:    %d\n", prop.maxThreadsPerBlock);
    std::printf("  max block size (x, y, z): %d x %d x %d\n", prop.maxThreadsDim[0],
                prop.maxThreadsDim[1], prop.maxThreadsDim[2]);
    std::printf("  max grid size (x, y, z):  %d x %d x %d\n", prop.maxGridSize[0],
                prop.maxGridSize[1], prop.maxGridSize[2]);
    bool all_passed = true;

    // 1. The limit, shown for real: one block of 500000 threads. CUDA 13's
    // runtime refuses it with cudaErrorInvalidValue ("invalid argument"; seen on
    // an H200, docs/gpu-runs/); runtimes before 13 said
    // cudaErrorInvalidConfiguration ("invalid configuration argument"), the name
    // older books and forums show.
#if CUDART_VERSION >= 13000
    const cudaError_t kRefusedLaunch = cudaErrorInvalidValue;
#else
    const cudaError_t kRefusedLaunch = cudaErrorInvalidConfiguration;
#endif
    const int too_many_threads = 500000;
    std::printf("\none block of %d threads: vector_add_kernel<<<1, %d>>>\n",
                too_many_threads, too_many_threads);
    cudaError_t refused = try_single_block_launch(too_many_threads);
    std::printf("  cudaGetLastError() -> %s (%s)\n", cudaGetErrorName(refused),
                cudaGetErrorString(refused));
    cudaError_t afterwards = cudaGetLastError();
    std::printf("  cudaGetLastError() again -> %s: the error was reported once; it is\n"
                "  not sticky, and the device still works\n",
                cudaGetErrorName(afterwards));
    if (refused != kRefusedLaunch || afterwards != cudaSuccess) {
        std::printf("  unexpected: wanted %s, then cudaSuccess\n", cudaGetErrorName(kRefusedLaunch));
        all_passed = false;
    }

    // 2. The same addition, done right: many blocks, one thread per element.
    const size_t count = (size_t)n;
    std::vector<float> h_a(count), h_b(count), h_c(count), h_ref(count);
    fill_random(h_a.data(), count, 1, -1.0f, 1.0f);
    fill_random(h_b.data(), count, 2, -1.0f, 1.0f);
    cpu_vector_add(h_a.data(), h_b.data(), h_ref.data(), (int)n);

    std::printf("\none thread per element: vector_add_kernel<<<blocks, %lld>>>\n", block_size);
    describe_grid(blocks_for((int)n, (int)block_size), block_size, n, false);
    fill_poison(h_c.data(), count);  // NaN: an element no thread wrote cannot pass
    vector_add_on_gpu(h_a.data(), h_b.data(), h_c.data(), (int)n, (int)block_size);
    all_passed &= report("one thread per element", h_c, h_ref);

    // 3. A fixed grid, whatever n is: the grid-stride loop.
    std::printf("\ngrid-stride loop: vector_add_grid_stride_kernel<<<%lld, %lld>>>\n",
                num_blocks, block_size);
    describe_grid(num_blocks, block_size, n, true);
    fill_poison(h_c.data(), count);
    vector_add_grid_stride_on_gpu(h_a.data(), h_b.data(), h_c.data(), (int)n,
                                  (int)block_size, (int)num_blocks);
    all_passed &= report("grid-stride loop", h_c, h_ref);

    std::printf("\n%s\n", all_passed ? "PASS" : "FAIL");
    return all_passed ? 0 : 1;
}
#endif
