// Lesson 19: the SGEMM performance ladder - from a naive kernel towards cuBLAS.
//
// SGEMM is C = alpha * A * B + beta * C in single precision, the call under
// every dense layer. This file climbs from the naive kernel of lesson 08 to a
// kernel built the way fast libraries build theirs, one trick per rung:
//   1 naive               one thread per element of C, threadIdx.x down a column
//   2 coalesced           threadIdx.x along a row: a warp reads neighbouring floats
//   3 shared tiles        32 x 32 tiles of A and B staged in shared memory (lesson 09)
//   4 1D register tiles   a thread computes 8 elements of a column of C
//   5 2D register tiles   a thread computes an 8 x 8 block of C (the exercise)
//   6 float4 loads        16 bytes per load; A's tile stored transposed
//   7 double buffering    the next tiles load while the current ones are used
//   8 warp tiles          each warp owns a compact 64 x 32 block of C
// Each rung is checked against the CPU and timed against cublasSgemm in the
// same run. The speed-ups are a GPU's story: on the CPU emulator the ladder
// checks that every rung computes the right answer, and its times are CPU times.
//
// Build and run:   ./tutorial run 19 [--m 200] [--n 200] [--k 200]
//                  ./tutorial run 19 --bench    (every rung and cuBLAS, growing N)
//                  ./tutorial check 19          (the exercise's test)
//                  ./tutorial solution 19       (the finished version)
// It prints the device, then one line per rung: time, GFLOP/s, the percentage
// of cuBLAS's speed and PASS or FAIL against the CPU.
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "cuda_check.h"
#include "cublas_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference_sgemm.h"

#include <algorithm>
#include <cstdio>
#include <vector>

// ---- helpers every rung shares ----

// The last step of every kernel. As in BLAS, beta == 0 means C is not read:
// it may hold anything (even NaN) and is overwritten.
__device__ inline void store_result(float* c, float sum, float alpha, float beta) {
    *c = beta == 0.0f ? alpha * sum : alpha * sum + beta * *c;
}

// Four neighbouring floats of one row, starting at column col (a multiple of
// 4), with zeros past the matrix's edge. A float4 load moves 16 bytes in one
// instruction, but only from an address that is a multiple of 16: that holds
// when every row starts on one (cols a multiple of 4). Otherwise, and at the
// right edge, the same four values come one float at a time.
// [snippet: load4]
__device__ inline float4 load4(const float* matrix, int rows, int cols, int row, int col) {
    if (row < rows && col + 3 < cols && cols % 4 == 0)
        return *reinterpret_cast<const float4*>(&matrix[row * cols + col]);
    float v[4];
    #pragma unroll
    for (int i = 0; i < 4; ++i)
        v[i] = (row < rows && col + i < cols) ? matrix[row * cols + col + i] : 0.0f;
    return make_float4(v[0], v[1], v[2], v[3]);
}
// [end snippet]

// Stores four results of one row of C (columns col .. col + 3), with one
// 16-byte access where alignment allows, and none past the edge.
__device__ inline void store4(float* c, int rows, int cols, int row, int col, const float* sums,
                              float alpha, float beta) {
    if (row >= rows) return;
    if (col + 3 < cols && cols % 4 == 0) {
        float4* place = reinterpret_cast<float4*>(&c[row * cols + col]);
        float4 out = make_float4(alpha * sums[0], alpha * sums[1], alpha * sums[2],
                                 alpha * sums[3]);
        if (beta != 0.0f) {
            float4 old = *place;
            out.x += beta * old.x;
            out.y += beta * old.y;
            out.z += beta * old.z;
            out.w += beta * old.w;
        }
        *place = out;
        return;
    }
    #pragma unroll
    for (int i = 0; i < 4; ++i)
        if (col + i < cols) store_result(&c[row * cols + col + i], sums[i], alpha, beta);
}

// ---- rung 1: naive ----
// One thread per element of C, as in lesson 08, but with threadIdx.x going
// DOWN a column of C: the 32 threads of a warp read 32 different rows of A,
// k floats apart, so each load of a warp touches 32 separate memory segments.
__global__ void sgemm_naive(int m, int n, int k, float alpha, const float* a, const float* b,
                            float beta, float* c) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        float sum = 0.0f;
        for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[i * n + col];
        store_result(&c[row * n + col], sum, alpha, beta);
    }
}

// ---- rung 2: coalesced ----
// The same work with threadIdx.x ALONG a row of C. A warp now reads one
// element of A (the same for all 32: one broadcast) and 32 neighbouring
// elements of B: one 128-byte segment instead of 32.
__global__ void sgemm_coalesced(int m, int n, int k, float alpha, const float* a, const float* b,
                                float beta, float* c) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        float sum = 0.0f;
        for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[i * n + col];
        store_result(&c[row * n + col], sum, alpha, beta);
    }
}

// ---- rung 3: shared-memory tiles ----
// Lesson 09's kernel: a 32 x 32 block copies a tile of A and one of B into
// shared memory, then every thread does 32 multiply-adds from there. Each
// float read from global memory is used 32 times.
constexpr int kTile = 32;

__global__ void sgemm_shared(int m, int n, int k, float alpha, const float* a, const float* b,
                             float beta, float* c) {
    __shared__ float a_tile[kTile][kTile];
    __shared__ float b_tile[kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty;
    const int col = blockIdx.x * kTile + tx;
    float sum = 0.0f;
    for (int t = 0; t < k; t += kTile) {
        // Zeros where a tile hangs over an edge; every thread reaches both barriers.
        a_tile[ty][tx] = (row < m && t + tx < k) ? a[row * k + t + tx] : 0.0f;
        b_tile[ty][tx] = (t + ty < k && col < n) ? b[(t + ty) * n + col] : 0.0f;
        __syncthreads();
        #pragma unroll
        for (int i = 0; i < kTile; ++i) sum += a_tile[ty][i] * b_tile[i][tx];
        __syncthreads();
    }
    if (row < m && col < n) store_result(&c[row * n + col], sum, alpha, beta);
}

// ---- rung 4: 1D register tiles ----
// From here on, arrays such as sums[8] are meant to live in registers. A
// register has no address, so every index into such an array must be known
// when the kernel is compiled: `#pragma unroll` asks nvcc to unroll the loops
// of fixed length, turning sums[r] into sums[0], sums[1], ... Without it the
// array may go to local memory, which is as slow as global memory. (The
// emulator's C++ compiler ignores the pragma.)
// In rung 3 every multiply-add needs two loads from shared memory. Here a
// block computes a 64 x 64 block of C with 512 threads, 8 elements each, all
// in one column: for every step along k a thread loads ONE value of B's tile
// into a register and uses it for 8 multiply-adds. Tiles are 64 x 8 of A and
// 8 x 64 of B: one element of each per thread.
constexpr int k1dBlockM = 64, k1dBlockN = 64, k1dBlockK = 8, k1dThreadM = 8;
constexpr int k1dThreads = k1dBlockM * k1dBlockN / k1dThreadM;  // 512
static_assert(k1dBlockM * k1dBlockK == k1dThreads && k1dBlockK * k1dBlockN == k1dThreads,
              "each thread copies one element of each tile");

__global__ void sgemm_1d_registers(int m, int n, int k, float alpha, const float* a,
                                   const float* b, float beta, float* c) {
    __shared__ float a_tile[k1dBlockM][k1dBlockK];
    __shared__ float b_tile[k1dBlockK][k1dBlockN];
    const int tid = threadIdx.x;
    const int block_row = blockIdx.y * k1dBlockM, block_col = blockIdx.x * k1dBlockN;
    const int thread_col = tid % k1dBlockN;               // this thread's column of C
    const int thread_row = (tid / k1dBlockN) * k1dThreadM;  // and the first of its 8 rows
    // Which element of each tile this thread copies.
    const int a_row = tid / k1dBlockK, a_col = tid % k1dBlockK;
    const int b_row = tid / k1dBlockN, b_col = tid % k1dBlockN;

    float sums[k1dThreadM] = {};
    for (int t = 0; t < k; t += k1dBlockK) {
        const int ra = block_row + a_row, ca = t + a_col;
        const int rb = t + b_row, cb = block_col + b_col;
        a_tile[a_row][a_col] = (ra < m && ca < k) ? a[ra * k + ca] : 0.0f;
        b_tile[b_row][b_col] = (rb < k && cb < n) ? b[rb * n + cb] : 0.0f;
        __syncthreads();
        #pragma unroll
        for (int i = 0; i < k1dBlockK; ++i) {
            const float b_value = b_tile[i][thread_col];  // one load, 8 uses
            #pragma unroll
            for (int r = 0; r < k1dThreadM; ++r) sums[r] += a_tile[thread_row + r][i] * b_value;
        }
        __syncthreads();
    }
    const int col = block_col + thread_col;
    #pragma unroll
    for (int r = 0; r < k1dThreadM; ++r) {
        const int row = block_row + thread_row + r;
        if (row < m && col < n) store_result(&c[row * n + col], sums[r], alpha, beta);
    }
}

// Rungs 5 to 8 share one shape: a block of 256 threads computes a 128 x 128
// block of C, walking along k with tiles of 128 x 8 (A) and 8 x 128 (B); each
// thread owns 8 x 8 = 64 elements of C.
constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 8;
constexpr int kThreadM = 8, kThreadN = 8;
constexpr int kThreads = (kBlockM / kThreadM) * (kBlockN / kThreadN);  // 256

// ---- rung 5: 2D register tiles (the exercise) ----
// A thread holds an 8 x 8 block of sums in registers. For each step i along
// the tiles it loads 8 values of A (its rows, column i) and 8 of B (row i, its
// columns) into registers and multiplies every one with every other: 16 loads
// from shared memory feed 64 multiply-adds (rung 3: 2 loads per one).
// [snippet: rung5]
__global__ void sgemm_2d_registers(int m, int n, int k, float alpha, const float* a,
                                   const float* b, float beta, float* c) {
    __shared__ float a_tile[kBlockM][kBlockK];
    __shared__ float b_tile[kBlockK][kBlockN];
    const int tid = threadIdx.x;
    const int block_row = blockIdx.y * kBlockM, block_col = blockIdx.x * kBlockN;
    // TODO(19.1): where this thread's 8 x 8 block of C starts inside the
    // block's 128 x 128. The 256 threads sit 16 x 16 (kBlockN / kThreadN
    // side by side), each 8 rows (kThreadM) and 8 columns (kThreadN) from
    // its neighbours: thread 0 starts at (0, 0), thread 1 at (0, 8), ...,
    // thread 16 at (8, 0).
    const int thread_row = 0;  // first of its 8 rows
    const int thread_col = 0;  // first of its 8 columns

    float sums[kThreadM][kThreadN] = {};
    float a_regs[kThreadM] = {}, b_regs[kThreadN] = {};
    for (int t = 0; t < k; t += kBlockK) {
        // Each tile has 1024 elements: 4 per thread, neighbouring threads on
        // neighbouring addresses.
        for (int e = tid; e < kBlockM * kBlockK; e += kThreads) {
            const int r = e / kBlockK, col = e % kBlockK;
            const int ra = block_row + r, ca = t + col;
            a_tile[r][col] = (ra < m && ca < k) ? a[ra * k + ca] : 0.0f;
        }
        for (int e = tid; e < kBlockK * kBlockN; e += kThreads) {
            const int r = e / kBlockN, col = e % kBlockN;
            const int rb = t + r, cb = block_col + col;
            b_tile[r][col] = (rb < k && cb < n) ? b[rb * n + cb] : 0.0f;
        }
        __syncthreads();
        #pragma unroll
        for (int i = 0; i < kBlockK; ++i) {
            // TODO(19.2): step i: load 8 values of A (this thread's rows,
            // column i of a_tile) into a_regs and 8 of B (row i of b_tile,
            // this thread's columns) into b_regs.

            // TODO(19.3): every value of A meets every value of B: add
            // a_regs[r] times b_regs[j] to sums[r][j], for all 64 pairs.
        }
        __syncthreads();
    }
    #pragma unroll
    for (int r = 0; r < kThreadM; ++r)
        #pragma unroll
        for (int j = 0; j < kThreadN; ++j) {
            const int row = block_row + thread_row + r, col = block_col + thread_col + j;
            if (row < m && col < n) store_result(&c[row * n + col], sums[r][j], alpha, beta);
        }
}
// [end snippet]

// Rungs 6 to 8 copy their tiles with float4 loads: each of the 256 threads
// moves one float4 of A's 128 x 8 tile and one of B's 8 x 128 tile. A's tile
// is stored TRANSPOSED (a_tile_t[i][row]): the 8 values of A a thread needs
// for step i then lie side by side, and two float4 reads from shared memory
// fetch them.
struct TileLoads {
    float4 a, b;  // what this thread carries from global to shared memory
};
static_assert(kBlockM * kBlockK / 4 == kThreads && kBlockK * kBlockN / 4 == kThreads,
              "load_tiles moves exactly one float4 of each tile per thread");

__device__ inline TileLoads load_tiles(int m, int n, int k, const float* a, const float* b,
                                       int block_row, int block_col, int t) {
    const int tid = threadIdx.x;
    const int a_row = tid / (kBlockK / 4), a_col = (tid % (kBlockK / 4)) * 4;
    const int b_row = tid / (kBlockN / 4), b_col = (tid % (kBlockN / 4)) * 4;
    return {load4(a, m, k, block_row + a_row, t + a_col),
            load4(b, k, n, t + b_row, block_col + b_col)};
}

__device__ inline void store_tiles(const TileLoads& loads, float (*a_tile_t)[kBlockM],
                                   float (*b_tile)[kBlockN]) {
    const int tid = threadIdx.x;
    const int a_row = tid / (kBlockK / 4), a_col = (tid % (kBlockK / 4)) * 4;
    const int b_row = tid / (kBlockN / 4), b_col = (tid % (kBlockN / 4)) * 4;
    a_tile_t[a_col + 0][a_row] = loads.a.x;
    a_tile_t[a_col + 1][a_row] = loads.a.y;
    a_tile_t[a_col + 2][a_row] = loads.a.z;
    a_tile_t[a_col + 3][a_row] = loads.a.w;
    *reinterpret_cast<float4*>(&b_tile[b_row][b_col]) = loads.b;
}

// Where a thread's 8 x 8 block of C starts inside its block's 128 x 128, in
// rungs 6 and 7 (the same places as in rung 5): 16 threads side by side.
struct Place {
    int row, col;
};
__device__ inline Place thread_place(int tid) {
    constexpr int across = kBlockN / kThreadN;
    return {tid / across * kThreadM, tid % across * kThreadN};
}

// Eight neighbouring floats of a row in shared memory, as two float4 reads.
__device__ inline void read8(const float* from, float* regs) {
    const float4 lo = reinterpret_cast<const float4*>(from)[0];
    const float4 hi = reinterpret_cast<const float4*>(from)[1];
    regs[0] = lo.x, regs[1] = lo.y, regs[2] = lo.z, regs[3] = lo.w;
    regs[4] = hi.x, regs[5] = hi.y, regs[6] = hi.z, regs[7] = hi.w;
}

// One step along a tile for rungs 6 and 7: the thread's 8 x 8 outer product.
__device__ inline void multiply_tiles(const float (*a_tile_t)[kBlockM],
                                      const float (*b_tile)[kBlockN], int thread_row,
                                      int thread_col, float (*sums)[kThreadN]) {
    float a_regs[kThreadM], b_regs[kThreadN];
    #pragma unroll
    for (int i = 0; i < kBlockK; ++i) {
        read8(&a_tile_t[i][thread_row], a_regs);
        read8(&b_tile[i][thread_col], b_regs);
        #pragma unroll
        for (int r = 0; r < kThreadM; ++r)
            #pragma unroll
            for (int j = 0; j < kThreadN; ++j) sums[r][j] += a_regs[r] * b_regs[j];
    }
}

// ---- rung 6: float4 loads ----
__global__ void sgemm_vectorized(int m, int n, int k, float alpha, const float* a,
                                 const float* b, float beta, float* c) {
    __shared__ __align__(16) float a_tile_t[kBlockK][kBlockM];
    __shared__ __align__(16) float b_tile[kBlockK][kBlockN];
    const int block_row = blockIdx.y * kBlockM, block_col = blockIdx.x * kBlockN;
    const Place mine = thread_place(threadIdx.x);

    float sums[kThreadM][kThreadN] = {};
    for (int t = 0; t < k; t += kBlockK) {
        store_tiles(load_tiles(m, n, k, a, b, block_row, block_col, t), a_tile_t, b_tile);
        __syncthreads();
        multiply_tiles(a_tile_t, b_tile, mine.row, mine.col, sums);
        __syncthreads();
    }
    #pragma unroll
    for (int r = 0; r < kThreadM; ++r)
        #pragma unroll
        for (int j = 0; j < kThreadN; j += 4)
            store4(c, m, n, block_row + mine.row + r, block_col + mine.col + j, &sums[r][j], alpha,
                   beta);
}

// ---- rung 7: double buffering ----
// Two copies of each tile. While the block multiplies the tiles in one, the
// loads of the next tiles are already on their way into registers; they go
// into the other copy afterwards. The load's latency hides behind the
// arithmetic, and one barrier per step is enough: the copy written in step t
// was last read in step t - 1, which every thread finished before the barrier
// that ended it.
// [snippet: rung7]
__global__ void sgemm_double_buffered(int m, int n, int k, float alpha, const float* a,
                                      const float* b, float beta, float* c) {
    __shared__ __align__(16) float a_tile_t[2][kBlockK][kBlockM];
    __shared__ __align__(16) float b_tile[2][kBlockK][kBlockN];
    const int block_row = blockIdx.y * kBlockM, block_col = blockIdx.x * kBlockN;
    const Place mine = thread_place(threadIdx.x);

    float sums[kThreadM][kThreadN] = {};
    store_tiles(load_tiles(m, n, k, a, b, block_row, block_col, 0), a_tile_t[0], b_tile[0]);
    __syncthreads();
    for (int t = 0, now = 0; t < k; t += kBlockK, now ^= 1) {
        const bool more = t + kBlockK < k;  // the same for every thread of the block
        TileLoads next{};
        if (more) next = load_tiles(m, n, k, a, b, block_row, block_col, t + kBlockK);
        multiply_tiles(a_tile_t[now], b_tile[now], mine.row, mine.col, sums);
        if (more) store_tiles(next, a_tile_t[now ^ 1], b_tile[now ^ 1]);
        __syncthreads();
    }
    #pragma unroll
    for (int r = 0; r < kThreadM; ++r)
        #pragma unroll
        for (int j = 0; j < kThreadN; j += 4)
            store4(c, m, n, block_row + mine.row + r, block_col + mine.col + j, &sums[r][j], alpha,
                   beta);
}
// [end snippet]

// ---- rung 8: warp tiles ----
// In rungs 5 to 7 the 32 threads of a warp own 2 x 16 blocks of 8 x 8: a
// 16 x 128 strip of C, for which each step along k reads 16 floats of A and
// all 128 of B from shared memory. Here the 8 warps sit 2 x 4 over the block's
// 128 x 128, each owning a compact 64 x 32 block of C, so a step reads 64
// floats of A and 32 of B: 96 instead of 144. Inside its block a warp takes
// 2 x 2 turns over 32 x 16 pieces; in each, its lanes sit 8 x 4 and each lane
// owns a 4 x 4 block. A thread still owns 64 elements, now in 4 pieces.
constexpr int kWarpM = 64, kWarpN = 32;               // one warp's block of C
constexpr int kWarpStepsM = 2, kWarpStepsN = 2;       // its turns over 32 x 16 pieces
constexpr int kLaneM = 4, kLaneN = 4;                 // one lane's part of a piece
constexpr int kWarpsAcross = kBlockN / kWarpN;        // 4 warps side by side
constexpr int kLanesAcross = kWarpN / kWarpStepsN / kLaneN;  // 4 lanes side by side
static_assert((kBlockM / kWarpM) * (kBlockN / kWarpN) * 32 == kThreads,
              "the warps' blocks tile the block's 128 x 128 exactly");
static_assert((kWarpM / kWarpStepsM / kLaneM) * kLanesAcross == 32,
              "a warp's 32 lanes tile each 32 x 16 piece exactly");

__global__ void sgemm_warp_tiled(int m, int n, int k, float alpha, const float* a,
                                 const float* b, float beta, float* c) {
    __shared__ __align__(16) float a_tile_t[2][kBlockK][kBlockM];
    __shared__ __align__(16) float b_tile[2][kBlockK][kBlockN];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int block_row = blockIdx.y * kBlockM, block_col = blockIdx.x * kBlockN;
    // Where this warp's block starts, and this lane's first row and column in
    // each 32 x 16 piece of it.
    const int warp_row = (warp / kWarpsAcross) * kWarpM, warp_col = (warp % kWarpsAcross) * kWarpN;
    const int lane_row = (lane / kLanesAcross) * kLaneM, lane_col = (lane % kLanesAcross) * kLaneN;
    constexpr int kPieceM = kWarpM / kWarpStepsM, kPieceN = kWarpN / kWarpStepsN;  // 32 x 16

    float sums[kWarpStepsM][kWarpStepsN][kLaneM][kLaneN] = {};
    float a_regs[kWarpStepsM][kLaneM], b_regs[kWarpStepsN][kLaneN];
    store_tiles(load_tiles(m, n, k, a, b, block_row, block_col, 0), a_tile_t[0], b_tile[0]);
    __syncthreads();
    for (int t = 0, now = 0; t < k; t += kBlockK, now ^= 1) {
        const bool more = t + kBlockK < k;
        TileLoads next{};
        if (more) next = load_tiles(m, n, k, a, b, block_row, block_col, t + kBlockK);
        #pragma unroll
        for (int i = 0; i < kBlockK; ++i) {
            #pragma unroll
            for (int wm = 0; wm < kWarpStepsM; ++wm) {
                const float4 v = *reinterpret_cast<const float4*>(
                    &a_tile_t[now][i][warp_row + wm * kPieceM + lane_row]);
                a_regs[wm][0] = v.x, a_regs[wm][1] = v.y, a_regs[wm][2] = v.z, a_regs[wm][3] = v.w;
            }
            #pragma unroll
            for (int wn = 0; wn < kWarpStepsN; ++wn) {
                const float4 v = *reinterpret_cast<const float4*>(
                    &b_tile[now][i][warp_col + wn * kPieceN + lane_col]);
                b_regs[wn][0] = v.x, b_regs[wn][1] = v.y, b_regs[wn][2] = v.z, b_regs[wn][3] = v.w;
            }
            #pragma unroll
            for (int wm = 0; wm < kWarpStepsM; ++wm)
                #pragma unroll
                for (int wn = 0; wn < kWarpStepsN; ++wn)
                    #pragma unroll
                    for (int r = 0; r < kLaneM; ++r)
                        #pragma unroll
                        for (int j = 0; j < kLaneN; ++j)
                            sums[wm][wn][r][j] += a_regs[wm][r] * b_regs[wn][j];
        }
        if (more) store_tiles(next, a_tile_t[now ^ 1], b_tile[now ^ 1]);
        __syncthreads();
    }
    #pragma unroll
    for (int wm = 0; wm < kWarpStepsM; ++wm)
        #pragma unroll
        for (int wn = 0; wn < kWarpStepsN; ++wn)
            #pragma unroll
            for (int r = 0; r < kLaneM; ++r)
                store4(c, m, n, block_row + warp_row + wm * kPieceM + lane_row + r,
                       block_col + warp_col + wn * kPieceN + lane_col, sums[wm][wn][r], alpha,
                       beta);
}

// ---- launching ----

static int blocks_for(int count, int per_block) { return (count + per_block - 1) / per_block; }

// The rungs in order; rung 0 is cuBLAS, the yardstick.
constexpr int kRungs = 8;
static const char* const kRungNames[kRungs + 1] = {
    "cuBLAS (cublasSgemm)", "1 naive",          "2 coalesced",       "3 shared tiles",
    "4 1D register tiles",  "5 2D register tiles", "6 float4 loads", "7 double buffering",
    "8 warp tiles"};

int sgemm_rung_count() { return kRungs; }
const char* sgemm_rung_name(int rung) {
    return rung >= 0 && rung <= kRungs ? kRungNames[rung] : "no such rung";
}

// cuBLAS stores matrices column-major: what it calls an n x m matrix with
// leading dimension n is, byte for byte, our row-major m x n. So our
// C = A * B is its C^T = B^T * A^T: pass B first, A second, and swap m and n.
// (In its default math mode cuBLAS keeps FP32 precision: no TF32 tensor cores unless asked.)
// [snippet: cublas]
static void cublas_sgemm(cublasHandle_t handle, int m, int n, int k, float alpha,
                         const float* d_a, const float* d_b, float beta, float* d_c) {
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, d_b, n, d_a, k,
                             &beta, d_c, n));
}
// [end snippet]

// Launches one rung on device arrays (rung 0: cuBLAS, which needs the handle).
// Returns false, launching nothing, for a rung that does not exist.
static bool launch_rung(int rung, cublasHandle_t handle, int m, int n, int k, float alpha,
                        const float* d_a, const float* d_b, float beta, float* d_c) {
    const dim3 tile_grid(blocks_for(n, kBlockN), blocks_for(m, kBlockM));  // rungs 5 to 8
    switch (rung) {
        case 0: cublas_sgemm(handle, m, n, k, alpha, d_a, d_b, beta, d_c); return true;
        case 1:  // x counts rows here: that is the rung's flaw
            sgemm_naive<<<dim3(blocks_for(m, 32), blocks_for(n, 32)), dim3(32, 32)>>>(
                m, n, k, alpha, d_a, d_b, beta, d_c);
            break;
        case 2:
            sgemm_coalesced<<<dim3(blocks_for(n, 32), blocks_for(m, 32)), dim3(32, 32)>>>(
                m, n, k, alpha, d_a, d_b, beta, d_c);
            break;
        case 3:
            sgemm_shared<<<dim3(blocks_for(n, kTile), blocks_for(m, kTile)),
                           dim3(kTile, kTile)>>>(m, n, k, alpha, d_a, d_b, beta, d_c);
            break;
        case 4:
            sgemm_1d_registers<<<dim3(blocks_for(n, k1dBlockN), blocks_for(m, k1dBlockM)),
                                 k1dThreads>>>(m, n, k, alpha, d_a, d_b, beta, d_c);
            break;
        case 5:
            sgemm_2d_registers<<<tile_grid, kThreads>>>(m, n, k, alpha, d_a, d_b, beta, d_c);
            break;
        case 6:
            sgemm_vectorized<<<tile_grid, kThreads>>>(m, n, k, alpha, d_a, d_b, beta, d_c);
            break;
        case 7:
            sgemm_double_buffered<<<tile_grid, kThreads>>>(m, n, k, alpha, d_a, d_b, beta, d_c);
            break;
        case 8:
            sgemm_warp_tiled<<<tile_grid, kThreads>>>(m, n, k, alpha, d_a, d_b, beta, d_c);
            break;
        default: return false;
    }
    CUDA_CHECK(cudaGetLastError());
    return true;
}

struct DeviceMatrices {
    float* d_a = nullptr;
    float* d_b = nullptr;
    float* d_c = nullptr;
};

static DeviceMatrices device_matrices(const float* h_a, const float* h_b, int m, int n, int k) {
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

// ---- the launcher: host arrays in, host array out ----
// C (m x n) = alpha * A (m x k) * B (k x n) + beta * C with the given rung
// (0: cuBLAS), any sizes >= 1. h_c is read when beta != 0. Returns false and
// leaves h_c alone for a rung that does not exist.
bool sgemm_on_gpu(int rung, int m, int n, int k, float alpha, const float* h_a,
                  const float* h_b, float beta, float* h_c) {
    if (rung < 0 || rung > kRungs) return false;
    DeviceMatrices dev = device_matrices(h_a, h_b, m, n, k);
    const size_t c_bytes = (size_t)m * n * sizeof(float);
    CUDA_CHECK(cudaMemcpy(dev.d_c, h_c, c_bytes, cudaMemcpyHostToDevice));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    launch_rung(rung, handle, m, n, k, alpha, dev.d_a, dev.d_b, beta, dev.d_c);
    CUDA_CHECK(cudaMemcpy(h_c, dev.d_c, c_bytes, cudaMemcpyDeviceToHost));
    CUBLAS_CHECK(cublasDestroy(handle));
    free_device_matrices(dev);
    return true;
}

// ---- main: every rung against the CPU and cuBLAS, or the timing table ----
#ifndef TUTORIAL_TEST_BUILD

// Milliseconds per launch (CUDA events, no copies), averaged over enough
// launches to last about 0.2 s. The caller has launched the rung once
// already (the launch it checked): that was the warm-up. With beta = 0 every
// launch computes the same C, so repeating is harmless.
static float time_rung_ms(int rung, cublasHandle_t handle, const DeviceMatrices& dev, int m,
                          int n, int k) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    float ms = 0.0f;
    int repeats = 1;
    for (int attempt = 0; attempt < 2; ++attempt) {
        CUDA_CHECK(cudaEventRecord(start));
        for (int r = 0; r < repeats; ++r)
            launch_rung(rung, handle, m, n, k, 1.0f, dev.d_a, dev.d_b, 0.0f, dev.d_c);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        ms /= repeats;
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

// Each element is a float sum of k products, rounded at every addition, in an
// order that differs from rung to rung; the reference sums in double. With
// inputs in [-1, 1] the sums are at most k in size, so the absolute part grows
// with k (it covers results near zero). A wrong index or a missing barrier is
// off by 0.1 or more.
// The report (on a mismatch only) names the side it compared with.
static size_t compare_product(const char* label, const std::vector<float>& got,
                              const std::vector<float>& ref, const char* ref_name, int n,
                              int k) {
    char report[4096] = "";
    tutorial_text out = {report, sizeof report, 0};
    size_t bad = tutorial_compare_report(&out, label, "got", ref_name, got.data(), ref.data(),
                                         got.size(), (size_t)n, 1e-5 * k, 1e-5, 3);
    std::fputs(report, stdout);
    return bad;
}

// One line per rung: time, GFLOP/s and percentage of cuBLAS's speed, and the
// check of the rung's C against `expected`. Returns how many rungs failed;
// *slowest_ms is the time of the slowest launch.
static int run_ladder(int m, int n, int k, const std::vector<float>& h_a,
                      const std::vector<float>& h_b, const std::vector<float>& expected,
                      const char* expected_name, const char* column_name, float* slowest_ms) {
    DeviceMatrices dev = device_matrices(h_a.data(), h_b.data(), m, n, k);
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    std::vector<float> h_c((size_t)m * n);
    std::printf("%-22s %10s %10s %12s   %s\n", "rung", "ms", "GFLOP/s", "% of cuBLAS",
                column_name);
    float cublas_ms = 0.0f;
    int failures = 0;
    *slowest_ms = 0.0f;
    for (int rung = 0; rung <= kRungs; ++rung) {
        fill_poison(h_c.data(), h_c.size());  // NaN: an element no thread wrote cannot pass
        CUDA_CHECK(cudaMemcpy(dev.d_c, h_c.data(), h_c.size() * sizeof(float),
                              cudaMemcpyHostToDevice));
        launch_rung(rung, handle, m, n, k, 1.0f, dev.d_a, dev.d_b, 0.0f, dev.d_c);
        CUDA_CHECK(cudaMemcpy(h_c.data(), dev.d_c, h_c.size() * sizeof(float),
                              cudaMemcpyDeviceToHost));
        const bool passed =
            compare_product(kRungNames[rung], h_c, expected, expected_name, n, k) == 0;
        failures += passed ? 0 : 1;
        const float ms = time_rung_ms(rung, handle, dev, m, n, k);
        if (rung == 0) cublas_ms = ms;
        *slowest_ms = std::max(*slowest_ms, ms);
        std::printf("%-22s %10.3f %10.2f %11.1f%%   %s\n", kRungNames[rung], ms,
                    gflops(m, n, k, ms), 100.0 * cublas_ms / ms, passed ? "PASS" : "FAIL");
        std::fflush(stdout);
    }
    CUBLAS_CHECK(cublasDestroy(handle));
    free_device_matrices(dev);
    return failures;
}

static void explain_where_it_ran() {
#ifdef CUEMU
    std::printf("\nThese are CPU times from the emulator, and its cuBLAS is the CPU's BLAS:\n"
                "the percentages say nothing about a GPU. Here the ladder checks that every\n"
                "rung computes the right answer; only a GPU shows what each trick buys.\n");
#else
    std::printf("\nMeasured on this GPU in this run, beside cuBLAS with the same sizes.\n");
#endif
}

// Square sizes 128, 256, ..., 4096 for every rung, checked against cuBLAS's
// answer (the CPU would take minutes at 4096). Each size costs 8 times the one
// before, so the table stops once one launch takes more than 0.1 s (on the
// emulator that happens at N = 256; a GPU goes on to 4096).
static int run_bench() {
    std::printf("C = A * B, square N x N, FP32; kernel only (CUDA events, no copies), after\n"
                "a warm-up launch (the one checked against cuBLAS's C), averaged over enough\n"
                "launches to last about 0.2 s.\n");
    int failures = 0;
    for (int size = 128; size <= 4096; size *= 2) {
        std::vector<float> h_a((size_t)size * size), h_b((size_t)size * size),
            expected((size_t)size * size);
        fill_random(h_a.data(), h_a.size(), 11, -1.0f, 1.0f);
        fill_random(h_b.data(), h_b.size(), 12, -1.0f, 1.0f);
        fill_poison(expected.data(), expected.size());
        sgemm_on_gpu(0, size, size, size, 1.0f, h_a.data(), h_b.data(), 0.0f, expected.data());
        std::printf("\nN = %d\n", size);
        float slowest_ms = 0.0f;
        failures += run_ladder(size, size, size, h_a, h_b, expected, "cuBLAS", "vs cuBLAS",
                               &slowest_ms);
        if (slowest_ms > 100.0f && size < 4096) {
            std::printf("(stopped: the next size would take about 8 times as long)\n");
            break;
        }
    }
    explain_where_it_ran();
    std::printf("\n%s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    long long m = 200, n = 200, k = 200, bench = 0;
    cli_option options[] = {
        {"--m", "rows of A and C", CLI_INT, &m, 1, 4096},
        {"--n", "columns of B and C", CLI_INT, &n, 1, 4096},
        {"--k", "columns of A, rows of B", CLI_INT, &k, 1, 4096},
        {"--bench", "every rung and cuBLAS for growing square sizes", CLI_FLAG, &bench, 0, 1},
    };
    cli_parse(argc, argv,
              "Climbs the SGEMM ladder: eight kernels, each checked against the CPU and timed\n"
              "against cuBLAS.",
              options, 4);

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);
    if (bench) return run_bench();

    // Sizes this machine cannot hold, or finish in a few minutes, are refused
    // up front (run_limits.h). Seconds per multiply-add, measured for this
    // whole program at m = n = k = 512 on a 2-core machine: 57 ns of CPU time
    // on the emulator (all eight rungs, cuBLAS, their timing runs and the CPU
    // reference), so 60 ns; 4 ns for the CPU reference alone (lesson 09's loop).
    const double mk = (double)m * k, kn = (double)k * n, mn = (double)m * n;
    run_limits_require_memory(4.0 * (mk + kn + 2.0 * mn), 4.0 * (mk + kn + mn));
    run_limits_check_duration(mn * (double)k, 60e-9, 4e-9, "--m, --n or --k");

    std::printf("C (%lld x %lld) = A (%lld x %lld) * B (%lld x %lld), FP32\n"
                "kernel only (CUDA events, no copies), after a warm-up (the checked launch)\n\n",
                m, n, m, k, k, n);
    std::vector<float> h_a((size_t)(m * k)), h_b((size_t)(k * n)), h_ref((size_t)(m * n));
    fill_random(h_a.data(), h_a.size(), 1, -1.0f, 1.0f);
    fill_random(h_b.data(), h_b.size(), 2, -1.0f, 1.0f);
    cpu_sgemm((int)m, (int)n, (int)k, 1.0f, h_a.data(), h_b.data(), 0.0f, h_ref.data());
    float slowest_ms = 0.0f;
    int failures = run_ladder((int)m, (int)n, (int)k, h_a, h_b, h_ref, "CPU reference",
                              "vs the CPU", &slowest_ms);
    explain_where_it_ran();
    std::printf("\n%s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
#endif
