// Prints, bit for bit, what the half and bfloat16 functions CUDA lets host code
// call answer for every 16-bit pattern, for floats and doubles around every
// rounding boundary, and for a fixed pseudo-random set of operand pairs.
// Built twice: with nvcc against the real <cuda_fp16.h>/<cuda_bf16.h>, and for
// the emulator; ctest (emu.fp16-vs-cuda) requires the two outputs to be equal.
// It calls no CUDA runtime function, so it needs no GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

static unsigned bits_of(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
static float float_of(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
static unsigned h(__half v) { return __half_as_ushort(v); }
static unsigned b(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }

static void every_pattern() {
    for (unsigned i = 0; i < 65536; ++i) {
        const __half x = __ushort_as_half(static_cast<unsigned short>(i));
        const __nv_bfloat16 y = __ushort_as_bfloat16(static_cast<unsigned short>(i));
        std::printf("p %04x h %08x %d %u %lld %llu %d %u %d %u | b %08x %d %u %lld %llu %d %u\n", i,
                    bits_of(__half2float(x)), __half2int_rz(x), __half2uint_rz(x),
                    __half2ll_rz(x), __half2ull_rz(x), __half2short_rz(x), __half2ushort_rz(x),
                    __half2char_rz(x), __half2uchar_rz(x), bits_of(__bfloat162float(y)),
                    __bfloat162int_rz(y), __bfloat162uint_rz(y), __bfloat162ll_rz(y),
                    __bfloat162ull_rz(y), __bfloat162short_rz(y), __bfloat162ushort_rz(y));
    }
}

static void from_float(float f) {
    std::printf("f %08x h %04x %04x %04x %04x %04x b %04x %04x %04x %04x %04x\n", bits_of(f),
                h(__float2half(f)), h(__float2half_rn(f)), h(__float2half_rz(f)),
                h(__float2half_ru(f)), h(__float2half_rd(f)), b(__float2bfloat16(f)),
                b(__float2bfloat16_rn(f)), b(__float2bfloat16_rz(f)), b(__float2bfloat16_ru(f)),
                b(__float2bfloat16_rd(f)));
}
static void from_double(double d) {
    std::printf("d %a h %04x b %04x\n", d, h(__double2half(d)), b(__double2bfloat16(d)));
}

// Floats at, just below and just above every point halfway between two
// neighbouring halves (and bfloat16s), plus a sweep over all exponents.
static void rounding_boundaries() {
    for (unsigned i = 0; i < 0x7c00; ++i) {
        const float lo = __half2float(__ushort_as_half(static_cast<unsigned short>(i)));
        const float hi = __half2float(__ushort_as_half(static_cast<unsigned short>(i + 1)));
        const float mid = 0.5f * (lo + hi);  // exact: halves have few bits
        for (int sign = 0; sign < 2; ++sign) {
            const unsigned s = sign ? 0x80000000u : 0u;
            from_float(float_of(bits_of(mid) | s));
            from_float(float_of((bits_of(mid) - 1) | s));
            from_float(float_of((bits_of(mid) + 1) | s));
            // a double a hair off the midpoint: a double-to-float-to-half
            // path would round it to the midpoint and then to even
            from_double(sign ? -(double(mid) + 0x1p-40 * mid) : double(mid) - 0x1p-40 * mid);
        }
    }
    for (unsigned i = 0; i < 0xff; ++i) {  // bfloat16 midpoints, one exponent each way
        const unsigned base = (i << 23) | 0x00008000u;
        from_float(float_of(base));
        from_float(float_of(base | 0x00010000u));
        from_float(float_of(base - 1));
        from_float(float_of(base + 1));
        from_float(float_of(base | 0x80000000u));
    }
    for (std::uint64_t u = 0; u < 0x100000000ull; u += 0x10001ull) from_float(float_of(static_cast<unsigned>(u)));
    const unsigned specials[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u,
                                 0x00000001u, 0x80000001u, 0x7f7fffffu, 0x477fe000u, 0x477ff000u,
                                 0x477fefffu, 0x33000000u, 0x33000001u, 0x32ffffffu, 0x7f7f8000u};
    for (unsigned s : specials) from_float(float_of(s));
}

static void integers() {
    const long long values[] = {0, 1, -1, 2047, 2049, 4097, -4097, 65504, 65519, 65520, 65536, -65520,
                                16777217, 2147483647, -2147483647 - 1, 9007199254740993LL,
                                9223372036854775807LL, -9223372036854775807LL - 1};
    for (long long v : values) {
        std::printf("i %lld h %04x %04x %04x %04x %04x %04x %04x %04x b %04x %04x\n", v,
                    h(__int2half_rn(static_cast<int>(v))), h(__int2half_rz(static_cast<int>(v))),
                    h(__int2half_ru(static_cast<int>(v))), h(__int2half_rd(static_cast<int>(v))),
                    h(__ll2half_rn(v)), h(__ll2half_rz(v)), h(__ull2half_ru(static_cast<unsigned long long>(v))),
                    h(__uint2half_rd(static_cast<unsigned>(v))), b(__int2bfloat16_rn(static_cast<int>(v))),
                    b(__ll2bfloat16_rn(v)));
    }
}

// Arithmetic and comparisons on pairs from a fixed generator (the same on both
// sides), including NaNs, infinities, zeros and subnormals.
static unsigned next(unsigned& state) {
    state = state * 1664525u + 1013904223u;
    return state >> 16;
}
static void pairs() {
    unsigned state = 20261123u;
    for (int i = 0; i < 200000; ++i) {
        const unsigned short xa = static_cast<unsigned short>(next(state)), xb = static_cast<unsigned short>(next(state));
        const __half p = __ushort_as_half(xa), q = __ushort_as_half(xb);
        const __nv_bfloat16 r = __ushort_as_bfloat16(xa), s = __ushort_as_bfloat16(xb);
        std::printf("o %04x %04x h %04x %04x %04x %04x %04x %04x %04x %04x %04x %d%d%d%d%d%d%d%d "
                    "b %04x %04x %04x %04x %04x %04x %04x %d%d%d\n",
                    xa, xb, h(__hadd(p, q)), h(__hsub(p, q)), h(__hmul(p, q)), h(__hdiv(p, q)),
                    h(__hmax(p, q)), h(__hmin(p, q)), h(__hneg(p)), h(__habs(p)), h(__hadd_sat(p, q)),
                    __heq(p, q), __hne(p, q), __hlt(p, q), __hge(p, q), __hequ(p, q), __hneu(p, q),
                    __hisnan(p), __hisinf(p), b(__hadd(r, s)), b(__hsub(r, s)), b(__hmul(r, s)),
                    b(__hdiv(r, s)), b(__hmax(r, s)), b(__hmin(r, s)), b(__hneg(r)), __heq(r, s),
                    __hlt(r, s), __hisnan(r));
    }
}

int main() {
    every_pattern();
    rounding_boundaries();
    integers();
    pairs();
    return 0;
}
