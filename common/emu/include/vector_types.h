// <vector_types.h> for emulator builds: dim3, uint3 and every CUDA vector type
// (char1 ... double4, and CUDA 13's 32-byte types long4_16a/_32a and kin).
// The make_* functions are in <vector_functions.h>.
//
// Sizes and alignments are nvcc's, so a struct of vector types has the same
// layout here as on a GPU and code that checks them with static_assert agrees;
// tests/emu/vector_layout.h holds the list of both, compiled by nvcc and by
// the emulator. The rule: one-wide and three-wide types are aligned as their
// element; two-wide types to their size; four-wide types to their size, at
// most 16 bytes.
//
// CUDA 13 deprecates the four-wide 64-bit types (long4, ulong4, longlong4,
// ulonglong4, double4): they still exist, aligned to 16 bytes, and using them
// warns with the replacement's name, as with nvcc. Defining
// __NV_NO_VECTOR_DEPRECATION_DIAG silences that, as it does for CUDA.
#ifndef CUEMU_VECTOR_TYPES_H
#define CUEMU_VECTOR_TYPES_H
#define __VECTOR_TYPES_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

// ---- built-in index types ---------------------------------------------------
// uint3 is trivial so that threadIdx/blockIdx can live in fast thread-local
// storage; dim3 defaults every unset dimension to 1, as in CUDA.
struct uint3 {
    unsigned int x, y, z;
};

struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

#if defined(__NV_NO_VECTOR_DEPRECATION_DIAG)
#define CUEMU_VECTOR_DEPRECATED(replacement)
#else
#define CUEMU_VECTOR_DEPRECATED(replacement) __attribute__((deprecated("use " replacement)))
#endif

#define CUEMU_VECTOR1(T, name) \
    struct name { T x; };
#define CUEMU_VECTOR2(T, name) \
    struct __attribute__((aligned(2 * sizeof(T)))) name { T x, y; };
#define CUEMU_VECTOR3(T, name) \
    struct name { T x, y, z; };
#define CUEMU_VECTOR4(T, name) \
    struct __attribute__((aligned(4 * sizeof(T) < 16 ? 4 * sizeof(T) : 16))) name { T x, y, z, w; };
#define CUEMU_VECTOR4_WIDE(T, name)                                                            \
    struct CUEMU_VECTOR_DEPRECATED(#name "_16a or " #name "_32a") __attribute__((aligned(16))) \
        name { T x, y, z, w; };                                                               \
    struct __attribute__((aligned(16))) name##_16a { T x, y, z, w; };                         \
    struct __attribute__((aligned(32))) name##_32a { T x, y, z, w; };

#define CUEMU_VECTOR_FAMILY(T, name) \
    CUEMU_VECTOR1(T, name##1)        \
    CUEMU_VECTOR2(T, name##2)        \
    CUEMU_VECTOR3(T, name##3)        \
    CUEMU_VECTOR4(T, name##4)
#define CUEMU_VECTOR_FAMILY_WIDE(T, name) \
    CUEMU_VECTOR1(T, name##1)             \
    CUEMU_VECTOR2(T, name##2)             \
    CUEMU_VECTOR3(T, name##3)             \
    CUEMU_VECTOR4_WIDE(T, name##4)

CUEMU_VECTOR_FAMILY(signed char, char)
CUEMU_VECTOR_FAMILY(unsigned char, uchar)
CUEMU_VECTOR_FAMILY(short, short)
CUEMU_VECTOR_FAMILY(unsigned short, ushort)
CUEMU_VECTOR_FAMILY(int, int)
CUEMU_VECTOR1(unsigned int, uint1)
CUEMU_VECTOR2(unsigned int, uint2)
CUEMU_VECTOR4(unsigned int, uint4)  // uint3 is above
CUEMU_VECTOR_FAMILY(float, float)
CUEMU_VECTOR_FAMILY_WIDE(long int, long)
CUEMU_VECTOR_FAMILY_WIDE(unsigned long int, ulong)
CUEMU_VECTOR_FAMILY_WIDE(long long int, longlong)
CUEMU_VECTOR_FAMILY_WIDE(unsigned long long int, ulonglong)
CUEMU_VECTOR_FAMILY_WIDE(double, double)

#undef CUEMU_VECTOR_FAMILY_WIDE
#undef CUEMU_VECTOR_FAMILY
#undef CUEMU_VECTOR4_WIDE
#undef CUEMU_VECTOR4
#undef CUEMU_VECTOR3
#undef CUEMU_VECTOR2
#undef CUEMU_VECTOR1
#undef CUEMU_VECTOR_DEPRECATED

#endif
