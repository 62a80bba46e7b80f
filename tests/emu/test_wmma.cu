// test_wmma.cu - tensor cores' warp matrix functions (nvcuda::wmma, <mma.h>) on
// the emulator: single-fragment and tiled GEMMs in every emulated input type,
// shape and layout, checked against a double-precision reference within a
// bound that grows with K; accumulating into a loaded C; scaling an
// accumulator element by element through x[]; where a lane's elements lie; and
// the reports of a warp that misuses them (cases of their own, one process each).
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <mma.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "device_buffer.h"
#include "wmma_test_support.h"

using namespace nvcuda;

// ---- host side: inputs, references and bounds ----------------------------------------
inline float to_float(__half v) { return __half2float(v); }
inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
inline float to_float(float v) { return v; }
inline double to_float(double v) { return v; }
template <class T> T from_double(double v);
template <> __half from_double<__half>(double v) { return __float2half(static_cast<float>(v)); }
template <> __nv_bfloat16 from_double<__nv_bfloat16>(double v) { return __float2bfloat16(static_cast<float>(v)); }
template <> float from_double<float>(double v) { return static_cast<float>(v); }
template <> double from_double<double>(double v) { return v; }

// tf32 by arithmetic, apart from the emulator's bit manipulation: 10
// fraction bits (so a step of 2^-136 below the smallest normal float), to
// nearest with ties away from zero (cvt.rna).
double tf32_reference(float v) {
    if (v == 0.0f || !std::isfinite(v)) return v;
    int exponent = 0;
    std::frexp(static_cast<double>(v), &exponent);  // |v| in [2^(exponent-1), 2^exponent)
    const double step = std::ldexp(1.0, std::max(exponent - 11, -136));
    return std::round(static_cast<double>(v) / step) * step;
}

template <class T>
std::vector<T> random_matrix(int count) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<T> v(count);
    for (T& x : v) x = from_double<T>(dist(rng()));
    return v;
}

// D = alpha * A * B + beta * C in double, and how far a result may lie from
// it. The products are exact (the tf32 inputs are rounded first, as the
// kernel does); the accumulation rounds at most K + 3 times (K additions, the
// scaling), each time by at most a unit roundoff of a partial sum, which is at
// most the sum of the magnitudes. A __half accumulator is also rounded at the
// end of each mma_sync and by the scaling, K / k + 1 times, by at most 2^-11
// of that sum.
struct reference {
    std::vector<double> value, bound;
};
template <class In, class Out>
reference gemm_reference(const std::vector<In>& a, matrix_shape as, const std::vector<In>& b, matrix_shape bs,
                         const std::vector<Out>& c, matrix_shape cs, double alpha, double beta, bool tf32,
                         double unit_roundoff, int half_roundings) {
    const int M = as.rows, K = as.cols, N = bs.cols;
    reference ref{std::vector<double>(M * N), std::vector<double>(M * N)};
    auto input = [tf32](In v) { return tf32 ? tf32_reference(static_cast<float>(to_float(v))) : double(to_float(v)); };
    for (int r = 0; r < M; ++r)
        for (int col = 0; col < N; ++col) {
            double sum = 0, magnitude = 0;
            for (int k = 0; k < K; ++k) {
                const double p = input(a[as.at(r, k)]) * input(b[bs.at(k, col)]);
                sum += p;
                magnitude += std::fabs(p);
            }
            const double cv = to_float(c[cs.at(r, col)]);
            const double value = alpha * sum + beta * cv;
            ref.value[cs.at(r, col)] = value;
            ref.bound[cs.at(r, col)] = ((K + 3) * unit_roundoff + half_roundings * 0x1p-11) *
                                        (std::fabs(alpha) * magnitude + std::fabs(beta * cv));
        }
    return ref;
}

template <class Out>
void check_against(const std::vector<Out>& got, const reference& ref, const char* what) {
    int wrong = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double g = to_float(got[i]);
        if (!(std::fabs(g - ref.value[i]) <= ref.bound[i])) {
            if (++wrong <= 5)
                FAIL_CHECK(std::string(what) << ": element " << i << " is " << g << ", the reference " << ref.value[i]
                                << " (allowed error " << ref.bound[i] << ")");
        }
    }
    CHECK_MESSAGE(wrong == 0, std::string(what) << ": " << wrong << " of " << got.size() << " elements out of bounds");
}

// ---- kernels ----------------------------------------------------------------------
// Inputs given to a tf32 fragment must be rounded to tf32 first, as the
// CUDA C++ Programming Guide says; other fragments take theirs as loaded.
template <class Fragment>
__device__ void round_inputs(Fragment&) {}
template <class Use, class Layout>
__device__ void round_inputs(wmma::fragment<Use, 16, 16, 8, wmma::precision::tf32, Layout>& f) {
    for (int i = 0; i < f.num_elements; ++i) f.x[i] = wmma::__float_to_tf32(f.x[i]);
}

// One warp per m x n tile of D (M x N). A is M x K, B is K x N, each in the
// layout of its fragment; C and D are M x N in c_layout. With
// c_into_accumulator the product is accumulated onto C loaded into the
// accumulator; otherwise D = alpha * A * B + beta * C, scaled through x[].
template <class In, class Memory, class Acc, int m, int n, int k, class LayoutA, class LayoutB>
__global__ void tiled_gemm(const Memory* a, const Memory* b, const Acc* c, Acc* d, int M, int N, int K, float alpha,
                           float beta, wmma::layout_t c_layout, bool c_into_accumulator) {
    const warp_tile t = this_warps_tile<m, n, LayoutA, LayoutB>(M, N, K, c_layout);
    if (!t.in_range) return;  // whole warps leave together

    wmma::fragment<wmma::matrix_a, m, n, k, In, LayoutA> a_frag;
    wmma::fragment<wmma::matrix_b, m, n, k, In, LayoutB> b_frag;
    wmma::fragment<wmma::accumulator, m, n, k, Acc> acc_frag, c_frag;
    if (c_into_accumulator)
        wmma::load_matrix_sync(acc_frag, c + t.c_offset, t.ldc, c_layout);
    else
        wmma::fill_fragment(acc_frag, Acc(0.0f));
    for (int kk = 0; kk < K; kk += k) {
        wmma::load_matrix_sync(a_frag, a + t.a_at(kk), t.lda);
        wmma::load_matrix_sync(b_frag, b + t.b_at(kk), t.ldb);
        round_inputs(a_frag);
        round_inputs(b_frag);
        wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
    }
    if (!c_into_accumulator) {
        wmma::load_matrix_sync(c_frag, c + t.c_offset, t.ldc, c_layout);
        using Real = typename std::conditional<std::is_same<Acc, double>::value, double, float>::type;
        for (int i = 0; i < c_frag.num_elements; ++i)
            c_frag.x[i] = Acc(Real(alpha) * Real(acc_frag.x[i]) + Real(beta) * Real(c_frag.x[i]));
        wmma::store_matrix_sync(d + t.c_offset, c_frag, t.ldc, c_layout);
    } else {
        wmma::store_matrix_sync(d + t.c_offset, acc_frag, t.ldc, c_layout);
    }
}

// How C enters D: scaled through x[] (D = alpha * A * B + beta * C), or
// loaded into the accumulator that mma_sync adds the products onto.
enum c_use { scaled, accumulated };

// Runs tiled_gemm on random data (M x K times K x N) and checks D.
template <class In, class Memory, class Acc, int m, int n, int k, class LayoutA, class LayoutB>
void check_gemm(wmma::layout_t c_layout, c_use use, const char* what, int M = 64, int N = 64, int K = 48) {
    const bool c_into_accumulator = use == accumulated;
    const double unit_roundoff = std::is_same<Acc, double>::value ? 0x1p-53 : 0x1p-24;
    const bool a_row = std::is_same<LayoutA, wmma::row_major>::value;
    const bool b_row = std::is_same<LayoutB, wmma::row_major>::value;
    const matrix_shape as{M, K, a_row}, bs{K, N, b_row}, cs{M, N, c_layout == wmma::mem_row_major};
    const auto a = random_matrix<Memory>(M * K), b = random_matrix<Memory>(K * N);
    const auto c = random_matrix<Acc>(M * N);
    const float alpha = c_into_accumulator ? 1.0f : 1.5f, beta = c_into_accumulator ? 1.0f : -0.75f;
    const bool tf32 = std::is_same<In, wmma::precision::tf32>::value;
    const bool half_result = std::is_same<Acc, __half>::value;
    const reference ref = gemm_reference(a, as, b, bs, c, cs, alpha, beta, tf32, unit_roundoff,
                                         half_result ? K / k + 1 : 0);
    device_buffer<Memory> da(a.size()), db(b.size());
    device_buffer<Acc> dc(c.size()), dd(c.size());
    da.write(a);
    db.write(b);
    dc.write(c);
    const int warps = (M / m) * (N / n);
    tiled_gemm<In, Memory, Acc, m, n, k, LayoutA, LayoutB><<<(warps + 3) / 4, 128>>>(
        da.ptr, db.ptr, dc.ptr, dd.ptr, M, N, K, alpha, beta, c_layout, c_into_accumulator);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    check_against(dd.read(), ref, what);
}

// Short names for the tables of cases below.
using row = wmma::row_major;
using col = wmma::col_major;
using bf16 = __nv_bfloat16;
using tf32 = wmma::precision::tf32;
constexpr wmma::layout_t c_row = wmma::mem_row_major, c_col = wmma::mem_col_major;

TEST_CASE("a single 16x16x16 __half fragment product matches the CPU") {
    check_gemm<__half, __half, float, 16, 16, 16, row, col>(c_row, scaled, "16x16x16 half", 16, 16, 16);
}

TEST_CASE("a tiled __half GEMM, M = N = 64 and K = 48, in every layout of A and B") {
    check_gemm<__half, __half, float, 16, 16, 16, row, row>(c_row, scaled, "A row, B row");
    check_gemm<__half, __half, float, 16, 16, 16, row, col>(c_col, scaled, "A row, B col, C col");
    check_gemm<__half, __half, float, 16, 16, 16, col, row>(c_row, scaled, "A col, B row");
    check_gemm<__half, __half, float, 16, 16, 16, col, col>(c_col, scaled, "A col, B col, C col");
}

TEST_CASE("mma_sync accumulates onto a C loaded into the accumulator") {
    check_gemm<__half, __half, float, 16, 16, 16, row, col>(c_row, accumulated, "C row major");
    check_gemm<__half, __half, float, 16, 16, 16, col, row>(c_col, accumulated, "C col major");
}

TEST_CASE("the other __half shapes, and __half accumulators") {
    check_gemm<__half, __half, float, 32, 8, 16, row, col>(c_row, scaled, "m32n8k16");
    check_gemm<__half, __half, float, 8, 32, 16, col, row>(c_col, scaled, "m8n32k16");
    check_gemm<__half, __half, __half, 16, 16, 16, row, col>(
        c_row, accumulated, "m16n16k16, half accumulator");
    check_gemm<__half, __half, __half, 32, 8, 16, col, col>(
        c_col, scaled, "m32n8k16, half accumulator, scaled");
}

TEST_CASE("__nv_bfloat16 inputs in each shape") {
    check_gemm<bf16, bf16, float, 16, 16, 16, row, col>(c_row, scaled, "bf16 m16n16k16");
    check_gemm<bf16, bf16, float, 32, 8, 16, col, row>(c_row, accumulated, "bf16 m32n8k16");
    check_gemm<bf16, bf16, float, 8, 32, 16, row, row>(c_col, scaled, "bf16 m8n32k16");
}

TEST_CASE("precision::tf32 inputs rounded with __float_to_tf32, and double m8n8k4") {
    check_gemm<tf32, float, float, 16, 16, 8, row, col>(c_row, scaled, "tf32 m16n16k8");
    check_gemm<tf32, float, float, 16, 16, 8, col, row>(c_col, accumulated, "tf32 m16n16k8 onto C");
    check_gemm<double, double, double, 8, 8, 4, row, col>(c_row, scaled, "double m8n8k4");
    check_gemm<double, double, double, 8, 8, 4, col, row>(c_col, accumulated, "double m8n8k4 onto C");
}

// Two products in a row with no other warp-wide call between them: every lane
// must have finished the first before any lane's share of the second
// replaces it in the warp's exchange. D = A1 * B + A2 * B.
__global__ void two_products_in_a_row(const __half* a1, const __half* a2, const __half* b, float* d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> first, second;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(first, a1, 16);
    wmma::load_matrix_sync(second, a2, 16);
    wmma::load_matrix_sync(b_frag, b, 16);
    wmma::fill_fragment(acc, 0.0f);
    wmma::mma_sync(acc, first, b_frag, acc);
    wmma::mma_sync(acc, second, b_frag, acc);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

TEST_CASE("mma_sync twice in a row, on subnormal and normal __half inputs") {
    // A1 holds subnormal halves (k * 2^-24), A2 ordinary ones; B is column major.
    std::uniform_int_distribution<int> subnormal(-1023, 1023);
    std::vector<__half> a1(256), a2 = random_matrix<__half>(256), b = random_matrix<__half>(256);
    for (__half& v : a1) v = __float2half(std::ldexp(static_cast<float>(subnormal(rng())), -24));
    // The same sum as one product of K = 32: [A1 A2] (16 x 32) times [B; B] (32 x 16).
    std::vector<__half> a_joined(16 * 32), b_joined(32 * 16);
    for (int r = 0; r < 16; ++r)
        for (int k = 0; k < 16; ++k) {
            a_joined[r * 32 + k] = a1[r * 16 + k];
            a_joined[r * 32 + 16 + k] = a2[r * 16 + k];
        }
    for (int col = 0; col < 16; ++col)
        for (int k = 0; k < 32; ++k) b_joined[col * 32 + k] = b[col * 16 + k % 16];
    const std::vector<float> zeros(256, 0.0f);
    const reference ref = gemm_reference(a_joined, {16, 32, true}, b_joined, {32, 16, false}, zeros, {16, 16, true},
                                         1.0, 0.0, false, 0x1p-24, 0);
    device_buffer<__half> da1(256), da2(256), db(256);
    device_buffer<float> dd(256);
    da1.write(a1);
    da2.write(a2);
    db.write(b);
    two_products_in_a_row<<<1, 32>>>(da1.ptr, da2.ptr, db.ptr, dd.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    check_against(dd.read(), ref, "A1 * B + A2 * B");
}

// Doubling every element of A, then of B, doubles D, then doubles it again,
// exactly (a power of two scales each product and each rounded sum):
// D1 = A * B, D2 = 2A * B, D3 = 2A * 2B (changed_between_products).
struct doubled {
    __device__ __half operator()(__half v) const { return v * __float2half(2.0f); }
};

TEST_CASE("a fragment changed through x[] between two mma_sync is multiplied as it is now") {
    constexpr int warps = 2, tile = 16 * 16;
    const std::vector<__half> a = random_matrix<__half>(warps * tile), b = random_matrix<__half>(warps * tile);
    device_buffer<__half> da(a.size()), db(b.size());
    device_buffer<float> dd(3 * warps * tile);
    da.write(a);
    db.write(b);
    changed_between_products<<<1, 32 * warps>>>(da.ptr, db.ptr, dd.ptr, doubled{});
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float> got = dd.read();
    const std::vector<float> zeros(tile, 0.0f);
    for (int w = 0; w < warps; ++w) {
        const std::vector<__half> wa(a.begin() + w * tile, a.begin() + (w + 1) * tile),
            wb(b.begin() + w * tile, b.begin() + (w + 1) * tile);
        const reference ref = gemm_reference(wa, {16, 16, true}, wb, {16, 16, false}, zeros, {16, 16, true}, 1.0,
                                             0.0, false, 0x1p-24, 0);
        const float* d1 = got.data() + w * 3 * tile;
        check_against(std::vector<float>(d1, d1 + tile), ref, "A * B");
        int wrong = 0;
        for (int i = 0; i < tile; ++i) wrong += d1[tile + i] != 2 * d1[i] || d1[2 * tile + i] != 4 * d1[i];
        CHECK_MESSAGE(wrong == 0, "warp " << w << ": " << wrong << " elements of 2A * B or 2A * 2B are not 2 or 4 "
                                                         "times A * B");
    }
}

// load_matrix_sync "waits until all warp lanes have arrived" (CUDA C++
// Programming Guide) before it loads: the lanes' writes to the tile before it
// are all in. B is all ones, so D's row r is the sum of A's row r.
__global__ void write_tile_then_load(const __half* in, __half* tile, float* d) {
    for (int i = threadIdx.x * 8; i < threadIdx.x * 8 + 8; ++i) tile[i] = in[i];  // 8 each; no __syncwarp
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> ones;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(a_frag, tile, 16);
    wmma::fill_fragment(ones, __float2half(1.0f));
    wmma::fill_fragment(acc, 0.0f);
    wmma::mma_sync(acc, a_frag, ones, acc);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

TEST_CASE("load_matrix_sync waits for every lane before it loads") {
    const std::vector<__half> a = random_matrix<__half>(256), ones(256, __float2half(1.0f));
    const std::vector<float> zeros(256, 0.0f);
    const reference ref = gemm_reference(a, {16, 16, true}, ones, {16, 16, false}, zeros, {16, 16, true}, 1.0, 0.0,
                                         false, 0x1p-24, 0);
    device_buffer<__half> da(256), tile(256);
    device_buffer<float> dd(256);
    da.write(a);
    write_tile_then_load<<<1, 32>>>(da.ptr, tile.ptr, dd.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    check_against(dd.read(), ref, "row sums of a tile the lanes wrote");
}

// A __half C added into a float D: for __half inputs, C and D may differ in type.
__global__ void half_c_into_float_d(const __half* a, const __half* b, const __half* c, float* d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::col_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, __half> c_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> d_frag;
    wmma::load_matrix_sync(a_frag, a, 16);
    wmma::load_matrix_sync(b_frag, b, 16);
    wmma::load_matrix_sync(c_frag, c, 16, wmma::mem_col_major);
    wmma::mma_sync(d_frag, a_frag, b_frag, c_frag);
    wmma::store_matrix_sync(d, d_frag, 16, wmma::mem_col_major);
}

TEST_CASE("a __half C into a float D") {
    const auto a = random_matrix<__half>(256), b = random_matrix<__half>(256), c = random_matrix<__half>(256);
    const reference ref = gemm_reference(a, {16, 16, false}, b, {16, 16, true}, c, {16, 16, false}, 1.0, 1.0, false,
                                         0x1p-24, 0);
    device_buffer<__half> da(256), db(256), dc(256);
    device_buffer<float> dd(256);
    da.write(a);
    db.write(b);
    dc.write(c);
    half_c_into_float_d<<<1, 32>>>(da.ptr, db.ptr, dc.ptr, dd.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    check_against(dd.read(), ref, "float D = A * B + half C");
}

// __float_to_tf32 keeps 10 fraction bits, rounding to nearest, ties away from zero.
__global__ void convert_to_tf32(const float* in, float* out, int count) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) out[i] = wmma::__float_to_tf32(in[i]);
}

TEST_CASE("__float_to_tf32 rounds to 10 fraction bits, ties away from zero") {
    std::vector<float> in = {1.0f + 0x1p-11f, -(1.0f + 0x1p-11f), 1.0f + 0x1p-11f + 0x1p-23f, 1.0f + 0x1p-12f,
                             65504.0f, 3.0e38f, 1.0e-40f};
    std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
    for (int i = 0; i < 1000; ++i) in.push_back(dist(rng()));
    device_buffer<float> din(in.size()), dout(in.size());
    din.write(in);
    convert_to_tf32<<<(static_cast<int>(in.size()) + 127) / 128, 128>>>(din.ptr, dout.ptr, static_cast<int>(in.size()));
    REQUIRE(cudaGetLastError() == cudaSuccess);
    const auto out = dout.read();
    for (size_t i = 0; i < in.size(); ++i) {
        INFO("input " << in[i]);
        CHECK(static_cast<double>(out[i]) == tf32_reference(in[i]));
    }
}

// Where a lane's elements lie in the tile: unspecified by CUDA, but programs
// rely on it (an epilogue that needs each x[i]'s row and column), so the
// emulator does as an H200 does (docs/gpu-runs/2026-11-30-h200-wmma-layout.txt).
// Each lane writes its lane number and index into its share.
__global__ void mark_shares(float* out) {
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = float(threadIdx.x % 32 * 100 + i);
    wmma::store_matrix_sync(out, acc, 16, wmma::mem_row_major);
}

TEST_CASE("each lane holds num_elements of the tile, as CUDA counts them") {
    static_assert(wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>::num_elements == 16, "");
    static_assert(wmma::fragment<wmma::matrix_b, 32, 8, 16, __half, wmma::col_major>::num_elements == 16, "");
    static_assert(wmma::fragment<wmma::accumulator, 16, 16, 16, __half>::num_elements == 8, "");
    static_assert(wmma::fragment<wmma::accumulator, 8, 32, 16, float>::num_elements == 8, "");
    static_assert(wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::row_major>::num_elements == 16, "");
    static_assert(wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, wmma::row_major>::num_elements == 4, "");
    static_assert(wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>::num_elements == 4, "");
    static_assert(wmma::fragment<wmma::accumulator, 8, 8, 4, double>::num_elements == 2, "");
    device_buffer<float> out(256);
    mark_shares<<<1, 32>>>(out.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    const auto got = out.read();
    // 16 x 16, measured on an H200: lane l holds rows l / 4 and l / 4 + 8, in
    // each the columns 2 * (l % 4) and the next, and those plus 8; x[i] is row
    // l / 4 + 8 * (i / 2 % 2), column 2 * (l % 4) + i % 2 + 8 * (i / 4).
    for (int row = 0; row < 16; ++row)
        for (int col = 0; col < 16; ++col) {
            const int lane = 4 * (row % 8) + col % 8 / 2, i = col % 2 + 2 * (row / 8) + 4 * (col / 8);
            INFO("row " << row << ", column " << col);
            CHECK(got[row * 16 + col] == float(lane * 100 + i));
        }
}

// ---- misuse: each case stops its launch with a sticky error, so each runs in a
// process of its own (tests/emu/CMakeLists.txt) -------------------------------------------
__global__ void half_warp_multiplies(const __half* a, const __half* b, float* d) {
    if (threadIdx.x >= 16) return;  // the upper half of the warp leaves: a bug
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(a_frag, __float2half(1.0f));
    wmma::fill_fragment(b_frag, __float2half(1.0f));
    wmma::fill_fragment(acc, 0.0f);
    wmma::mma_sync(acc, a_frag, b_frag, acc);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}
const int half_warp_mma_line = __LINE__ - 3;

__global__ void lanes_load_different_tiles(const __half* a, float* d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a_frag;
    wmma::load_matrix_sync(a_frag, a + (threadIdx.x % 2) * 256, 16);  // each lane must pass the same pointer
    d[threadIdx.x] = __half2float(a_frag.x[0]);
}
const int different_tiles_line = __LINE__ - 3;

__global__ void partial_warp_loads(const __half* a, float* d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a_frag;
    wmma::load_matrix_sync(a_frag, a, 16);
    d[threadIdx.x] = __half2float(a_frag.x[0]);
}

__global__ void load_with_odd_ldm(const float* c, float* d) {
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c, 18, wmma::mem_row_major);  // 72 bytes: not a multiple of 16
    d[threadIdx.x] = acc.x[0];
}

// The wmma-* cases check the emulator's reports of misuse CUDA leaves undefined
// (emulator-only): on an H200 each of these launches ended with cudaSuccess.
TEST_CASE("wmma-half-warp" * doctest::test_suite("emulator-only")) {
    __half *a = device_array<__half>(256), *b = device_array<__half>(256);
    float* d = device_array<float>(256);
    expect_report([&] { half_warp_multiplies<<<1, 32>>>(a, b, d); },
                  {"a wmma function not called by the whole warp together", "in kernel 'half_warp_multiplies'",
                   "mma_sync is warp-wide", "only lanes 0x0000ffff of warp 0",
                   std::string(__FILE__) + ":" + std::to_string(half_warp_mma_line)});
}

TEST_CASE("wmma-different-pointers" * doctest::test_suite("emulator-only")) {
    __half* a = device_array<__half>(512);
    float* d = device_array<float>(32);
    expect_report([&] { lanes_load_different_tiles<<<1, 32>>>(a, d); },
                  {"a wmma function not called by the whole warp together", "load_matrix_sync is warp-wide",
                   std::string(__FILE__) + ":" + std::to_string(different_tiles_line)});
}

TEST_CASE("wmma-partial-warp" * doctest::test_suite("emulator-only")) {
    __half* a = device_array<__half>(256);
    float* d = device_array<float>(48);
    expect_report([&] { partial_warp_loads<<<1, 48>>>(a, d); },
                  {"a wmma function called by a partial warp", "this warp has only 16"});
}

TEST_CASE("wmma-ldm-not-16-bytes" * doctest::test_suite("emulator-only")) {
    float *c = device_array<float>(18 * 16), *d = device_array<float>(32);
    expect_report([&] { load_with_odd_ldm<<<1, 32>>>(c, d); },
                  {"a wmma load or store with an ldm that is not a multiple of 16 bytes", "was given ldm 18",
                   "4 elements of this type"});
}
