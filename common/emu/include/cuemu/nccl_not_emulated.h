// cuemu/nccl_not_emulated.h - the NCCL calls outside the emulator's subset
// (nccl.h). Each is a function template whose body fails to compile with a
// message naming the call, as cublas_not_emulated.h does for cuBLAS: a
// program that uses one stops at build time instead of running without it.
// An NCCL name listed nowhere is an undeclared identifier, which names it too.
#ifndef CUEMU_NCCL_NOT_EMULATED_H
#define CUEMU_NCCL_NOT_EMULATED_H

#include "not_emulated.h"

#define CUEMU_NCCL_NOT_EMULATED(name, what)                                                    \
    template <class... A>                                                                      \
    ncclResult_t name(A&&...) {                                                                \
        static_assert(::cuemu::refused<A...>,                                                  \
                      "cuemu's NCCL does not have " #name " (" what "); it has the "           \
                      "communicator calls, ncclAllReduce, ncclBroadcast, ncclReduce, "         \
                      "ncclAllGather, ncclReduceScatter, ncclSend, ncclRecv and group calls. " \
                      "Build this program with nvcc for a GPU");                               \
        return ncclInvalidUsage;                                                               \
    }

// ---- communicators beyond one id per communicator ---------------------------------------
CUEMU_NCCL_NOT_EMULATED(ncclCommInitRankConfig, "communicator configuration, non-blocking communicators")
CUEMU_NCCL_NOT_EMULATED(ncclCommInitRankScalable, "several unique ids")
CUEMU_NCCL_NOT_EMULATED(ncclCommSplit, "splitting a communicator")
CUEMU_NCCL_NOT_EMULATED(ncclCommShrink, "shrinking a communicator")
CUEMU_NCCL_NOT_EMULATED(ncclCommRevoke, "revoking a communicator")

// ---- collectives and reductions beyond the subset ----------------------------------------
CUEMU_NCCL_NOT_EMULATED(ncclAlltoAll, "all-to-all")
CUEMU_NCCL_NOT_EMULATED(ncclGather, "gather to one rank")
CUEMU_NCCL_NOT_EMULATED(ncclScatter, "scatter from one rank")
CUEMU_NCCL_NOT_EMULATED(ncclRedOpCreatePreMulSum, "custom reduction operations")
CUEMU_NCCL_NOT_EMULATED(ncclRedOpDestroy, "custom reduction operations")
CUEMU_NCCL_NOT_EMULATED(ncclGroupSimulateEnd, "simulated groups")

// ---- memory and buffer registration -----------------------------------------------------
CUEMU_NCCL_NOT_EMULATED(ncclMemAlloc, "NCCL's allocator; use cudaMalloc")
CUEMU_NCCL_NOT_EMULATED(ncclMemFree, "NCCL's allocator; use cudaFree")
CUEMU_NCCL_NOT_EMULATED(ncclCommRegister, "buffer registration")
CUEMU_NCCL_NOT_EMULATED(ncclCommDeregister, "buffer registration")
CUEMU_NCCL_NOT_EMULATED(ncclCommWindowRegister, "symmetric memory windows")
CUEMU_NCCL_NOT_EMULATED(ncclCommWindowDeregister, "symmetric memory windows")

#undef CUEMU_NCCL_NOT_EMULATED

#endif
