// <cuda_bf16.h> for emulator builds: __nv_bfloat16 (8 exponent bits, 8
// significant bits: the top half of a float), __nv_bfloat162, their raw forms,
// conversions in every rounding mode CUDA has, arithmetic, comparisons, math,
// operators and atomicAdd, as <cuda_fp16.h> has them for __half; both share
// cuemu/narrow_float.h. As with CUDA, <cuda_bf16.h> brings <cuda_fp16.h>.
//
// float to bfloat16 rounds to nearest even (NaN gives 0x7fff); bfloat16 to
// float is exact.
#ifndef CUEMU_CUDA_BF16_H
#define CUEMU_CUDA_BF16_H
#define __CUDA_BF16_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include "cuda_fp16.h"

#define CUDA_BF16_H_
#define __CUDA_BF16_TYPES_EXIST__

struct __nv_bfloat16_raw {
    unsigned short x;
};
struct __nv_bfloat162_raw {
    unsigned short x, y;
};

struct alignas(2) __nv_bfloat16 {
    CUEMU_NARROW_FLOAT_MEMBERS(__nv_bfloat16, __nv_bfloat16_raw, ::cuemu::fp::bfloat16)
};

struct alignas(4) __nv_bfloat162 {
    __nv_bfloat16 x, y;
    __nv_bfloat162() = default;
    constexpr __nv_bfloat162(const __nv_bfloat16& a, const __nv_bfloat16& b) : x(a), y(b) {}
    __nv_bfloat162(const __nv_bfloat162_raw& r)
        : x(__nv_bfloat16_raw{r.x}), y(__nv_bfloat16_raw{r.y}) {}
    operator __nv_bfloat162_raw() const {
        return __nv_bfloat162_raw{static_cast<__nv_bfloat16_raw>(x).x,
                                  static_cast<__nv_bfloat16_raw>(y).x};
    }
};

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

CUEMU_NARROW_FLOAT_FUNCTIONS(__nv_bfloat16, __nv_bfloat162)

CUEMU_NARROW_FLOAT_CONVERSIONS(__nv_bfloat16, __nv_bfloat162, bfloat16)

#endif
