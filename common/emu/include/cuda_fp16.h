// <cuda_fp16.h> for emulator builds: __half (IEEE binary16), __half2, their
// raw forms, the conversions (every rounding mode CUDA has), arithmetic,
// comparisons, math, the operators and atomicAdd. The functions shared with
// bfloat16 are in cuemu/narrow_float.h. Host and device code may use all of
// them, as with CUDA 13.
//
// Conversions round exactly as CUDA's: float or double to half to nearest
// even by default (_rz, _ru, _rd where CUDA has them), NaN to 0x7fff, half to
// an integer saturating, NaN to 0 (to 0x8000000000000000 for 64-bit types).
// The warp shuffles of builtins.h move a __half or __half2 as they are.
#ifndef CUEMU_CUDA_FP16_H
#define CUEMU_CUDA_FP16_H
#define __CUDA_FP16_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include <cstring>

#include "cuemu/narrow_float.h"
#include "vector_functions.h"

#define CUDA_FP16_H_
#define __CUDA_FP16_TYPES_EXIST__

struct __half_raw {
    unsigned short x;
};
struct __half2_raw {
    unsigned short x, y;
};

struct alignas(2) __half {
    CUEMU_NARROW_FLOAT_MEMBERS(__half, __half_raw, ::cuemu::fp::binary16)
};

struct alignas(4) __half2 {
    __half x, y;
    __half2() = default;
    constexpr __half2(const __half& a, const __half& b) : x(a), y(b) {}
    __half2(const __half2_raw& r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
    operator __half2_raw() const {
        return __half2_raw{static_cast<__half_raw>(x).x, static_cast<__half_raw>(y).x};
    }
};

typedef __half half;
typedef __half2 half2;
typedef __half_raw __nv_half_raw;
typedef __half2_raw __nv_half2_raw;
typedef __half __nv_half;
typedef __half2 __nv_half2;
typedef __half nv_half;
typedef __half2 nv_half2;

CUEMU_NARROW_FLOAT_FUNCTIONS(__half, __half2)

CUEMU_NARROW_FLOAT_CONVERSIONS(__half, __half2, half)

#endif
