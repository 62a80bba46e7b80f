// wmma_layout_dump.cu - prints which element of the tile each lane holds in
// each x[i] of a wmma fragment, for every fragment kind, shape, type and
// layout: the tile is loaded from a matrix whose element (r, c) is numbered
// r * columns + c, and each lane writes its x[] out. CUDA leaves this mapping
// unspecified; this is what one GPU does. Built with nvcc (sm_80 or later)
// and run on a GPU, its output was kept in docs/gpu-runs/; the emulator's
// output is compared with it.
//
//   nvcc -arch=sm_90 wmma_layout_dump.cu -o dump && ./dump > gpu.txt
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "gpu_dump.h"

using namespace nvcuda;

constexpr int kMaxElements = 64;  // no fragment here holds more per lane

// ---- kernels ---------------------------------------------------------------------------
// Loads a matrix_a/matrix_b fragment from `tile` (its leading dimension ld) and
// writes each lane's elements, converted to float, to out[lane * kMaxElements + i].
template <class Use, int M, int N, int K, class T, class Layout, class Stored>
__global__ void operand_layout(const Stored* tile, unsigned ld, float* out, int* count) {
    wmma::fragment<Use, M, N, K, T, Layout> frag;
    wmma::load_matrix_sync(frag, tile, ld);
    const int lane = threadIdx.x;
    for (int i = 0; i < frag.num_elements; ++i) out[lane * kMaxElements + i] = float(frag.x[i]);
    if (lane == 0) *count = frag.num_elements;
}

template <int M, int N, int K, class T>
__global__ void accumulator_layout(const T* tile, unsigned ld, wmma::layout_t layout, float* out,
                                   int* count) {
    wmma::fragment<wmma::accumulator, M, N, K, T> frag;
    wmma::load_matrix_sync(frag, tile, ld, layout);
    const int lane = threadIdx.x;
    for (int i = 0; i < frag.num_elements; ++i) out[lane * kMaxElements + i] = float(frag.x[i]);
    if (lane == 0) *count = frag.num_elements;
}

// ---- host --------------------------------------------------------------------------------
template <class Stored>
static Stored* numbered_matrix(int rows, int cols, unsigned* ld, bool row_major) {
    *ld = row_major ? cols : rows;
    std::vector<Stored> h(rows * cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            h[row_major ? r * cols + c : c * rows + r] = Stored(float(r * cols + c));
    Stored* d = nullptr;
    CHECK(cudaMalloc(&d, h.size() * sizeof(Stored)));
    CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(Stored), cudaMemcpyHostToDevice));
    return d;
}

static void print_lanes(const char* label, float* d_out, int* d_count) {
    std::vector<float> out(32 * kMaxElements);
    int count = 0;
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
    for (int lane = 0; lane < 32; ++lane) {
        std::printf("%s lane %2d:", label, lane);
        for (int i = 0; i < count; ++i) std::printf(" %g", out[lane * kMaxElements + i]);
        std::printf("\n");
    }
}

template <class Use, int M, int N, int K, class T, class Layout, class Stored>
static void operand(const char* label, float* d_out, int* d_count) {
    const bool is_a = std::is_same<Use, wmma::matrix_a>::value;
    const int rows = is_a ? M : K, cols = is_a ? K : N;
    const bool row_major = std::is_same<Layout, wmma::row_major>::value;
    unsigned ld = 0;
    Stored* d_tile = numbered_matrix<Stored>(rows, cols, &ld, row_major);
    operand_layout<Use, M, N, K, T, Layout, Stored><<<1, 32>>>(d_tile, ld, d_out, d_count);
    CHECK(cudaGetLastError());
    print_lanes(label, d_out, d_count);
    CHECK(cudaFree(d_tile));
}

template <int M, int N, int K, class T>
static void accumulator(const char* label, bool row_major, float* d_out, int* d_count) {
    unsigned ld = 0;
    T* d_tile = numbered_matrix<T>(M, N, &ld, row_major);
    accumulator_layout<M, N, K, T><<<1, 32>>>(d_tile, ld, row_major ? wmma::mem_row_major : wmma::mem_col_major,
                                             d_out, d_count);
    CHECK(cudaGetLastError());
    print_lanes(label, d_out, d_count);
    CHECK(cudaFree(d_tile));
}

int main() {
    float* d_out = nullptr;
    int* d_count = nullptr;
    CHECK(cudaMalloc(&d_out, 32 * kMaxElements * sizeof(float)));
    CHECK(cudaMalloc(&d_count, sizeof(int)));
    using wmma::matrix_a;
    using wmma::matrix_b;
    using wmma::row_major;
    using wmma::col_major;
    operand<matrix_a, 16, 16, 16, half, row_major, half>("a 16x16x16 half row", d_out, d_count);
    operand<matrix_a, 16, 16, 16, half, col_major, half>("a 16x16x16 half col", d_out, d_count);
    operand<matrix_b, 16, 16, 16, half, row_major, half>("b 16x16x16 half row", d_out, d_count);
    operand<matrix_b, 16, 16, 16, half, col_major, half>("b 16x16x16 half col", d_out, d_count);
    operand<matrix_a, 32, 8, 16, half, row_major, half>("a 32x8x16 half row", d_out, d_count);
    operand<matrix_b, 32, 8, 16, half, col_major, half>("b 32x8x16 half col", d_out, d_count);
    operand<matrix_a, 8, 32, 16, half, col_major, half>("a 8x32x16 half col", d_out, d_count);
    operand<matrix_b, 8, 32, 16, half, row_major, half>("b 8x32x16 half row", d_out, d_count);
    operand<matrix_a, 16, 16, 16, __nv_bfloat16, row_major, __nv_bfloat16>("a 16x16x16 bf16 row", d_out, d_count);
    operand<matrix_b, 16, 16, 16, __nv_bfloat16, col_major, __nv_bfloat16>("b 16x16x16 bf16 col", d_out, d_count);
    operand<matrix_a, 16, 16, 8, wmma::precision::tf32, row_major, float>("a 16x16x8 tf32 row", d_out, d_count);
    operand<matrix_b, 16, 16, 8, wmma::precision::tf32, col_major, float>("b 16x16x8 tf32 col", d_out, d_count);
    operand<matrix_a, 8, 8, 4, double, row_major, double>("a 8x8x4 double row", d_out, d_count);
    operand<matrix_b, 8, 8, 4, double, col_major, double>("b 8x8x4 double col", d_out, d_count);
    accumulator<16, 16, 16, float>("c 16x16x16 float row", true, d_out, d_count);
    accumulator<16, 16, 16, float>("c 16x16x16 float col", false, d_out, d_count);
    accumulator<16, 16, 16, half>("c 16x16x16 half row", true, d_out, d_count);
    accumulator<32, 8, 16, float>("c 32x8x16 float row", true, d_out, d_count);
    accumulator<8, 32, 16, float>("c 8x32x16 float row", true, d_out, d_count);
    accumulator<16, 16, 8, float>("c 16x16x8 float row", true, d_out, d_count);
    accumulator<8, 8, 4, double>("c 8x8x4 double row", true, d_out, d_count);
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_count));
    return 0;
}
