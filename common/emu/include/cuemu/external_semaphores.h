// cuemu/external_semaphores.h - the types CUDA 13.0 gives external semaphores
// (Vulkan and Direct3D interop), with CUDA's names, members and numbers. The
// emulator has no external semaphores: every call that takes these types is
// refused at build time (cudaImportExternalSemaphore and the like in
// not_emulated.h, the graph node calls in graphs.h), and cudaGraphAddNode of
// such a node at run time. The types are here so that a program using them
// builds up to that call and stops there with a line naming it, instead of a
// cascade of undeclared names that names none.
#ifndef CUEMU_EXTERNAL_SEMAPHORES_H
#define CUEMU_EXTERNAL_SEMAPHORES_H

typedef struct CUexternalSemaphore_st* cudaExternalSemaphore_t;

enum cudaExternalSemaphoreHandleType {
    cudaExternalSemaphoreHandleTypeOpaqueFd = 1,
    cudaExternalSemaphoreHandleTypeOpaqueWin32 = 2,
    cudaExternalSemaphoreHandleTypeOpaqueWin32Kmt = 3,
    cudaExternalSemaphoreHandleTypeD3D12Fence = 4,
    cudaExternalSemaphoreHandleTypeD3D11Fence = 5,
    cudaExternalSemaphoreHandleTypeNvSciSync = 6,
    cudaExternalSemaphoreHandleTypeKeyedMutex = 7,
    cudaExternalSemaphoreHandleTypeKeyedMutexKmt = 8,
    cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd = 9,
    cudaExternalSemaphoreHandleTypeTimelineSemaphoreWin32 = 10
};

// The flags of the signal and wait parameters (NvSciSync semaphores only).
#define cudaExternalSemaphoreSignalSkipNvSciBufMemSync 0x01
#define cudaExternalSemaphoreWaitSkipNvSciBufMemSync 0x02

struct cudaExternalSemaphoreHandleDesc {
    enum cudaExternalSemaphoreHandleType type;
    union {
        int fd;
        struct {
            void* handle;
            const void* name;
        } win32;
        const void* nvSciSyncObj;
    } handle;
    unsigned int flags;
    unsigned int reserved[16];
};

// What signal and wait parameters share (CUDA nests the same members in each).
namespace cuemu {
struct semaphore_fence {
    unsigned long long value;
};
union semaphore_nvscisync {
    void* fence;
    unsigned long long reserved;
};
}  // namespace cuemu

struct cudaExternalSemaphoreSignalParams {
    struct {
        ::cuemu::semaphore_fence fence;
        ::cuemu::semaphore_nvscisync nvSciSync;
        struct {
            unsigned long long key;
        } keyedMutex;
        unsigned int reserved[12];
    } params;
    unsigned int flags;
    unsigned int reserved[16];
};

struct cudaExternalSemaphoreWaitParams {
    struct {
        ::cuemu::semaphore_fence fence;
        ::cuemu::semaphore_nvscisync nvSciSync;
        struct {
            unsigned long long key;
            unsigned int timeoutMs;
        } keyedMutex;
        unsigned int reserved[10];
    } params;
    unsigned int flags;
    unsigned int reserved[16];
};

// A graph node's semaphores and what to signal or wait for, one of each per
// semaphore; the V2 forms are the members of cudaGraphNodeParams.
struct cudaExternalSemaphoreSignalNodeParams {
    cudaExternalSemaphore_t* extSemArray;
    const struct cudaExternalSemaphoreSignalParams* paramsArray;
    unsigned int numExtSems;
};
struct cudaExternalSemaphoreSignalNodeParamsV2 {
    cudaExternalSemaphore_t* extSemArray;
    const struct cudaExternalSemaphoreSignalParams* paramsArray;
    unsigned int numExtSems;
};
struct cudaExternalSemaphoreWaitNodeParams {
    cudaExternalSemaphore_t* extSemArray;
    const struct cudaExternalSemaphoreWaitParams* paramsArray;
    unsigned int numExtSems;
};
struct cudaExternalSemaphoreWaitNodeParamsV2 {
    cudaExternalSemaphore_t* extSemArray;
    const struct cudaExternalSemaphoreWaitParams* paramsArray;
    unsigned int numExtSems;
};

#endif
