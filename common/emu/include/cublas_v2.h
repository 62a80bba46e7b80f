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

#include "cuemu/cuemu.h"

#define CUBLAS_VER_MAJOR 13
#define CUBLAS_VER_MINOR 1
#define CUBLAS_VER_PATCH 0
#define CUBLAS_VER_BUILD 3
#define CUBLAS_VERSION (CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH)

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
const char* cublasGetStatusName(cublasStatus_t status);
const char* cublasGetStatusString(cublasStatus_t status);

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
