// wmma_layout_dump.cu - prints which element of the tile each lane holds in
// each x[i] of a wmma fragment, for every fragment kind, shape, type and
// layout: the tile is loaded from a matrix whose element (r, c) is numbered
// r * columns + c, and each lane writes its x[] out. CUDA leaves this mapping
// unspecified; this is what one GPU does. Built with nvcc (sm_80 or later)
// and run on a GPU, its output was kept in docs/gpu-runs/; the emulator's
// output is compared with it.
//
// With --integer it prints, after those lines, the 8-bit (signed char,
// unsigned char) A and B fragments and the int accumulators, which no GPU was
// measured for yet (2026-12-01; the emulator follows a rule of its own,
// common/emu/README.md). Without it the output is unchanged, so
// emu.wmma-layout-as-on-a-gpu still compares it with the H200's file, which
// has no integer lines. An 8-bit element is numbered from two loads, one of a
// tile holding each element's row and one its column.
//
//   nvcc -arch=sm_90 wmma_layout_dump.cu -o dump && ./dump > gpu.txt
//   ./dump --integer > gpu-with-integer.txt
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// An 8-bit fragment cannot hold the element numbers (up to 511): it is
// loaded from a tile of row numbers and one of column numbers, and each
// x[i] is written out as row * cols + col, the number the other lines use.
template <class Use, int M, int N, int K, class T, class Layout>
__global__ void byte_operand_layout(const T* rows, const T* cols, unsigned ld, float* out, int* count) {
    wmma::fragment<Use, M, N, K, T, Layout> by_row, by_col;
    wmma::load_matrix_sync(by_row, rows, ld);
    wmma::load_matrix_sync(by_col, cols, ld);
    const int tile_cols = std::is_same<Use, wmma::matrix_a>::value ? K : N;
    const int lane = threadIdx.x;
    for (int i = 0; i < by_row.num_elements; ++i)
        out[lane * kMaxElements + i] = float(int(by_row.x[i]) * tile_cols + int(by_col.x[i]));
    if (lane == 0) *count = by_row.num_elements;
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
// What element (r, c) of a tile holds.
enum class numbering { element, row, column };

// ld is the tile's row (column) length, padded to 16 bytes where it is less
// (8 chars); none of the other fragments' tiles needs it.
template <class Stored>
static Stored* numbered_matrix(int rows, int cols, unsigned* ld, bool row_major,
                               numbering by = numbering::element) {
    const unsigned natural = row_major ? cols : rows, step = 16 / sizeof(Stored);
    *ld = (natural + step - 1) / step * step;
    std::vector<Stored> h(*ld * (row_major ? rows : cols));
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            h[row_major ? r * *ld + c : c * *ld + r] =
                Stored(float(by == numbering::row ? r : by == numbering::column ? c : r * cols + c));
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

template <class Use, int M, int N, int K, class T, class Layout>
static void byte_operand(const char* label, float* d_out, int* d_count) {
    const bool is_a = std::is_same<Use, wmma::matrix_a>::value;
    const int rows = is_a ? M : K, cols = is_a ? K : N;
    const bool row_major = std::is_same<Layout, wmma::row_major>::value;
    unsigned ld = 0;
    T* d_rows = numbered_matrix<T>(rows, cols, &ld, row_major, numbering::row);
    T* d_cols = numbered_matrix<T>(rows, cols, &ld, row_major, numbering::column);
    byte_operand_layout<Use, M, N, K, T, Layout><<<1, 32>>>(d_rows, d_cols, ld, d_out, d_count);
    CHECK(cudaGetLastError());
    print_lanes(label, d_out, d_count);
    CHECK(cudaFree(d_rows));
    CHECK(cudaFree(d_cols));
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

// The 8-bit integer fragments and int accumulators (--integer).
static void integer_fragments(float* d_out, int* d_count) {
    using wmma::matrix_a;
    using wmma::matrix_b;
    using wmma::row_major;
    using wmma::col_major;
    using s8 = signed char;
    using u8 = unsigned char;
    byte_operand<matrix_a, 16, 16, 16, s8, row_major>("a 16x16x16 s8 row", d_out, d_count);
    byte_operand<matrix_a, 16, 16, 16, s8, col_major>("a 16x16x16 s8 col", d_out, d_count);
    byte_operand<matrix_b, 16, 16, 16, s8, row_major>("b 16x16x16 s8 row", d_out, d_count);
    byte_operand<matrix_b, 16, 16, 16, s8, col_major>("b 16x16x16 s8 col", d_out, d_count);
    byte_operand<matrix_a, 16, 16, 16, u8, row_major>("a 16x16x16 u8 row", d_out, d_count);
    byte_operand<matrix_b, 16, 16, 16, u8, col_major>("b 16x16x16 u8 col", d_out, d_count);
    byte_operand<matrix_a, 32, 8, 16, s8, row_major>("a 32x8x16 s8 row", d_out, d_count);
    byte_operand<matrix_b, 32, 8, 16, s8, col_major>("b 32x8x16 s8 col", d_out, d_count);
    byte_operand<matrix_b, 32, 8, 16, s8, row_major>("b 32x8x16 s8 row", d_out, d_count);
    byte_operand<matrix_a, 8, 32, 16, s8, row_major>("a 8x32x16 s8 row", d_out, d_count);
    byte_operand<matrix_a, 8, 32, 16, s8, col_major>("a 8x32x16 s8 col", d_out, d_count);
    byte_operand<matrix_b, 8, 32, 16, s8, row_major>("b 8x32x16 s8 row", d_out, d_count);
    accumulator<16, 16, 16, int>("c 16x16x16 int row", true, d_out, d_count);
    accumulator<16, 16, 16, int>("c 16x16x16 int col", false, d_out, d_count);
    accumulator<32, 8, 16, int>("c 32x8x16 int row", true, d_out, d_count);
    accumulator<8, 32, 16, int>("c 8x32x16 int row", true, d_out, d_count);
}

int main(int argc, char** argv) {
    const bool integer = argc > 1 && std::strcmp(argv[1], "--integer") == 0;
    if (argc > 1 && !integer) {
        std::fprintf(stderr, "usage: %s [--integer]\n", argv[0]);
        return 2;
    }
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
    if (integer) integer_fragments(d_out, d_count);
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_count));
    return 0;
}
