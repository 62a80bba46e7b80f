// cublas_operands.cpp - whether the pointers a cuBLAS call gets are device
// memory that holds every element the call touches, and the reports when they
// are not or when cuBLAS refuses an argument (CUBLAS_STATUS_INVALID_VALUE).
//
// cuBLAS itself checks none of the pointers: its kernel uses them, and a bad
// one faults on the GPU (cudaErrorIllegalAddress at a later call that waits)
// or reads whatever the address holds. The emulator checks them at the call,
// as it screens a kernel's pointer arguments, says which argument is wrong and
// why, and fails the call's work the way a faulting kernel fails.
#include <cstdio>
#include <string>

#include "cublas_internal.h"

using namespace cuemu::detail;

namespace cuemu::cublas_detail {
namespace {

const char* op_name(cublasOperation_t op) {
    switch (op) {
        case CUBLAS_OP_N: return "CUBLAS_OP_N";
        case CUBLAS_OP_T: return "CUBLAS_OP_T";
        case CUBLAS_OP_C: return "CUBLAS_OP_C";
        default: return nullptr;
    }
}

void refuse(const call_site& at, const std::string& why) {
    explain_status(at, why, CUBLAS_STATUS_INVALID_VALUE);
}

std::string words(const char* format, long long a, long long b = 0, long long c = 0) {
    char buf[400];
    std::snprintf(buf, sizeof buf, format, a, b, c);
    return buf;
}

// Why a leading dimension is too small, in the terms of the call.
std::string ld_words(const char* ld_name, int ld, const char* matrix, int rows,
                     const char* rows_name, const char* op_words) {
    char buf[600];
    std::snprintf(buf, sizeof buf,
                  "%s = %d is smaller than the %d rows of %s as stored (%s%s):\n"
                  "  in column-major storage the leading dimension is the distance from one "
                  "column to the next, at least the number of rows",
                  ld_name, ld, rows, matrix, rows_name, op_words);
    return buf;
}

}  // namespace

bool operand_checks::matrix(const char* name, const void* p, std::size_t element, int rows,
                            int cols, int ld, long long stride, int batch) {
    if (rows <= 0 || cols <= 0 || batch <= 0) return true;  // nothing is touched
    const long long span = static_cast<long long>(cols - 1) * ld + rows;
    const long long last = static_cast<long long>(batch - 1) * stride;
    const long long low = last < 0 ? last : 0, high = (last > 0 ? last : 0) + span;
    char shape[200];
    if (batch > 1)
        std::snprintf(shape, sizeof shape,
                      "%d matrices of %d x %d elements, leading dimension %d, %lld elements apart",
                      batch, rows, cols, ld, stride);
    else
        std::snprintf(shape, sizeof shape, "%d x %d elements, leading dimension %d", rows, cols,
                      ld);
    return device(name, "matrix", static_cast<const char*>(p) + low * static_cast<long long>(element),
                  static_cast<std::size_t>(high - low) * element, shape);
}

bool operand_checks::vector(const char* name, const void* p, std::size_t element, int n, int inc) {
    if (n <= 0) return true;
    const long long step = inc < 0 ? -static_cast<long long>(inc) : inc;
    const long long span = (n - 1) * step + 1;
    char shape[120];
    std::snprintf(shape, sizeof shape, "%d elements, %lld apart", n, step);
    return device(name, "vector", p, static_cast<std::size_t>(span) * element, shape);
}

bool operand_checks::device(const char* name, const char* kind, const void* p, std::size_t bytes,
                            const std::string& shape) {
    std::string why, hint;
    char buf[700];
    allocation_info info;
    if (!p) {
        why = "is a null pointer";
        hint = "allocate it with cudaMalloc before the call";
    } else if (is_device_range(p, bytes) || is_registered_host_memory(p) ||
               is_pinned_host_memory(p, nullptr)) {
        return true;
    } else if (find_allocation(p, &info) && info.freed) {
        std::snprintf(buf, sizeof buf, "is in a %zu-byte buffer from %s at %s:%d, freed by %s at %s:%d",
                      info.size, info.how, info.file, info.line, info.freed_by, info.free_file,
                      info.free_line);
        why = buf;
        hint = "free device memory only after the last call that uses it";
    } else if (find_allocation(p, &info)) {
        const long long offset = static_cast<const char*>(p) - info.begin;
        std::snprintf(buf, sizeof buf,
                      "needs %zu bytes from byte offset %lld of a %zu-byte buffer from %s at "
                      "%s:%d: %lld bytes past its end",
                      bytes, offset, info.size, info.how, info.file, info.line,
                      offset + static_cast<long long>(bytes) - static_cast<long long>(info.size));
        why = buf;
        hint = "check the sizes and the leading dimension against the buffer: column j of a\n"
               "        column-major matrix starts ld * j elements after its first element";
    } else {
        std::snprintf(buf, sizeof buf, "is %p, host memory, not device memory", p);
        why = buf;
        hint = "cuBLAS works on device memory: cudaMalloc a buffer, cudaMemcpy the data into it\n"
               "        and pass that pointer (d_...), not the host array";
    }
    std::fprintf(stderr,
                 "cuemu: %s at %s:%d: the %s %s (%s) %s\n"
                 "  hint: %s\n"
                 "  On a GPU the library's kernel would use that address: it may stop with "
                 "cudaErrorIllegalAddress,\n"
                 "  reported by a later call that waits for the device, or read and write "
                 "whatever is there.\n"
                 "  The emulator does not do this call: it returns CUBLAS_STATUS_SUCCESS, as the "
                 "launch would,\n"
                 "  and its work fails with cudaErrorIllegalAddress (\"an illegal memory access was "
                 "encountered\"),\n"
                 "  as every later CUDA call does.\n",
                 at_.call, at_.file, at_.line, kind, name, shape.c_str(), why.c_str(),
                 hint.c_str());
    return false;
}

device_work operand_checks::failed_work() const {
    return [](std::uint64_t) { return cudaErrorIllegalAddress; };
}

void explain_invalid_gemm(const call_site& at, cublasOperation_t transa, cublasOperation_t transb,
                          int m, int n, int k, int lda, int ldb, int ldc, int batch,
                          bool null_scalar) {
    if (!op_name(transa) || !op_name(transb)) {
        refuse(at, words("transa or transb is %lld and %lld: each must be CUBLAS_OP_N, "
                         "CUBLAS_OP_T or CUBLAS_OP_C",
                         transa, transb));
    } else if (m < 0 || n < 0 || k < 0) {
        refuse(at, words("m = %lld, n = %lld, k = %lld: sizes cannot be negative", m, n, k));
    } else if (batch < 0) {
        refuse(at, words("batchCount = %lld cannot be negative", batch));
    } else if (null_scalar) {
        refuse(at, "alpha or beta is a null pointer");
    } else {
        const bool a_plain = transa == CUBLAS_OP_N, b_plain = transb == CUBLAS_OP_N;
        const int rows_a = a_plain ? m : k, rows_b = b_plain ? k : n;
        if (lda < (rows_a > 1 ? rows_a : 1))
            refuse(at, ld_words("lda", lda, "A", rows_a, a_plain ? "m" : "k",
                                a_plain ? ", as transa is CUBLAS_OP_N" : ", as A is transposed"));
        else if (ldb < (rows_b > 1 ? rows_b : 1))
            refuse(at, ld_words("ldb", ldb, "B", rows_b, b_plain ? "k" : "n",
                                b_plain ? ", as transb is CUBLAS_OP_N" : ", as B is transposed"));
        else
            refuse(at, ld_words("ldc", ldc, "C", m, "m", ""));
    }
}

void explain_invalid_gemv(const call_site& at, cublasOperation_t trans, int m, int n, int lda,
                          int incy, bool null_scalar) {
    if (!op_name(trans))
        refuse(at, words("trans is %lld: it must be CUBLAS_OP_N, CUBLAS_OP_T or CUBLAS_OP_C", trans));
    else if (m < 0 || n < 0)
        refuse(at, words("m = %lld, n = %lld: sizes cannot be negative", m, n));
    else if (incy == 0)
        refuse(at, "incy = 0: every element of y would be written at one address (on a GPU, a "
                   "race between the threads that write them)");
    else if (null_scalar)
        refuse(at, "alpha or beta is a null pointer");
    else
        refuse(at, ld_words("lda", lda, "A", m, "m", ""));
}

cublasStatus_t explain_status(const call_site& at, const std::string& why, cublasStatus_t status) {
    std::fprintf(stderr, "cuemu: %s at %s:%d: %s\n  %s returns %s, as cuBLAS does\n", at.call, at.file,
                 at.line, why.c_str(), at.call, cublasGetStatusName(status));
    return status;
}

cublasStatus_t explain_null_scalar(const call_site& at, const char* name) {
    refuse(at, std::string(name) + " is a null pointer");
    return CUBLAS_STATUS_INVALID_VALUE;
}

}  // namespace cuemu::cublas_detail
