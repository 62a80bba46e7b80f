// wmma_gemm.cu - a tensor-core GEMM in the manner of the CUDA samples:
// D = alpha * A * B + beta * C with A (M x K, row major) and B (K x N, column
// major) in half precision and C, D in float, done twice with <mma.h>:
//   1. one warp per 16x16 tile of D, fragments loaded straight from global
//      memory, the epilogue scaling the accumulator element by element (x[]);
//   2. a block of 2x2 warps sharing 32x16 and 16x32 slabs of A and B staged in
//      padded shared memory, the accumulators stored to shared memory and
//      combined with C by the whole block.
// Sizes are multiples of 16 (the tile) but not of the block's 32x32 tile.
// Both results are checked against a double-precision CPU GEMM, within a
// bound that grows with K (tensor cores multiply exactly and add in float).
#include <cuda_runtime.h>
#include <mma.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

using namespace nvcuda;

#define CHECK_CUDA(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_),       \
                    __FILE__, __LINE__, cudaGetErrorString(err_));                        \
            exit(EXIT_FAILURE);                                                           \
        }                                                                                 \
    } while (0)

#define WMMA_M 16
#define WMMA_N 16
#define WMMA_K 16

// ---- 1: one warp, one tile ---------------------------------------------------------
// blockDim (128, 4): four warps across x, four rows of warps across y.
__global__ void simple_wmma_gemm(const half* a, const half* b, const float* c, float* d, int M, int N, int K,
                                 float alpha, float beta) {
    int warp_m = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warp_n = blockIdx.y * blockDim.y + threadIdx.y;
    int row = warp_m * WMMA_M, col = warp_n * WMMA_N;
    if (row >= M || col >= N) return;  // the whole warp leaves together

    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc_frag;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> c_frag;
    wmma::fill_fragment(acc_frag, 0.0f);

    for (int k = 0; k < K; k += WMMA_K) {
        wmma::load_matrix_sync(a_frag, a + row * K + k, K);  // row major, ld = K
        wmma::load_matrix_sync(b_frag, b + col * K + k, K);  // column major, ld = K
        wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
    }
    wmma::load_matrix_sync(c_frag, c + row * N + col, N, wmma::mem_row_major);
    for (int i = 0; i < c_frag.num_elements; i++) c_frag.x[i] = alpha * acc_frag.x[i] + beta * c_frag.x[i];
    wmma::store_matrix_sync(d + row * N + col, c_frag, N, wmma::mem_row_major);
}

// ---- 2: a block of 2x2 warps through shared memory ------------------------------------
#define BLOCK_TILE 32   // the block's tile of D is 32x32
#define SKEW_HALF 16    // padding: rows stay 32-byte aligned, and fall in other banks

__global__ void shared_wmma_gemm(const half* a, const half* b, const float* c, float* d, int M, int N, int K,
                                 float alpha, float beta) {
    __shared__ __align__(32) half a_slab[BLOCK_TILE][WMMA_K + SKEW_HALF];  // 32 rows of A, 16 of K
    __shared__ __align__(32) half b_slab[BLOCK_TILE][WMMA_K + SKEW_HALF];  // 32 columns of B, 16 of K
    __shared__ __align__(32) float d_tile[BLOCK_TILE][BLOCK_TILE + 8];

    const int warp = threadIdx.x / warpSize;            // 0..3
    const int warp_row = warp / 2, warp_col = warp % 2;  // where its 16x16 lies in the block tile
    const int block_row = blockIdx.y * BLOCK_TILE, block_col = blockIdx.x * BLOCK_TILE;

    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    for (int k = 0; k < K; k += WMMA_K) {
        // 128 threads copy 32x16 halves of A and of B, 4 each; rows past the
        // matrix's edge are zeros.
        for (int i = threadIdx.x; i < BLOCK_TILE * WMMA_K; i += blockDim.x) {
            int r = i / WMMA_K, kk = i % WMMA_K;
            a_slab[r][kk] = block_row + r < M ? a[(block_row + r) * K + k + kk] : __float2half(0.0f);
            b_slab[r][kk] = block_col + r < N ? b[(block_col + r) * K + k + kk] : __float2half(0.0f);
        }
        __syncthreads();
        wmma::load_matrix_sync(a_frag, &a_slab[warp_row * WMMA_M][0], WMMA_K + SKEW_HALF);
        wmma::load_matrix_sync(b_frag, &b_slab[warp_col * WMMA_N][0], WMMA_K + SKEW_HALF);
        wmma::mma_sync(acc, a_frag, b_frag, acc);
        __syncthreads();  // the slabs are overwritten next time round
    }
    wmma::store_matrix_sync(&d_tile[warp_row * WMMA_M][warp_col * WMMA_N], acc, BLOCK_TILE + 8,
                            wmma::mem_row_major);
    __syncthreads();
    for (int i = threadIdx.x; i < BLOCK_TILE * BLOCK_TILE; i += blockDim.x) {
        int r = i / BLOCK_TILE, col = i % BLOCK_TILE;
        int gr = block_row + r, gc = block_col + col;
        if (gr < M && gc < N) d[gr * N + gc] = alpha * d_tile[r][col] + beta * c[gr * N + gc];
    }
}

// ---- host ----------------------------------------------------------------------------
static unsigned long long lcg_state = 88172645463325252ull;
static float random_unit() {  // in [-1, 1)
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((lcg_state >> 40) & 0xffffff) / (float)(1 << 23) - 1.0f;
}

static int count_errors(const char* name, const std::vector<float>& got, const std::vector<double>& ref,
                        const std::vector<double>& bound) {
    int errors = 0;
    for (size_t i = 0; i < got.size(); i++) {
        if (!(fabs(got[i] - ref[i]) <= bound[i])) {
            if (errors < 5)
                fprintf(stderr, "%s: d[%zu] = %.8g, expected %.8g (tolerance %.3g)\n", name, i, got[i], ref[i],
                        bound[i]);
            errors++;
        }
    }
    return errors;
}

int main(int argc, char** argv) {
    int M = argc > 1 ? atoi(argv[1]) : 144;
    int N = argc > 2 ? atoi(argv[2]) : 112;
    int K = argc > 3 ? atoi(argv[3]) : 160;
    if (M <= 0 || N <= 0 || K <= 0 || M % 16 || N % 16 || K % 16) {
        fprintf(stderr, "usage: %s [M N K], each a positive multiple of 16\n", argv[0]);
        return 2;
    }
    lcg_state ^= (unsigned long long)time(nullptr);

    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    if (prop.major < 7) {
        printf("wmma_gemm needs tensor cores (compute capability 7.0 or newer); %s has %d.%d\n", prop.name,
               prop.major, prop.minor);
        return 1;
    }

    const float alpha = 1.25f, beta = -0.5f;
    std::vector<half> a(M * K), b(K * N);  // b is column major: b[col * K + k]
    std::vector<float> c(M * N);
    for (auto& v : a) v = __float2half(random_unit());
    for (auto& v : b) v = __float2half(random_unit());
    for (auto& v : c) v = random_unit();

    // The reference in double, and the error allowed: the products are exact,
    // the float additions round K times and the epilogue twice, each time by at
    // most 2^-24 of the sum of magnitudes.
    std::vector<double> a_exact(a.size()), b_exact(b.size());
    for (size_t i = 0; i < a.size(); i++) a_exact[i] = __half2float(a[i]);
    for (size_t i = 0; i < b.size(); i++) b_exact[i] = __half2float(b[i]);
    const double roundoff = ldexp(1.0, -24);
    std::vector<double> ref(M * N), bound(M * N);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double sum = 0, magnitude = 0;
            for (int k = 0; k < K; k++) {
                double p = a_exact[i * K + k] * b_exact[j * K + k];
                sum += p;
                magnitude += fabs(p);
            }
            ref[i * N + j] = alpha * sum + beta * c[i * N + j];
            bound[i * N + j] = (K + 3) * roundoff * (fabs(alpha) * magnitude + fabs(beta * c[i * N + j]));
        }

    half *d_a, *d_b;
    float *d_c, *d_d;
    CHECK_CUDA(cudaMalloc(&d_a, a.size() * sizeof(half)));
    CHECK_CUDA(cudaMalloc(&d_b, b.size() * sizeof(half)));
    CHECK_CUDA(cudaMalloc(&d_c, c.size() * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_d, c.size() * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d_a, a.data(), a.size() * sizeof(half), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_b, b.data(), b.size() * sizeof(half), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_c, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));

    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    std::vector<float> d(M * N);

    // Runs one kernel on a D poisoned with NaN, times it and counts the wrong elements.
    auto run = [&](const char* name, void (*kernel)(const half*, const half*, const float*, float*, int, int, int,
                                                    float, float),
                   dim3 grid, dim3 block, float* ms) {
        CHECK_CUDA(cudaMemset(d_d, 0xff, c.size() * sizeof(float)));
        CHECK_CUDA(cudaEventRecord(start));
        kernel<<<grid, block>>>(d_a, d_b, d_c, d_d, M, N, K, alpha, beta);
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaEventRecord(stop));
        CHECK_CUDA(cudaEventSynchronize(stop));
        CHECK_CUDA(cudaEventElapsedTime(ms, start, stop));
        CHECK_CUDA(cudaMemcpy(d.data(), d_d, d.size() * sizeof(float), cudaMemcpyDeviceToHost));
        return count_errors(name, d, ref, bound);
    };
    float ms_simple = 0, ms_shared = 0;
    // 1: blocks of 4 x 4 warps, each warp one 16x16 tile.
    int simple_errors = run("simple", simple_wmma_gemm, dim3((M / WMMA_M + 3) / 4, (N / WMMA_N + 3) / 4),
                            dim3(128, 4), &ms_simple);
    // 2: blocks of 2 x 2 warps over 32x32 tiles of D.
    int shared_errors = run("shared", shared_wmma_gemm,
                            dim3((N + BLOCK_TILE - 1) / BLOCK_TILE, (M + BLOCK_TILE - 1) / BLOCK_TILE), dim3(128),
                            &ms_shared);

    double flops = 2.0 * M * N * K;
    printf("simple kernel %.3f ms (%.2f GFLOP/s), shared-memory kernel %.3f ms (%.2f GFLOP/s)\n", ms_simple,
           flops / ms_simple * 1e-6, ms_shared, flops / ms_shared * 1e-6);

    CHECK_CUDA(cudaEventDestroy(start));
    CHECK_CUDA(cudaEventDestroy(stop));
    CHECK_CUDA(cudaFree(d_a));
    CHECK_CUDA(cudaFree(d_b));
    CHECK_CUDA(cudaFree(d_c));
    CHECK_CUDA(cudaFree(d_d));

    bool ok = simple_errors == 0 && shared_errors == 0;
    printf("wmma_gemm M=%d N=%d K=%d simple_errors=%d shared_errors=%d %s\n", M, N, K, simple_errors,
           shared_errors, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
