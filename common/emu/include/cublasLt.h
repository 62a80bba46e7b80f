// <cublasLt.h> for emulator builds: the subset of cuBLASLt that a training
// program's matrix products use (llm.c's matmul_cublaslt is the model): the
// handle, matmul descriptors, matrix layouts, heuristic preferences, one
// heuristic answer, and cublasLtMatmul with its bias and GELU epilogues, done
// on the CPU by the system's BLAS in the stream's order (src/cublaslt*.cpp).
// Link it with `-lcublasLt` (or `-lcublas`) under bin/nvcc-emu, as with nvcc.
//
// Types, enum values and statuses are cuBLASLt 13's. Calls that report have
// two hidden trailing parameters (the caller's file and line), as in
// <cublas_v2.h>. The cuBLASLt calls outside the subset do not build:
// cuemu/cublaslt_not_emulated.h names them. Attribute values the emulator
// does not run (row-major orders, ReLU bit masks, FP8 scales, device pointer
// modes ...) are refused when set, with CUBLAS_STATUS_NOT_SUPPORTED and a
// line on stderr naming them.
#ifndef CUEMU_CUBLASLT_H
#define CUEMU_CUBLASLT_H

#include <cstddef>
#include <cstdint>

#include "cublas_v2.h"

struct cublasLtContext;
typedef struct cublasLtContext* cublasLtHandle_t;

// The descriptors are storage of the sizes cuBLASLt gives them (a program may
// copy them); the emulator keeps its own fields inside.
typedef struct {
    uint64_t data[8];
} cublasLtMatrixLayoutOpaque_t;
typedef cublasLtMatrixLayoutOpaque_t* cublasLtMatrixLayout_t;

typedef struct {
    uint64_t data[8];
} cublasLtMatmulAlgo_t;

typedef struct {
    uint64_t data[32];
} cublasLtMatmulDescOpaque_t;
typedef cublasLtMatmulDescOpaque_t* cublasLtMatmulDesc_t;

typedef struct {
    uint64_t data[8];
} cublasLtMatmulPreferenceOpaque_t;
typedef cublasLtMatmulPreferenceOpaque_t* cublasLtMatmulPreference_t;

typedef struct {
    uint64_t data[8];
} cublasLtMatrixTransformDescOpaque_t;
typedef cublasLtMatrixTransformDescOpaque_t* cublasLtMatrixTransformDesc_t;

// How a matrix is stored. Only CUBLASLT_ORDER_COL (column-major) is emulated.
typedef enum {
    CUBLASLT_ORDER_COL = 0,
    CUBLASLT_ORDER_ROW = 1,
    CUBLASLT_ORDER_COL32 = 2,
    CUBLASLT_ORDER_COL4_4R2_8C = 3,
    CUBLASLT_ORDER_COL32_2R_4R4 = 4
} cublasLtOrder_t;

typedef enum { CUBLASLT_BATCH_MODE_STRIDED = 0, CUBLASLT_BATCH_MODE_POINTER_ARRAY = 1 } cublasLtBatchMode_t;

// Layout attributes, each with the type its value has (cublasLtMatrixLayoutSetAttribute).
typedef enum {
    CUBLASLT_MATRIX_LAYOUT_TYPE = 0,                  // uint32_t, a cudaDataType
    CUBLASLT_MATRIX_LAYOUT_ORDER = 1,                 // int32_t, a cublasLtOrder_t
    CUBLASLT_MATRIX_LAYOUT_ROWS = 2,                  // uint64_t
    CUBLASLT_MATRIX_LAYOUT_COLS = 3,                  // uint64_t
    CUBLASLT_MATRIX_LAYOUT_LD = 4,                    // int64_t, elements between columns
    CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,           // int32_t
    CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6,  // int64_t, elements between matrices
    CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET = 7,          // int64_t, planar complex only
    CUBLASLT_MATRIX_LAYOUT_BATCH_MODE = 8             // uint32_t, a cublasLtBatchMode_t
} cublasLtMatrixLayoutAttribute_t;

typedef enum {
    CUBLASLT_POINTER_MODE_HOST = CUBLAS_POINTER_MODE_HOST,
    CUBLASLT_POINTER_MODE_DEVICE = CUBLAS_POINTER_MODE_DEVICE,
    CUBLASLT_POINTER_MODE_DEVICE_VECTOR = 2,
    CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO = 3,
    CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST = 4
} cublasLtPointerMode_t;

// Matmul descriptor attributes and the types of their values.
typedef enum {
    CUBLASLT_MATMUL_DESC_COMPUTE_TYPE = 0,                // int32_t, a cublasComputeType_t
    CUBLASLT_MATMUL_DESC_SCALE_TYPE = 1,                  // int32_t, a cudaDataType (alpha, beta)
    CUBLASLT_MATMUL_DESC_POINTER_MODE = 2,                // int32_t, a cublasLtPointerMode_t
    CUBLASLT_MATMUL_DESC_TRANSA = 3,                      // int32_t, a cublasOperation_t
    CUBLASLT_MATMUL_DESC_TRANSB = 4,                      // int32_t
    CUBLASLT_MATMUL_DESC_TRANSC = 5,                      // int32_t, CUBLAS_OP_N only
    CUBLASLT_MATMUL_DESC_FILL_MODE = 6,                   // int32_t
    CUBLASLT_MATMUL_DESC_EPILOGUE = 7,                    // uint32_t, a cublasLtEpilogue_t
    CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,                // void*, device memory
    CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE = 10,          // int64_t
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 11,       // void*, device memory
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 12,            // int64_t
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE = 13,  // int64_t
    CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE = 14,  // int64_t
    CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET = 15,            // int32_t
    CUBLASLT_MATMUL_DESC_A_SCALE_POINTER = 17,            // void*, FP8 scaling
    CUBLASLT_MATMUL_DESC_B_SCALE_POINTER = 18,
    CUBLASLT_MATMUL_DESC_C_SCALE_POINTER = 19,
    CUBLASLT_MATMUL_DESC_D_SCALE_POINTER = 20,
    CUBLASLT_MATMUL_DESC_AMAX_D_POINTER = 21,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE = 22,     // int32_t, a cudaDataType; -1: D's
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER = 23,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER = 24,
    CUBLASLT_MATMUL_DESC_FAST_ACCUM = 25,                 // int8_t
    CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26,             // int32_t, a cudaDataType; -1: D's
    CUBLASLT_MATMUL_DESC_A_SCALE_MODE = 31,
    CUBLASLT_MATMUL_DESC_B_SCALE_MODE = 32,
    CUBLASLT_MATMUL_DESC_C_SCALE_MODE = 33,
    CUBLASLT_MATMUL_DESC_D_SCALE_MODE = 34,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE = 35,
    CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER = 36,
    CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE = 37,
    CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR = 38
} cublasLtMatmulDescAttributes_t;

// What is done to alpha * op(A) op(B) + beta * C before it is stored in D.
// The values are bit sets, as in cuBLASLt (128: an auxiliary matrix, 4: a
// bias, 16: a bias gradient).
typedef enum {
    CUBLASLT_EPILOGUE_DEFAULT = 1,
    CUBLASLT_EPILOGUE_RELU = 2,
    CUBLASLT_EPILOGUE_RELU_AUX = 2 | 128,  // ReLU bit masks: not emulated
    CUBLASLT_EPILOGUE_BIAS = 4,
    CUBLASLT_EPILOGUE_RELU_BIAS = 2 | 4,
    CUBLASLT_EPILOGUE_RELU_AUX_BIAS = 2 | 128 | 4,  // not emulated
    CUBLASLT_EPILOGUE_DRELU = 8 | 128,              // not emulated
    CUBLASLT_EPILOGUE_DRELU_BGRAD = 8 | 128 | 16,   // not emulated
    CUBLASLT_EPILOGUE_GELU = 32,
    CUBLASLT_EPILOGUE_GELU_AUX = 32 | 128,
    CUBLASLT_EPILOGUE_GELU_BIAS = 32 | 4,
    CUBLASLT_EPILOGUE_GELU_AUX_BIAS = 32 | 128 | 4,
    CUBLASLT_EPILOGUE_DGELU = 64 | 128,
    CUBLASLT_EPILOGUE_DGELU_BGRAD = 64 | 128 | 16,
    CUBLASLT_EPILOGUE_BGRADA = 256,
    CUBLASLT_EPILOGUE_BGRADB = 512
} cublasLtEpilogue_t;

typedef enum { CUBLASLT_SEARCH_BEST_FIT = 0, CUBLASLT_SEARCH_LIMITED_BY_ALGO_ID = 1 } cublasLtMatmulSearch_t;

// Heuristic preferences: filters on which algorithms may be returned. The
// emulator has one algorithm, which needs no workspace and no alignment.
typedef enum {
    CUBLASLT_MATMUL_PREF_SEARCH_MODE = 0,            // uint32_t
    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,    // uint64_t
    CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = 3,  // uint32_t
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5,  // uint32_t
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6,  // uint32_t
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7,  // uint32_t
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8,  // uint32_t
    CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT = 9,        // float
    CUBLASLT_MATMUL_PREF_IMPL_MASK = 12              // uint64_t
} cublasLtMatmulPreferenceAttributes_t;

typedef struct {
    cublasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    cublasStatus_t state;
    float wavesCount;
    int reserved[4];
} cublasLtMatmulHeuristicResult_t;

#define CUEMU_CUBLASLT_CALLER const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()

// ---- the library and its handle (src/cublaslt.cpp) -------------------------------------
cublasStatus_t cublasLtCreate(cublasLtHandle_t* lightHandle, CUEMU_CUBLASLT_CALLER);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle, CUEMU_CUBLASLT_CALLER);
const char* cublasLtGetStatusName(cublasStatus_t status);
const char* cublasLtGetStatusString(cublasStatus_t status);
size_t cublasLtGetVersion(void);
size_t cublasLtGetCudartVersion(void);
cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int* value, CUEMU_CUBLASLT_CALLER);

// ---- descriptors (src/cublaslt.cpp) ----------------------------------------------------
// A Set or Get whose sizeInBytes is not the attribute's type's size, or an
// attribute cuBLASLt does not have, is CUBLAS_STATUS_INVALID_VALUE, as in
// cuBLASLt. A Get with sizeInBytes 0 writes the size needed to *sizeWritten.
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* matLayout, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld,
                                          CUEMU_CUBLASLT_CALLER);
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout, CUEMU_CUBLASLT_CALLER);
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
                                                cublasLtMatrixLayoutAttribute_t attr,
                                                const void* buf, size_t sizeInBytes,
                                                CUEMU_CUBLASLT_CALLER);
cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
                                                cublasLtMatrixLayoutAttribute_t attr, void* buf,
                                                size_t sizeInBytes, size_t* sizeWritten,
                                                CUEMU_CUBLASLT_CALLER);
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* matmulDesc,
                                        cublasComputeType_t computeType, cudaDataType_t scaleType,
                                        CUEMU_CUBLASLT_CALLER);
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc, CUEMU_CUBLASLT_CALLER);
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                              cublasLtMatmulDescAttributes_t attr, const void* buf,
                                              size_t sizeInBytes, CUEMU_CUBLASLT_CALLER);
cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                              cublasLtMatmulDescAttributes_t attr, void* buf,
                                              size_t sizeInBytes, size_t* sizeWritten,
                                              CUEMU_CUBLASLT_CALLER);
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref,
                                              CUEMU_CUBLASLT_CALLER);
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref,
                                               CUEMU_CUBLASLT_CALLER);
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void* buf, size_t sizeInBytes,
                                                    CUEMU_CUBLASLT_CALLER);
cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    void* buf, size_t sizeInBytes,
                                                    size_t* sizeWritten, CUEMU_CUBLASLT_CALLER);

// ---- the product (src/cublaslt_matmul.cpp) ---------------------------------------------
// One result when the emulator runs the product the descriptors describe
// (state CUBLAS_STATUS_SUCCESS, workspaceSize 0); CUBLAS_STATUS_NOT_SUPPORTED
// and a line saying why when it does not.
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle,
                                              cublasLtMatmulDesc_t operationDesc,
                                              cublasLtMatrixLayout_t Adesc,
                                              cublasLtMatrixLayout_t Bdesc,
                                              cublasLtMatrixLayout_t Cdesc,
                                              cublasLtMatrixLayout_t Ddesc,
                                              cublasLtMatmulPreference_t preference,
                                              int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                              int* returnAlgoCount, CUEMU_CUBLASLT_CALLER);
// D = epilogue(alpha * op(A) op(B) + beta * C), queued on `stream`.
cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                              const void* alpha, const void* A, cublasLtMatrixLayout_t Adesc,
                              const void* B, cublasLtMatrixLayout_t Bdesc, const void* beta,
                              const void* C, cublasLtMatrixLayout_t Cdesc, void* D,
                              cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t* algo,
                              void* workspace, size_t workspaceSizeInBytes, cudaStream_t stream,
                              CUEMU_CUBLASLT_CALLER);

#undef CUEMU_CUBLASLT_CALLER

#include "cuemu/cublaslt_not_emulated.h"

#endif
