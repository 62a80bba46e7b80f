// <vector_functions.h> for emulator builds: make_char1 ... make_double4_32a,
// one for every type of <vector_types.h>, host and device, as in CUDA.
#ifndef CUEMU_VECTOR_FUNCTIONS_H
#define CUEMU_VECTOR_FUNCTIONS_H
#define __VECTOR_FUNCTIONS_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include "cuemu/device_inline.h"
#include "vector_types.h"

#define CUEMU_MAKE1(T, name) \
    CUEMU_DEVICE_INLINE name make_##name(T x) { return name{x}; }
#define CUEMU_MAKE2(T, name) \
    CUEMU_DEVICE_INLINE name make_##name(T x, T y) { return name{x, y}; }
#define CUEMU_MAKE3(T, name) \
    CUEMU_DEVICE_INLINE name make_##name(T x, T y, T z) { return name{x, y, z}; }
#define CUEMU_MAKE4(T, name) \
    CUEMU_DEVICE_INLINE name make_##name(T x, T y, T z, T w) { return name{x, y, z, w}; }
#define CUEMU_MAKE_FAMILY(T, name) \
    CUEMU_MAKE1(T, name##1)        \
    CUEMU_MAKE2(T, name##2)        \
    CUEMU_MAKE3(T, name##3)        \
    CUEMU_MAKE4(T, name##4)
#define CUEMU_MAKE_FAMILY_WIDE(T, name) \
    CUEMU_MAKE_FAMILY(T, name)          \
    CUEMU_MAKE4(T, name##4_16a)         \
    CUEMU_MAKE4(T, name##4_32a)

CUEMU_MAKE_FAMILY(signed char, char)
CUEMU_MAKE_FAMILY(unsigned char, uchar)
CUEMU_MAKE_FAMILY(short, short)
CUEMU_MAKE_FAMILY(unsigned short, ushort)
CUEMU_MAKE_FAMILY(int, int)
CUEMU_MAKE_FAMILY(unsigned int, uint)
CUEMU_MAKE_FAMILY(float, float)
// Making a deprecated type is not itself a second warning: the program's own
// use of the type name already warns.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
CUEMU_MAKE_FAMILY_WIDE(long int, long)
CUEMU_MAKE_FAMILY_WIDE(unsigned long int, ulong)
CUEMU_MAKE_FAMILY_WIDE(long long int, longlong)
CUEMU_MAKE_FAMILY_WIDE(unsigned long long int, ulonglong)
CUEMU_MAKE_FAMILY_WIDE(double, double)
#pragma GCC diagnostic pop

#undef CUEMU_MAKE_FAMILY_WIDE
#undef CUEMU_MAKE_FAMILY
#undef CUEMU_MAKE4
#undef CUEMU_MAKE3
#undef CUEMU_MAKE2
#undef CUEMU_MAKE1

#endif
