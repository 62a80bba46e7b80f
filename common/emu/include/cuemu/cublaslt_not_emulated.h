// cuemu/cublaslt_not_emulated.h - the cuBLASLt calls outside the emulator's
// subset (<cublasLt.h>). Each is a function template whose body fails to
// compile with a message naming the call, as cublas_not_emulated.h does for
// cuBLAS: a program that uses one stops at build time instead of running
// without it.
#ifndef CUEMU_CUBLASLT_NOT_EMULATED_H
#define CUEMU_CUBLASLT_NOT_EMULATED_H

#include "not_emulated.h"

#define CUEMU_CUBLASLT_NOT_EMULATED(name, what)                                                \
    template <class... A>                                                                      \
    cublasStatus_t name(A&&...) {                                                              \
        static_assert(::cuemu::refused<A...>,                                                  \
                      "cuemu's cuBLASLt does not have " #name " (" what "); it has the "       \
                      "handle, cublasLtMatmulDesc*, cublasLtMatrixLayout*, "                   \
                      "cublasLtMatmulPreference*, cublasLtMatmulAlgoGetHeuristic and "         \
                      "cublasLtMatmul. Build this program with nvcc for a GPU");               \
        return CUBLAS_STATUS_NOT_SUPPORTED;                                                    \
    }

// ---- descriptors made in the program's own storage (the Create calls are emulated) ----
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatrixLayoutInit, "descriptors in preallocated storage; cublasLtMatrixLayoutCreate is emulated")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatmulDescInit, "descriptors in preallocated storage; cublasLtMatmulDescCreate is emulated")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatmulPreferenceInit, "descriptors in preallocated storage; cublasLtMatmulPreferenceCreate is emulated")

// ---- choosing algorithms by hand (the emulator has one; the heuristic returns it) ----
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatmulAlgoGetIds, "algorithm ids")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatmulAlgoInit, "algorithm ids")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatmulAlgoCheck, "algorithm checks")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatmulAlgoCapGetAttribute, "algorithm capabilities")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatmulAlgoConfigSetAttribute, "algorithm configurations")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatmulAlgoConfigGetAttribute, "algorithm configurations")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtHeuristicsCacheGetCapacity, "the heuristics cache")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtHeuristicsCacheSetCapacity, "the heuristics cache")

// ---- layout transforms ---------------------------------------------------------------
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatrixTransform, "layout transforms")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatrixTransformDescCreate, "layout transforms")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatrixTransformDescDestroy, "layout transforms")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatrixTransformDescSetAttribute, "layout transforms")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatrixTransformDescGetAttribute, "layout transforms")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtMatrixTransformDescInit, "layout transforms")

// ---- emulated precision and the logger ---------------------------------------------------
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtEmulationDescCreate, "emulated precision")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtEmulationDescDestroy, "emulated precision")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtEmulationDescSetAttribute, "emulated precision")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtEmulationDescGetAttribute, "emulated precision")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtEmulationDescInit, "emulated precision")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtLoggerSetCallback, "the logger")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtLoggerSetFile, "the logger")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtLoggerOpenFile, "the logger")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtLoggerSetLevel, "the logger")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtLoggerSetMask, "the logger")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtLoggerForceDisable, "the logger")
CUEMU_CUBLASLT_NOT_EMULATED(cublasLtDisableCpuInstructionsSetMask, "CPU instruction masks")

#undef CUEMU_CUBLASLT_NOT_EMULATED

#endif
