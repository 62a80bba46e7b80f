// cublas.cpp - the emulator's cuBLAS subset (include/cublas_v2.h): handles,
// statuses, and each call checked as cuBLAS checks it, then queued on the
// handle's stream and done by the system's BLAS (cblas_*, OpenBLAS on Debian)
// on the device thread, where device memory is open. This file owns what a
// cuBLAS call does, except cublasGemmEx and its batched form
// (cublas_gemm_ex.cpp); cublas_operands.cpp owns whether its pointers are
// device memory, and the report when they are not.
//
// Decisions:
//   - Stream order: a call is one piece of device work (queue.cpp), so it runs
//     after the launches and copies issued before it and before those issued
//     after it, and cudaStreamSynchronize / cudaDeviceSynchronize wait for it.
//   - beta == 0: cuBLAS documents that C (or y) need not hold valid numbers
//     then. Some BLAS builds compute beta * C, and 0 * NaN is NaN, so C is set
//     to zero here first and never read.
//   - A call made after a sticky error (a kernel that faulted) returns
//     CUBLAS_STATUS_EXECUTION_FAILED, which is what cuBLAS answers when its own
//     kernel cannot be launched.
//   - Scalar results (cublasSdot, cublasSnrm2) in host pointer mode: the call
//     waits for its work, as cuBLAS does, and writes the result on the host. A
//     null result pointer there is CUBLAS_STATUS_MAPPING_ERROR, the status of
//     cuBLAS's failed copy of the result (measured on an H200).
//   - cublasSgemv takes incx = 0, as cuBLAS does (measured on an H200): every
//     element of x is then x[0]. incy = 0 is refused with a line: every
//     element of y would be written at one address, which on a GPU is a race
//     between the threads that write them.
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "cublas_internal.h"
#include "internal.h"

// ---- the C interface of BLAS (declared here: any BLAS that CMake's FindBLAS finds
// has it, and its header lives in a different place in each) ---------------------------
extern "C" {
enum { cuemu_cblas_col_major = 102, cuemu_cblas_no_trans = 111, cuemu_cblas_trans = 112 };
void cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
void cblas_dgemm(int order, int transa, int transb, int m, int n, int k, double alpha,
                 const double* a, int lda, const double* b, int ldb, double beta, double* c,
                 int ldc);
void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float* a, int lda,
                 const float* x, int incx, float beta, float* y, int incy);
void cblas_saxpy(int n, float alpha, const float* x, int incx, float* y, int incy);
float cblas_sdot(int n, const float* x, int incx, const float* y, int incy);
float cblas_snrm2(int n, const float* x, int incx);
void cblas_sscal(int n, float alpha, float* x, int incx);
}

using namespace cuemu::detail;
using namespace cuemu::cublas_detail;

namespace {

std::mutex handles_mutex;
std::unordered_set<cublasContext*> live_handles;

bool valid_op(cublasOperation_t op) {
    return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}
// For real numbers the conjugate transpose is the transpose.
int cblas_op(cublasOperation_t op) {
    return op == CUBLAS_OP_N ? cuemu_cblas_no_trans : cuemu_cblas_trans;
}
int at_least_1(int v) { return v > 1 ? v : 1; }

// C (m x n, leading dimension ldc) set to zero, for beta == 0.
template <class T>
void zero_matrix(T* c, int m, int n, int ldc) {
    for (int j = 0; j < n; ++j) std::memset(c + static_cast<std::size_t>(j) * ldc, 0, sizeof(T) * m);
}

}  // namespace

namespace cuemu::cublas_detail {

// CUBLAS_STATUS_NOT_INITIALIZED for a null handle (cuBLAS's own check, made
// before any other) and for one cublasDestroy already released (undefined in
// cuBLAS; the emulator says so).
cublasStatus_t check_handle(cublasHandle_t handle, const call_site& at) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    std::lock_guard<std::mutex> lock(handles_mutex);
    if (live_handles.count(handle)) return CUBLAS_STATUS_SUCCESS;
    std::fprintf(stderr,
                 "cuemu: %s at %s:%d: the handle is not a live cuBLAS handle (destroyed with "
                 "cublasDestroy, or never made by cublasCreate)\n"
                 "  %s returns CUBLAS_STATUS_NOT_INITIALIZED\n",
                 at.call, at.file, at.line, at.call);
    return CUBLAS_STATUS_NOT_INITIALIZED;
}

// Refused (EXECUTION_FAILED, as a failed launch inside cuBLAS) after a sticky
// error or on a destroyed stream.
cublasStatus_t submit(cublasHandle_t handle, const call_site& at, device_work work,
                      std::uint64_t* seq) {
    if (context_status() != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
    if (!is_valid_stream(handle->stream)) {
        std::fprintf(stderr,
                     "cuemu: %s at %s:%d: the handle's stream (cublasSetStream) was destroyed\n"
                     "  %s returns CUBLAS_STATUS_EXECUTION_FAILED\n",
                     at.call, at.file, at.line, at.call);
        return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    std::uint64_t s = enqueue(handle->stream, std::move(work));
    if (seq) *seq = s;
    return CUBLAS_STATUS_SUCCESS;
}

// An operation outside the enumeration (a program's mistake: 5) is read as
// the number it is; loading it from memory as a cublasOperation_t would be
// undefined behaviour (UBSan's enum check says so).
cublasOperation_t op_as_stored(const cublasOperation_t& op) {
    static_assert(sizeof(cublasOperation_t) == sizeof(int));
    int value;
    std::memcpy(&value, &op, sizeof value);
    return static_cast<cublasOperation_t>(value);
}

bool valid_gemm_arguments(const call_site& at, const gemm_shape& s, const void* alpha,
                          const void* beta) {
    const cublasOperation_t transa = op_as_stored(s.transa), transb = op_as_stored(s.transb);
    if (valid_op(transa) && valid_op(transb) && s.m >= 0 && s.n >= 0 && s.k >= 0 &&
        s.batch >= 0 && s.lda >= at_least_1(s.rows_a()) && s.ldb >= at_least_1(s.rows_b()) &&
        s.ldc >= at_least_1(s.m) && alpha && beta)
        return true;
    explain_invalid_gemm(at, transa, transb, s.m, s.n, s.k, s.lda, s.ldb, s.ldc, s.batch,
                         !alpha || !beta);
    return false;
}

bool gemm_operands_on_device(operand_checks& checks, const gemm_shape& s, const void* A,
                             std::size_t a_element, const void* B, std::size_t b_element,
                             const void* C, std::size_t c_element) {
    const bool reads_ab = s.k > 0;
    return (!reads_ab || checks.matrix("A", A, a_element, s.rows_a(), s.cols_a(), s.lda,
                                       s.stride_a, s.batch)) &&
           (!reads_ab || checks.matrix("B", B, b_element, s.rows_b(), s.cols_b(), s.ldb,
                                       s.stride_b, s.batch)) &&
           checks.matrix("C", C, c_element, s.m, s.n, s.ldc, s.stride_c, s.batch);
}

void blas_gemm(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, float alpha,
               const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc) {
    if (beta == 0.0f) zero_matrix(c, m, n, ldc);
    cblas_sgemm(cuemu_cblas_col_major, cblas_op(transa), cblas_op(transb), m, n, k, alpha, a, lda,
                b, ldb, beta, c, ldc);
}
void blas_gemm(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
               double alpha, const double* a, int lda, const double* b, int ldb, double beta,
               double* c, int ldc) {
    if (beta == 0.0) zero_matrix(c, m, n, ldc);
    cblas_dgemm(cuemu_cblas_col_major, cblas_op(transa), cblas_op(transb), m, n, k, alpha, a, lda,
                b, ldb, beta, c, ldc);
}

void note_matrix_written(const void* c, std::size_t element, int m, int n, int ld) {
    for (int j = 0; j < n; ++j)
        note_device_write(static_cast<const char*>(c) + static_cast<std::size_t>(j) * ld * element,
                          element * m);
}

}  // namespace cuemu::cublas_detail

namespace {

// Sgemm, Dgemm and SgemmStridedBatched (batch 1 and zero strides for the first two).
template <class T>
cublasStatus_t gemm(const call_site& at, cublasHandle_t handle, const gemm_shape& s,
                    const T* alpha, const T* A, const T* B, const T* beta, T* C) {
    if (cublasStatus_t status = check_handle(handle, at)) return status;
    if (!valid_gemm_arguments(at, s, alpha, beta)) return CUBLAS_STATUS_INVALID_VALUE;
    if (s.empty()) return CUBLAS_STATUS_SUCCESS;
    operand_checks checks(at);
    scalar_arg<T> a_scalar, b_scalar;
    const bool fine = take_scalar(handle, alpha, "alpha", checks, &a_scalar) &&
                      take_scalar(handle, beta, "beta", checks, &b_scalar) &&
                      gemm_operands_on_device(checks, s, A, sizeof(T), B, sizeof(T), C, sizeof(T));
    if (!fine) return submit(handle, at, checks.failed_work());
    return submit(handle, at, [=](std::uint64_t) {
        const T a = a_scalar.get(), b = b_scalar.get();
        for (int i = 0; i < s.batch; ++i) {
            T* c = C + i * s.stride_c;
            blas_gemm(s.transa, s.transb, s.m, s.n, s.k, a, A + i * s.stride_a, s.lda,
                      B + i * s.stride_b, s.ldb, b, c, s.ldc);
            note_matrix_written(c, sizeof(T), s.m, s.n, s.ldc);
        }
        return cudaSuccess;
    });
}

// SgemmBatched, DgemmBatched: the batch's matrices are named by arrays of
// device pointers in device memory. A program may still be filling the arrays
// earlier on the stream, so they are read when the work runs, and each matrix
// is checked there, as a kernel's loads would be.
template <class T>
cublasStatus_t gemm_batched(const call_site& at, cublasHandle_t handle, const gemm_shape& s,
                            const T* alpha, const T* const* A, const T* const* B, const T* beta,
                            T* const* C) {
    if (cublasStatus_t status = check_handle(handle, at)) return status;
    if (!valid_gemm_arguments(at, s, alpha, beta)) return CUBLAS_STATUS_INVALID_VALUE;
    if (s.empty()) return CUBLAS_STATUS_SUCCESS;
    operand_checks checks(at);
    scalar_arg<T> a_scalar, b_scalar;
    const bool reads_ab = s.k > 0;
    const std::size_t bytes = sizeof(void*) * static_cast<std::size_t>(s.batch);
    const std::string shape = std::to_string(s.batch) + " pointers (batchCount)";
    const bool fine =
        take_scalar(handle, alpha, "alpha", checks, &a_scalar) &&
        take_scalar(handle, beta, "beta", checks, &b_scalar) &&
        (!reads_ab || checks.device("Aarray", "array of pointers", A, bytes, shape)) &&
        (!reads_ab || checks.device("Barray", "array of pointers", B, bytes, shape)) &&
        checks.device("Carray", "array of pointers", C, bytes, shape);
    if (!fine) return submit(handle, at, checks.failed_work());
    return submit(handle, at, [=](std::uint64_t seq) {
        const T a = a_scalar.get(), b = b_scalar.get();
        gemm_shape one = s;
        one.batch = 1;
        for (int i = 0; i < s.batch; ++i) {
            const T* a_i = reads_ab ? A[i] : nullptr;
            const T* b_i = reads_ab ? B[i] : nullptr;
            T* c_i = C[i];
            operand_checks matrix_checks(at);
            const std::string index = "[" + std::to_string(i) + "]";
            const std::string a_name = "Aarray" + index, b_name = "Barray" + index,
                              c_name = "Carray" + index;
            const bool on_device =
                (!reads_ab || matrix_checks.matrix(a_name.c_str(), a_i, sizeof(T), s.rows_a(),
                                                   s.cols_a(), s.lda, 0, 1)) &&
                (!reads_ab || matrix_checks.matrix(b_name.c_str(), b_i, sizeof(T), s.rows_b(),
                                                   s.cols_b(), s.ldb, 0, 1)) &&
                matrix_checks.matrix(c_name.c_str(), c_i, sizeof(T), s.m, s.n, s.ldc, 0, 1);
            if (!on_device) return matrix_checks.failed_work()(seq);
            blas_gemm(s.transa, s.transb, s.m, s.n, s.k, a, a_i, s.lda, b_i, s.ldb, b, c_i, s.ldc);
            note_matrix_written(c_i, sizeof(T), s.m, s.n, s.ldc);
        }
        return cudaSuccess;
    });
}

// A scalar result (dot, nrm2): computed by the device thread, delivered to the
// host (the call waits) or to device memory, by pointer mode.
cublasStatus_t scalar_result(const call_site& at, cublasHandle_t handle, float* result,
                             operand_checks& checks, std::function<float()> compute) {
    if (handle->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) {
        if (!checks.device("result", "scalar", result, sizeof(float), "one element"))
            return submit(handle, at, checks.failed_work());
        return submit(handle, at, [=](std::uint64_t) {
            *result = compute();
            note_device_write(result, sizeof(float));
            return cudaSuccess;
        });
    }
    auto value = std::make_shared<float>(0.0f);
    std::uint64_t seq = 0;
    if (cublasStatus_t s = submit(handle, at, [=](std::uint64_t) {
            *value = compute();
            return cudaSuccess;
        }, &seq))
        return s;
    if (wait_for(seq) != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
    *result = *value;
    return CUBLAS_STATUS_SUCCESS;
}

// A null result pointer (cublasSdot, cublasSnrm2). In host pointer mode cuBLAS
// copies the result from the device to it, the copy fails, and the call
// returns CUBLAS_STATUS_MAPPING_ERROR (measured on an H200 for cublasSdot;
// cublasSnrm2 copies its result the same way); in device pointer mode the
// emulator refuses it with CUBLAS_STATUS_INVALID_VALUE.
cublasStatus_t check_result_pointer(cublasHandle_t handle, const call_site& at, const float* result) {
    if (result) return CUBLAS_STATUS_SUCCESS;
    if (handle->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) return explain_null_scalar(at, "result");
    return explain_status(at,
                          "result is a null pointer: cuBLAS copies the result there from the "
                          "device, and that copy fails",
                          CUBLAS_STATUS_MAPPING_ERROR);
}

// Elements a vector of n entries with increment inc spans (BLAS: a negative
// increment walks the same elements backwards).
long long abs_ll(int v) { return v < 0 ? -static_cast<long long>(v) : v; }

}  // namespace

// ---- statuses ------------------------------------------------------------------------------
// Names and strings are libcublas 13's (tests/emu: emu.cublas.status-table
// compares every code with it where the CUDA toolkit is installed).
const char* cublasGetStatusName(cublasStatus_t status) {
    switch (status) {
        case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
        case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
        case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
        case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
        case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
        case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
        case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
        case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
        case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
        case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "unrecognized status";
}

const char* cublasGetStatusString(cublasStatus_t status) {
    switch (status) {
        case CUBLAS_STATUS_SUCCESS: return "success";
        case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
        case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
        case CUBLAS_STATUS_INVALID_VALUE:
            return "an unsupported value or parameter was passed to the function";
        case CUBLAS_STATUS_ARCH_MISMATCH:
            return "the function requires an architectural feature absent from the device";
        case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
        case CUBLAS_STATUS_EXECUTION_FAILED: return "the function failed to launch on the GPU";
        case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
        case CUBLAS_STATUS_NOT_SUPPORTED: return "the requested functionality is not supported";
        case CUBLAS_STATUS_LICENSE_ERROR: return "the license check failed";
    }
    return "unrecognized status";
}

// ---- the handle --------------------------------------------------------------------------
cublasStatus_t cublasCreate_v2(cublasHandle_t* handle, const char*, int) {
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    if (context_status() != cudaSuccess) return CUBLAS_STATUS_NOT_INITIALIZED;
    auto* context = new cublasContext;
    std::lock_guard<std::mutex> lock(handles_mutex);
    live_handles.insert(context);
    *handle = context;
    return CUBLAS_STATUS_SUCCESS;
}

// cuBLAS waits for the device before it releases the handle's resources.
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle, const char* file, int line) {
    if (cublasStatus_t s = check_handle(handle, {"cublasDestroy", file, line})) return s;
    synchronize_device();
    std::lock_guard<std::mutex> lock(handles_mutex);
    live_handles.erase(handle);
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream, const char* file,
                                  int line) {
    if (cublasStatus_t s = check_handle(handle, {"cublasSetStream", file, line})) return s;
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t* stream, const char* file,
                                  int line) {
    if (cublasStatus_t s = check_handle(handle, {"cublasGetStream", file, line})) return s;
    if (!stream) return CUBLAS_STATUS_INVALID_VALUE;
    *stream = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode,
                                       const char* file, int line) {
    if (cublasStatus_t s = check_handle(handle, {"cublasSetPointerMode", file, line})) return s;
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t* mode,
                                       const char* file, int line) {
    if (cublasStatus_t s = check_handle(handle, {"cublasGetPointerMode", file, line})) return s;
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
}

// The mode is kept for cublasGetMathMode; only cublasGemmEx's _FAST_ compute
// types change its arithmetic (cublas_gemm_ex.cpp), never the math mode (README,
// "cuBLAS"). cublasMath_t's values are bits that combine: cuBLAS 13 takes 5,
// CUBLAS_TENSOR_OP_MATH | CUBLAS_FP32_EMULATED_BF16X9_MATH (measured on an
// H200), so every combination of its bits (0 to 31) is taken here. A value
// with any other bit is refused (not measured on a GPU).
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode, const char* file,
                                 int line) {
    if (cublasStatus_t s = check_handle(handle, {"cublasSetMathMode", file, line})) return s;
    constexpr unsigned every_bit = CUBLAS_TENSOR_OP_MATH | CUBLAS_PEDANTIC_MATH |
                                   CUBLAS_FP32_EMULATED_BF16X9_MATH |
                                   CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH |
                                   CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    if ((static_cast<unsigned>(mode) & ~every_bit) != 0) return CUBLAS_STATUS_INVALID_VALUE;
    handle->math_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode, const char* file,
                                 int line) {
    if (cublasStatus_t s = check_handle(handle, {"cublasGetMathMode", file, line})) return s;
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->math_mode;
    return CUBLAS_STATUS_SUCCESS;
}

// ---- level 3 -----------------------------------------------------------------------------
cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                              cublasOperation_t transb, int m, int n, int k, const float* alpha,
                              const float* A, int lda, const float* B, int ldb, const float* beta,
                              float* C, int ldc, const char* file, int line) {
    return gemm<float>({"cublasSgemm", file, line}, handle,
                       {transa, transb, m, n, k, lda, ldb, ldc, 0, 0, 0, 1}, alpha, A, B, beta, C);
}

cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                              cublasOperation_t transb, int m, int n, int k, const double* alpha,
                              const double* A, int lda, const double* B, int ldb,
                              const double* beta, double* C, int ldc, const char* file, int line) {
    return gemm<double>({"cublasDgemm", file, line}, handle,
                        {transa, transb, m, n, k, lda, ldb, ldc, 0, 0, 0, 1}, alpha, A, B, beta, C);
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const float* alpha, const float* A, int lda,
                                         long long int strideA, const float* B, int ldb,
                                         long long int strideB, const float* beta, float* C,
                                         int ldc, long long int strideC, int batchCount,
                                         const char* file, int line) {
    return gemm<float>({"cublasSgemmStridedBatched", file, line}, handle,
                       {transa, transb, m, n, k, lda, ldb, ldc, strideA, strideB, strideC, batchCount},
                       alpha, A, B, beta, C);
}

cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const double* alpha, const double* A, int lda,
                                         long long int strideA, const double* B, int ldb,
                                         long long int strideB, const double* beta, double* C,
                                         int ldc, long long int strideC, int batchCount,
                                         const char* file, int line) {
    return gemm<double>({"cublasDgemmStridedBatched", file, line}, handle,
                        {transa, transb, m, n, k, lda, ldb, ldc, strideA, strideB, strideC, batchCount},
                        alpha, A, B, beta, C);
}

cublasStatus_t cublasSgemmBatched(cublasHandle_t handle, cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n, int k, const float* alpha,
                                  const float* const Aarray[], int lda, const float* const Barray[],
                                  int ldb, const float* beta, float* const Carray[], int ldc,
                                  int batchCount, const char* file, int line) {
    return gemm_batched<float>({"cublasSgemmBatched", file, line}, handle,
                               {transa, transb, m, n, k, lda, ldb, ldc, 0, 0, 0, batchCount}, alpha,
                               Aarray, Barray, beta, Carray);
}

cublasStatus_t cublasDgemmBatched(cublasHandle_t handle, cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n, int k, const double* alpha,
                                  const double* const Aarray[], int lda, const double* const Barray[],
                                  int ldb, const double* beta, double* const Carray[], int ldc,
                                  int batchCount, const char* file, int line) {
    return gemm_batched<double>({"cublasDgemmBatched", file, line}, handle,
                                {transa, transb, m, n, k, lda, ldb, ldc, 0, 0, 0, batchCount}, alpha,
                                Aarray, Barray, beta, Carray);
}

// ---- level 2 -----------------------------------------------------------------------------
cublasStatus_t cublasSgemv_v2(cublasHandle_t handle, cublasOperation_t trans, int m, int n,
                              const float* alpha, const float* A, int lda, const float* x,
                              int incx, const float* beta, float* y, int incy, const char* file,
                              int line) {
    const call_site at{"cublasSgemv", file, line};
    if (cublasStatus_t s = check_handle(handle, at)) return s;
    if (!valid_op(trans) || m < 0 || n < 0 || lda < at_least_1(m) || incy == 0 || !alpha || !beta) {
        explain_invalid_gemv(at, trans, m, n, lda, incy, !alpha || !beta);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    const int len_x = trans == CUBLAS_OP_N ? n : m, len_y = trans == CUBLAS_OP_N ? m : n;
    operand_checks checks(at);
    scalar_arg<float> a_scalar, b_scalar;
    const bool fine = take_scalar(handle, alpha, "alpha", checks, &a_scalar) &&
                      take_scalar(handle, beta, "beta", checks, &b_scalar) &&
                      checks.matrix("A", A, sizeof(float), m, n, lda, 0, 1) &&
                      checks.vector("x", x, sizeof(float), len_x, incx) &&
                      checks.vector("y", y, sizeof(float), len_y, incy);
    if (!fine) return submit(handle, at, checks.failed_work());
    const int op = cblas_op(trans);
    return submit(handle, at, [=](std::uint64_t) {
        const float a = a_scalar.get(), b = b_scalar.get();
        const long long step = abs_ll(incy);
        if (b == 0.0f)
            for (int i = 0; i < len_y; ++i) y[i * step] = 0.0f;
        // incx = 0: every element of x is x[0] (cuBLAS takes it; BLAS refuses it).
        std::vector<float> repeated;
        if (incx == 0) repeated.assign(static_cast<std::size_t>(len_x), x[0]);
        cblas_sgemv(cuemu_cblas_col_major, op, m, n, a, A, lda, incx == 0 ? repeated.data() : x,
                    incx == 0 ? 1 : incx, b, y, incy);
        for (int i = 0; i < len_y; ++i) note_device_write(y + i * step, sizeof(float));
        return cudaSuccess;
    });
}

// ---- level 1 -----------------------------------------------------------------------------
// cuBLAS, as BLAS, does nothing for n <= 0; negative increments walk the
// vector from its end, as in BLAS.
cublasStatus_t cublasSaxpy_v2(cublasHandle_t handle, int n, const float* alpha, const float* x,
                              int incx, float* y, int incy, const char* file, int line) {
    const call_site at{"cublasSaxpy", file, line};
    if (cublasStatus_t s = check_handle(handle, at)) return s;
    if (!alpha) return explain_null_scalar(at, "alpha");
    if (n <= 0) return CUBLAS_STATUS_SUCCESS;
    operand_checks checks(at);
    scalar_arg<float> a_scalar;
    const bool fine = take_scalar(handle, alpha, "alpha", checks, &a_scalar) &&
                      checks.vector("x", x, sizeof(float), n, incx) &&
                      checks.vector("y", y, sizeof(float), n, incy);
    if (!fine) return submit(handle, at, checks.failed_work());
    return submit(handle, at, [=](std::uint64_t) {
        cblas_saxpy(n, a_scalar.get(), x, incx, y, incy);
        for (int i = 0; i < n; ++i) note_device_write(y + i * abs_ll(incy), sizeof(float));
        return cudaSuccess;
    });
}

cublasStatus_t cublasSscal_v2(cublasHandle_t handle, int n, const float* alpha, float* x,
                              int incx, const char* file, int line) {
    const call_site at{"cublasSscal", file, line};
    if (cublasStatus_t s = check_handle(handle, at)) return s;
    if (!alpha) return explain_null_scalar(at, "alpha");
    if (n <= 0 || incx <= 0) return CUBLAS_STATUS_SUCCESS;  // BLAS: nothing to scale
    operand_checks checks(at);
    scalar_arg<float> a_scalar;
    const bool fine = take_scalar(handle, alpha, "alpha", checks, &a_scalar) &&
                      checks.vector("x", x, sizeof(float), n, incx);
    if (!fine) return submit(handle, at, checks.failed_work());
    return submit(handle, at, [=](std::uint64_t) {
        cblas_sscal(n, a_scalar.get(), x, incx);
        return cudaSuccess;
    });
}

cublasStatus_t cublasSdot_v2(cublasHandle_t handle, int n, const float* x, int incx,
                             const float* y, int incy, float* result, const char* file, int line) {
    const call_site at{"cublasSdot", file, line};
    if (cublasStatus_t s = check_handle(handle, at)) return s;
    if (cublasStatus_t s = check_result_pointer(handle, at, result)) return s;
    operand_checks checks(at);
    if (n > 0 && !(checks.vector("x", x, sizeof(float), n, incx) &&
                   checks.vector("y", y, sizeof(float), n, incy)))
        return submit(handle, at, checks.failed_work());
    return scalar_result(at, handle, result, checks, [=] {
        return n > 0 ? cblas_sdot(n, x, incx, y, incy) : 0.0f;
    });
}

// BLAS gives 0 for n <= 0 or incx <= 0.
cublasStatus_t cublasSnrm2_v2(cublasHandle_t handle, int n, const float* x, int incx,
                              float* result, const char* file, int line) {
    const call_site at{"cublasSnrm2", file, line};
    if (cublasStatus_t s = check_handle(handle, at)) return s;
    if (cublasStatus_t s = check_result_pointer(handle, at, result)) return s;
    const bool reads = n > 0 && incx > 0;
    operand_checks checks(at);
    if (reads && !checks.vector("x", x, sizeof(float), n, incx))
        return submit(handle, at, checks.failed_work());
    return scalar_result(at, handle, result, checks, [=] {
        return reads ? cblas_snrm2(n, x, incx) : 0.0f;
    });
}
