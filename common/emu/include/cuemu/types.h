// cuemu/types.h - the CUDA types a program names: dim3 and the vector types
// (from <vector_types.h>), cudaError_t with the real runtime's codes,
// cudaMemcpyKind, the opaque stream and event handles, and managed-memory
// locations and advice; the rest of the runtime's types are in device_types.h.
//
// Numbers are the real runtime's (CUDA 13.0), so code that prints or compares
// them behaves the same on a GPU and here.
#ifndef CUEMU_TYPES_H
#define CUEMU_TYPES_H

#include <cstddef>

// ---- dim3, uint3 and the vector types: <vector_types.h> -------------------------
#include "../vector_types.h"

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
#define cudaMemAttachSingle 0x04
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
// The device runtime's own streams, for launches from a kernel (see
// "Kernels launched from kernels" in common/emu/README.md).
#define cudaStreamTailLaunch ((cudaStream_t)0x3)
#define cudaStreamFireAndForget ((cudaStream_t)0x4)
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
#define cudaInitDeviceFlagsAreValid 0x01
enum cudaDeviceP2PAttr {
    cudaDevP2PAttrPerformanceRank = 1,
    cudaDevP2PAttrAccessSupported = 2,
    cudaDevP2PAttrNativeAtomicSupported = 3,
    cudaDevP2PAttrCudaArrayAccessSupported = 4,
    cudaDevP2PAttrOnlyPartialNativeAtomicSupported = 5
};
enum cudaMemRangeAttribute {
    cudaMemRangeAttributeReadMostly = 1,
    cudaMemRangeAttributePreferredLocation = 2,
    cudaMemRangeAttributeAccessedBy = 3,
    cudaMemRangeAttributeLastPrefetchLocation = 4,
    cudaMemRangeAttributePreferredLocationType = 5,
    cudaMemRangeAttributePreferredLocationId = 6,
    cudaMemRangeAttributeLastPrefetchLocationType = 7,
    cudaMemRangeAttributeLastPrefetchLocationId = 8
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
