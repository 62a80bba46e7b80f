// test_device_headers.cu - the device-side header surface: every vector type
// with nvcc's size and alignment (vector_layout.h) and its make_*, the
// integer intrinsics (__mul24, umin ... __byte_perm, funnel shifts), the
// rounding-mode intrinsics, <cuda_fp16.h> and <cuda_bf16.h> conversions
// checked against an independent nearest-value search, and the special values
// of <math_constants.h>. Each ctest entry (emu.device.*) runs one test case.
//
// Device-only intrinsics are called from kernels only, so that nvcc compiles
// this file too (emu_tests_nvcc_compile_check).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <math_constants.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <vector>

#include "device_buffer.h"
#include "vector_layout.h"

// A program's own host function named like a CUDA one, with another
// signature: nvcc 13 accepts it beside CUDA's umin(unsigned, unsigned), and so
// must the emulator.
static int umin(int a, int b) { return a < b ? a : b; }

// ---- vector types ----------------------------------------------------------------
// Inverts the colour channels of an RGBA image, keeps alpha.
__global__ void invert_rgba(const uchar4* in, uchar4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uchar4 p = in[i];
        out[i] = make_uchar4(255 - p.x, 255 - p.y, 255 - p.z, p.w);
    }
}
TEST_CASE("uchar4") {
    const int n = 1000;
    std::vector<uchar4> pixels(n);
    for (int i = 0; i < n; ++i)
        pixels[i] = make_uchar4(i % 256, (i * 7) % 256, (i * 13) % 256, (i * 3) % 256);
    device_buffer<uchar4> in(n), out(n);
    in.write(pixels);
    invert_rgba<<<(n + 127) / 128, 128>>>(in.ptr, out.ptr, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<uchar4> got = out.read();
    for (int i = 0; i < n; ++i) {
        CHECK(got[i].x == 255 - pixels[i].x);
        CHECK(got[i].y == 255 - pixels[i].y);
        CHECK(got[i].z == 255 - pixels[i].z);
        CHECK(got[i].w == pixels[i].w);
    }
}

__global__ void swap_char2(char2* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = make_char2(v[i].y, v[i].x);
}
TEST_CASE("char2") {
    const int n = 300;
    std::vector<char2> h(n);
    for (int i = 0; i < n; ++i) h[i] = make_char2(static_cast<signed char>(i % 128), static_cast<signed char>(-(i % 100)));
    device_buffer<char2> d(n);
    d.write(h);
    swap_char2<<<3, 128>>>(d.ptr, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<char2> got = d.read();
    for (int i = 0; i < n; ++i) {
        CHECK(got[i].x == h[i].y);
        CHECK(got[i].y == h[i].x);
    }
    CHECK(sizeof(char2) == 2);
    CHECK(alignof(char2) == 2);
}

__global__ void sum_short4(const short4* v, int* sums, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) sums[i] = v[i].x + v[i].y + v[i].z + v[i].w;
}
TEST_CASE("short4") {
    const int n = 257;
    std::vector<short4> h(n);
    for (int i = 0; i < n; ++i) h[i] = make_short4(static_cast<short>(i), static_cast<short>(-2 * i), 30000, -30000);
    device_buffer<short4> d(n);
    device_buffer<int> sums(n);
    d.write(h);
    sum_short4<<<3, 100>>>(d.ptr, sums.ptr, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> got = sums.read();
    for (int i = 0; i < n; ++i) CHECK(got[i] == -i);
    CHECK(alignof(short4) == 8);
}

__global__ void widen(const int* a, longlong2* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = make_longlong2(static_cast<long long>(a[i]) * 4294967296LL, -static_cast<long long>(a[i]));
}
TEST_CASE("longlong2") {
    const int n = 500;
    const std::vector<int> values = random_ints(n);
    device_buffer<int> a(n);
    device_buffer<longlong2> out(n);
    a.write(values);
    widen<<<4, 128>>>(a.ptr, out.ptr, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<longlong2> got = out.read();
    for (int i = 0; i < n; ++i) {
        CHECK(got[i].x == static_cast<long long>(values[i]) * 4294967296LL);
        CHECK(got[i].y == -static_cast<long long>(values[i]));
    }
    CHECK(alignof(longlong2) == 16);
}

// Every make_* builds its type with the members in order.
TEST_CASE("make-functions") {
    CHECK(make_char1(-3).x == -3);
    CHECK(make_uchar3(1, 2, 3).z == 3);
    CHECK(make_ushort2(7, 65535).y == 65535);
    CHECK(make_int1(-9).x == -9);
    CHECK(make_uint3(1, 2, 3).y == 2);
    CHECK(make_long3(1, 2, -3).z == -3);
    CHECK(make_ulong2(4, 5).x == 4);
    CHECK(make_longlong4_32a(1, 2, 3, 4).w == 4);
    CHECK(make_ulonglong1(1ull << 63).x == 1ull << 63);
    CHECK(make_float1(2.5f).x == 2.5f);
    CHECK(make_double3(1, 2, 3).z == 3.0);
    CHECK(make_double4_16a(1, 2, 3, 4).w == 4.0);
    CHECK(make_long4_32a(1, 2, 3, 4).x == 1);
    const dim3 d(4);
    CHECK((d.x == 4 && d.y == 1 && d.z == 1));
}

// ---- integer intrinsics ----------------------------------------------------------
struct int_results {
    int mul24, mulhi, hadd, rhadd;
    unsigned umul24, umulhi, uhadd, urhadd, sad, usad, perm, fsl, fslc, fsr, fsrc;
    unsigned umin_, umax_;
    long long mul64hi, llmin_, llmax_;
    unsigned long long umul64hi, ullmin_, ullmax_, brevll;
    int dp4a;
};
__global__ void integer_intrinsics(const int* a, const int* b, int_results* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int x = a[i], y = b[i];
    const unsigned ux = static_cast<unsigned>(x), uy = static_cast<unsigned>(y);
    int_results r;
    r.mul24 = __mul24(x, y);
    r.umul24 = __umul24(ux, uy);
    r.mulhi = __mulhi(x, y);
    r.umulhi = __umulhi(ux, uy);
    r.mul64hi = __mul64hi(static_cast<long long>(x) * 2147483648LL, static_cast<long long>(y) * 977);
    r.umul64hi = __umul64hi(static_cast<unsigned long long>(ux) << 32 | uy, 0xfedcba9876543210ull);
    r.hadd = __hadd(x, y);
    r.rhadd = __rhadd(x, y);
    r.uhadd = __uhadd(ux, uy);
    r.urhadd = __urhadd(ux, uy);
    r.sad = __sad(x, y, 5u);
    r.usad = __usad(ux, uy, 5u);
    r.perm = __byte_perm(ux, uy, static_cast<unsigned>(i) * 0x9e3779b9u);
    r.fsl = __funnelshift_l(ux, uy, static_cast<unsigned>(i));
    r.fslc = __funnelshift_lc(ux, uy, static_cast<unsigned>(i));
    r.fsr = __funnelshift_r(ux, uy, static_cast<unsigned>(i));
    r.fsrc = __funnelshift_rc(ux, uy, static_cast<unsigned>(i));
    r.umin_ = umin(ux, uy);
    r.umax_ = umax(ux, uy);
    r.llmin_ = llmin(x, y);
    r.llmax_ = llmax(x, y);
    r.ullmin_ = ullmin(ux, uy);
    r.ullmax_ = ullmax(ux, uy);
    r.brevll = __brevll(static_cast<unsigned long long>(ux) << 32 | uy);
    r.dp4a = __dp4a(x, y, i);
    out[i] = r;
}

// Reference answers, written from the CUDA Math API's descriptions.
static long long sign_extend_24(unsigned v) { return (v & 0x800000u) ? static_cast<long long>(v & 0xffffffu) - 0x1000000 : v & 0xffffffu; }
static unsigned reference_perm(unsigned x, unsigned y, unsigned s) {
    unsigned char bytes[8];
    for (int k = 0; k < 4; ++k) {
        bytes[k] = static_cast<unsigned char>(x >> (8 * k));
        bytes[k + 4] = static_cast<unsigned char>(y >> (8 * k));
    }
    unsigned r = 0;
    for (int k = 0; k < 4; ++k) r |= static_cast<unsigned>(bytes[(s >> (4 * k)) & 7]) << (8 * k);
    return r;
}
static unsigned long long reverse_bits(unsigned long long v) {
    unsigned long long r = 0;
    for (int k = 0; k < 64; ++k) r |= ((v >> k) & 1ull) << (63 - k);
    return r;
}

TEST_CASE("mul24") {
    const int n = 2000;
    std::vector<int> a = random_ints(n, -2147483647 - 1, 2147483647), b = random_ints(n, -2147483647 - 1, 2147483647);
    a[0] = 0x7fffff; b[0] = 0x7fffff;  // the largest positive 24-bit values
    a[1] = 0x800000; b[1] = 0x800000;  // bit 23 set: negative as 24-bit numbers
    a[2] = -1; b[2] = 0x12345678;      // high byte ignored
    device_buffer<int> da(n), db(n);
    device_buffer<int_results> out(n);
    da.write(a);
    db.write(b);
    integer_intrinsics<<<(n + 255) / 256, 256>>>(da.ptr, db.ptr, out.ptr, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int_results> r = out.read();
    for (int i = 0; i < n; ++i) {
        const unsigned ux = static_cast<unsigned>(a[i]), uy = static_cast<unsigned>(b[i]);
        const long long p24 = sign_extend_24(ux) * sign_extend_24(uy);
        CHECK(r[i].mul24 == static_cast<int>(static_cast<unsigned>(p24)));
        CHECK(r[i].umul24 == static_cast<unsigned>(static_cast<unsigned long long>(ux & 0xffffffu) * (uy & 0xffffffu)));
    }
    CHECK(r[0].mul24 == static_cast<int>(0x7fffffLL * 0x7fffffLL & 0xffffffff));
    CHECK(r[1].mul24 == static_cast<int>(static_cast<unsigned>(0x800000LL * 0x800000LL)));
}

TEST_CASE("integer-intrinsics") {
    const int n = 3000;
    const std::vector<int> a = random_ints(n, -2147483647 - 1, 2147483647), b = random_ints(n, -2147483647 - 1, 2147483647);
    device_buffer<int> da(n), db(n);
    device_buffer<int_results> out(n);
    da.write(a);
    db.write(b);
    integer_intrinsics<<<(n + 255) / 256, 256>>>(da.ptr, db.ptr, out.ptr, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int_results> r = out.read();
    for (int i = 0; i < n; ++i) {
        const long long x = a[i], y = b[i];
        const unsigned ux = static_cast<unsigned>(x), uy = static_cast<unsigned>(y);
        const unsigned sh = static_cast<unsigned>(i);
        const unsigned long long both = static_cast<unsigned long long>(uy) << 32 | ux;
        CHECK(r[i].mulhi == static_cast<int>((x * y) >> 32));
        CHECK(r[i].umulhi == static_cast<unsigned>((static_cast<unsigned long long>(ux) * uy) >> 32));
        CHECK(r[i].mul64hi == static_cast<long long>((static_cast<__int128>(x * 2147483648LL) * (y * 977)) >> 64));
        CHECK(r[i].umul64hi == static_cast<unsigned long long>(
                                   (static_cast<unsigned __int128>(static_cast<unsigned long long>(ux) << 32 | uy) *
                                    0xfedcba9876543210ull) >> 64));
        CHECK(r[i].hadd == static_cast<int>(std::floor((x + y) / 2.0)));
        CHECK(r[i].rhadd == static_cast<int>(std::floor((x + y + 1) / 2.0)));
        CHECK(r[i].uhadd == static_cast<unsigned>((static_cast<unsigned long long>(ux) + uy) / 2));
        CHECK(r[i].urhadd == static_cast<unsigned>((static_cast<unsigned long long>(ux) + uy + 1) / 2));
        CHECK(r[i].sad == static_cast<unsigned>(std::llabs(x - y) + 5));
        CHECK(r[i].usad == (ux > uy ? ux - uy : uy - ux) + 5u);
        CHECK(r[i].perm == reference_perm(ux, uy, sh * 0x9e3779b9u));
        CHECK(r[i].fsl == static_cast<unsigned>((both << (sh % 32)) >> 32));
        CHECK(r[i].fslc == static_cast<unsigned>(sh >= 32 ? ux : (both << sh) >> 32));
        CHECK(r[i].fsr == static_cast<unsigned>(both >> (sh % 32)));
        CHECK(r[i].fsrc == static_cast<unsigned>(sh >= 32 ? uy : both >> sh));
        CHECK(r[i].umin_ == std::min(ux, uy));
        CHECK(r[i].umax_ == std::max(ux, uy));
        CHECK(r[i].llmin_ == std::min(x, y));
        CHECK(r[i].llmax_ == std::max(x, y));
        CHECK(r[i].ullmin_ == std::min<unsigned long long>(ux, uy));
        CHECK(r[i].ullmax_ == std::max<unsigned long long>(ux, uy));
        CHECK(r[i].brevll == reverse_bits(static_cast<unsigned long long>(ux) << 32 | uy));
        int dot = i;
        for (int k = 0; k < 4; ++k)
            dot += static_cast<signed char>(ux >> (8 * k)) * static_cast<signed char>(uy >> (8 * k));
        CHECK(r[i].dp4a == dot);
    }
}

// umin/umax are host functions too, and the program's own int umin above is
// an overload beside them.
TEST_CASE("umin-umax") {
    CHECK(umin(-1, 2) == -1);             // the program's own umin(int, int)
    CHECK(umin(0xffffffffu, 2u) == 2u);   // CUDA's umin(unsigned, unsigned)
    CHECK(umax(0xffffffffu, 2u) == 0xffffffffu);
    CHECK(llmin(-5LL, 3LL) == -5LL);
    CHECK(ullmax(1ull, ~0ull) == ~0ull);
}

// ---- rounding-mode intrinsics -------------------------------------------------------
struct rounded {
    float add[4], mul[4], div[4], fma[4], sqrt_[4];
    double dadd[4], ddiv[4];
    int f2i[4];
    unsigned f2u[4];
    long long f2ll[4];
};
__global__ void rounding_modes(const float* a, const float* b, const float* c, rounded* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i], y = b[i], z = c[i];
    rounded r;
    r.add[0] = __fadd_rn(x, y); r.add[1] = __fadd_rz(x, y); r.add[2] = __fadd_ru(x, y); r.add[3] = __fadd_rd(x, y);
    r.mul[0] = __fmul_rn(x, y); r.mul[1] = __fmul_rz(x, y); r.mul[2] = __fmul_ru(x, y); r.mul[3] = __fmul_rd(x, y);
    r.div[0] = __fdiv_rn(x, y); r.div[1] = __fdiv_rz(x, y); r.div[2] = __fdiv_ru(x, y); r.div[3] = __fdiv_rd(x, y);
    r.fma[0] = __fmaf_rn(x, y, z); r.fma[1] = __fmaf_rz(x, y, z); r.fma[2] = __fmaf_ru(x, y, z); r.fma[3] = __fmaf_rd(x, y, z);
    const float ax = fabsf(x);
    r.sqrt_[0] = __fsqrt_rn(ax); r.sqrt_[1] = __fsqrt_rz(ax); r.sqrt_[2] = __fsqrt_ru(ax); r.sqrt_[3] = __fsqrt_rd(ax);
    const double dx = x * 1.0000001, dy = y;
    r.dadd[0] = __dadd_rn(dx, dy); r.dadd[1] = __dadd_rz(dx, dy); r.dadd[2] = __dadd_ru(dx, dy); r.dadd[3] = __dadd_rd(dx, dy);
    r.ddiv[0] = __ddiv_rn(dx, dy); r.ddiv[1] = __ddiv_rz(dx, dy); r.ddiv[2] = __ddiv_ru(dx, dy); r.ddiv[3] = __ddiv_rd(dx, dy);
    r.f2i[0] = __float2int_rn(x); r.f2i[1] = __float2int_rz(x); r.f2i[2] = __float2int_ru(x); r.f2i[3] = __float2int_rd(x);
    r.f2u[0] = __float2uint_rn(x); r.f2u[1] = __float2uint_rz(x); r.f2u[2] = __float2uint_ru(x); r.f2u[3] = __float2uint_rd(x);
    r.f2ll[0] = __float2ll_rn(x); r.f2ll[1] = __float2ll_rz(x); r.f2ll[2] = __float2ll_ru(x); r.f2ll[3] = __float2ll_rd(x);
    out[i] = r;
}

// The reference: the host's own IEEE arithmetic under fesetround. volatile
// keeps the compiler from folding or moving the operations across the mode
// change.
static const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
template <class F>
static auto in_mode(int m, F f) {
    const int saved = std::fegetround();
    std::fesetround(modes[m]);
    const auto r = f();
    std::fesetround(saved);
    return r;
}
static bool same(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }
static bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

TEST_CASE("rounding-intrinsics") {
    const int n = 4000;
    std::vector<float> a(n), b(n), c(n);
    std::uniform_real_distribution<float> mantissa(-2.0f, 2.0f);
    std::uniform_int_distribution<int> exponent(-30, 30);
    for (int i = 0; i < n; ++i) {
        a[i] = std::ldexp(mantissa(rng()), exponent(rng()));
        b[i] = std::ldexp(mantissa(rng()), exponent(rng()));
        c[i] = std::ldexp(mantissa(rng()), exponent(rng()));
    }
    // Conversions at their edges: halves, saturation, NaN.
    const float edges[] = {2.5f, -2.5f, 0.5f, -0.5f, 3e9f, -3e9f, 1e19f, -1e19f, NAN, 4294967040.0f, -0.99f};
    for (int i = 0; i < 11; ++i) a[i] = edges[i];
    device_buffer<float> da(n), db(n), dc(n);
    device_buffer<rounded> out(n);
    da.write(a);
    db.write(b);
    dc.write(c);
    rounding_modes<<<(n + 127) / 128, 128>>>(da.ptr, db.ptr, dc.ptr, out.ptr, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<rounded> r = out.read();
    int mismatches = 0;
    for (int i = 0; i < n; ++i) {
        volatile float x = a[i], y = b[i], z = c[i];
        volatile float ax = std::fabs(a[i]);
        volatile double dx = a[i] * 1.0000001, dy = b[i];
        for (int m = 0; m < 4; ++m) {
            mismatches += !same(r[i].add[m], in_mode(m, [&] { volatile float s = x + y; return s; }));
            mismatches += !same(r[i].mul[m], in_mode(m, [&] { volatile float s = x * y; return s; }));
            mismatches += !same(r[i].div[m], in_mode(m, [&] { volatile float s = x / y; return s; }));
            mismatches += !same(r[i].fma[m], in_mode(m, [&] { volatile float s = std::fma(float(x), float(y), float(z)); return s; }));
            mismatches += !same(r[i].sqrt_[m], in_mode(m, [&] { volatile float s = std::sqrt(float(ax)); return s; }));
            mismatches += !same(r[i].dadd[m], in_mode(m, [&] { volatile double s = dx + dy; return s; }));
            mismatches += !same(r[i].ddiv[m], in_mode(m, [&] { volatile double s = dx / dy; return s; }));
        }
    }
    CHECK(mismatches == 0);
    // Conversions: saturating, NaN to 0 (0x8000000000000000 for 64-bit).
    CHECK(r[0].f2i[0] == 2); CHECK(r[0].f2i[2] == 3); CHECK(r[0].f2i[3] == 2);
    CHECK(r[1].f2i[0] == -2); CHECK(r[1].f2i[1] == -2); CHECK(r[1].f2i[3] == -3);
    CHECK(r[2].f2i[0] == 0); CHECK(r[3].f2i[2] == 0); CHECK(r[3].f2i[3] == -1);
    CHECK(r[4].f2i[0] == 2147483647); CHECK(r[5].f2i[0] == -2147483647 - 1);
    CHECK(r[4].f2u[0] == 3000000000u); CHECK(r[5].f2u[0] == 0u);
    CHECK(r[6].f2ll[1] == 9223372036854775807LL); CHECK(r[7].f2ll[1] == -9223372036854775807LL - 1);
    CHECK(r[8].f2i[0] == 0); CHECK(r[8].f2u[0] == 0u); CHECK(r[8].f2ll[0] == -9223372036854775807LL - 1);
    CHECK(r[9].f2u[2] == 4294967040u);
    CHECK(r[10].f2u[1] == 0u); CHECK(r[10].f2u[3] == 0u); CHECK(r[10].f2i[3] == -1);
}

// ---- half and bfloat16 ----------------------------------------------------------------
// An independent reference: the list of every finite value of the format, in
// order, and a search for the neighbours of x in it.
template <class H, class FromBits, class ToFloat>
static std::vector<std::pair<double, unsigned short>> finite_values(FromBits from_bits, ToFloat to_float) {
    std::vector<std::pair<double, unsigned short>> v;
    for (unsigned i = 0; i < 65536; ++i) {
        const H h = from_bits(static_cast<unsigned short>(i));
        const float f = to_float(h);
        if (std::isfinite(f) && !(f == 0.0f && std::signbit(f))) v.push_back({f, static_cast<unsigned short>(i)});
    }
    std::sort(v.begin(), v.end());
    return v;
}
// The bits round-to-nearest-even gives for x (finite, non-zero results only;
// the caller skips the rest).
static int nearest_even(const std::vector<std::pair<double, unsigned short>>& values, double x, double max_finite,
                        double overflow_at) {
    if (std::fabs(x) >= overflow_at) return -1;  // infinity: checked separately
    auto hi = std::lower_bound(values.begin(), values.end(), std::make_pair(x, (unsigned short)0));
    if (hi != values.end() && hi->first == x) return hi->second;
    auto lo = hi - 1;
    if (std::fabs(x) > max_finite) return (x > 0 ? values.back() : values.front()).second;
    const double dl = x - lo->first, dh = hi->first - x;
    if (dl < dh) return lo->second;
    if (dh < dl) return hi->second;
    return ((lo->second & 1) == 0) ? lo->second : hi->second;
}

TEST_CASE("cuda_fp16") {
    const auto values = finite_values<__half>([](unsigned short b) { return __ushort_as_half(b); },
                                              [](__half h) { return __half2float(h); });
    CHECK(values.size() == 2 * 31744 - 1);  // +0 once, every other finite value
    // Every half converts to float and back to itself.
    int round_trip_failures = 0;
    for (unsigned i = 0; i < 65536; ++i) {
        const __half h = __ushort_as_half(static_cast<unsigned short>(i));
        const float f = __half2float(h);
        if (std::isnan(f)) round_trip_failures += !__hisnan(__float2half(f));
        else round_trip_failures += __half_as_ushort(__float2half(f)) != i;
    }
    CHECK(round_trip_failures == 0);
    // float -> half rounds to nearest even: 4 million floats across the range,
    // against the neighbour search.
    int rounding_failures = 0;
    for (std::uint64_t u = 0; u < 0x100000000ull; u += 997) {
        float f;
        const unsigned bits = static_cast<unsigned>(u);
        std::memcpy(&f, &bits, 4);
        if (!std::isfinite(f) || f == 0.0f) continue;
        const int want = nearest_even(values, f, 65504.0, 65520.0);
        const unsigned got = __half_as_ushort(__float2half(f));
        if (want < 0) rounding_failures += got != (f > 0 ? 0x7c00u : 0xfc00u);
        else if (want == 0 && f < 0) rounding_failures += got != 0x8000u;  // -0 keeps its sign
        else rounding_failures += got != static_cast<unsigned>(want);
    }
    CHECK(rounding_failures == 0);
    // Edge cases, by their bits.
    CHECK(__half_as_ushort(__float2half(65504.0f)) == 0x7bff);
    CHECK(__half_as_ushort(__float2half(65519.99f)) == 0x7bff);
    CHECK(__half_as_ushort(__float2half(65520.0f)) == 0x7c00);      // ties to even: infinity
    CHECK(__half_as_ushort(__float2half_rz(1e6f)) == 0x7bff);       // toward zero: the largest finite
    CHECK(__half_as_ushort(__float2half_rd(1e6f)) == 0x7bff);
    CHECK(__half_as_ushort(__float2half_ru(-1e6f)) == 0xfbff);
    CHECK(__half_as_ushort(__float2half(5.9604645e-8f)) == 0x0001);  // 2^-24, the smallest subnormal
    CHECK(__half_as_ushort(__float2half(2.9802322e-8f)) == 0x0000);  // 2^-25: a tie, to even (zero)
    CHECK(__half_as_ushort(__float2half(2.9802326e-8f)) == 0x0001);  // just above the tie
    CHECK(__half_as_ushort(__float2half_ru(1e-30f)) == 0x0001);
    CHECK(__half_as_ushort(__float2half(-0.0f)) == 0x8000);
    CHECK(__half_as_ushort(__float2half(INFINITY)) == 0x7c00);
    CHECK(__half_as_ushort(__float2half(-INFINITY)) == 0xfc00);
    CHECK(__half_as_ushort(__float2half(NAN)) == 0x7fff);
    CHECK(__half_as_ushort(__float2half(1.0f + 1.0f / 2048)) == 0x3c00);  // a tie: to even
    CHECK(__half_as_ushort(__float2half(1.0f + 3.0f / 2048)) == 0x3c02);  // a tie: to even (up)
    // double -> half rounds once (not through float).
    CHECK(__half_as_ushort(__double2half(1.0 + 1.0 / 2048 + 1e-12)) == 0x3c01);
    // Arithmetic rounds the exact result once; operators and conversions.
    const __half third = __float2half(1.0f / 3.0f);
    CHECK(__half2float(__hmul(third, __float2half(3.0f))) == 1.0f);
    const __half a = 1.5f, b = 2.25f;
    CHECK(__half2float(a + b) == 3.75f);
    CHECK(__half2float(a * b) == 3.375f);
    CHECK(a < b);
    CHECK(__hisnan(__hdiv(__float2half(0.0f), __float2half(0.0f))));
    CHECK(static_cast<int>(__float2half(-2.75f)) == -2);
    const __half2 p = __floats2half2_rn(1.0f, -2.0f), q = __halves2half2(__float2half(0.5f), __float2half(4.0f));
    const __half2 s = __hadd2(p, q);
    CHECK(__low2float(s) == 1.5f);
    CHECK(__high2float(s) == 2.0f);
    CHECK(__high2float(__hmul2(p, q)) == -8.0f);
    CHECK(__hbeq2(p, p));
    CHECK(sizeof(__half) == 2);
    CHECK(sizeof(__half2) == 4);
    CHECK(alignof(__half2) == 4);
}

TEST_CASE("cuda_bf16") {
    const auto values = finite_values<__nv_bfloat16>([](unsigned short b) { return __ushort_as_bfloat16(b); },
                                                     [](__nv_bfloat16 h) { return __bfloat162float(h); });
    int rounding_failures = 0;
    const double max_finite = 3.3895313892515355e38, overflow_at = 3.3961775292304611e38;
    for (std::uint64_t u = 0; u < 0x100000000ull; u += 1009) {
        float f;
        const unsigned bits = static_cast<unsigned>(u);
        std::memcpy(&f, &bits, 4);
        if (!std::isfinite(f) || f == 0.0f) continue;
        const int want = nearest_even(values, f, max_finite, overflow_at);
        const unsigned got = __bfloat16_as_ushort(__float2bfloat16(f));
        if (want < 0) rounding_failures += got != (f > 0 ? 0x7f80u : 0xff80u);
        else if (want == 0 && f < 0) rounding_failures += got != 0x8000u;
        else rounding_failures += got != static_cast<unsigned>(want);
        // bfloat16 -> float is exact: the top half of the float's bits
        rounding_failures += (static_cast<unsigned>(__bfloat16_as_ushort(__float2bfloat16_rz(f))) != (bits >> 16));
    }
    CHECK(rounding_failures == 0);
    CHECK(__bfloat16_as_ushort(__float2bfloat16(NAN)) == 0x7fff);
    const __nv_bfloat16 x = 3.0f, y = 0.5f;
    CHECK(__bfloat162float(x * y + y) == 2.0f);
    CHECK(sizeof(__nv_bfloat162) == 4);
}

// A kernel with __half: each thread scales one value; the warp shuffle moves
// a __half as it is.
__global__ void half_kernel(__half* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half mine = i < n ? v[i] : __float2half(0.0f);
    __half from_left = __shfl_up_sync(0xffffffffu, mine, 1);
    if (i < n) v[i] = __hadd(mine, (threadIdx.x % 32 == 0) ? __float2half(0.0f) : from_left);
}
TEST_CASE("half-in-a-kernel") {
    const int n = 100;
    std::vector<__half> h(n);
    for (int i = 0; i < n; ++i) h[i] = __float2half(static_cast<float>(i));
    device_buffer<__half> d(n);
    d.write(h);
    half_kernel<<<1, 128>>>(d.ptr, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<__half> got = d.read();
    for (int i = 0; i < n; ++i) CHECK(__half2float(got[i]) == static_cast<float>(i % 32 == 0 ? i : 2 * i - 1));
}

// fma rounds once: (1 + 2^-5)(1 + 2^-6) - 1 keeps the 2^-11 that a rounded
// product loses (__hfma is device code in CUDA). __hadd(__hmul(a, b), c) loses
// it in the emulator, not with nvcc (see the test).
__global__ void fused(float* out) {
    const __half a = __float2half(1.0f + 1.0f / 32), b = __float2half(1.0f + 1.0f / 64), c = __float2half(-1.0f);
    out[0] = __half2float(__hfma(a, b, c));
    out[1] = __half2float(__hadd(__hmul(a, b), c));
    out[2] = __half2float(__hfma(__float2half(3.0f), __float2half(0.5f), __float2half(0.5f)));
    out[3] = __half2float(__hfma_relu(a, c, c));
}
TEST_CASE("half-fma") {
    device_buffer<float> d(4);
    fused<<<1, 1>>>(d.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float> r = d.read();
    CHECK(r[0] == 1.0f / 32 + 1.0f / 64 + 1.0f / 2048);
#ifdef CUEMU
    CHECK(r[1] == 1.0f / 32 + 1.0f / 64);  // the product rounded, then the sum
#else
    // nvcc contracts a product used only by an addition into one fma
    // (-fmad=true, its default): an H200 gave the fused result.
    CHECK(r[1] == 1.0f / 32 + 1.0f / 64 + 1.0f / 2048);
#endif
    CHECK(r[2] == 2.0f);
    CHECK(r[3] == 0.0f);
}

// ---- math_constants.h: the special values (the rest: emu.math-constants-vs-cuda) ----
__global__ void special_constants(unsigned long long* bits) {
    bits[0] = __float_as_uint(CUDART_INF_F);
    bits[1] = __float_as_uint(CUDART_NAN_F);
    bits[2] = __float_as_uint(CUDART_MIN_DENORM_F);
    bits[3] = __float_as_uint(CUDART_MAX_NORMAL_F);
    bits[4] = __float_as_uint(CUDART_NEG_ZERO_F);
    bits[5] = static_cast<unsigned long long>(__double_as_longlong(CUDART_INF));
    bits[6] = static_cast<unsigned long long>(__double_as_longlong(CUDART_NAN));
    bits[7] = static_cast<unsigned long long>(__double_as_longlong(CUDART_NEG_ZERO));
    bits[8] = static_cast<unsigned long long>(__double_as_longlong(CUDART_MIN_DENORM));
}
TEST_CASE("math-constants") {
    device_buffer<unsigned long long> d(9);
    special_constants<<<1, 1>>>(d.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<unsigned long long> b = d.read();
    CHECK(b[0] == 0x7f800000u);
    CHECK(b[1] == 0x7fffffffu);
    CHECK(b[2] == 0x00000001u);
    CHECK(b[3] == 0x7f7fffffu);
    CHECK(b[4] == 0x80000000u);
    CHECK(b[5] == 0x7ff0000000000000ull);
    CHECK(b[6] == 0xfff8000000000000ull);
    CHECK(b[7] == 0x8000000000000000ull);
    CHECK(b[8] == 0x0000000000000001ull);
    CHECK(CUDART_PI_F == 3.14159265f);
    CHECK(CUDART_PI == 3.141592653589793);
}

// ---- clock() ---------------------------------------------------------------------------
// One clock() serves host and device code, as in CUDA: in a kernel it reads the
// device's cycle counter, the one clock64() reads (nvcc 13 makes it a read of
// %clock64 where clock_t has 64 bits; on an H200 it returned 6049633879, past
// 2^32), on the host the C library's processor time.
__global__ void read_clocks(unsigned long long* before, long long* during, unsigned long long* after) {
    *before = clock64();
    *during = clock();
    *after = clock64();
}

TEST_CASE("clock") {
    device_buffer<unsigned long long> before(1), after(1);
    device_buffer<long long> during(1);
    read_clocks<<<1, 1>>>(before.ptr, during.ptr, after.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const unsigned long long b = before.read()[0], a = after.read()[0];
    const long long d = during.read()[0];
    // All of the count, between the two clock64() readings (a counter cut to
    // 32 bits would be below them: both clocks have run for more than 2^32
    // cycles, the emulator's since the host booted).
    CHECK(a >= b);
    CHECK(static_cast<unsigned long long>(d) >= b);
    CHECK(static_cast<unsigned long long>(d) <= a);

    // On the host: processor time in CLOCKS_PER_SEC, not a cycle counter.
    timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    const long long host = clock();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    const long long per_ns = 1000000000LL / CLOCKS_PER_SEC;
    CHECK(host >= (t0.tv_sec * 1000000000LL + t0.tv_nsec) / per_ns);
    CHECK(host <= (t1.tv_sec * 1000000000LL + t1.tv_nsec) / per_ns);
}

// ---- PTX special registers read with inline assembly -----------------------------------
// The emulator reads them through cuemu-rewrite (rewriter/inline_ptx.cpp):
// lane and warp numbers, lane masks, the SM and its count, the timers.
struct register_reads {
    unsigned lane, warp, warp_count, lt, le, eq, ge, gt, sm, sm_count;
    unsigned long long timer_before, timer_after;
};

__global__ void read_special_registers(register_reads* out) {
    register_reads r;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r.timer_before));
    asm("mov.u32 %0, %%laneid;" : "=r"(r.lane));
    asm("mov.u32 %0, %%warpid;" : "=r"(r.warp));
    asm("mov.u32 %0, %%nwarpid;" : "=r"(r.warp_count));
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r.lt));
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(r.le));
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(r.eq));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(r.ge));
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(r.gt));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r.sm));
    asm("mov.u32 %0, %%nsmid;" : "=r"(r.sm_count));
    __syncthreads();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r.timer_after));
    out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}

TEST_CASE("ptx-special-registers") {
    constexpr int blocks = 3, threads = 96;
    device_buffer<register_reads> reads(blocks * threads);
    read_special_registers<<<blocks, threads>>>(reads.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto r = reads.read();
    for (int i = 0; i < blocks * threads; ++i) {
        const unsigned t = i % threads, lane = t % 32;
        INFO("thread " << t << " of block " << i / threads);
        CHECK(r[i].lane == lane);
        // PTX: %warpid is the warp's slot on its SM, below %nwarpid, and may
        // change (warps move). An H200 gave 3 in blocks of 3 warps. The
        // emulator gives the warp's index in its block.
        CHECK(r[i].warp < r[i].warp_count);
#ifdef CUEMU
        CHECK(r[i].warp == t / 32);
#endif
        CHECK(r[i].eq == 1u << lane);
        CHECK(r[i].lt == (1u << lane) - 1u);
        CHECK(r[i].le == ((1u << lane) | ((1u << lane) - 1u)));
        CHECK(r[i].ge == ~r[i].lt);
        CHECK(r[i].gt == ~r[i].le);
        CHECK(r[i].sm < r[i].sm_count);
        CHECK(r[i].timer_after >= r[i].timer_before);
    }
    int sm_count = 0;
    REQUIRE(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
    CHECK(r[0].sm_count == unsigned(sm_count));
}

// ---- PTX's bfind in inline assembly (rewriter/inline_ptx.cpp) ---------------------------
// The most significant non-sign bit: a 1, or for a negative signed value a 0;
// with .shiftamt, how far a left shift takes it to the top; 0xffffffff when
// there is none (PTX ISA, "bfind").
struct bfind_results {
    unsigned u32, s32, u64, s64, shift_u32, shift_s32, shift_u64, shift_s64;
};

__global__ void find_bits(const long long* in, bfind_results* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const long long v = in[i];
    const unsigned narrow = static_cast<unsigned>(v);
    const int narrow_signed = static_cast<int>(narrow);
    const unsigned long long wide = static_cast<unsigned long long>(v);
    bfind_results r;
    asm("bfind.u32 %0, %1;" : "=r"(r.u32) : "r"(narrow));
    asm("bfind.s32 %0, %1;" : "=r"(r.s32) : "r"(narrow_signed));
    asm("bfind.u64 %0, %1;" : "=r"(r.u64) : "l"(wide));
    asm("bfind.s64 %0, %1;" : "=r"(r.s64) : "l"(v));
    asm("bfind.shiftamt.u32 %0, %1;" : "=r"(r.shift_u32) : "r"(narrow));
    asm("bfind.shiftamt.s32 %0, %1;" : "=r"(r.shift_s32) : "r"(narrow_signed));
    asm volatile("bfind.shiftamt.u64 %0, %1;" : "=r"(r.shift_u64) : "l"(wide));
    asm volatile("bfind.shiftamt.s64 %0, %1;" : "=r"(r.shift_s64) : "l"(v));
    out[i] = r;
}

// The place of the highest bit of `bits` that differs from `sign` (0 or 1),
// counted by hand, or -1.
int highest_differing(unsigned long long bits, int width, int sign) {
    for (int b = width - 1; b >= 0; --b)
        if (static_cast<int>((bits >> b) & 1u) != sign) return b;
    return -1;
}

TEST_CASE("ptx-bfind") {
    const std::vector<long long> values = {0,          1,           2,          3,         0x80000000LL, 0xffffffffLL,
                                           12345,      -1,          -2,         -12345,    1LL << 40,    -(1LL << 40),
                                           1LL << 62,  INT64_MIN,   INT64_MAX,  0x7fffffff};
    const int n = static_cast<int>(values.size());
    device_buffer<long long> in(n);
    in.write(values);
    device_buffer<bfind_results> out(n);
    find_bits<<<1, 32>>>(in.ptr, out.ptr, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto r = out.read();
    auto place = [](int p) { return p < 0 ? 0xffffffffu : static_cast<unsigned>(p); };
    auto shift = [](int p, int width) { return p < 0 ? 0xffffffffu : static_cast<unsigned>(width - 1 - p); };
    for (int i = 0; i < n; ++i) {
        const unsigned long long wide = static_cast<unsigned long long>(values[i]);
        const unsigned narrow = static_cast<unsigned>(wide);
        INFO("value " << values[i]);
        const int u32 = highest_differing(narrow, 32, 0);
        const int s32 = highest_differing(narrow, 32, static_cast<int>(narrow >> 31));
        const int u64 = highest_differing(wide, 64, 0);
        const int s64 = highest_differing(wide, 64, static_cast<int>(wide >> 63));
        CHECK(r[i].u32 == place(u32));
        CHECK(r[i].s32 == place(s32));
        CHECK(r[i].u64 == place(u64));
        CHECK(r[i].s64 == place(s64));
        CHECK(r[i].shift_u32 == shift(u32, 32));
        CHECK(r[i].shift_s32 == shift(s32, 32));
        CHECK(r[i].shift_u64 == shift(u64, 64));
        CHECK(r[i].shift_s64 == shift(s64, 64));
    }
    // Spot values from the definition: 1 is bit 0, -1 has no non-sign bit.
    CHECK(r[1].u32 == 0u);
    CHECK(r[7].s32 == 0xffffffffu);
    CHECK(r[4].shift_u32 == 0u);
}
