// <cublas_v2.h> for emulator builds: a subset of cuBLAS, done on the CPU by
// the system's BLAS (OpenBLAS on Debian) in the emulated device's stream order
// (src/cublas.cpp). Link it with `tutorial_lesson(... LIBRARIES cublas)`, or
// `-lcublas` with bin/nvcc-emu, as with nvcc.
//
// Types, enum values, status codes and the `_v2` names behind the usual ones
// are cuBLAS 13's. Every call of the subset has two hidden trailing parameters
// (the caller's file and line) so that a report can name the call. A cuBLAS
// call outside the subset does not build: cuemu/cublas_not_emulated.h names it.
#ifndef CUEMU_CUBLAS_V2_H
#define CUEMU_CUBLAS_V2_H
#define CUBLAS_V2_H_  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include "cuemu/cuemu.h"
#include "cuda_bf16.h"  // as the toolkit's cublas_api.h does: programs use __nv_bfloat16 with cuBLAS alone
#include "cuda_fp16.h"
#include "library_types.h"

#define CUBLAS_VER_MAJOR 13
#define CUBLAS_VER_MINOR 1
#define CUBLAS_VER_PATCH 0
#define CUBLAS_VER_BUILD 3
#define CUBLAS_VERSION (CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH)
// The real <cublas_api.h>'s guard, which helper headers test before they
// define their cuBLAS error strings (the CUDA samples' helper_cuda.h).
#define CUBLAS_API_H_

typedef enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_ARCH_MISMATCH = 8,
    CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_INTERNAL_ERROR = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;

typedef enum {
    CUBLAS_OP_N = 0,
    CUBLAS_OP_T = 1,
    CUBLAS_OP_C = 2,
    CUBLAS_OP_HERMITAN = 2,
    CUBLAS_OP_CONJG = 3
} cublasOperation_t;

typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;

// Tensor-core permissions of a handle (cublasSetMathMode). cuemu computes
// every float product in float whatever the mode: it never rounds inputs to
// TF32, half or bfloat16 (common/emu/README.md, "cuBLAS").
typedef enum {
    CUBLAS_DEFAULT_MATH = 0,
    CUBLAS_TENSOR_OP_MATH = 1,  // deprecated by cuBLAS: CUBLAS_COMPUTE_32F_FAST_16F
    CUBLAS_PEDANTIC_MATH = 2,
    CUBLAS_TF32_TENSOR_OP_MATH = 3,
    CUBLAS_FP32_EMULATED_BF16X9_MATH = 4,
    CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH = 8,
    CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16  // a flag, or-ed with one of the above
} cublasMath_t;

// The arithmetic of a cublasGemmEx: the type of the sums, and whether the
// library may round float inputs to a narrower format first (FAST_*).
typedef enum {
    CUBLAS_COMPUTE_16F = 64,
    CUBLAS_COMPUTE_16F_PEDANTIC = 65,
    CUBLAS_COMPUTE_32F = 68,
    CUBLAS_COMPUTE_32F_PEDANTIC = 69,
    CUBLAS_COMPUTE_32F_FAST_16F = 74,
    CUBLAS_COMPUTE_32F_FAST_16BF = 75,
    CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
    CUBLAS_COMPUTE_32F_EMULATED_16BFX9 = 78,
    CUBLAS_COMPUTE_64F = 70,
    CUBLAS_COMPUTE_64F_PEDANTIC = 71,
    CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT = 79,
    CUBLAS_COMPUTE_32I = 72,
    CUBLAS_COMPUTE_32I_PEDANTIC = 73
} cublasComputeType_t;

typedef cudaDataType cublasDataType_t;  // the older name, kept by cuBLAS

// Which kernel cublasGemmEx should use. The emulator has one way of computing
// and accepts each value below; DEFAULT lets a GPU's cuBLAS choose (tensor cores
// where the types allow), the _TENSOR_OP values are kept for old code.
typedef enum {
    CUBLAS_GEMM_DFALT = -1,
    CUBLAS_GEMM_DEFAULT = -1,
    CUBLAS_GEMM_ALGO0 = 0,
    CUBLAS_GEMM_ALGO1 = 1,
    CUBLAS_GEMM_ALGO2 = 2,
    CUBLAS_GEMM_ALGO3 = 3,
    CUBLAS_GEMM_ALGO4 = 4,
    CUBLAS_GEMM_ALGO5 = 5,
    CUBLAS_GEMM_ALGO6 = 6,
    CUBLAS_GEMM_ALGO7 = 7,
    CUBLAS_GEMM_ALGO8 = 8,
    CUBLAS_GEMM_ALGO9 = 9,
    CUBLAS_GEMM_ALGO10 = 10,
    CUBLAS_GEMM_ALGO11 = 11,
    CUBLAS_GEMM_ALGO12 = 12,
    CUBLAS_GEMM_ALGO13 = 13,
    CUBLAS_GEMM_ALGO14 = 14,
    CUBLAS_GEMM_ALGO15 = 15,
    CUBLAS_GEMM_ALGO16 = 16,
    CUBLAS_GEMM_ALGO17 = 17,
    CUBLAS_GEMM_ALGO18 = 18,
    CUBLAS_GEMM_ALGO19 = 19,
    CUBLAS_GEMM_ALGO20 = 20,
    CUBLAS_GEMM_ALGO21 = 21,
    CUBLAS_GEMM_ALGO22 = 22,
    CUBLAS_GEMM_ALGO23 = 23,
    CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99,
    CUBLAS_GEMM_DFALT_TENSOR_OP = 99,
    CUBLAS_GEMM_ALGO0_TENSOR_OP = 100,
    CUBLAS_GEMM_ALGO1_TENSOR_OP = 101,
    CUBLAS_GEMM_ALGO2_TENSOR_OP = 102,
    CUBLAS_GEMM_ALGO3_TENSOR_OP = 103,
    CUBLAS_GEMM_ALGO4_TENSOR_OP = 104,
    CUBLAS_GEMM_ALGO5_TENSOR_OP = 105,
    CUBLAS_GEMM_ALGO6_TENSOR_OP = 106,
    CUBLAS_GEMM_ALGO7_TENSOR_OP = 107,
    CUBLAS_GEMM_ALGO8_TENSOR_OP = 108,
    CUBLAS_GEMM_ALGO9_TENSOR_OP = 109,
    CUBLAS_GEMM_ALGO10_TENSOR_OP = 110,
    CUBLAS_GEMM_ALGO11_TENSOR_OP = 111,
    CUBLAS_GEMM_ALGO12_TENSOR_OP = 112,
    CUBLAS_GEMM_ALGO13_TENSOR_OP = 113,
    CUBLAS_GEMM_ALGO14_TENSOR_OP = 114,
    CUBLAS_GEMM_ALGO15_TENSOR_OP = 115,
    CUBLAS_GEMM_AUTOTUNE = 999
} cublasGemmAlgo_t;

struct cublasContext;
typedef struct cublasContext* cublasHandle_t;

// The real header maps the usual names to the `_v2` entry points; so does this one.
#define cublasCreate cublasCreate_v2
#define cublasDestroy cublasDestroy_v2
#define cublasSetStream cublasSetStream_v2
#define cublasGetStream cublasGetStream_v2
#define cublasSetPointerMode cublasSetPointerMode_v2
#define cublasGetPointerMode cublasGetPointerMode_v2
#define cublasSgemm cublasSgemm_v2
#define cublasDgemm cublasDgemm_v2
#define cublasSgemv cublasSgemv_v2
#define cublasSaxpy cublasSaxpy_v2
#define cublasSdot cublasSdot_v2
#define cublasSnrm2 cublasSnrm2_v2
#define cublasSscal cublasSscal_v2
#define cublasGetVersion cublasGetVersion_v2

#define CUEMU_CUBLAS_CALLER const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()

// ---- the library and its handle ------------------------------------------------------
cublasStatus_t cublasCreate_v2(cublasHandle_t* handle, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t* stream, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode,
                                       CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t* mode,
                                       CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode, CUEMU_CUBLAS_CALLER);
const char* cublasGetStatusName(cublasStatus_t status);
const char* cublasGetStatusString(cublasStatus_t status);
cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int* version, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value, CUEMU_CUBLAS_CALLER);

// ---- copies between host and device (src/cublas_copies.cpp) ---------------------------
// Strided copies, as cudaMemcpy2D (cudaMemcpy2DAsync on the stream given):
// a vector of n elements, inc elements apart; a matrix of cols columns of
// rows elements, leading dimension ld. x and A are the source, y and B the
// destination (device for Set, host for Get).
cublasStatus_t cublasSetVector(int n, int elemSize, const void* x, int incx, void* y, int incy,
                               CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasGetVector(int n, int elemSize, const void* x, int incx, void* y, int incy,
                               CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void* A, int lda, void* B,
                               int ldb, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void* A, int lda, void* B,
                               int ldb, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void* x, int incx, void* y, int incy,
                                    cudaStream_t stream, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void* x, int incx, void* y, int incy,
                                    cudaStream_t stream, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void* A, int lda,
                                    void* B, int ldb, cudaStream_t stream, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void* A, int lda,
                                    void* B, int ldb, cudaStream_t stream, CUEMU_CUBLAS_CALLER);

// ---- level 3: matrix products (column-major, as every BLAS) ---------------------------
cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                              cublasOperation_t transb, int m, int n, int k, const float* alpha,
                              const float* A, int lda, const float* B, int ldb, const float* beta,
                              float* C, int ldc, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                              cublasOperation_t transb, int m, int n, int k, const double* alpha,
                              const double* A, int lda, const double* B, int ldb,
                              const double* beta, double* C, int ldc, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const float* alpha, const float* A, int lda,
                                         long long int strideA, const float* B, int ldb,
                                         long long int strideB, const float* beta, float* C,
                                         int ldc, long long int strideC, int batchCount,
                                         CUEMU_CUBLAS_CALLER);

cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const double* alpha, const double* A, int lda,
                                         long long int strideA, const double* B, int ldb,
                                         long long int strideB, const double* beta, double* C,
                                         int ldc, long long int strideC, int batchCount,
                                         CUEMU_CUBLAS_CALLER);
// Batches named by arrays of device pointers, themselves in device memory:
// read when the work runs, in stream order, each matrix checked then.
cublasStatus_t cublasSgemmBatched(cublasHandle_t handle, cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n, int k, const float* alpha,
                                  const float* const Aarray[], int lda, const float* const Barray[],
                                  int ldb, const float* beta, float* const Carray[], int ldc,
                                  int batchCount, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasDgemmBatched(cublasHandle_t handle, cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n, int k, const double* alpha,
                                  const double* const Aarray[], int lda, const double* const Barray[],
                                  int ldb, const double* beta, double* const Carray[], int ldc,
                                  int batchCount, CUEMU_CUBLAS_CALLER);

// Mixed precision (src/cublas_gemm_ex.cpp): A, B and C of the types named, the
// sums of computeType; alpha and beta are float for the CUBLAS_COMPUTE_32F
// kinds, double for CUBLAS_COMPUTE_64F, half for CUBLAS_COMPUTE_16F. The
// combinations cuBLAS supports for real numbers are done, except integers;
// any other is CUBLAS_STATUS_NOT_SUPPORTED with a line saying why.
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void* alpha,
                            const void* A, cudaDataType Atype, int lda, const void* B,
                            cudaDataType Btype, int ldb, const void* beta, void* C,
                            cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                          cublasOperation_t transb, int m, int n, int k,
                                          const void* alpha, const void* A, cudaDataType Atype,
                                          int lda, long long int strideA, const void* B,
                                          cudaDataType Btype, int ldb, long long int strideB,
                                          const void* beta, void* C, cudaDataType Ctype, int ldc,
                                          long long int strideC, int batchCount,
                                          cublasComputeType_t computeType, cublasGemmAlgo_t algo,
                                          CUEMU_CUBLAS_CALLER);

// Code written before CUDA 11 passes a cudaDataType as computeType (CUDA_R_32F
// for float sums). cuBLAS's C++ header still takes it, turning the type into a
// cublasComputeType_t, the _PEDANTIC kind when the handle's math mode is
// CUBLAS_PEDANTIC_MATH; so does this one.
namespace cuemu {
inline cublasStatus_t compute_type_of(cublasHandle_t handle, cudaDataType sums,
                                      cublasComputeType_t* compute) {
    cublasMath_t mode = CUBLAS_DEFAULT_MATH;
    if (cublasStatus_t status = cublasGetMathMode(handle, &mode)) return status;
    const bool pedantic =
        (mode & ~CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION) == CUBLAS_PEDANTIC_MATH;
    switch (sums) {
        case CUDA_R_16F: *compute = pedantic ? CUBLAS_COMPUTE_16F_PEDANTIC : CUBLAS_COMPUTE_16F; break;
        case CUDA_R_32F:
        case CUDA_C_32F: *compute = pedantic ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_32F; break;
        case CUDA_R_64F:
        case CUDA_C_64F: *compute = pedantic ? CUBLAS_COMPUTE_64F_PEDANTIC : CUBLAS_COMPUTE_64F; break;
        case CUDA_R_32I: *compute = pedantic ? CUBLAS_COMPUTE_32I_PEDANTIC : CUBLAS_COMPUTE_32I; break;
        default: return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    return CUBLAS_STATUS_SUCCESS;
}
}  // namespace cuemu
inline cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                   cublasOperation_t transb, int m, int n, int k,
                                   const void* alpha, const void* A, cudaDataType Atype, int lda,
                                   const void* B, cudaDataType Btype, int ldb, const void* beta,
                                   void* C, cudaDataType Ctype, int ldc, cudaDataType computeType,
                                   cublasGemmAlgo_t algo, CUEMU_CUBLAS_CALLER) {
    cublasComputeType_t compute;
    if (cublasStatus_t status = cuemu::compute_type_of(handle, computeType, &compute)) return status;
    return cublasGemmEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta,
                        C, Ctype, ldc, compute, algo, cuemu_file, cuemu_line);
}
inline cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void* alpha, const void* A, cudaDataType Atype, int lda, long long int strideA,
    const void* B, cudaDataType Btype, int ldb, long long int strideB, const void* beta, void* C,
    cudaDataType Ctype, int ldc, long long int strideC, int batchCount, cudaDataType computeType,
    cublasGemmAlgo_t algo, CUEMU_CUBLAS_CALLER) {
    cublasComputeType_t compute;
    if (cublasStatus_t status = cuemu::compute_type_of(handle, computeType, &compute)) return status;
    return cublasGemmStridedBatchedEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA,
                                      B, Btype, ldb, strideB, beta, C, Ctype, ldc, strideC,
                                      batchCount, compute, algo, cuemu_file, cuemu_line);
}

// ---- level 2 and level 1 ------------------------------------------------------------------
cublasStatus_t cublasSgemv_v2(cublasHandle_t handle, cublasOperation_t trans, int m, int n,
                              const float* alpha, const float* A, int lda, const float* x,
                              int incx, const float* beta, float* y, int incy,
                              CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasSaxpy_v2(cublasHandle_t handle, int n, const float* alpha, const float* x,
                              int incx, float* y, int incy, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasSdot_v2(cublasHandle_t handle, int n, const float* x, int incx,
                             const float* y, int incy, float* result, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasSnrm2_v2(cublasHandle_t handle, int n, const float* x, int incx,
                              float* result, CUEMU_CUBLAS_CALLER);
cublasStatus_t cublasSscal_v2(cublasHandle_t handle, int n, const float* alpha, float* x,
                              int incx, CUEMU_CUBLAS_CALLER);

#undef CUEMU_CUBLAS_CALLER

#include "cuemu/cublas_not_emulated.h"

#endif
