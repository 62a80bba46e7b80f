// cublas_internal.h - what the emulator's cuBLAS files share (cublas.cpp,
// cublas_operands.cpp, cublas_gemm_ex.cpp): the handle, where a call was made,
// the checks of its arguments and pointers, the queueing of its work, and the
// messages for arguments cuBLAS refuses.
#ifndef CUEMU_CUBLAS_INTERNAL_H
#define CUEMU_CUBLAS_INTERNAL_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "cublas_v2.h"
#include "internal.h"

struct cublasContext {
    cudaStream_t stream = nullptr;
    cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
    // Kept and given back (cublasGetMathMode); the emulator computes every mode the same way.
    cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
};

namespace cuemu::cublas_detail {

struct call_site {
    const char* call;  // "cublasSgemm": the name the program wrote
    const char* file;
    int line;
};

// The pointers of one call: each must be device memory (cudaMalloc,
// cudaMallocManaged, a __device__ variable; cudaMallocHost and registered
// host memory too, which a GPU can reach) holding every element the call
// touches. The first one that is not is reported on stderr, and the call's
// work is then failed_work(): queued in the call's place, it fails as a
// faulting kernel does, with cudaErrorIllegalAddress (sticky).
class operand_checks {
public:
    explicit operand_checks(const call_site& at) : at_(at) {}
    // rows x cols elements, column-major with leading dimension ld; batch
    // such matrices, stride elements apart.
    bool matrix(const char* name, const void* p, std::size_t element, int rows, int cols, int ld,
                long long stride, int batch);
    // n elements, inc elements apart (a negative inc spans the same elements).
    bool vector(const char* name, const void* p, std::size_t element, int n, int inc);
    // bytes from p; kind ("matrix", "vector", "scalar") and shape for the report.
    bool device(const char* name, const char* kind, const void* p, std::size_t bytes,
                const std::string& shape);
    cuemu::detail::device_work failed_work() const;

private:
    call_site at_;
};

// CUBLAS_STATUS_NOT_INITIALIZED for a null handle or one that is not live
// (with a line saying so for the second); CUBLAS_STATUS_SUCCESS otherwise.
cublasStatus_t check_handle(cublasHandle_t handle, const call_site& at);
// Queues work on the handle's stream, or refuses it as cuBLAS refuses a
// launch that cannot happen (CUBLAS_STATUS_EXECUTION_FAILED). *seq, when
// given, receives the work's place in the queue (for wait_for).
cublasStatus_t submit(cublasHandle_t handle, const call_site& at, cuemu::detail::device_work work,
                      std::uint64_t* seq = nullptr);

// The shape of a (batched) matrix product C = alpha op(A) op(B) + beta C, as
// the program passed it. op(A) is m x k, op(B) is k x n.
struct gemm_shape {
    cublasOperation_t transa, transb;
    int m, n, k;
    int lda, ldb, ldc;
    long long stride_a, stride_b, stride_c;  // elements between matrices of a batch
    int batch;
    int rows_a() const { return transa == CUBLAS_OP_N ? m : k; }  // A as stored
    int cols_a() const { return transa == CUBLAS_OP_N ? k : m; }
    int rows_b() const { return transb == CUBLAS_OP_N ? k : n; }  // B as stored
    int cols_b() const { return transb == CUBLAS_OP_N ? n : k; }
    bool empty() const { return m == 0 || n == 0 || batch == 0; }
};
// Whether cuBLAS accepts the shape and scalars; if not, a line says which
// argument is wrong and the caller returns CUBLAS_STATUS_INVALID_VALUE.
bool valid_gemm_arguments(const call_site& at, const gemm_shape& s, const void* alpha,
                          const void* beta);
// Whether A and B (when k > 0) and C are device memory holding every element
// the product touches, elements of the sizes given; reported when not.
bool gemm_operands_on_device(operand_checks& checks, const gemm_shape& s, const void* A,
                             std::size_t a_element, const void* B, std::size_t b_element,
                             const void* C, std::size_t c_element);
// The system BLAS's product on column-major matrices (cblas_sgemm,
// cblas_dgemm), C set to zero first when beta is 0 (never read then).
void blas_gemm(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, float alpha,
               const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
void blas_gemm(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
               double alpha, const double* a, int lda, const double* b, int ldb, double beta,
               double* c, int ldc);

// A scalar argument (alpha, beta): read at the call in host pointer mode,
// when the work runs in device pointer mode.
template <class T>
struct scalar_arg {
    T value{};
    const T* device = nullptr;
    T get() const { return device ? *device : value; }
};
template <class T>
bool take_scalar(cublasHandle_t handle, const T* p, const char* name, operand_checks& checks,
                 scalar_arg<T>* out) {
    if (handle->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) {
        out->device = p;
        return checks.device(name, "scalar", p, sizeof(T), "one element");
    }
    out->value = *p;
    return true;
}

// The device thread wrote columns of m elements, ld apart (for the race check
// and the profiler, as a kernel's stores are noted).
void note_matrix_written(const void* c, std::size_t element, int m, int n, int ld);

// "CUDA_R_16F" and the like, or null for a type the emulator does not name
// (cublas_gemm_ex.cpp; cuBLASLt's reports use it too).
const char* data_type_name(int type);

// One line each, on stderr, for an argument cuBLAS refuses with
// CUBLAS_STATUS_INVALID_VALUE: which one and why.
void explain_invalid_gemm(const call_site& at, cublasOperation_t transa, cublasOperation_t transb,
                          int m, int n, int k, int lda, int ldb, int ldc, int batch,
                          bool null_scalar);
void explain_invalid_gemv(const call_site& at, cublasOperation_t trans, int m, int n, int lda,
                          int incy, bool null_scalar);
// One line on stderr: why the call returns status, which cuBLAS also returns; status returned.
cublasStatus_t explain_status(const call_site& at, const std::string& why, cublasStatus_t status);
// A null alpha or result pointer: explained, and CUBLAS_STATUS_INVALID_VALUE returned.
cublasStatus_t explain_null_scalar(const call_site& at, const char* name);

}  // namespace cuemu::cublas_detail

#endif
