// Lesson 24: tensor cores and mixed precision.
//
// A tensor core multiplies small matrices in one instruction: a warp hands it
// a 16 x 16 tile of A and a 16 x 16 tile of B in half precision (16-bit
// floats) and gets back their product added into a 16 x 16 tile of float
// sums. That is "mixed precision": narrow inputs, wide accumulation. This
// file shows the narrow formats (half and bfloat16: how far they reach, how
// finely they round), computes C = A * B with an ordinary FP32 kernel, with
// nvcuda::wmma (one warp per 16 x 16 tile of C) and with cuBLAS's
// cublasGemmEx (half inputs, float sums: the library's tensor-core product),
// and checks each against a double-precision CPU product with a tolerance
// worked out from K and the format. Last, why training in half needs loss
// scaling.
//
// Build and run:   ./tutorial run 24 [--m 256] [--n 256] [--k 256]
//                  ./tutorial run 24 --bench    (both kernels, growing N)
//                  ./tutorial check 24          (the exercise's test)
//                  ./tutorial solution 24       (the finished version)
// It prints the formats' table, a loss-scaling example, the three GEMMs with
// their errors against the CPU, the error as K grows, and PASS or FAIL.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>

#include "cuda_check.h"
#include "cublas_check.h"
#include "cli.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference_tensor_cores.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <vector>

using namespace nvcuda;

// ---- the kernels ----

const int kTile = 16;  // a wmma tile: 16 x 16 x 16 (m x n x k)

// The FP32 reference: one thread per element of C, threadIdx.x along a row
// (neighbouring threads read neighbouring elements of B), each a float sum of
// k products on the ordinary CUDA cores.
__global__ void gemm_fp32(int m, int n, int k, const float* a, const float* b, float* c) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        float sum = 0.0f;
        for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[i * n + col];
        c[row * n + col] = sum;
    }
}

// The tensor-core GEMM: one WARP per 16 x 16 tile of C. The wmma functions
// are called by all 32 lanes of a warp together, each lane holding a share of
// every tile (a "fragment"); which elements a lane holds is the hardware's
// business. m, n and k must be multiples of 16: there is no partial tile.
// [snippet: wmma-kernel]
__global__ void gemm_wmma(int m, int n, int k, const half* a, const half* b, float* c) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    const int tiles_per_row = n / kTile;
    const int tile_row = warp / tiles_per_row;  // this warp's tile of C
    const int tile_col = warp % tiles_per_row;
    if (tile_row >= m / kTile) return;  // the whole warp leaves together

    wmma::fragment<wmma::matrix_a, kTile, kTile, kTile, half, wmma::row_major> a_tile;
    wmma::fragment<wmma::matrix_b, kTile, kTile, kTile, half, wmma::row_major> b_tile;
    wmma::fragment<wmma::accumulator, kTile, kTile, kTile, float> sum;
    wmma::fill_fragment(sum, 0.0f);

    // [snippet: tile-loop]
    // Slide along k: the tile of A in rows tile_row * 16 .. + 15 and the tile
    // of B in columns tile_col * 16 .. + 15, both at step .. step + 15.
    for (int step = 0; step < k; step += kTile) {
        // TODO(24.1): load this step's tile of A into a_tile and of B into
        // b_tile (wmma::load_matrix_sync: the tile's first element, and the
        // row length of the matrix it sits in).
        wmma::load_matrix_sync(a_tile, a + tile_row * kTile * k + step, k);
        wmma::load_matrix_sync(b_tile, b + step * n + tile_col * kTile, n);
        // TODO(24.2): sum += a_tile * b_tile, on the tensor cores.
        wmma::mma_sync(sum, a_tile, b_tile, sum);
    }
    // [end snippet]

    wmma::store_matrix_sync(c + tile_row * kTile * n + tile_col * kTile, sum, n,
                            wmma::mem_row_major);
}
// [end snippet]

// Loss scaling, in one multiply: a gradient is computed in half as the
// product of a value coming back from the layer above (`upstream`) and a
// value of this layer (`activation`). Training multiplies the loss, and so
// every upstream value, by `scale` before the backward pass and divides the
// gradient by it, in float, afterwards.
// [snippet: loss-scaling]
__global__ void half_gradient(const float* upstream, const float* activation, float scale,
                              float* gradient, int count) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        const half g = __hmul(__float2half(upstream[i] * scale), __float2half(activation[i]));
        gradient[i] = __half2float(g) / scale;  // unscaled in float, where it fits
    }
}
// [end snippet]

// ---- the launchers: host arrays in, host array out ----

static int blocks_for(int count, int per_block) { return (count + per_block - 1) / per_block; }

const int kWarpsPerBlock = 4;  // 128 threads: four warps, four tiles of C

// The two GEMMs on device arrays (B in float for the FP32 kernel, in half for
// the tensor cores).
static void launch_fp32(int m, int n, int k, const float* d_a, const float* d_b, float* d_c) {
    gemm_fp32<<<dim3(blocks_for(n, 16), blocks_for(m, 16)), dim3(16, 16)>>>(m, n, k, d_a, d_b, d_c);
    CUDA_CHECK(cudaGetLastError());
}

static void launch_wmma(int m, int n, int k, const half* d_a, const half* d_b, float* d_c) {
    const int tiles = (m / kTile) * (n / kTile);
    gemm_wmma<<<blocks_for(tiles, kWarpsPerBlock), kWarpsPerBlock * 32>>>(m, n, k, d_a, d_b, d_c);
    CUDA_CHECK(cudaGetLastError());
}

// The library's tensor-core product: cublasGemmEx takes the type of each
// matrix and the type of the sums separately. Here A and B are half, C float,
// the sums float (CUBLAS_COMPUTE_32F, so alpha and beta are float), and
// CUBLAS_GEMM_DEFAULT lets cuBLAS choose the kernel: on a GPU with tensor
// cores, one that uses them for these types. cuBLAS reads column-major
// matrices; as in lesson 18, row-major A, B and C are asked for as
// C^T (n x m) = B^T (n x k) A^T (k x m): B's buffer first, no transposes.
// [snippet: gemm-ex]
static void gemm_ex_on_device(cublasHandle_t handle, int m, int n, int k, const half* d_a,
                              const half* d_b, float* d_c) {
    const float alpha = 1.0f, beta = 0.0f;  // C = 1 * (A B) + 0 * C
    CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k,
                              &alpha, d_b, CUDA_R_16F, n,   // B^T: n x k, half
                                      d_a, CUDA_R_16F, k,   // A^T: k x m, half
                              &beta,  d_c, CUDA_R_32F, n,   // C^T: n x m, float
                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}
// [end snippet]

// C (m x n) = A (m x k) * B (k x n) in FP32 on the CUDA cores, any sizes >= 1.
void fp32_gemm_on_gpu(int m, int n, int k, const float* h_a, const float* h_b, float* h_c) {
    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, (size_t)m * k * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, (size_t)k * n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_c, (size_t)m * n * sizeof(float)));
    // All bits set is a NaN: an element the product leaves unwritten comes back
    // as NaN, never as whatever an earlier allocation left there.
    CUDA_CHECK(cudaMemset(d_c, 0xFF, (size_t)m * n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_a, h_a, (size_t)m * k * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b, (size_t)k * n * sizeof(float), cudaMemcpyHostToDevice));
    launch_fp32(m, n, k, d_a, d_b, d_c);
    CUDA_CHECK(cudaMemcpy(h_c, d_c, (size_t)m * n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
}

// Each value rounded to the nearest half (ties to even), as a GPU's
// conversion instruction does; the same function works on the device.
static std::vector<half> to_half(const float* values, size_t count) {
    std::vector<half> halves(count);
    for (size_t i = 0; i < count; ++i) halves[i] = __float2half(values[i]);
    return halves;
}

// C (m x n) = A (m x k) * B (k x n) with A and B rounded to half here (on the
// host, to nearest even, as a GPU's conversion instruction does) and copied
// over; multiply(d_a, d_b, d_c) computes C on the device, in float.
// [snippet: wmma-launcher]
template <typename Multiply>
static void gemm_with_half_inputs(int m, int n, int k, const float* h_a, const float* h_b,
                                  float* h_c, Multiply multiply) {
    const std::vector<half> a_half = to_half(h_a, (size_t)m * k);
    const std::vector<half> b_half = to_half(h_b, (size_t)k * n);
    half *d_a, *d_b;
    float* d_c;
    CUDA_CHECK(cudaMalloc(&d_a, a_half.size() * sizeof(half)));
    CUDA_CHECK(cudaMalloc(&d_b, b_half.size() * sizeof(half)));
    CUDA_CHECK(cudaMalloc(&d_c, (size_t)m * n * sizeof(float)));
    // All bits set is a NaN: an element the product leaves unwritten comes back
    // as NaN, never as whatever an earlier allocation left there.
    CUDA_CHECK(cudaMemset(d_c, 0xFF, (size_t)m * n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_a, a_half.data(), a_half.size() * sizeof(half), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b_half.data(), b_half.size() * sizeof(half), cudaMemcpyHostToDevice));
    multiply(d_a, d_b, d_c);
    CUDA_CHECK(cudaMemcpy(h_c, d_c, (size_t)m * n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
}

// The product on the tensor cores, by our wmma kernel. m, n and k must be
// multiples of 16; returns false, doing nothing, otherwise.
bool tensor_core_gemm_on_gpu(int m, int n, int k, const float* h_a, const float* h_b,
                             float* h_c) {
    if (m % kTile != 0 || n % kTile != 0 || k % kTile != 0) return false;
    gemm_with_half_inputs(m, n, k, h_a, h_b, h_c, [&](const half* d_a, const half* d_b, float* d_c) {
        launch_wmma(m, n, k, d_a, d_b, d_c);
    });
    return true;
}
// [end snippet]

// The same product by cuBLAS, any sizes >= 1 (the library pads for itself).
void cublas_gemm_ex_on_gpu(int m, int n, int k, const float* h_a, const float* h_b, float* h_c) {
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    gemm_with_half_inputs(m, n, k, h_a, h_b, h_c, [&](const half* d_a, const half* d_b, float* d_c) {
        gemm_ex_on_device(handle, m, n, k, d_a, d_b, d_c);
    });
    CUBLAS_CHECK(cublasDestroy(handle));
}

// gradient[i] = upstream[i] * activation[i], computed in half with the loss
// scaled by `scale` and unscaled in float (half_gradient above).
void half_gradient_on_gpu(const float* h_upstream, const float* h_activation, float scale,
                          float* h_gradient, int count) {
    const size_t bytes = (size_t)count * sizeof(float);
    float *d_upstream, *d_activation, *d_gradient;
    CUDA_CHECK(cudaMalloc(&d_upstream, bytes));
    CUDA_CHECK(cudaMalloc(&d_activation, bytes));
    CUDA_CHECK(cudaMalloc(&d_gradient, bytes));
    CUDA_CHECK(cudaMemcpy(d_upstream, h_upstream, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_activation, h_activation, bytes, cudaMemcpyHostToDevice));
    half_gradient<<<blocks_for(count, 128), 128>>>(d_upstream, d_activation, scale, d_gradient,
                                                  count);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_gradient, d_gradient, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_upstream));
    CUDA_CHECK(cudaFree(d_activation));
    CUDA_CHECK(cudaFree(d_gradient));
}

// ---- how far from the exact product a GEMM may be ----

// The largest error allowed for one element of C = A * B, given the sum of
// the magnitudes of its k products, sum |a_i b_i| (cpu_gemm_fp64 gives it).
// [snippet: error-bound]
// Two roundings make the error:
// 1. The inputs. Rounded to a format of unit roundoff u_in (2^-11 for half,
//    0 for float inputs used as they are), a and b each err by a factor
//    (1 + d) with |d| <= u_in, so a product errs by at most
//    (2 u_in + u_in^2) |a b|. Two halves multiply EXACTLY in float (11 + 11
//    significant bits fit in float's 24), so nothing is lost there.
// 2. The sum. k additions in float (u = 2^-24) each round once: at most
//    about k u of sum |a b| in all. A tensor core may round its additions
//    toward zero instead of to nearest, which can double that: 2 (k + 2) u.
// These are worst cases: every rounding at its largest, all the same way.
// Random roundings mostly cancel, so the typical error grows like sqrt(k),
// not k: about u_in * sqrt(k) * (the size of one product) for half inputs.
// For half inputs term 1 (2^-10 = 1e-3) outweighs term 2 until k is about
// 2^13: the error is the price of rounding the INPUTS, not of the sums.
double gemm_error_bound(double input_roundoff, int k, double magnitude) {
    const double float_roundoff = std::ldexp(1.0, -24);
    const double inputs = 2.0 * input_roundoff + input_roundoff * input_roundoff;
    const double sums = 2.0 * (k + 2) * float_roundoff;
    return (inputs + sums) * magnitude;
}
// [end snippet]

// ---- main: the formats, loss scaling, the two GEMMs, accuracy against K ----
#ifndef TUTORIAL_TEST_BUILD

// The formats: half and bfloat16 beside float.
// Every format stores sign, exponent and fraction bits; the exponent sets the
// range, the fraction the precision. A value rounded to nearest is off by at
// most half a step, a relative error of at most the "unit roundoff":
//   float     8 exponent bits, 23 fraction bits: unit roundoff 2^-24
//   half      5 exponent bits, 10 fraction bits: unit roundoff 2^-11
//   bfloat16  8 exponent bits,  7 fraction bits: unit roundoff 2^-8
// The extreme values below are built from their bit patterns, so the table
// shows what the hardware stores, not numbers typed in.
static void print_format_table() {
    const float half_max = __half2float(__ushort_as_half(0x7bff));
    const float half_min_normal = __half2float(__ushort_as_half(0x0400));
    const float half_min_subnormal = __half2float(__ushort_as_half(0x0001));
    const float half_epsilon = __half2float(__ushort_as_half(0x3c01)) - 1.0f;
    const float bf16_max = __bfloat162float(__ushort_as_bfloat16(0x7f7f));
    const float bf16_min_normal = __bfloat162float(__ushort_as_bfloat16(0x0080));
    const float bf16_min_subnormal = __bfloat162float(__ushort_as_bfloat16(0x0001));
    const float bf16_epsilon = __bfloat162float(__ushort_as_bfloat16(0x3f81)) - 1.0f;
    std::printf("%-9s %5s %9s %9s %13s %15s %12s\n", "format", "bits", "exp/frac", "largest",
                "least normal", "least subnormal", "epsilon");
    std::printf("%-9s %5d %9s %9.3g %13.3g %15.3g %12.3g\n", "float", 32, "8/23", FLT_MAX,
                FLT_MIN, std::ldexp(1.0f, -149), FLT_EPSILON);
    std::printf("%-9s %5d %9s %9.5g %13.3g %15.3g %12.3g\n", "half", 16, "5/10", half_max,
                half_min_normal, half_min_subnormal, half_epsilon);
    std::printf("%-9s %5d %9s %9.3g %13.3g %15.3g %12.3g\n", "bfloat16", 16, "8/7", bf16_max,
                bf16_min_normal, bf16_min_subnormal, bf16_epsilon);
    std::printf("(epsilon: the gap from 1 to the next value; rounding to nearest errs by half\n"
                " of it at most, relative: 2^-24 for float, 2^-11 for half, 2^-8 for bfloat16)\n\n");

    // A few values rounded to each format: the relative error stays under the
    // unit roundoff while a value is in the normal range; past the largest
    // value half gives inf, and below its least normal value it loses digits
    // and then everything (0).
    const double values[] = {0.1, 3.14159265358979, 1000.7, 70000.0, 1e-6, 1e-8};
    std::printf("%-12s %14s %10s %14s %10s\n", "value", "as half", "rel. error", "as bfloat16",
                "rel. error");
    for (double value : values) {
        const double as_half = __half2float(__double2half(value));
        const double as_bf16 = __bfloat162float(__double2bfloat16(value));
        std::printf("%-12.9g %14.8g %10.1e %14.8g %10.1e\n", value, as_half,
                    std::fabs(as_half - value) / value, as_bf16, std::fabs(as_bf16 - value) / value);
    }
}

const double kHalfRoundoff = 1.0 / 2048.0;  // 2^-11

// How one kernel's C compares with the exact product.
struct Accuracy {
    double max_error = 0.0;     // largest |c - exact|
    double rms_error = 0.0;     // root mean square of c - exact
    double worst_ratio = 0.0;   // largest |c - exact| / its element's bound
    size_t beyond_bound = 0;    // elements over their bound (NaN counts)
};

static Accuracy measure_accuracy(const std::vector<float>& c, const std::vector<double>& exact,
                                 const std::vector<double>& magnitude, double input_roundoff,
                                 int k) {
    Accuracy acc;
    double squares = 0.0;
    for (size_t i = 0; i < c.size(); ++i) {
        const double error = std::fabs((double)c[i] - exact[i]);
        const double bound = gemm_error_bound(input_roundoff, k, magnitude[i]);
        if (!(error <= bound)) ++acc.beyond_bound;  // also true for NaN
        if (std::isnan(error)) continue;
        acc.max_error = std::max(acc.max_error, error);
        acc.worst_ratio = std::max(acc.worst_ratio, bound > 0 ? error / bound : 0.0);
        squares += error * error;
    }
    acc.rms_error = std::sqrt(squares / (double)c.size());
    return acc;
}

static void print_loss_scaling() {
    // A gradient of 1e-8: upstream 1e-4 times activation 1e-4. Half's least
    // subnormal value is 6e-8, so the product rounds to 0 in half; scaled by
    // 2^16 it is 6.6e-4, a normal half, and divided by 2^16 in float it is
    // back, to half's precision.
    const int count = 3;
    const float upstream[count] = {1e-4f, 3e-3f, 0.5f};
    const float activation[count] = {1e-4f, 2e-5f, 0.25f};
    const float scales[] = {1.0f, 65536.0f};
    std::printf("gradient = upstream * activation, computed in half:\n");
    std::printf("%-10s %-10s %12s %18s %18s\n", "upstream", "activation", "exact",
                "in half, scale 1", "scale 2^16");
    float results[2][count];
    for (int s = 0; s < 2; ++s)
        half_gradient_on_gpu(upstream, activation, scales[s], results[s], count);
    for (int i = 0; i < count; ++i)
        std::printf("%-10.3g %-10.3g %12.4g %18.4g %18.4g\n", upstream[i], activation[i],
                    (double)upstream[i] * activation[i], results[0][i], results[1][i]);
}

// Milliseconds of one launch (CUDA events, no copies), after a warm-up launch.
template <typename Launch>
static float time_launch_ms(Launch launch) {
    launch();  // warm-up
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    launch();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms;
}

// Both kernels on device copies of A and B, and cublasGemmEx on the same
// halves (untimed unless asked: the timing table is the kernels'); fills
// fp32_c, wmma_c and cublas_c and returns each kernel's time.
struct GemmRun {
    std::vector<float> fp32_c, wmma_c, cublas_c;
    float fp32_ms = 0.0f, wmma_ms = 0.0f;
};

static GemmRun run_both(int m, int n, int k, const std::vector<float>& h_a,
                        const std::vector<float>& h_b, bool timed) {
    GemmRun run;
    run.fp32_c.assign((size_t)m * n, NAN);
    run.wmma_c.assign((size_t)m * n, NAN);
    run.cublas_c.assign((size_t)m * n, NAN);
    const std::vector<half> a_half = to_half(h_a.data(), h_a.size());
    const std::vector<half> b_half = to_half(h_b.data(), h_b.size());
    float *d_a, *d_b, *d_c;
    half *d_a_half, *d_b_half;
    CUDA_CHECK(cudaMalloc(&d_a, h_a.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, h_b.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_a_half, a_half.size() * sizeof(half)));
    CUDA_CHECK(cudaMalloc(&d_b_half, b_half.size() * sizeof(half)));
    CUDA_CHECK(cudaMalloc(&d_c, run.fp32_c.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_a, h_a.data(), h_a.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b.data(), h_b.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_a_half, a_half.data(), a_half.size() * sizeof(half),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b_half, b_half.data(), b_half.size() * sizeof(half),
                          cudaMemcpyHostToDevice));
    const size_t c_bytes = run.fp32_c.size() * sizeof(float);
    auto fp32 = [&] { launch_fp32(m, n, k, d_a, d_b, d_c); };
    auto wmma = [&] { launch_wmma(m, n, k, d_a_half, d_b_half, d_c); };
    // Poisoned (NaN) before each kernel: an element no warp wrote cannot pass.
    CUDA_CHECK(cudaMemcpy(d_c, run.fp32_c.data(), c_bytes, cudaMemcpyHostToDevice));
    if (timed) run.fp32_ms = time_launch_ms(fp32); else fp32();
    CUDA_CHECK(cudaMemcpy(run.fp32_c.data(), d_c, c_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(d_c, run.wmma_c.data(), c_bytes, cudaMemcpyHostToDevice));
    if (timed) run.wmma_ms = time_launch_ms(wmma); else wmma();
    CUDA_CHECK(cudaMemcpy(run.wmma_c.data(), d_c, c_bytes, cudaMemcpyDeviceToHost));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUDA_CHECK(cudaMemcpy(d_c, run.cublas_c.data(), c_bytes, cudaMemcpyHostToDevice));
    gemm_ex_on_device(handle, m, n, k, d_a_half, d_b_half, d_c);
    CUDA_CHECK(cudaMemcpy(run.cublas_c.data(), d_c, c_bytes, cudaMemcpyDeviceToHost));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a_half));
    CUDA_CHECK(cudaFree(d_b_half));
    CUDA_CHECK(cudaFree(d_c));
    return run;
}

static double gflops(int m, int n, int k, double ms) { return 2.0 * m * n * k / (ms * 1e-3) / 1e9; }

// Random A and B in [-1, 1] and their exact product.
struct Problem {
    std::vector<float> a, b;
    std::vector<double> exact, magnitude;
};

static Problem make_problem(int m, int n, int k) {
    Problem p;
    p.a.resize((size_t)m * k);
    p.b.resize((size_t)k * n);
    p.exact.resize((size_t)m * n);
    p.magnitude.resize((size_t)m * n);
    fill_random(p.a.data(), p.a.size(), 1, -1.0f, 1.0f);
    fill_random(p.b.data(), p.b.size(), 2, -1.0f, 1.0f);
    cpu_gemm_fp64(m, n, k, p.a.data(), p.b.data(), p.exact.data(), p.magnitude.data());
    return p;
}

static void print_accuracy_row(const char* name, const Accuracy& acc, size_t elements) {
    std::printf("%-26s %12.2e %12.2e %12.2f   ", name, acc.max_error, acc.rms_error,
                acc.worst_ratio);
    if (acc.beyond_bound)
        std::printf("FAIL: %zu of %zu elements over their bound\n", acc.beyond_bound, elements);
    else
        std::printf("PASS\n");
}

// The error of each GEMM as K grows (m = n = 64): the FP32 kernel's stays
// near float's roundoff, the tensor cores' (ours and cuBLAS's) grows like
// sqrt(K), as half's input rounding predicts. Returns how many checks failed.
static int run_accuracy_against_k() {
    const int m = 64, n = 64;
    std::printf("\nerror against the exact product as K grows (%d x %d outputs, inputs in [-1, 1]):\n",
                m, n);
    std::printf("%6s %15s %15s %14s %14s %12s %17s\n", "K", "fp32 max error", "wmma max error",
                "wmma rms error", "rms/sqrt(K)", "worst/bound", "cuBLAS max error");
    int failures = 0;
    for (int k = 16; k <= 4096; k *= 4) {
        Problem p = make_problem(m, n, k);
        GemmRun run = run_both(m, n, k, p.a, p.b, false);
        Accuracy fp32 = measure_accuracy(run.fp32_c, p.exact, p.magnitude, 0.0, k);
        Accuracy wmma = measure_accuracy(run.wmma_c, p.exact, p.magnitude, kHalfRoundoff, k);
        Accuracy cublas = measure_accuracy(run.cublas_c, p.exact, p.magnitude, kHalfRoundoff, k);
        failures += (fp32.beyond_bound ? 1 : 0) + (wmma.beyond_bound ? 1 : 0) +
                    (cublas.beyond_bound ? 1 : 0);
        std::printf("%6d %15.2e %15.2e %14.2e %14.2e %12.2f %17.2e%s\n", k, fp32.max_error,
                    wmma.max_error, wmma.rms_error, wmma.rms_error / std::sqrt((double)k),
                    wmma.worst_ratio, cublas.max_error, cublas.beyond_bound ? " FAIL" : "");
    }
    return failures;
}

// Square N = 128, 256, ... for both kernels, timed, and checked against the
// FP32 kernel's C (the CPU would take minutes at the larger sizes) within the
// half bound. On a GPU, stops once a launch takes over 150 ms (the next size
// takes about eight times as long); on the emulator, always after 512, where a
// time limit would stop at 256 or 512 depending on how busy the machine is.
static int run_bench() {
    std::printf("C = A * B, square N x N; kernel only (CUDA events, no copies), one launch\n"
                "after a warm-up launch.\n");
    std::printf("%6s %12s %12s %14s %14s   %s\n", "N", "fp32 ms", "wmma ms", "fp32 GFLOP/s",
                "wmma GFLOP/s", "wmma check");
    int failures = 0;
    for (int size = 128; size <= 4096; size *= 2) {
        std::vector<float> a((size_t)size * size), b((size_t)size * size);
        fill_random(a.data(), a.size(), 1, -1.0f, 1.0f);
        fill_random(b.data(), b.size(), 2, -1.0f, 1.0f);
        GemmRun run = run_both(size, size, size, a, b, true);
        // |C| sums at most `size` products of size at most 1.
        const double allowed = gemm_error_bound(kHalfRoundoff, size, (double)size);
        size_t bad = 0;
        for (size_t i = 0; i < run.wmma_c.size(); ++i)
            if (!(std::fabs(run.wmma_c[i] - run.fp32_c[i]) <= allowed)) ++bad;
        failures += bad ? 1 : 0;
        std::printf("%6d %12.3f %12.3f %14.2f %14.2f   %s\n", size, run.fp32_ms, run.wmma_ms,
                    gflops(size, size, size, run.fp32_ms), gflops(size, size, size, run.wmma_ms),
                    bad ? "FAIL" : "PASS");
        std::fflush(stdout);
#ifdef CUEMU
        const bool enough = size >= 512;
#else
        const bool enough = std::max(run.fp32_ms, run.wmma_ms) > 150.0f;
#endif
        if (enough && size < 4096) {
            std::printf("(stopped: the next size would take about 8 times as long)\n");
            break;
        }
    }
#ifdef CUEMU
    std::printf("\nThese are CPU times from the emulator, whose tensor cores are scalar float\n"
                "arithmetic: they say nothing about a GPU's tensor cores.\n");
#else
    std::printf("\nMeasured on this GPU in this run.\n");
#endif
    std::printf("\n%s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    long long m = 256, n = 256, k = 256, bench = 0;
    cli_option options[] = {
        {"--m", "rows of A and C, a multiple of 16", CLI_INT, &m, 16, 4096},
        {"--n", "columns of B and C, a multiple of 16", CLI_INT, &n, 16, 4096},
        {"--k", "columns of A, rows of B, a multiple of 16", CLI_INT, &k, 16, 4096},
        {"--bench", "both kernels for growing square sizes", CLI_FLAG, &bench, 0, 1},
    };
    cli_parse(argc, argv,
              "Half and bfloat16, and C = A * B on the tensor cores (nvcuda::wmma, and cuBLAS's\n"
              "cublasGemmEx) beside an FP32 kernel, each checked against a double-precision CPU\n"
              "product.",
              options, 4);
    if (m % kTile != 0 || n % kTile != 0 || k % kTile != 0) {
        std::fprintf(stderr, "error: --m, --n and --k must be multiples of 16 (the tensor-core "
                             "tile is 16 x 16 x 16); got %lld, %lld, %lld\n", m, n, k);
        return 2;
    }

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);
    if (bench) return run_bench();

    // Sizes this machine cannot hold, or finish in a few minutes, are refused
    // up front (run_limits.h). Seconds per multiply-add of m * n * k,
    // measured for this whole program at 512 x 512 x 512 on a 2-core machine:
    // 100 ns on the emulator; 3 ns for the CPU reference alone.
    const double mk = (double)m * k, kn = (double)k * n, mn = (double)m * n;
    run_limits_require_memory(6.0 * (mk + kn) + 24.0 * mn, 6.0 * (mk + kn) + 4.0 * mn);
    run_limits_check_duration(mn * (double)k, 100e-9, 3e-9, "--m, --n or --k");

    std::printf("\n");
    print_format_table();
    std::printf("\n");
    print_loss_scaling();

    std::printf("\nC (%lld x %lld) = A (%lld x %lld) * B (%lld x %lld), inputs in [-1, 1], against\n"
                "the exact product (CPU, double); worst/bound: the largest share of its\n"
                "element's bound that an error used (over 1: FAIL)\n\n",
                m, n, m, k, k, n);
    Problem p = make_problem((int)m, (int)n, (int)k);
    GemmRun run = run_both((int)m, (int)n, (int)k, p.a, p.b, false);
    Accuracy fp32 = measure_accuracy(run.fp32_c, p.exact, p.magnitude, 0.0, (int)k);
    Accuracy wmma = measure_accuracy(run.wmma_c, p.exact, p.magnitude, kHalfRoundoff, (int)k);
    Accuracy cublas = measure_accuracy(run.cublas_c, p.exact, p.magnitude, kHalfRoundoff, (int)k);
    std::printf("%-26s %12s %12s %12s   %s\n", "kernel", "max error", "rms error", "worst/bound",
                "check");
    print_accuracy_row("fp32 (CUDA cores)", fp32, run.fp32_c.size());
    print_accuracy_row("wmma half->float (tensor)", wmma, run.wmma_c.size());
    print_accuracy_row("cublasGemmEx half->float", cublas, run.cublas_c.size());
    int failures = (fp32.beyond_bound ? 1 : 0) + (wmma.beyond_bound ? 1 : 0) +
                   (cublas.beyond_bound ? 1 : 0);
    failures += run_accuracy_against_k();
    std::printf("\n%s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
#endif
