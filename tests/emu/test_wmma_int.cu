// test_wmma_int.cu - the 8-bit integer tensor cores of nvcuda::wmma (<mma.h>):
// signed char and unsigned char A and B with int accumulators, in every shape
// (m16n16k16, m32n8k16, m8n32k16), every layout of A and B and of C and D,
// on random inputs that include the ranges' extremes, compared exactly with a
// CPU reference; the 32-bit wrap-around without satf and the clamping with
// it; an element-wise epilogue through x[]; where a lane's 8-bit elements lie
// (the emulator's rule, no GPU measured yet); and the reports of a warp that
// misuses the integer functions (cases of their own, one process each).
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <mma.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "device_buffer.h"
#include "wmma_test_support.h"

using namespace nvcuda;

// ---- host side: inputs and the exact reference -------------------------------------
// Random 8-bit values, one in four of them an end of the range (-128 or 127;
// 0 or 255), where a wrong sign or width shows.
template <class T>
std::vector<T> random_bytes(int count) {
    constexpr int lo = std::is_signed<T>::value ? -128 : 0, hi = std::is_signed<T>::value ? 127 : 255;
    std::uniform_int_distribution<int> any(lo, hi), pick(0, 7);
    std::vector<T> v(count);
    for (T& x : v) {
        const int p = pick(rng());
        x = static_cast<T>(p == 0 ? lo : p == 1 ? hi : any(rng()));
    }
    return v;
}

// What each mma_sync step gives, exactly: C's element plus the step's k
// products in 64 bits, then wrapped to 32 bits (two's complement), or with
// satf clamped to the int range; each step of k starts from the last result.
int wrap_to_int(std::int64_t v) {
    const std::uint64_t low = static_cast<std::uint64_t>(v) & 0xffffffffull;
    return low > 0x7fffffffull ? static_cast<int>(static_cast<std::int64_t>(low) - 0x100000000ll)
                               : static_cast<int>(low);
}
int clamp_to_int(std::int64_t v) { return v < INT_MIN ? INT_MIN : v > INT_MAX ? INT_MAX : static_cast<int>(v); }

template <class In>
std::vector<int> int_gemm_reference(const std::vector<In>& a, matrix_shape as, const std::vector<In>& b,
                                    matrix_shape bs, const std::vector<int>& c, matrix_shape cs, int step, bool satf) {
    const int M = as.rows, K = as.cols, N = bs.cols;
    std::vector<int> d(M * N);
    for (int r = 0; r < M; ++r)
        for (int col = 0; col < N; ++col) {
            int acc = c[cs.at(r, col)];
            for (int k0 = 0; k0 < K; k0 += step) {
                std::int64_t sum = acc;
                for (int k = k0; k < k0 + step; ++k)
                    sum += std::int64_t(a[as.at(r, k)]) * std::int64_t(b[bs.at(k, col)]);
                acc = satf ? clamp_to_int(sum) : wrap_to_int(sum);
            }
            d[cs.at(r, col)] = acc;
        }
    return d;
}

void check_exact(const std::vector<int>& got, const std::vector<int>& want, const std::string& what) {
    int wrong = 0;
    for (size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i] && ++wrong <= 5)
            FAIL_CHECK(what << ": element " << i << " is " << got[i] << ", the reference " << want[i]);
    CHECK_MESSAGE(wrong == 0, what << ": " << wrong << " of " << got.size() << " elements differ");
}

// ---- kernels ----------------------------------------------------------------------
// One warp per m x n tile of D (M x N): D = A * B + C, C loaded into the
// accumulator in c_layout, A and B in the layouts of their fragments.
template <class In, int m, int n, int k, class LayoutA, class LayoutB>
__global__ void tiled_int_gemm(const In* a, const In* b, const int* c, int* d, int M, int N, int K,
                               wmma::layout_t c_layout, bool satf) {
    const warp_tile t = this_warps_tile<m, n, LayoutA, LayoutB>(M, N, K, c_layout);
    if (!t.in_range) return;  // whole warps leave together

    wmma::fragment<wmma::matrix_a, m, n, k, In, LayoutA> a_frag;
    wmma::fragment<wmma::matrix_b, m, n, k, In, LayoutB> b_frag;
    wmma::fragment<wmma::accumulator, m, n, k, int> acc;
    wmma::load_matrix_sync(acc, c + t.c_offset, t.ldc, c_layout);
    for (int kk = 0; kk < K; kk += k) {
        wmma::load_matrix_sync(a_frag, a + t.a_at(kk), t.lda);
        wmma::load_matrix_sync(b_frag, b + t.b_at(kk), t.ldb);
        if (satf)
            wmma::mma_sync(acc, a_frag, b_frag, acc, true);
        else
            wmma::mma_sync(acc, a_frag, b_frag, acc);  // satf defaults to false
    }
    wmma::store_matrix_sync(d + t.c_offset, acc, t.ldc, c_layout);
}

// Runs tiled_int_gemm (M x K times K x N) on the given inputs and checks D exactly.
template <class In, int m, int n, int k, class LayoutA, class LayoutB>
void run_int_gemm(const std::vector<In>& a, const std::vector<In>& b, const std::vector<int>& c, int M, int N, int K,
                  wmma::layout_t c_layout, bool satf, const std::string& what) {
    const matrix_shape as{M, K, std::is_same<LayoutA, wmma::row_major>::value},
        bs{K, N, std::is_same<LayoutB, wmma::row_major>::value}, cs{M, N, c_layout == wmma::mem_row_major};
    device_buffer<In> da(a.size()), db(b.size());
    device_buffer<int> dc(c.size()), dd(c.size());
    da.write(a);
    db.write(b);
    dc.write(c);
    const int warps = (M / m) * (N / n);
    tiled_int_gemm<In, m, n, k, LayoutA, LayoutB><<<(warps + 3) / 4, 128>>>(da.ptr, db.ptr, dc.ptr, dd.ptr, M, N, K,
                                                                            c_layout, satf);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    check_exact(dd.read(), int_gemm_reference(a, as, b, bs, c, cs, k, satf), what);
}

template <class In, int m, int n, int k, class LayoutA, class LayoutB>
void check_int_gemm(wmma::layout_t c_layout, const std::string& what, int M = 64, int N = 64, int K = 48) {
    run_int_gemm<In, m, n, k, LayoutA, LayoutB>(random_bytes<In>(M * K), random_bytes<In>(K * N),
                                                random_ints(M * N), M, N, K, c_layout, false, what);
}

using row = wmma::row_major;
using col = wmma::col_major;
constexpr wmma::layout_t c_row = wmma::mem_row_major, c_col = wmma::mem_col_major;

// Every layout of A and B in one shape and signedness; C and D row major
// for two of them, column major for the others.
template <class In, int m, int n, int k>
void check_every_layout(const std::string& what) {
    check_int_gemm<In, m, n, k, row, row>(c_row, what + ", A row, B row, C row");
    check_int_gemm<In, m, n, k, row, col>(c_col, what + ", A row, B col, C col");
    check_int_gemm<In, m, n, k, col, row>(c_col, what + ", A col, B row, C col");
    check_int_gemm<In, m, n, k, col, col>(c_row, what + ", A col, B col, C row");
}

TEST_CASE("signed char m16n16k16, m32n8k16 and m8n32k16 in every layout, exactly as the CPU") {
    check_every_layout<signed char, 16, 16, 16>("s8 m16n16k16");
    check_every_layout<signed char, 32, 8, 16>("s8 m32n8k16");
    check_every_layout<signed char, 8, 32, 16>("s8 m8n32k16");
}

TEST_CASE("unsigned char m16n16k16, m32n8k16 and m8n32k16 in every layout, exactly as the CPU") {
    check_every_layout<unsigned char, 16, 16, 16>("u8 m16n16k16");
    check_every_layout<unsigned char, 32, 8, 16>("u8 m32n8k16");
    check_every_layout<unsigned char, 8, 32, 16>("u8 m8n32k16");
}

TEST_CASE("a single tile of the largest products: 16 * 255 * 255 and 16 * (-128) * (-128)") {
    const std::vector<int> zeros(256, 0);
    run_int_gemm<unsigned char, 16, 16, 16, row, col>(std::vector<unsigned char>(256, 255),
                                                      std::vector<unsigned char>(256, 255), zeros, 16, 16, 16, c_row,
                                                      false, "all 255");
    run_int_gemm<signed char, 16, 16, 16, col, row>(std::vector<signed char>(256, -128),
                                                    std::vector<signed char>(256, -128), zeros, 16, 16, 16, c_col,
                                                    false, "all -128");
}

// C near the ends of the int range, so that adding the products goes past
// them in some elements (and not in others).
std::vector<int> near_the_limits(int count) {
    std::uniform_int_distribution<int> offset(0, 1 << 20), side(0, 1);
    std::vector<int> c(count);
    for (int& v : c) v = side(rng()) ? INT_MAX - offset(rng()) : INT_MIN + offset(rng());
    return c;
}

TEST_CASE("without satf the sum wraps around modulo 2^32") {
    // C = INT_MAX, A and B all 127: 16 * 127 * 127 = 258064 past it.
    const std::vector<int> at_max(256, INT_MAX);
    const std::vector<signed char> ones127(256, 127);
    run_int_gemm<signed char, 16, 16, 16, row, col>(ones127, ones127, at_max, 16, 16, 16, c_row, false,
                                                    "INT_MAX + 258064");
    // The value itself, not only the reference's rule.
    const int expected = static_cast<int>(static_cast<std::int64_t>(INT_MAX) + 258064 - 0x100000000ll);
    CHECK(wrap_to_int(static_cast<std::int64_t>(INT_MAX) + 258064) == expected);
    CHECK(expected == INT_MIN + 258063);
    // Random inputs in every shape with C near the limits, over several steps of k.
    run_int_gemm<signed char, 32, 8, 16, col, row>(random_bytes<signed char>(32 * 64), random_bytes<signed char>(64 * 32),
                                                   near_the_limits(32 * 32), 32, 32, 64, c_col, false, "s8 m32n8k16");
    run_int_gemm<unsigned char, 8, 32, 16, row, col>(random_bytes<unsigned char>(32 * 64),
                                                     random_bytes<unsigned char>(64 * 32), near_the_limits(32 * 32),
                                                     32, 32, 64, c_row, false, "u8 m8n32k16");
}

TEST_CASE("with satf the result is clamped to [INT_MIN, INT_MAX]") {
    const std::vector<signed char> big(256, 127), low(256, -128);
    run_int_gemm<signed char, 16, 16, 16, row, col>(big, big, std::vector<int>(256, INT_MAX - 10), 16, 16, 16, c_row,
                                                    true, "INT_MAX - 10 + 258064, clamped");
    run_int_gemm<signed char, 16, 16, 16, row, col>(low, big, std::vector<int>(256, INT_MIN + 5), 16, 16, 16, c_row,
                                                    true, "INT_MIN + 5 - 260096, clamped");
}

// With products of both signs a partial sum may cross a limit on the way while
// the whole sum does not: the emulator clamps only the exact sum, its model.
// No GPU was measured for this, so the case is the emulator's own.
TEST_CASE("with satf, random inputs and C near the limits: the exact sum clamped" *
          doctest::test_suite("emulator-only")) {
    run_int_gemm<signed char, 16, 16, 16, row, row>(random_bytes<signed char>(64 * 48),
                                                    random_bytes<signed char>(48 * 64), near_the_limits(64 * 64), 64,
                                                    64, 48, c_col, true, "s8 m16n16k16, random");
    run_int_gemm<unsigned char, 32, 8, 16, col, col>(random_bytes<unsigned char>(64 * 48),
                                                     random_bytes<unsigned char>(48 * 64), near_the_limits(64 * 64),
                                                     64, 64, 48, c_row, true, "u8 m32n8k16, random");
}

// The clamp itself, in one element: INT_MAX - 10 plus 258064 stays INT_MAX
// with satf, and wraps to INT_MIN + 258053 without.
__global__ void one_tile(const signed char* a, const signed char* b, const int* c, int* d, bool satf) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
    wmma::load_matrix_sync(a_frag, a, 16);
    wmma::load_matrix_sync(b_frag, b, 16);
    wmma::load_matrix_sync(acc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(acc, a_frag, b_frag, acc, satf);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

TEST_CASE("satf and wrap-around, value by value") {
    device_buffer<signed char> a(256), b(256);
    device_buffer<int> c(256), d(256);
    a.write(std::vector<signed char>(256, 127));
    b.write(std::vector<signed char>(256, 127));
    c.write(std::vector<int>(256, INT_MAX - 10));
    for (bool satf : {true, false}) {
        one_tile<<<1, 32>>>(a.ptr, b.ptr, c.ptr, d.ptr, satf);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const std::vector<int> got = d.read();
        const int want = satf ? INT_MAX : INT_MIN + 258053;
        INFO("satf " << satf);
        for (int v : got) REQUIRE(v == want);
    }
}

// D = alpha * (A * B) + beta * C through each lane's x[]: the accumulator and
// a loaded C of the same shape hold the same elements in each x[i].
template <int m, int n, int k>
__global__ void int_epilogue(const signed char* a, const signed char* b, const int* c, int* d, int alpha, int beta) {
    wmma::fragment<wmma::matrix_a, m, n, k, signed char, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, m, n, k, signed char, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, m, n, k, int> acc, c_frag;
    wmma::load_matrix_sync(a_frag, a, k);
    wmma::load_matrix_sync(b_frag, b, k);
    wmma::fill_fragment(acc, 0);
    wmma::mma_sync(acc, a_frag, b_frag, acc);
    wmma::load_matrix_sync(c_frag, c, m, wmma::mem_col_major);
    for (int i = 0; i < c_frag.num_elements; ++i) c_frag.x[i] = alpha * acc.x[i] + beta * c_frag.x[i];
    wmma::store_matrix_sync(d, c_frag, m, wmma::mem_col_major);
}

template <int m, int n, int k>
void check_epilogue() {
    const auto a = random_bytes<signed char>(m * k), b = random_bytes<signed char>(k * n);
    const auto c = random_ints(m * n, -100000, 100000);
    const std::vector<int> zeros(m * n, 0);
    std::vector<int> want = int_gemm_reference(a, {m, k, true}, b, {k, n, false}, zeros, {m, n, false}, k, false);
    for (int i = 0; i < m * n; ++i) want[i] = 3 * want[i] - 2 * c[i];
    device_buffer<signed char> da(a.size()), db(b.size());
    device_buffer<int> dc(c.size()), dd(c.size());
    da.write(a);
    db.write(b);
    dc.write(c);
    int_epilogue<m, n, k><<<1, 32>>>(da.ptr, db.ptr, dc.ptr, dd.ptr, 3, -2);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    check_exact(dd.read(), want, "3 * A * B - 2 * C, m" + std::to_string(m) + "n" + std::to_string(n));
}

TEST_CASE("an epilogue on acc.x[i]: D = 3 * A * B - 2 * C element by element") {
    check_epilogue<16, 16, 16>();
    check_epilogue<32, 8, 16>();
    check_epilogue<8, 32, 16>();
}

// ---- where a lane's elements lie -------------------------------------------------------
// Each lane writes, for each x[i], the row and the column of the element it
// holds, read from two tiles: one holding each element's row, one its column.
template <class Use, int m, int n, int k, class T, class Layout>
__global__ void places_held(const T* rows, const T* cols, unsigned ld, int* out) {
    wmma::fragment<Use, m, n, k, T, Layout> by_row, by_col;
    wmma::load_matrix_sync(by_row, rows, ld);
    wmma::load_matrix_sync(by_col, cols, ld);
    for (int i = 0; i < by_row.num_elements; ++i) {
        out[(threadIdx.x * 16 + i) * 2] = by_row.x[i];
        out[(threadIdx.x * 16 + i) * 2 + 1] = by_col.x[i];
    }
}

// The emulator's rule for 8-bit A and B (common/emu/README.md; not measured
// on a GPU): with g = lane / 4 and t = lane % 4, x[i] of A is row g + 8 (i / 4),
// column 4t + i % 4; B is the same transposed. (A tile of 8 rows or columns
// is loaded along its 16: ldm must be 16 bytes at least.)
template <class Use, int m, int n, int k, class T, class Layout>
void check_places(const char* what) {
    const bool is_a = std::is_same<Use, wmma::matrix_a>::value;
    const int rows = is_a ? m : k, cols = is_a ? k : n;
    const bool row_major = std::is_same<Layout, wmma::row_major>::value;
    std::vector<T> by_row(rows * cols), by_col(rows * cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const int at = row_major ? r * cols + c : c * rows + r;
            by_row[at] = static_cast<T>(r);
            by_col[at] = static_cast<T>(c);
        }
    device_buffer<T> dr(by_row.size()), dc(by_col.size());
    device_buffer<int> out(32 * 16 * 2);
    dr.write(by_row);
    dc.write(by_col);
    places_held<Use, m, n, k, T, Layout><<<1, 32>>>(dr.ptr, dc.ptr, row_major ? cols : rows, out.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> got = out.read();
    const int count = wmma::fragment<Use, m, n, k, T, Layout>::num_elements;
    std::vector<int> seen(rows * cols, 0);
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < count; ++i) {
            const int along_k = 4 * (lane % 4) + i % 4, across = lane / 4 + 8 * (i / 4);
            const int r = is_a ? across : along_k, c = is_a ? along_k : across;
            INFO(what << ": lane " << lane << ", x[" << i << "]");
            CHECK(got[(lane * 16 + i) * 2] == r);
            CHECK(got[(lane * 16 + i) * 2 + 1] == c);
            ++seen[r * cols + c];
        }
    for (int s : seen) CHECK(s == 1);  // every element held exactly once
}

// Each warp of the block its own tile: D = A * B + C into a fragment apart
// from C, which must keep its elements, then E = A * B + D. The warps' mma_sync
// calls interleave, each warp's lanes meeting on their own.
__global__ void apart_from_c(const unsigned char* a, const unsigned char* b, const int* c, int* out) {
    const int warp = threadIdx.x / 32, tile = 16 * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> c_frag, d_frag, e_frag;
    wmma::load_matrix_sync(a_frag, a + warp * tile, 16);
    wmma::load_matrix_sync(b_frag, b + warp * tile, 16);
    wmma::load_matrix_sync(c_frag, c + warp * tile, 16, wmma::mem_row_major);
    wmma::mma_sync(d_frag, a_frag, b_frag, c_frag);
    wmma::mma_sync(e_frag, a_frag, b_frag, d_frag);
    int* mine = out + warp * 3 * tile;
    wmma::store_matrix_sync(mine, c_frag, 16, wmma::mem_row_major);
    wmma::store_matrix_sync(mine + tile, d_frag, 16, wmma::mem_row_major);
    wmma::store_matrix_sync(mine + 2 * tile, e_frag, 16, wmma::mem_row_major);
}

TEST_CASE("mma_sync into a D apart from C leaves C as it was, in every warp of a block") {
    constexpr int warps = 4, tile = 16 * 16;
    const auto a = random_bytes<unsigned char>(warps * tile), b = random_bytes<unsigned char>(warps * tile);
    const auto c = random_ints(warps * tile, -100000, 100000);
    device_buffer<unsigned char> da(a.size()), db(b.size());
    device_buffer<int> dc(c.size()), out(3 * c.size());
    da.write(a);
    db.write(b);
    dc.write(c);
    apart_from_c<<<1, 32 * warps>>>(da.ptr, db.ptr, dc.ptr, out.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> got = out.read();
    for (int w = 0; w < warps; ++w) {
        const std::vector<unsigned char> wa(a.begin() + w * tile, a.begin() + (w + 1) * tile),
            wb(b.begin() + w * tile, b.begin() + (w + 1) * tile);
        const std::vector<int> wc(c.begin() + w * tile, c.begin() + (w + 1) * tile);
        const matrix_shape row_major{16, 16, true}, col_major{16, 16, false};
        const std::vector<int> d = int_gemm_reference(wa, row_major, wb, col_major, wc, row_major, 16, false);
        const std::vector<int> e = int_gemm_reference(wa, row_major, wb, col_major, d, row_major, 16, false);
        const auto part = [&](int which) {
            const auto from = got.begin() + (w * 3 + which) * tile;
            return std::vector<int>(from, from + tile);
        };
        check_exact(part(0), wc, "C after the products, warp " + std::to_string(w));
        check_exact(part(1), d, "D = A * B + C, warp " + std::to_string(w));
        check_exact(part(2), e, "E = A * B + D, warp " + std::to_string(w));
    }
}

// Adding one to every element of A, then of B (changed_between_products):
// D1 = A * B, D2 = (A + 1) * B, D3 = (A + 1) * (B + 1), from C = 0.
struct plus_one {
    __device__ signed char operator()(signed char v) const { return static_cast<signed char>(v + 1); }
};

TEST_CASE("an 8-bit fragment changed through x[] between two mma_sync is multiplied as it is now") {
    constexpr int warps = 2, tile = 16 * 16;
    auto a = random_bytes<signed char>(warps * tile), b = random_bytes<signed char>(warps * tile);
    for (signed char& v : a) v = static_cast<signed char>(std::min<int>(v, 126));  // room for the + 1
    for (signed char& v : b) v = static_cast<signed char>(std::min<int>(v, 126));
    device_buffer<signed char> da(a.size()), db(b.size());
    device_buffer<int> out(3 * warps * tile);
    da.write(a);
    db.write(b);
    changed_between_products<<<1, 32 * warps>>>(da.ptr, db.ptr, out.ptr, plus_one{});
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> got = out.read();
    const std::vector<int> zeros(tile, 0);
    const matrix_shape row_major{16, 16, true}, col_major{16, 16, false};
    for (int w = 0; w < warps; ++w) {
        std::vector<signed char> wa(a.begin() + w * tile, a.begin() + (w + 1) * tile),
            wb(b.begin() + w * tile, b.begin() + (w + 1) * tile);
        const auto part = [&](int which) {
            const auto from = got.begin() + (w * 3 + which) * tile;
            return std::vector<int>(from, from + tile);
        };
        check_exact(part(0), int_gemm_reference(wa, row_major, wb, col_major, zeros, row_major, 16, false),
                    "A * B, warp " + std::to_string(w));
        for (signed char& v : wa) v = static_cast<signed char>(v + 1);
        check_exact(part(1), int_gemm_reference(wa, row_major, wb, col_major, zeros, row_major, 16, false),
                    "(A + 1) * B, warp " + std::to_string(w));
        for (signed char& v : wb) v = static_cast<signed char>(v + 1);
        check_exact(part(2), int_gemm_reference(wa, row_major, wb, col_major, zeros, row_major, 16, false),
                    "(A + 1) * (B + 1), warp " + std::to_string(w));
    }
}

TEST_CASE("8-bit A and B fragments hold the elements the README's rule says, each once" *
          doctest::test_suite("emulator-only")) {
    check_places<wmma::matrix_a, 16, 16, 16, signed char, row>("A 16x16 s8 row");
    check_places<wmma::matrix_a, 16, 16, 16, unsigned char, col>("A 16x16 u8 col");
    check_places<wmma::matrix_b, 16, 16, 16, signed char, col>("B 16x16 s8 col");
    check_places<wmma::matrix_a, 32, 8, 16, unsigned char, row>("A 32x16 u8 row");
    check_places<wmma::matrix_b, 32, 8, 16, signed char, col>("B 16x8 s8 col");
    check_places<wmma::matrix_a, 8, 32, 16, signed char, row>("A 8x16 s8 row");
    check_places<wmma::matrix_b, 8, 32, 16, unsigned char, col>("B 16x32 u8 col");
}

TEST_CASE("each lane holds num_elements of the tile, as CUDA 13 counts them") {
    static_assert(wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major>::num_elements == 8, "");
    static_assert(wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major>::num_elements == 8, "");
    static_assert(wmma::fragment<wmma::matrix_a, 32, 8, 16, signed char, wmma::col_major>::num_elements == 16, "");
    static_assert(wmma::fragment<wmma::matrix_b, 32, 8, 16, unsigned char, wmma::row_major>::num_elements == 4, "");
    static_assert(wmma::fragment<wmma::matrix_a, 8, 32, 16, unsigned char, wmma::row_major>::num_elements == 4, "");
    static_assert(wmma::fragment<wmma::matrix_b, 8, 32, 16, signed char, wmma::col_major>::num_elements == 16, "");
    static_assert(wmma::fragment<wmma::accumulator, 16, 16, 16, int>::num_elements == 8, "");
    static_assert(wmma::fragment<wmma::accumulator, 32, 8, 16, int>::num_elements == 8, "");
    static_assert(wmma::fragment<wmma::accumulator, 8, 32, 16, int>::num_elements == 8, "");
    CHECK(true);
}

// ---- misuse: each case stops its launch with a sticky error, so each runs in a
// process of its own (tests/emu/CMakeLists.txt) -------------------------------------------
__global__ void half_warp_int_mma(int* d) {
    if (threadIdx.x >= 16) return;  // the upper half of the warp leaves: a bug
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
    wmma::fill_fragment(a_frag, static_cast<signed char>(1));
    wmma::fill_fragment(b_frag, static_cast<signed char>(1));
    wmma::fill_fragment(acc, 0);
    wmma::mma_sync(acc, a_frag, b_frag, acc);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}
const int half_warp_int_mma_line = __LINE__ - 3;

__global__ void lanes_differ_in_satf(int* d) {
    wmma::fragment<wmma::matrix_a, 32, 8, 16, unsigned char, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, unsigned char, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, 32, 8, 16, int> acc;
    wmma::fill_fragment(a_frag, static_cast<unsigned char>(1));
    wmma::fill_fragment(b_frag, static_cast<unsigned char>(1));
    wmma::fill_fragment(acc, 0);
    wmma::mma_sync(acc, a_frag, b_frag, acc, threadIdx.x % 2 == 0);  // satf must be the same in every lane
    wmma::store_matrix_sync(d, acc, 8, wmma::mem_row_major);
}
const int differ_in_satf_line = __LINE__ - 3;

__global__ void lanes_load_different_byte_tiles(const signed char* a, int* d) {
    wmma::fragment<wmma::matrix_b, 8, 32, 16, signed char, wmma::row_major> b_frag;
    wmma::load_matrix_sync(b_frag, a + (threadIdx.x % 2) * 512, 32);  // each lane must pass the same pointer
    d[threadIdx.x] = b_frag.x[0];
}
const int different_byte_tiles_line = __LINE__ - 3;

__global__ void partial_warp_int_store(int* d) {
    wmma::fragment<wmma::accumulator, 8, 32, 16, int> acc;
    wmma::fill_fragment(acc, 7);
    wmma::store_matrix_sync(d, acc, 8, wmma::mem_col_major);
}

__global__ void byte_load_with_ldm_24(const unsigned char* a, int* d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::col_major> a_frag;
    wmma::load_matrix_sync(a_frag, a, 24);  // 24 bytes: not a multiple of 16
    d[threadIdx.x] = a_frag.x[0];
}

__global__ void int_store_with_ldm_6(int* d) {
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
    wmma::fill_fragment(acc, 1);
    wmma::store_matrix_sync(d, acc, 6, wmma::mem_col_major);  // 24 bytes: not a multiple of 16
}

// The wmma-int-* cases check the emulator's reports of misuse CUDA leaves
// undefined (emulator-only).
TEST_CASE("wmma-int-half-warp" * doctest::test_suite("emulator-only")) {
    int* d = device_array<int>(256);
    expect_report([&] { half_warp_int_mma<<<1, 32>>>(d); },
                  {"a wmma function not called by the whole warp together", "in kernel 'half_warp_int_mma'",
                   "mma_sync is warp-wide", "only lanes 0x0000ffff of warp 0",
                   std::string(__FILE__) + ":" + std::to_string(half_warp_int_mma_line)});
}

TEST_CASE("wmma-int-different-satf" * doctest::test_suite("emulator-only")) {
    int* d = device_array<int>(256);
    expect_report([&] { lanes_differ_in_satf<<<1, 32>>>(d); },
                  {"a wmma function not called by the whole warp together", "mma_sync is warp-wide",
                   std::string(__FILE__) + ":" + std::to_string(differ_in_satf_line)});
}

TEST_CASE("wmma-int-different-pointers" * doctest::test_suite("emulator-only")) {
    signed char* a = device_array<signed char>(1024);
    int* d = device_array<int>(32);
    expect_report([&] { lanes_load_different_byte_tiles<<<1, 32>>>(a, d); },
                  {"a wmma function not called by the whole warp together", "load_matrix_sync is warp-wide",
                   std::string(__FILE__) + ":" + std::to_string(different_byte_tiles_line)});
}

TEST_CASE("wmma-int-partial-warp" * doctest::test_suite("emulator-only")) {
    int* d = device_array<int>(256);
    expect_report([&] { partial_warp_int_store<<<1, 48>>>(d); },
                  {"a wmma function called by a partial warp", "store_matrix_sync", "this warp has only 16"});
}

TEST_CASE("wmma-int-ldm-not-16-bytes" * doctest::test_suite("emulator-only")) {
    unsigned char* a = device_array<unsigned char>(24 * 16);
    int* d = device_array<int>(32);
    expect_report([&] { byte_load_with_ldm_24<<<1, 32>>>(a, d); },
                  {"a wmma load or store with an ldm that is not a multiple of 16 bytes", "was given ldm 24",
                   "16 elements of this type"});
}

TEST_CASE("wmma-int-store-ldm-not-16-bytes" * doctest::test_suite("emulator-only")) {
    int* d = device_array<int>(6 * 16);
    expect_report([&] { int_store_with_ldm_6<<<1, 32>>>(d); },
                  {"a wmma load or store with an ldm that is not a multiple of 16 bytes", "was given ldm 6",
                   "4 elements of this type"});
}
