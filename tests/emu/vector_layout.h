// vector_layout.h - the size and alignment of every CUDA vector type (and
// dim3), as nvcc 13 gives them. test_device_headers.cu includes this list; it
// is compiled by the emulator's build and, where nvcc is installed, by nvcc
// (the emu_tests_nvcc_compile_check target), so the emulator's
// <vector_types.h> cannot drift from CUDA's without one build failing.
#ifndef CUEMU_TESTS_VECTOR_LAYOUT_H
#define CUEMU_TESTS_VECTOR_LAYOUT_H

#include <cuda_runtime.h>

// The four-wide 64-bit types are deprecated in CUDA 13; naming them here is
// the point.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#ifdef __NVCC__
#pragma nv_diagnostic push
#pragma nv_diag_suppress 1215
#pragma nv_diag_suppress 1444
#endif

#define CUEMU_LAYOUT(type, size, align)                                                  \
    static_assert(sizeof(type) == (size), "sizeof(" #type ") differs from nvcc's " #size); \
    static_assert(alignof(type) == (align), "alignof(" #type ") differs from nvcc's " #align);

CUEMU_LAYOUT(char1,           1,  1)
CUEMU_LAYOUT(char2,           2,  2)
CUEMU_LAYOUT(char3,           3,  1)
CUEMU_LAYOUT(char4,           4,  4)
CUEMU_LAYOUT(uchar1,          1,  1)
CUEMU_LAYOUT(uchar2,          2,  2)
CUEMU_LAYOUT(uchar3,          3,  1)
CUEMU_LAYOUT(uchar4,          4,  4)
CUEMU_LAYOUT(short1,          2,  2)
CUEMU_LAYOUT(short2,          4,  4)
CUEMU_LAYOUT(short3,          6,  2)
CUEMU_LAYOUT(short4,          8,  8)
CUEMU_LAYOUT(ushort1,         2,  2)
CUEMU_LAYOUT(ushort2,         4,  4)
CUEMU_LAYOUT(ushort3,         6,  2)
CUEMU_LAYOUT(ushort4,         8,  8)
CUEMU_LAYOUT(int1,            4,  4)
CUEMU_LAYOUT(int2,            8,  8)
CUEMU_LAYOUT(int3,           12,  4)
CUEMU_LAYOUT(int4,           16, 16)
CUEMU_LAYOUT(uint1,           4,  4)
CUEMU_LAYOUT(uint2,           8,  8)
CUEMU_LAYOUT(uint3,          12,  4)
CUEMU_LAYOUT(uint4,          16, 16)
CUEMU_LAYOUT(long1,           8,  8)
CUEMU_LAYOUT(long2,          16, 16)
CUEMU_LAYOUT(long3,          24,  8)
CUEMU_LAYOUT(long4,          32, 16)
CUEMU_LAYOUT(ulong1,          8,  8)
CUEMU_LAYOUT(ulong2,         16, 16)
CUEMU_LAYOUT(ulong3,         24,  8)
CUEMU_LAYOUT(ulong4,         32, 16)
CUEMU_LAYOUT(longlong1,       8,  8)
CUEMU_LAYOUT(longlong2,      16, 16)
CUEMU_LAYOUT(longlong3,      24,  8)
CUEMU_LAYOUT(longlong4,      32, 16)
CUEMU_LAYOUT(ulonglong1,      8,  8)
CUEMU_LAYOUT(ulonglong2,     16, 16)
CUEMU_LAYOUT(ulonglong3,     24,  8)
CUEMU_LAYOUT(ulonglong4,     32, 16)
CUEMU_LAYOUT(float1,          4,  4)
CUEMU_LAYOUT(float2,          8,  8)
CUEMU_LAYOUT(float3,         12,  4)
CUEMU_LAYOUT(float4,         16, 16)
CUEMU_LAYOUT(double1,         8,  8)
CUEMU_LAYOUT(double2,        16, 16)
CUEMU_LAYOUT(double3,        24,  8)
CUEMU_LAYOUT(double4,        32, 16)
CUEMU_LAYOUT(long4_16a,      32, 16)
CUEMU_LAYOUT(long4_32a,      32, 32)
CUEMU_LAYOUT(ulong4_16a,     32, 16)
CUEMU_LAYOUT(ulong4_32a,     32, 32)
CUEMU_LAYOUT(longlong4_16a,  32, 16)
CUEMU_LAYOUT(longlong4_32a,  32, 32)
CUEMU_LAYOUT(ulonglong4_16a, 32, 16)
CUEMU_LAYOUT(ulonglong4_32a, 32, 32)
CUEMU_LAYOUT(double4_16a,    32, 16)
CUEMU_LAYOUT(double4_32a,    32, 32)
CUEMU_LAYOUT(dim3,           12,  4)

#undef CUEMU_LAYOUT
#ifdef __NVCC__
#pragma nv_diagnostic pop
#endif
#pragma GCC diagnostic pop

#endif
