// wmma_imma_gemm.cu - an 8-bit integer GEMM on the tensor cores, in the manner
// of the CUDA samples' immaTensorCoreGemm: A (M x K, row major) and B (K x N,
// column major) of 8-bit integers, C and D of int, done twice with <mma.h>:
//   1. signed char inputs, one warp per 16x16 tile of D, fragments loaded
//      straight from global memory, D = alpha * A * B + beta * C computed
//      element by element on the accumulator's x[];
//   2. unsigned char inputs, a block of 2x2 warps sharing 32x16 slabs of A and
//      B staged in padded shared memory, C loaded into the accumulator
//      (D = A * B + C).
// Integer products and sums are exact (the values here stay far from the
// int range), so both results must equal the CPU's exactly.
// Not yet run on a GPU. Kernel 1's tiles at odd steps of 16 along k start
// 16 bytes past a 32-byte boundary (any 16-wide 8-bit tile of a row-major
// matrix does), while the CUDA C++ Programming Guide states a 256-bit
// alignment for load_matrix_sync in general; kernel 2's shared-memory tiles
// are 32-byte aligned.
#include <cuda_runtime.h>
#include <mma.h>

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

#define TILE 16  // m16n16k16

// ---- 1: signed, one warp, one tile -------------------------------------------------
// blockDim (128, 4): four warps across x, four rows of warps across y.
__global__ void simple_imma_gemm(const signed char* a, const signed char* b, const int* c, int* d, int M, int N,
                                 int K, int alpha, int beta) {
    int warp_m = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warp_n = blockIdx.y * blockDim.y + threadIdx.y;
    int row = warp_m * TILE, col = warp_n * TILE;
    if (row >= M || col >= N) return;  // the whole warp leaves together

    wmma::fragment<wmma::matrix_a, TILE, TILE, TILE, signed char, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, TILE, TILE, TILE, signed char, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, TILE, TILE, TILE, int> acc, c_frag;
    wmma::fill_fragment(acc, 0);
    for (int k = 0; k < K; k += TILE) {
        wmma::load_matrix_sync(a_frag, a + row * K + k, K);  // ld = K bytes, a multiple of 16
        wmma::load_matrix_sync(b_frag, b + col * K + k, K);
        wmma::mma_sync(acc, a_frag, b_frag, acc);
    }
    wmma::load_matrix_sync(c_frag, c + row * N + col, N, wmma::mem_row_major);
    for (int i = 0; i < c_frag.num_elements; i++) c_frag.x[i] = alpha * acc.x[i] + beta * c_frag.x[i];
    wmma::store_matrix_sync(d + row * N + col, c_frag, N, wmma::mem_row_major);
}

// ---- 2: unsigned, a block of 2x2 warps through shared memory ----------------------------
#define BLOCK_TILE 32  // the block's tile of D is 32x32
#define SKEW 16        // bytes of padding per row: rows stay 16-byte aligned, in other banks

__global__ void shared_imma_gemm(const unsigned char* a, const unsigned char* b, const int* c, int* d, int M,
                                 int N, int K) {
    __shared__ __align__(32) unsigned char a_slab[BLOCK_TILE][TILE + SKEW];  // 32 rows of A, 16 of K
    __shared__ __align__(32) unsigned char b_slab[BLOCK_TILE][TILE + SKEW];  // 32 columns of B, 16 of K

    const int warp = threadIdx.x / warpSize;            // 0..3
    const int warp_row = warp / 2, warp_col = warp % 2;  // where its 16x16 lies in the block tile
    const int block_row = blockIdx.y * BLOCK_TILE, block_col = blockIdx.x * BLOCK_TILE;
    const int row = block_row + warp_row * TILE, col = block_col + warp_col * TILE;
    const bool inside = row < M && col < N;  // the same in the whole warp

    wmma::fragment<wmma::matrix_a, TILE, TILE, TILE, unsigned char, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, TILE, TILE, TILE, unsigned char, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, TILE, TILE, TILE, int> acc;
    if (inside) wmma::load_matrix_sync(acc, c + row * N + col, N, wmma::mem_row_major);

    for (int k = 0; k < K; k += TILE) {
        // 128 threads copy 32x16 bytes of A and of B, 4 each; rows past the
        // matrix's edge are zeros.
        for (int i = threadIdx.x; i < BLOCK_TILE * TILE; i += blockDim.x) {
            int r = i / TILE, kk = i % TILE;
            a_slab[r][kk] = block_row + r < M ? a[(block_row + r) * K + k + kk] : 0;
            b_slab[r][kk] = block_col + r < N ? b[(block_col + r) * K + k + kk] : 0;
        }
        __syncthreads();
        if (inside) {
            wmma::load_matrix_sync(a_frag, &a_slab[warp_row * TILE][0], TILE + SKEW);
            wmma::load_matrix_sync(b_frag, &b_slab[warp_col * TILE][0], TILE + SKEW);
            wmma::mma_sync(acc, a_frag, b_frag, acc);
        }
        __syncthreads();  // the slabs are overwritten next time round
    }
    if (inside) wmma::store_matrix_sync(d + row * N + col, acc, N, wmma::mem_row_major);
}

// ---- host ----------------------------------------------------------------------------
static unsigned long long lcg_state = 88172645463325252ull;
static int random_int(int lo, int hi) {  // in [lo, hi]
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (int)((lcg_state >> 33) % (unsigned long long)(hi - lo + 1));
}

// D = alpha * A * B + beta * C on the CPU, in 64 bits (b is column major).
template <class T>
static std::vector<long long> cpu_gemm(const std::vector<T>& a, const std::vector<T>& b, const std::vector<int>& c,
                                       int M, int N, int K, int alpha, int beta) {
    std::vector<long long> ref(M * N);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            long long sum = 0;
            for (int k = 0; k < K; k++) sum += (long long)a[i * K + k] * (long long)b[j * K + k];
            ref[i * N + j] = alpha * sum + beta * (long long)c[i * N + j];
        }
    return ref;
}

static int count_errors(const char* name, const std::vector<int>& got, const std::vector<long long>& ref) {
    int errors = 0;
    for (size_t i = 0; i < got.size(); i++) {
        if (got[i] != ref[i]) {
            if (errors < 5) fprintf(stderr, "%s: d[%zu] = %d, expected %lld\n", name, i, got[i], ref[i]);
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
    if (prop.major * 10 + prop.minor < 72) {
        printf("wmma_imma_gemm needs 8-bit integer tensor cores (compute capability 7.2 or newer); %s has %d.%d\n",
               prop.name, prop.major, prop.minor);
        return 1;
    }

    const int alpha = 3, beta = -2;
    std::vector<signed char> sa(M * K), sb(K * N);  // b is column major: b[col * K + k]
    std::vector<unsigned char> ua(M * K), ub(K * N);
    std::vector<int> c(M * N);
    for (auto& v : sa) v = (signed char)random_int(-128, 127);
    for (auto& v : sb) v = (signed char)random_int(-128, 127);
    for (auto& v : ua) v = (unsigned char)random_int(0, 255);
    for (auto& v : ub) v = (unsigned char)random_int(0, 255);
    for (auto& v : c) v = random_int(-1000000, 1000000);
    const std::vector<long long> signed_ref = cpu_gemm(sa, sb, c, M, N, K, alpha, beta);
    const std::vector<long long> unsigned_ref = cpu_gemm(ua, ub, c, M, N, K, 1, 1);

    signed char *d_sa, *d_sb;
    unsigned char *d_ua, *d_ub;
    int *d_c, *d_d;
    CHECK_CUDA(cudaMalloc(&d_sa, sa.size()));
    CHECK_CUDA(cudaMalloc(&d_sb, sb.size()));
    CHECK_CUDA(cudaMalloc(&d_ua, ua.size()));
    CHECK_CUDA(cudaMalloc(&d_ub, ub.size()));
    CHECK_CUDA(cudaMalloc(&d_c, c.size() * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_d, c.size() * sizeof(int)));
    CHECK_CUDA(cudaMemcpy(d_sa, sa.data(), sa.size(), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_sb, sb.data(), sb.size(), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_ua, ua.data(), ua.size(), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_ub, ub.data(), ub.size(), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_c, c.data(), c.size() * sizeof(int), cudaMemcpyHostToDevice));
    std::vector<int> d(M * N);

    // 1: blocks of 4 x 4 warps, each warp one 16x16 tile; D poisoned first.
    CHECK_CUDA(cudaMemset(d_d, 0xff, d.size() * sizeof(int)));
    simple_imma_gemm<<<dim3((M / TILE + 3) / 4, (N / TILE + 3) / 4), dim3(128, 4)>>>(d_sa, d_sb, d_c, d_d, M, N, K,
                                                                                     alpha, beta);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(d.data(), d_d, d.size() * sizeof(int), cudaMemcpyDeviceToHost));
    int simple_errors = count_errors("simple (signed)", d, signed_ref);

    // 2: blocks of 2 x 2 warps over 32x32 tiles of D.
    CHECK_CUDA(cudaMemset(d_d, 0xff, d.size() * sizeof(int)));
    shared_imma_gemm<<<dim3((N + BLOCK_TILE - 1) / BLOCK_TILE, (M + BLOCK_TILE - 1) / BLOCK_TILE), 128>>>(
        d_ua, d_ub, d_c, d_d, M, N, K);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(d.data(), d_d, d.size() * sizeof(int), cudaMemcpyDeviceToHost));
    int shared_errors = count_errors("shared (unsigned)", d, unsigned_ref);

    CHECK_CUDA(cudaFree(d_sa));
    CHECK_CUDA(cudaFree(d_sb));
    CHECK_CUDA(cudaFree(d_ua));
    CHECK_CUDA(cudaFree(d_ub));
    CHECK_CUDA(cudaFree(d_c));
    CHECK_CUDA(cudaFree(d_d));

    bool ok = simple_errors == 0 && shared_errors == 0;
    printf("wmma_imma_gemm M=%d N=%d K=%d simple_errors=%d shared_errors=%d %s\n", M, N, K, simple_errors,
           shared_errors, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
