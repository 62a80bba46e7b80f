// cuemu/types.h - the CUDA types a program names: dim3 and the vector types,
// cudaError_t with the real runtime's codes, cudaMemcpyKind, the opaque stream
// and event handles, and managed-memory locations and advice; the rest of the
// runtime's types are in device_types.h.
//
// Numbers are the real runtime's (CUDA 13.0), so code that prints or compares
// them behaves the same on a GPU and here.
#ifndef CUEMU_TYPES_H
#define CUEMU_TYPES_H

#include <cstddef>

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

// ---- vector types (the common ones) -------------------------------------------
#define CUEMU_VECTOR2(T, name, align)                                              \
    struct alignas(align) name { T x, y; };                                        \
    inline name make_##name(T x, T y) { return name{x, y}; }
#define CUEMU_VECTOR3(T, name)                                                     \
    struct name { T x, y, z; };                                                    \
    inline name make_##name(T x, T y, T z) { return name{x, y, z}; }
#define CUEMU_VECTOR4(T, name, align)                                              \
    struct alignas(align) name { T x, y, z, w; };                                  \
    inline name make_##name(T x, T y, T z, T w) { return name{x, y, z, w}; }

CUEMU_VECTOR2(float, float2, 8)
CUEMU_VECTOR3(float, float3)
CUEMU_VECTOR4(float, float4, 16)
CUEMU_VECTOR2(int, int2, 8)
CUEMU_VECTOR3(int, int3)
CUEMU_VECTOR4(int, int4, 16)
CUEMU_VECTOR2(unsigned int, uint2, 8)
CUEMU_VECTOR4(unsigned int, uint4, 16)
CUEMU_VECTOR2(double, double2, 16)
inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return uint3{x, y, z}; }
#undef CUEMU_VECTOR2
#undef CUEMU_VECTOR3
#undef CUEMU_VECTOR4

// ---- errors ------------------------------------------------------------------
enum cudaError {
#define CUEMU_ERROR(code, name, text) name = code,
#include "../../src/error_table.inc"
#undef CUEMU_ERROR
};
typedef enum cudaError cudaError_t;

// ---- memory --------------------------------------------------------------------
enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaHostAllocDefault 0x00
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01

// ---- handles -------------------------------------------------------------------
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
// The special stream handles, with the real values: both name the default
// stream here (the emulator has the legacy default stream only).
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define CUDART_CB  // the calling convention of callbacks: nothing special on Linux
typedef void (*cudaHostFn_t)(void* user_data);

// ---- managed memory: where data should live (CUDA 13's cudaMemLocation) ---------
#define cudaCpuDeviceId ((int)-1)
#define cudaInvalidDeviceId ((int)-2)
enum cudaMemLocationType {
    cudaMemLocationTypeInvalid = 0,
    cudaMemLocationTypeNone = 0,
    cudaMemLocationTypeDevice = 1,
    cudaMemLocationTypeHost = 2,
    cudaMemLocationTypeHostNuma = 3,
    cudaMemLocationTypeHostNumaCurrent = 4
};
struct cudaMemLocation {
    enum cudaMemLocationType type;
    int id;
};
enum cudaMemoryAdvise {
    cudaMemAdviseSetReadMostly = 1,
    cudaMemAdviseUnsetReadMostly = 2,
    cudaMemAdviseSetPreferredLocation = 3,
    cudaMemAdviseUnsetPreferredLocation = 4,
    cudaMemAdviseSetAccessedBy = 5,
    cudaMemAdviseUnsetAccessedBy = 6
};

// ---- the device, flags, kernel and pointer attributes ---------------------------
#include "device_types.h"

#endif
