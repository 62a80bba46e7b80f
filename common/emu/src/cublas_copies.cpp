// cublas_copies.cpp - cuBLAS's helper copies between host and device
// (cublasSetVector, cublasGetVector, cublasSetMatrix, cublasGetMatrix and
// their Async forms) and the library's version (cublasGetVersion,
// cublasGetProperty).
//
// A copy is a strided 2D copy: a vector is n rows of one element, inc
// elements apart; a matrix is cols columns of rows elements, ld elements
// apart. So each one is cudaMemcpy2D (or cudaMemcpy2DAsync on the stream
// given), with the emulator's checks of both sides. cuBLAS refuses a negative
// size, a zero or negative element size, leading dimension or increment with
// CUBLAS_STATUS_INVALID_VALUE (measured with the toolkit's libcublas), and
// turns a copy that fails into CUBLAS_STATUS_MAPPING_ERROR; so does this.
#include <cstdio>

#include "cublas_internal.h"

namespace {

void refuse(const char* call, const char* file, int line, const char* why) {
    std::fprintf(stderr, "cuemu: %s at %s:%d: %s\n  %s returns CUBLAS_STATUS_INVALID_VALUE, as cuBLAS does\n",
                 call, file, line, why, call);
}

// count strided elements of `element` bytes from `from` (every from_step
// elements) to `to` (every to_step elements); kind says which way.
cublasStatus_t strided_copy(const char* call, const char* file, int line, int count, int runs,
                            int element, const void* from, int from_step, void* to, int to_step,
                            cudaMemcpyKind kind, bool async, cudaStream_t stream) {
    if (count == 0 || runs == 0) return CUBLAS_STATUS_SUCCESS;
    const std::size_t width = static_cast<std::size_t>(count) * element;
    const std::size_t from_pitch = static_cast<std::size_t>(from_step) * element;
    const std::size_t to_pitch = static_cast<std::size_t>(to_step) * element;
    const cudaError_t e = async ? cudaMemcpy2DAsync(to, to_pitch, from, from_pitch, width, runs, kind, stream)
                                : cudaMemcpy2D(to, to_pitch, from, from_pitch, width, runs, kind);
    if (e == cudaSuccess) return CUBLAS_STATUS_SUCCESS;
    std::fprintf(stderr, "cuemu: %s at %s:%d: the copy failed (%s: %s)\n  %s returns CUBLAS_STATUS_MAPPING_ERROR\n",
                 call, file, line, cudaGetErrorName(e), cudaGetErrorString(e), call);
    return CUBLAS_STATUS_MAPPING_ERROR;
}

cublasStatus_t vector_copy(const char* call, const char* file, int line, int n, int element,
                           const void* from, int from_inc, void* to, int to_inc, cudaMemcpyKind kind,
                           bool async, cudaStream_t stream) {
    if (element <= 0 || from_inc <= 0 || to_inc <= 0) {
        refuse(call, file, line, "elemSize and both increments must be positive");
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (n < 0) {  // not refused by cuBLAS: its copy fails
        std::fprintf(stderr, "cuemu: %s at %s:%d: n = %d is negative\n  %s returns CUBLAS_STATUS_MAPPING_ERROR, as cuBLAS does\n",
                     call, file, line, n, call);
        return CUBLAS_STATUS_MAPPING_ERROR;
    }
    // n rows of one element each, inc elements apart.
    return strided_copy(call, file, line, 1, n, element, from, from_inc, to, to_inc, kind, async, stream);
}

cublasStatus_t matrix_copy(const char* call, const char* file, int line, int rows, int cols,
                           int element, const void* from, int from_ld, void* to, int to_ld,
                           cudaMemcpyKind kind, bool async, cudaStream_t stream) {
    if (rows < 0 || cols < 0 || element <= 0 || from_ld <= 0 || to_ld <= 0) {
        refuse(call, file, line, "rows and cols cannot be negative; elemSize, lda and ldb must be positive");
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    // cols columns of rows elements, ld elements apart (a leading dimension
    // below rows makes the copy itself fail, as in cuBLAS).
    return strided_copy(call, file, line, rows, cols, element, from, from_ld, to, to_ld, kind, async, stream);
}

}  // namespace

cublasStatus_t cublasSetVector(int n, int elemSize, const void* x, int incx, void* y, int incy,
                               const char* file, int line) {
    return vector_copy("cublasSetVector", file, line, n, elemSize, x, incx, y, incy,
                       cudaMemcpyHostToDevice, false, nullptr);
}
cublasStatus_t cublasGetVector(int n, int elemSize, const void* x, int incx, void* y, int incy,
                               const char* file, int line) {
    return vector_copy("cublasGetVector", file, line, n, elemSize, x, incx, y, incy,
                       cudaMemcpyDeviceToHost, false, nullptr);
}
cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void* A, int lda, void* B,
                               int ldb, const char* file, int line) {
    return matrix_copy("cublasSetMatrix", file, line, rows, cols, elemSize, A, lda, B, ldb,
                       cudaMemcpyHostToDevice, false, nullptr);
}
cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void* A, int lda, void* B,
                               int ldb, const char* file, int line) {
    return matrix_copy("cublasGetMatrix", file, line, rows, cols, elemSize, A, lda, B, ldb,
                       cudaMemcpyDeviceToHost, false, nullptr);
}
cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void* x, int incx, void* y, int incy,
                                    cudaStream_t stream, const char* file, int line) {
    return vector_copy("cublasSetVectorAsync", file, line, n, elemSize, x, incx, y, incy,
                       cudaMemcpyHostToDevice, true, stream);
}
cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void* x, int incx, void* y, int incy,
                                    cudaStream_t stream, const char* file, int line) {
    return vector_copy("cublasGetVectorAsync", file, line, n, elemSize, x, incx, y, incy,
                       cudaMemcpyDeviceToHost, true, stream);
}
cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void* A, int lda,
                                    void* B, int ldb, cudaStream_t stream, const char* file, int line) {
    return matrix_copy("cublasSetMatrixAsync", file, line, rows, cols, elemSize, A, lda, B, ldb,
                       cudaMemcpyHostToDevice, true, stream);
}
cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void* A, int lda,
                                    void* B, int ldb, cudaStream_t stream, const char* file, int line) {
    return matrix_copy("cublasGetMatrixAsync", file, line, rows, cols, elemSize, A, lda, B, ldb,
                       cudaMemcpyDeviceToHost, true, stream);
}

// ---- the library's version --------------------------------------------------------------
// The handle is not looked at: cuBLAS 13 answers CUBLAS_STATUS_SUCCESS and the
// version for a null handle (measured on an H200).
cublasStatus_t cublasGetVersion_v2(cublasHandle_t, int* version, const char*, int) {
    if (!version) return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value, const char*, int) {
    if (!value) return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
        case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
        case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
        case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_INVALID_VALUE;
}
