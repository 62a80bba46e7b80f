// cuemu/cublas_not_emulated.h - the common cuBLAS calls outside the emulator's
// subset (cublas_v2.h). Each is a function template whose body fails to
// compile with a message naming the call, as not_emulated.h does for the
// runtime: a program that uses one stops at build time instead of running
// without it. A cuBLAS name listed nowhere is an undeclared identifier, which
// names it too. cuBLASLt's calls outside its subset are refused by
// cublaslt_not_emulated.h; cuBLASXt and the legacy <cublas.h> by their own
// headers.
#ifndef CUEMU_CUBLAS_NOT_EMULATED_H
#define CUEMU_CUBLAS_NOT_EMULATED_H

#include "not_emulated.h"

#define CUEMU_CUBLAS_NOT_EMULATED(name, what)                                                  \
    template <class... A>                                                                      \
    cublasStatus_t name(A&&...) {                                                              \
        static_assert(::cuemu::refused<A...>,                                                  \
                      "cuemu's cuBLAS does not have " #name " (" what "); it has cublasSgemm, " \
                      "cublasDgemm, cublasS/DgemmStridedBatched, cublasSgemmBatched, "         \
                      "cublasDgemmBatched, cublasGemmEx, cublasGemmStridedBatchedEx, "         \
                      "cublasSgemv, cublasSaxpy, cublasSdot, cublasSnrm2, cublasSscal and "    \
                      "the Set/Get copies. Build this program with nvcc "                      \
                      "for a GPU");                                                            \
        return CUBLAS_STATUS_NOT_SUPPORTED;                                                    \
    }

// ---- half and mixed precision (cublasGemmEx, cublasGemmStridedBatchedEx are emulated) ----
CUEMU_CUBLAS_NOT_EMULATED(cublasHgemm, "half precision")
CUEMU_CUBLAS_NOT_EMULATED(cublasHgemmBatched, "half precision")
CUEMU_CUBLAS_NOT_EMULATED(cublasHgemmStridedBatched, "half precision")
CUEMU_CUBLAS_NOT_EMULATED(cublasSgemmEx, "mixed precision; cublasGemmEx is emulated")
CUEMU_CUBLAS_NOT_EMULATED(cublasGemmBatchedEx, "arrays of pointers; cublasGemmStridedBatchedEx is emulated")

// ---- other matrix products -----------------------------------------------------------
CUEMU_CUBLAS_NOT_EMULATED(cublasSgemmGroupedBatched, "grouped batches")
CUEMU_CUBLAS_NOT_EMULATED(cublasCgemm, "complex numbers")
CUEMU_CUBLAS_NOT_EMULATED(cublasZgemm, "complex numbers")
CUEMU_CUBLAS_NOT_EMULATED(cublasSgeam, "matrix addition and transposition")
CUEMU_CUBLAS_NOT_EMULATED(cublasDgeam, "matrix addition and transposition")
CUEMU_CUBLAS_NOT_EMULATED(cublasSsymm, "symmetric matrices")
CUEMU_CUBLAS_NOT_EMULATED(cublasSsyrk, "symmetric matrices")
CUEMU_CUBLAS_NOT_EMULATED(cublasStrmm, "triangular matrices")
CUEMU_CUBLAS_NOT_EMULATED(cublasStrsm, "triangular solves")
CUEMU_CUBLAS_NOT_EMULATED(cublasDtrsm, "triangular solves")

// ---- other level-2 calls -----------------------------------------------------------------
CUEMU_CUBLAS_NOT_EMULATED(cublasDgemv, "double precision")
CUEMU_CUBLAS_NOT_EMULATED(cublasSgemvBatched, "batched matrix-vector products")
CUEMU_CUBLAS_NOT_EMULATED(cublasSgemvStridedBatched, "batched matrix-vector products")
CUEMU_CUBLAS_NOT_EMULATED(cublasSger, "rank-1 updates")
CUEMU_CUBLAS_NOT_EMULATED(cublasDger, "rank-1 updates")
CUEMU_CUBLAS_NOT_EMULATED(cublasSgbmv, "band matrices")
CUEMU_CUBLAS_NOT_EMULATED(cublasSsymv, "symmetric matrices")
CUEMU_CUBLAS_NOT_EMULATED(cublasStrmv, "triangular matrices")
CUEMU_CUBLAS_NOT_EMULATED(cublasStrsv, "triangular solves")

// ---- other level-1 calls -----------------------------------------------------------------
CUEMU_CUBLAS_NOT_EMULATED(cublasIsamax, "index of the largest element")
CUEMU_CUBLAS_NOT_EMULATED(cublasIdamax, "index of the largest element")
CUEMU_CUBLAS_NOT_EMULATED(cublasIsamin, "index of the smallest element")
CUEMU_CUBLAS_NOT_EMULATED(cublasSasum, "sums of absolute values")
CUEMU_CUBLAS_NOT_EMULATED(cublasDasum, "sums of absolute values")
CUEMU_CUBLAS_NOT_EMULATED(cublasScopy, "vector copies")
CUEMU_CUBLAS_NOT_EMULATED(cublasDcopy, "vector copies")
CUEMU_CUBLAS_NOT_EMULATED(cublasSswap, "vector swaps")
CUEMU_CUBLAS_NOT_EMULATED(cublasSrot, "plane rotations")
CUEMU_CUBLAS_NOT_EMULATED(cublasSrotg, "plane rotations")
CUEMU_CUBLAS_NOT_EMULATED(cublasDaxpy, "double precision")
CUEMU_CUBLAS_NOT_EMULATED(cublasDdot, "double precision")
CUEMU_CUBLAS_NOT_EMULATED(cublasDnrm2, "double precision")
CUEMU_CUBLAS_NOT_EMULATED(cublasDscal, "double precision")


// ---- library settings ------------------------------------------------------------------
CUEMU_CUBLAS_NOT_EMULATED(cublasSetWorkspace, "library settings")
CUEMU_CUBLAS_NOT_EMULATED(cublasSetAtomicsMode, "library settings")
CUEMU_CUBLAS_NOT_EMULATED(cublasLoggerConfigure, "library settings")

// ---- batched factorizations -----------------------------------------------------------
CUEMU_CUBLAS_NOT_EMULATED(cublasSgetrfBatched, "batched LU factorization")
CUEMU_CUBLAS_NOT_EMULATED(cublasSgetriBatched, "batched matrix inversion")
CUEMU_CUBLAS_NOT_EMULATED(cublasSmatinvBatched, "batched matrix inversion")
CUEMU_CUBLAS_NOT_EMULATED(cublasSgeqrfBatched, "batched QR factorization")
CUEMU_CUBLAS_NOT_EMULATED(cublasSgelsBatched, "batched least squares")

#undef CUEMU_CUBLAS_NOT_EMULATED
#endif
