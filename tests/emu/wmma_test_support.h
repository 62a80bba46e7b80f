// wmma_test_support.h - what the wmma tests (test_wmma.cu, test_wmma_int.cu)
// share: matrices' shapes, where each warp's tile of a tiled GEMM lies, a
// kernel that changes fragments between products, and for the misuse cases device arrays for a launch whose error is sticky and
// running a launch that must stop with a report holding given words.
#ifndef CUEMU_TESTS_WMMA_TEST_SUPPORT_H
#define CUEMU_TESTS_WMMA_TEST_SUPPORT_H

#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <mma.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "stderr_capture.h"

// A matrix of rows x cols, stored row by row or column by column.
struct matrix_shape {
    int rows, cols;
    bool row_major;
    int at(int r, int c) const { return row_major ? r * cols + c : c * rows + r; }
    int ld() const { return row_major ? cols : rows; }
};

// One warp per m x n tile of D (M x N, D = A * B + C, A M x K and B K x N in
// the layouts of their fragments, C and D in c_layout): where this warp's
// tile lies, and where its slab of A and of B at depth kk starts.
struct warp_tile {
    bool in_range;  // false for the warps past the last tile
    bool a_row_major, b_row_major;
    int lda, ldb, ldc, r0, c0, c_offset;
    __device__ int a_at(int kk) const { return a_row_major ? r0 * lda + kk : kk * lda + r0; }
    __device__ int b_at(int kk) const { return b_row_major ? kk * ldb + c0 : c0 * ldb + kk; }
};
template <int m, int n, class LayoutA, class LayoutB>
__device__ warp_tile this_warps_tile(int M, int N, int K, nvcuda::wmma::layout_t c_layout) {
    const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
    const int tile_row = warp / (N / n), tile_col = warp % (N / n);
    warp_tile t;
    t.in_range = tile_row * m < M;
    t.a_row_major = std::is_same<LayoutA, nvcuda::wmma::row_major>::value;
    t.b_row_major = std::is_same<LayoutB, nvcuda::wmma::row_major>::value;
    const bool c_row_major = c_layout == nvcuda::wmma::mem_row_major;
    t.lda = t.a_row_major ? K : M;
    t.ldb = t.b_row_major ? N : K;
    t.ldc = c_row_major ? N : M;
    t.r0 = tile_row * m;
    t.c0 = tile_col * n;
    t.c_offset = c_row_major ? t.r0 * t.ldc + t.c0 : t.c0 * t.ldc + t.r0;
    return t;
}

// One warp per 16 x 16 x 16 tile: A * B three times, with the fragments as
// loaded, after `change` has replaced every x[i] of A, and after it has
// replaced every x[i] of B too; warp w's three products go to out + (3w + step)
// * 256. A fragment changed through x[] must be multiplied as it is now, not
// as an earlier mma_sync saw it.
template <class In, class Acc, class Change>
__global__ void changed_between_products(const In* a, const In* b, Acc* out, Change change) {
    namespace wmma = nvcuda::wmma;
    const int warp = threadIdx.x / 32, tile = 16 * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, In, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, In, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, Acc> acc;
    wmma::load_matrix_sync(a_frag, a + warp * tile, 16);
    wmma::load_matrix_sync(b_frag, b + warp * tile, 16);
    Acc* mine = out + warp * 3 * tile;
    for (int step = 0; step < 3; ++step) {
        if (step == 1)
            for (int i = 0; i < a_frag.num_elements; ++i) a_frag.x[i] = change(a_frag.x[i]);
        if (step == 2)
            for (int i = 0; i < b_frag.num_elements; ++i) b_frag.x[i] = change(b_frag.x[i]);
        wmma::fill_fragment(acc, Acc(0));
        wmma::mma_sync(acc, a_frag, b_frag, acc);
        wmma::store_matrix_sync(mine + step * tile, acc, 16, wmma::mem_row_major);
    }
}

// The error is sticky: these buffers are never freed (cudaFree would fail).
template <class T>
T* device_array(size_t count) {
    T* p = nullptr;
    REQUIRE(cudaMalloc(&p, count * sizeof(T)) == cudaSuccess);
    REQUIRE(cudaMemset(p, 0, count * sizeof(T)) == cudaSuccess);
    return p;
}

// Runs a kernel that misuses wmma; the launch must fail with the report's words.
template <class Launch>
void expect_report(Launch launch, const std::vector<std::string>& words) {
    stderr_capture capture(capture_until::device_idle);
    launch();
    CHECK(cudaGetLastError() == cudaSuccess);  // the launch itself is fine
    const std::string report = capture.finish();
    for (const std::string& w : words) CHECK_MESSAGE(report.find(w) != std::string::npos, "missing: " << w);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
}

#endif  // CUEMU_TESTS_WMMA_TEST_SUPPORT_H
