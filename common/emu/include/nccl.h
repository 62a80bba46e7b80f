// <nccl.h> for emulator builds: a subset of NCCL 2 whose ranks are the
// emulated devices of one process (CUEMU_DEVICES), or processes of one
// machine with one rank each (mpirun), done on the CPU in each rank's stream
// order (src/nccl/). Link it with
// `tutorial_lesson(... LIBRARIES nccl)`, or `-lnccl` with bin/nvcc-emu, as
// with nvcc.
//
// Types, enum values, result codes and signatures are NCCL 2.28's. Every call
// of the subset has two hidden trailing parameters (the caller's file and
// line) so that a report can name the call. An NCCL call outside the subset
// does not build: cuemu/nccl_not_emulated.h names it. README.md ("NCCL")
// says what is emulated and what is not.
#ifndef CUEMU_NCCL_H
#define CUEMU_NCCL_H
#define NCCL_H_  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include <climits>
#include <cstddef>

#include "cuemu/cuemu.h"

#define NCCL_MAJOR 2
#define NCCL_MINOR 28
#define NCCL_PATCH 9
#define NCCL_SUFFIX ""
// From 2.9 on the code has two digits for the minor version.
#define NCCL_VERSION(X, Y, Z) \
    (((X) <= 2 && (Y) <= 8) ? (X) * 1000 + (Y) * 100 + (Z) : (X) * 10000 + (Y) * 100 + (Z))
#define NCCL_VERSION_CODE NCCL_VERSION(NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH)

typedef struct ncclComm* ncclComm_t;
#define NCCL_COMM_NULL NULL

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
    char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7,
    ncclNumResults = 8
} ncclResult_t;

typedef enum {
    ncclSum = 0,
    ncclProd = 1,
    ncclMax = 2,
    ncclMin = 3,
    ncclAvg = 4,
    ncclNumOps = 5,
    ncclMaxRedOp = 0x7fffffff
} ncclRedOp_t;

typedef enum {
    ncclInt8 = 0,
    ncclChar = 0,
    ncclUint8 = 1,
    ncclInt32 = 2,
    ncclInt = 2,
    ncclUint32 = 3,
    ncclInt64 = 4,
    ncclUint64 = 5,
    ncclFloat16 = 6,
    ncclHalf = 6,
    ncclFloat32 = 7,
    ncclFloat = 7,
    ncclFloat64 = 8,
    ncclDouble = 8,
    ncclBfloat16 = 9,
    ncclFloat8e4m3 = 10,  // not emulated: refused with ncclInvalidArgument
    ncclFloat8e5m2 = 11,  // not emulated: refused with ncclInvalidArgument
    ncclNumTypes = 12
} ncclDataType_t;

#define CUEMU_NCCL_CALLER const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()

// ---- the library ----------------------------------------------------------------------
ncclResult_t ncclGetVersion(int* version);
const char* ncclGetErrorString(ncclResult_t result);
// The last report the emulator printed for this communicator ("" when none).
const char* ncclGetLastError(ncclComm_t comm);

// ---- communicators: one rank per emulated device --------------------------------------
ncclResult_t ncclGetUniqueId(ncclUniqueId* uniqueId, CUEMU_NCCL_CALLER);
// Blocks until every rank joined (one host thread or one process per rank),
// unless called between ncclGroupStart and ncclGroupEnd (one thread for every
// rank). The rank's device is the calling thread's current device.
ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank,
                              CUEMU_NCCL_CALLER);
// ndev communicators at once, rank i on devlist[i] (devices 0 .. ndev-1 when null).
ncclResult_t ncclCommInitAll(ncclComm_t* comm, int ndev, const int* devlist, CUEMU_NCCL_CALLER);
// Waits for the rank's queued operations, then frees the communicator.
ncclResult_t ncclCommFinalize(ncclComm_t comm, CUEMU_NCCL_CALLER);
ncclResult_t ncclCommDestroy(ncclComm_t comm, CUEMU_NCCL_CALLER);
// Frees it at once: operations of its group still waiting fail.
ncclResult_t ncclCommAbort(ncclComm_t comm, CUEMU_NCCL_CALLER);
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* asyncError,
                                   CUEMU_NCCL_CALLER);
ncclResult_t ncclCommCount(const ncclComm_t comm, int* count, CUEMU_NCCL_CALLER);
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device, CUEMU_NCCL_CALLER);
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank, CUEMU_NCCL_CALLER);

// ---- collectives and point-to-point, queued on `stream` ------------------------------
ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count,
                        ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,
                        cudaStream_t stream, CUEMU_NCCL_CALLER);
ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t datatype, int root,
                       ncclComm_t comm, cudaStream_t stream, CUEMU_NCCL_CALLER);
ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm,
                           cudaStream_t stream, CUEMU_NCCL_CALLER);
ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream, CUEMU_NCCL_CALLER);
ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                               ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream, CUEMU_NCCL_CALLER);
ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                           ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream,
                           CUEMU_NCCL_CALLER);
ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream, CUEMU_NCCL_CALLER);
ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream, CUEMU_NCCL_CALLER);

// ---- group calls: everything between them is issued together at ncclGroupEnd ---------
ncclResult_t ncclGroupStart(CUEMU_NCCL_CALLER);
ncclResult_t ncclGroupEnd(CUEMU_NCCL_CALLER);

#undef CUEMU_NCCL_CALLER

#include "cuemu/nccl_not_emulated.h"

#endif
