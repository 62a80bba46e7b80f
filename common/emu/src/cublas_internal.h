// cublas_internal.h - what the emulator's cuBLAS files share (cublas.cpp,
// cublas_operands.cpp): where a call was made, the checks of its pointers,
// and the messages for arguments cuBLAS refuses.
#ifndef CUEMU_CUBLAS_INTERNAL_H
#define CUEMU_CUBLAS_INTERNAL_H

#include <cstddef>
#include <string>

#include "cublas_v2.h"
#include "internal.h"

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

// One line each, on stderr, for an argument cuBLAS refuses with
// CUBLAS_STATUS_INVALID_VALUE: which one and why.
void explain_invalid_gemm(const call_site& at, cublasOperation_t transa, cublasOperation_t transb,
                          int m, int n, int k, int lda, int ldb, int ldc, int batch,
                          bool null_scalar);
void explain_invalid_gemv(const call_site& at, cublasOperation_t trans, int m, int n, int lda,
                          int incx, int incy, bool null_scalar);
// A null alpha or result pointer: explained, and CUBLAS_STATUS_INVALID_VALUE returned.
cublasStatus_t explain_null_scalar(const call_site& at, const char* name);

}  // namespace cuemu::cublas_detail

#endif
