// Lesson 18: cuBLAS - the dense layer's matrix product from the library.
//
// Lessons 08 and 09 wrote the matrix product by hand; lesson 10 built a dense
// layer Y = sigmoid(W X + b) on it. Real programs call a library for the
// product: cuBLAS, NVIDIA's BLAS (Basic Linear Algebra Subprograms), whose
// cublasSgemm computes C = alpha op(A) op(B) + beta C in single precision.
// Here cublasSgemm does W X and our own kernel adds the bias and applies the
// sigmoid in one pass.
//
// The catch: BLAS is column-major (element (row, col) of a matrix with `ld`
// rows in memory is at [row + col * ld]), and this tutorial is row-major. A
// row-major matrix in memory is its transpose in column-major, so the row-major
// product C = A B is, to cuBLAS, C^T = B^T A^T: the same call with A and B
// swapped and nothing transposed at all.
//
// Build and run:   ./tutorial run 18 [--batch 64] [--inputs 784] [--outputs 128]
//                        [--block 256] [--bench] [--max-n 4096]
//                  ./tutorial check 18              (the exercise's test)
//                  ./tutorial solution 18           (the finished version)
// It checks the product W X and the whole layer against the CPU (PASS or
// FAIL); --bench times lesson 08's kernel, lesson 09's and cuBLAS on square
// matrices of growing size.
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "cuda_check.h"
#include "cublas_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference.h"
#include "timer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

// Matrices are row-major, as in lessons 06 to 10 and cpu_reference.h:
//   W: outputs x inputs, X: inputs x batch, b: outputs, Y: outputs x batch.

// ---- the product through cuBLAS ----

// C = A B for row-major A (m x k), B (k x n) and C (m x n), all device
// pointers. cuBLAS reads each buffer as a column-major matrix: the buffer of
// row-major A (m x k) is column-major A^T (k x m), its leading dimension (the
// distance from one column to the next) k. So ask cuBLAS for
//     C^T (n x m) = B^T (n x k) A^T (k x m)
// with B's buffer first, A's second, no transposes: it writes C^T
// column-major, which is row-major C.
// [snippet: row-major-gemm]
static void matmul_cublas_on_device(cublasHandle_t handle, const float* d_a, const float* d_b,
                                    float* d_c, int m, int n, int k) {
    const float alpha = 1.0f, beta = 0.0f;  // C = 1 * (A B) + 0 * C
    // TODO(18.1): call cublasSgemm, wrapped in CUBLAS_CHECK, so that it
    //             writes row-major C = A B into d_c: which buffer goes first,
    //             what are cuBLAS's m, n and k, and each leading dimension?
    //             (See the comment above.) As shipped nothing is computed and
    //             C stays NaN.
    (void)handle, (void)d_a, (void)d_b, (void)d_c, (void)m, (void)n, (void)k, (void)alpha, (void)beta;
}
// [end snippet]

// ---- our kernel: the epilogue cuBLAS's product does not have ----

// lesson 07's sigmoid, for host and device.
__host__ __device__ inline float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// Y = sigmoid(Y + b), in place, Y row-major outputs x batch, b one value per
// neuron (row). One thread per element, one dimension over the whole array:
// element i is in row i / batch.
// [snippet: bias-sigmoid]
__global__ void bias_sigmoid_kernel(float* y, const float* bias, int outputs, int batch) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < outputs * batch) {
        // TODO(18.2): which neuron (row of Y) is element i in? As shipped
        //             every element gets neuron 0's bias.
        int neuron = 0;
        y[i] = sigmoid(y[i] + bias[neuron]);
    }
}
// [end snippet]

// Y = sigmoid(W X + b): the product from cuBLAS, then our kernel. Both run in
// the handle's stream (the default stream here), in the order they were
// issued: the kernel starts only after the product is complete.
// [snippet: layer]
static void dense_layer_on_device(cublasHandle_t handle, const float* d_w, const float* d_x,
                                  const float* d_b, float* d_y, int outputs, int inputs,
                                  int batch, int block_size) {
    matmul_cublas_on_device(handle, d_w, d_x, d_y, outputs, batch, inputs);
    int count = outputs * batch;
    bias_sigmoid_kernel<<<(count + block_size - 1) / block_size, block_size>>>(d_y, d_b, outputs,
                                                                             batch);
    CUDA_CHECK(cudaGetLastError());
}
// [end snippet]

// ---- launchers: host arrays in, host array out ----

static float* device_floats(size_t count) {
    float* d_p = nullptr;
    CUDA_CHECK(cudaMalloc(&d_p, count * sizeof(float)));
    return d_p;
}

static float* device_copy(const float* h_src, size_t count) {
    float* d_p = device_floats(count);
    CUDA_CHECK(cudaMemcpy(d_p, h_src, count * sizeof(float), cudaMemcpyHostToDevice));
    return d_p;
}

// Fresh device memory may hold an earlier run's right answer: all 0xFF bytes
// is a NaN in every float, so an output nobody writes cannot pass by luck.
static float* device_poisoned(size_t count) {
    float* d_p = device_floats(count);
    CUDA_CHECK(cudaMemset(d_p, 0xFF, count * sizeof(float)));
    return d_p;
}

// A handle holds cuBLAS's state (its stream, its workspace). Making one sets
// up the library and allocates resources on the device, so a real program
// makes one at the start and keeps it, as cuBLAS's documentation advises;
// these launchers make their own to stand alone.
// C = A B, row-major, any sizes >= 1.
void matmul_cublas_on_gpu(const float* h_a, const float* h_b, float* h_c, int m, int n, int k) {
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    float* d_a = device_copy(h_a, (size_t)m * k);
    float* d_b = device_copy(h_b, (size_t)k * n);
    float* d_c = device_poisoned((size_t)m * n);
    matmul_cublas_on_device(handle, d_a, d_b, d_c, m, n, k);
    CUDA_CHECK(cudaMemcpy(h_c, d_c, (size_t)m * n * sizeof(float), cudaMemcpyDeviceToHost));
    for (float* d_p : {d_a, d_b, d_c}) CUDA_CHECK(cudaFree(d_p));
    CUBLAS_CHECK(cublasDestroy(handle));
}

// Y = sigmoid(W X + b) in the layout above; any sizes >= 1, block_size 1 to 1024.
void dense_layer_cublas_on_gpu(const float* h_w, const float* h_x, const float* h_b, float* h_y,
                               int outputs, int inputs, int batch, int block_size) {
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    float* d_w = device_copy(h_w, (size_t)outputs * inputs);
    float* d_x = device_copy(h_x, (size_t)inputs * batch);
    float* d_b = device_copy(h_b, (size_t)outputs);
    float* d_y = device_poisoned((size_t)outputs * batch);
    dense_layer_on_device(handle, d_w, d_x, d_b, d_y, outputs, inputs, batch, block_size);
    CUDA_CHECK(cudaMemcpy(h_y, d_y, (size_t)outputs * batch * sizeof(float),
                          cudaMemcpyDeviceToHost));
    for (float* d_p : {d_w, d_x, d_b, d_y}) CUDA_CHECK(cudaFree(d_p));
    CUBLAS_CHECK(cublasDestroy(handle));
}

#ifndef TUTORIAL_TEST_BUILD

// ---- for --bench: lesson 08's and lesson 09's kernels, re-stated ----

// Lesson 08: one thread per element of C, threadIdx.x along the columns.
__global__ void matmul_naive_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        float sum = 0.0f;
        for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[i * n + col];
        c[row * n + col] = sum;
    }
}

// Lesson 09: the same, through 16 x 16 tiles of A and B in shared memory.
constexpr int kTile = 16;
__global__ void matmul_tiled_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ float a_tile[kTile][kTile];
    __shared__ float b_tile[kTile][kTile];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
    float sum = 0.0f;
    for (int start = 0; start < k; start += kTile) {
        a_tile[ty][tx] = (row < m && start + tx < k) ? a[row * k + start + tx] : 0.0f;
        b_tile[ty][tx] = (start + ty < k && col < n) ? b[(start + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int i = 0; i < kTile; ++i) sum += a_tile[ty][i] * b_tile[i][tx];
        __syncthreads();
    }
    if (row < m && col < n) c[row * n + col] = sum;
}

// Mean time of one call of work(), in ms, with CUDA events around `reps`
// calls after one warm-up call. Kernels and cuBLAS calls on the default
// stream, so the events bracket them.
template <class Work>
static double mean_ms(int reps, Work work) {
    work();
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    for (int r = 0; r < reps; ++r) work();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float total_ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&total_ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return total_ms / reps;
}

// Timed with as many repetitions as fit in about 0.2 s (one timed call says
// how many).
template <class Work>
static double timed_ms(Work work) {
    double once = mean_ms(1, work);
    int reps = std::clamp((int)(200.0 / std::max(once, 0.001)), 1, 1000);
    return reps == 1 ? once : mean_ms(reps, work);
}

static double gflops(int size, double ms) { return 2.0 * size * size * size / (ms * 1e6); }

// The largest |got - ref| over n elements.
static double max_difference(const std::vector<float>& got, const std::vector<float>& ref) {
    double worst = 0.0;
    for (size_t i = 0; i < got.size(); ++i)
        worst = std::max(worst, (double)std::fabs(got[i] - ref[i]));
    return worst;
}

// Square N x N products, N = 64, 128, ... up to max_n: lesson 08's kernel,
// lesson 09's, and cuBLAS, kernels only (no copies). Each size costs 8 times
// the one before, so the table stops once one measurement took over 2.5 s.
static void run_bench(cublasHandle_t handle, int max_n, const char* device_name) {
    std::printf("\nC = A B, N x N, on %s; kernels only (no copies), CUDA events,\n", device_name);
    std::printf("after a warm-up call, repeated to last about 0.2 s\n");
    std::printf("%5s %18s %18s %18s %9s %12s\n", "", "lesson 08 (naive)", "lesson 09 (tiled)",
                "cuBLAS", "cuBLAS vs", "08 and 09:");
    std::printf("%5s %9s %8s %9s %8s %9s %8s %9s %12s\n", "N", "ms", "GFLOP/s", "ms", "GFLOP/s", "ms",
                "GFLOP/s", "tiled", "max |diff|");
    for (int size = 64; size <= max_n; size *= 2) {
        const size_t count = (size_t)size * size;
        std::vector<float> h_a(count), h_b(count), h_c(count), h_ref(count);
        fill_random(h_a.data(), count, 11, -1.0f, 1.0f);
        fill_random(h_b.data(), count, 12, -1.0f, 1.0f);
        float* d_a = device_copy(h_a.data(), count);
        float* d_b = device_copy(h_b.data(), count);
        float* d_c = device_poisoned(count);
        dim3 block(kTile, kTile), grid((unsigned)((size + kTile - 1) / kTile),
                                       (unsigned)((size + kTile - 1) / kTile));
        auto naive = [&] {
            matmul_naive_kernel<<<grid, block>>>(d_a, d_b, d_c, size, size, size);
            CUDA_CHECK(cudaGetLastError());
        };
        auto tiled = [&] {
            matmul_tiled_kernel<<<grid, block>>>(d_a, d_b, d_c, size, size, size);
            CUDA_CHECK(cudaGetLastError());
        };
        auto library = [&] { matmul_cublas_on_device(handle, d_a, d_b, d_c, size, size, size); };
        auto result = [&](std::vector<float>& out) {
            CUDA_CHECK(cudaMemcpy(out.data(), d_c, count * sizeof(float), cudaMemcpyDeviceToHost));
        };
        double ms_library = timed_ms(library);
        result(h_ref);
        double ms_naive = timed_ms(naive);
        result(h_c);
        double difference = max_difference(h_c, h_ref);
        double ms_tiled = timed_ms(tiled);
        result(h_c);
        difference = std::max(difference, max_difference(h_c, h_ref));
        std::printf("%5d %9.3f %8.2f %9.3f %8.2f %9.3f %8.2f %8.1fx %12.7f\n", size, ms_naive,
                    gflops(size, ms_naive), ms_tiled, gflops(size, ms_tiled), ms_library,
                    gflops(size, ms_library), ms_tiled / ms_library, difference);
        std::fflush(stdout);
        for (float* d_p : {d_a, d_b, d_c}) CUDA_CHECK(cudaFree(d_p));
        if (std::max({ms_naive, ms_tiled, ms_library}) > 2500.0) {
            if (size * 2 <= max_n) std::printf("(stopped: the next size would take 8 times as long)\n");
            break;
        }
    }
    std::printf("cuBLAS vs tiled: lesson 09's time over cuBLAS's. Last column: the largest\n"
                "difference of 08's and 09's C from cuBLAS's; the three sum in different orders,\n"
                "so they differ in the last bits, and a wrong kernel would differ by 0.1 or more.\n");
}

// ---- main: the product, then the layer, against the CPU; --bench ----

// The device sums in float, in cuBLAS's order; the CPU reference in double.
// W X: sums of `inputs` products of numbers in +-1 and +-1/sqrt(inputs), off
// by a few 1e-7 (measured); 1e-5 absolute and relative covers any order. The
// layer: outputs in (0, 1) through a sigmoid of slope <= 1/4, the same 1e-5.
// A real bug (a wrong bias, the wrong operand order) is off by 1e-2 or more.
static const double kAtol = 1e-5, kRtol = 1e-5;

static bool report(const char* label, const std::vector<float>& got, const std::vector<float>& ref,
                   int cols) {
    size_t mismatches = compare_matrix(label, got.data(), ref.data(), got.size() / (size_t)cols,
                                       (size_t)cols, kAtol, kRtol, 5);
    std::printf("  %s: %s\n", label, mismatches == 0 ? "PASS" : "FAIL");
    return mismatches == 0;
}

int main(int argc, char** argv) {
    long long batch = 64, inputs = 784, outputs = 128, block_size = 256, bench = 0, max_n = 4096;
    cli_option options[] = {
        {"--batch", "samples per batch: the columns of X", CLI_INT, &batch, 1, 16384},
        {"--inputs", "inputs per sample; 784 = 28 x 28 pixels", CLI_INT, &inputs, 1, 16384},
        {"--outputs", "neurons of the layer", CLI_INT, &outputs, 1, 16384},
        {"--block", "threads per block of the bias-and-sigmoid kernel", CLI_INT, &block_size, 1, 1024},
        {"--bench", "also time lesson 08, lesson 09 and cuBLAS on N x N", CLI_FLAG, &bench, 0, 1},
        {"--max-n", "largest N of the --bench table (64, 128, ... up to it)", CLI_INT, &max_n, 64, 4096},
    };
    cli_parse(argc, argv,
              "A dense layer Y = sigmoid(W X + b): W X by cublasSgemm (row-major data, so\n"
              "the operands are swapped), bias and sigmoid by our kernel; checked against the CPU.",
              options, 6);

    // Sizes this machine cannot hold, or finish in a few minutes, are refused
    // up front (run_limits.h). The work is the layer's multiply-adds, done by
    // the BLAS and twice by the CPU reference (the product, then the layer).
    // Seconds per multiply-add, measured at batch 1024 on a 2-core machine
    // (CPU time): 7 ns for the whole program on the emulator, nearly all of it
    // the CPU reference, so 7 ns for the CPU reference alone too. --bench
    // stops by itself (run_bench).
    {
        const double o = (double)outputs, in = (double)inputs, b = (double)batch;
        const double host = 4.0 * (o * in + in * b + o + 4.0 * o * b);
        const double device = 4.0 * (o * in + in * b + o + o * b);
        const double n = bench ? (double)max_n : 0.0;
        run_limits_require_memory(std::max(host, 16.0 * n * n), std::max(device, 12.0 * n * n));
        run_limits_check_duration(o * in * b, 7e-9, 7e-9, "--batch, --inputs or --outputs");
    }

    cudaDeviceProp prop = {};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);

    const int n_out = (int)outputs, n_in = (int)inputs, n_batch = (int)batch;
    std::vector<float> h_w((size_t)n_out * n_in), h_x((size_t)n_in * n_batch), h_b((size_t)n_out);
    // Weights and biases in +-1/sqrt(inputs), as lesson 10: the sums stay
    // near +-1, where the sigmoid is steep and a bug shows.
    const float scale = 1.0f / std::sqrt((float)n_in);
    fill_random(h_w.data(), h_w.size(), 10, -scale, scale);
    fill_random(h_b.data(), h_b.size(), 11, -scale, scale);
    fill_random(h_x.data(), h_x.size(), 1, -1.0f, 1.0f);

    std::printf("\nY = sigmoid(W X + b): W %d x %d, X %d x %d, b %d, Y %d x %d, row-major\n",
                n_out, n_in, n_in, n_batch, n_out, n_out, n_batch);
    std::printf("cuBLAS is column-major: it sees the buffers as W^T, X^T, Y^T, so the product\n"
                "is Y^T (%d x %d) = X^T (%d x %d) W^T (%d x %d):\n",
                n_batch, n_out, n_batch, n_in, n_in, n_out);
    std::printf("  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m = %d, n = %d, k = %d,\n"
                "              &alpha, d_x, ld %d, d_w, ld %d, &beta, d_y, ld %d)\n",
                n_batch, n_out, n_in, n_batch, n_in, n_batch);

    bool all_passed = true;
    std::vector<float> h_ref((size_t)n_out * n_batch), h_got(h_ref.size());
    cpu_matmul(h_w.data(), h_x.data(), h_ref.data(), n_out, n_batch, n_in);
    fill_poison(h_got.data(), h_got.size());  // NaN: an element nobody wrote cannot pass
    matmul_cublas_on_gpu(h_w.data(), h_x.data(), h_got.data(), n_out, n_batch, n_in);
    all_passed &= report("W X by cuBLAS, against cpu_matmul", h_got, h_ref, n_batch);

    std::printf("then bias_sigmoid_kernel: Y = sigmoid(Y + b), %d threads per block\n", (int)block_size);
    cpu_dense_layer(h_w.data(), h_x.data(), h_b.data(), h_ref.data(), n_out, n_in, n_batch);
    fill_poison(h_got.data(), h_got.size());
    dense_layer_cublas_on_gpu(h_w.data(), h_x.data(), h_b.data(), h_got.data(), n_out, n_in,
                              n_batch, (int)block_size);
    all_passed &= report("the layer, against cpu_dense_layer", h_got, h_ref, n_batch);

    if (bench) {
        cublasHandle_t handle;
        CUBLAS_CHECK(cublasCreate(&handle));
        run_bench(handle, (int)max_n, prop.name);
        CUBLAS_CHECK(cublasDestroy(handle));
    }

    std::printf("\n%s\n", all_passed ? "PASS" : "FAIL");
    return all_passed ? 0 : 1;
}
#endif
