// cublas_gemm_ex.cpp - cublasGemmEx and cublasGemmStridedBatchedEx: matrix
// products whose A, B and C types and whose arithmetic are arguments (include/
// cublas_v2.h), checked as cuBLAS checks them and queued on the handle's
// stream like cublasSgemm (cublas.cpp).
//
// Decisions:
//   - The combinations done are cuBLAS's for real numbers: A and B half
//     (CUDA_R_16F) with C half or float; A and B bfloat16 with C bfloat16 or
//     float; all float; all double; and all half with half sums
//     (CUBLAS_COMPUTE_16F, alpha and beta half). 8-bit integers, complex
//     numbers and the emulated precisions, which cuBLAS also has, are not
//     emulated: CUBLAS_STATUS_NOT_SUPPORTED and a line saying so, never another
//     arithmetic in their place.
//   - Half sums (CUBLAS_COMPUTE_16F, _PEDANTIC): each element is a half
//     accumulator s, 0 at first, and for p = 0, 1, ..., k - 1 in order
//     s = fma(a_ip, b_pj, s) in half (the exact a * b + s rounded once to
//     half, to nearest even); then t = alpha * s rounded to half, and the
//     result fma(beta, c, t) in half (t when beta is 0: C is not read). A
//     GPU's order of the k sums is its kernel's, so its result may differ
//     from this one by the rounding of each step, which the test's bound
//     allows.
//   - Half and bfloat16 inputs are widened to float (exactly: every half and
//     bfloat16 is a float) and multiplied by the system BLAS's sgemm, as a
//     tensor core multiplies them exactly and sums in float. A half or
//     bfloat16 C is widened to float for beta * C and the float result rounded
//     back to nearest even, as a GPU converts its float accumulator.
//   - CUBLAS_COMPUTE_32F_FAST_16F, _FAST_16BF and _FAST_TF32 allow cuBLAS to
//     round float A and B to half, bfloat16 or TF32 (10 stored mantissa bits,
//     float's exponent) before its tensor cores multiply them, and a GPU does
//     (measured on an H200: CUBLAS_COMPUTE_32F_FAST_16F was off by the
//     rounding of its inputs to half, seven times float's bound). So the
//     emulator rounds each element of A and B to that format, to nearest
//     even (half's range: beyond 65504 it is infinity), and multiplies the
//     rounded values as float sums; C, alpha and beta are not rounded.
//   - The algorithm argument chooses nothing: every value of cublasGemmAlgo_t
//     gives the same product. A value that is none is
//     CUBLAS_STATUS_INVALID_VALUE (measured on an H200).
//   - Summation order is the BLAS's: results may differ from a GPU's in the
//     last bits of float, as any two GEMM kernels' do.
#include <cstdio>
#include <vector>

#include "cuemu/fp_round.h"
#include "cublas_internal.h"
#include "internal.h"

using namespace cuemu::detail;
using namespace cuemu::cublas_detail;

namespace cuemu::cublas_detail {

const char* data_type_name(int t) {
    switch (t) {
        case CUDA_R_16F: return "CUDA_R_16F";
        case CUDA_R_16BF: return "CUDA_R_16BF";
        case CUDA_R_32F: return "CUDA_R_32F";
        case CUDA_R_64F: return "CUDA_R_64F";
        case CUDA_R_8I: return "CUDA_R_8I";
        case CUDA_R_32I: return "CUDA_R_32I";
        case CUDA_C_32F: return "CUDA_C_32F";
        case CUDA_C_64F: return "CUDA_C_64F";
        default: return nullptr;
    }
}

}  // namespace cuemu::cublas_detail

namespace {

const char* compute_type_name(cublasComputeType_t t) {
    switch (t) {
        case CUBLAS_COMPUTE_16F: return "CUBLAS_COMPUTE_16F";
        case CUBLAS_COMPUTE_16F_PEDANTIC: return "CUBLAS_COMPUTE_16F_PEDANTIC";
        case CUBLAS_COMPUTE_32F: return "CUBLAS_COMPUTE_32F";
        case CUBLAS_COMPUTE_32F_PEDANTIC: return "CUBLAS_COMPUTE_32F_PEDANTIC";
        case CUBLAS_COMPUTE_32F_FAST_16F: return "CUBLAS_COMPUTE_32F_FAST_16F";
        case CUBLAS_COMPUTE_32F_FAST_16BF: return "CUBLAS_COMPUTE_32F_FAST_16BF";
        case CUBLAS_COMPUTE_32F_FAST_TF32: return "CUBLAS_COMPUTE_32F_FAST_TF32";
        case CUBLAS_COMPUTE_32F_EMULATED_16BFX9: return "CUBLAS_COMPUTE_32F_EMULATED_16BFX9";
        case CUBLAS_COMPUTE_64F: return "CUBLAS_COMPUTE_64F";
        case CUBLAS_COMPUTE_64F_PEDANTIC: return "CUBLAS_COMPUTE_64F_PEDANTIC";
        case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT: return "CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT";
        case CUBLAS_COMPUTE_32I: return "CUBLAS_COMPUTE_32I";
        case CUBLAS_COMPUTE_32I_PEDANTIC: return "CUBLAS_COMPUTE_32I_PEDANTIC";
    }
    return nullptr;
}

bool valid_algo(cublasGemmAlgo_t algo) {
    return (algo >= CUBLAS_GEMM_DEFAULT && algo <= CUBLAS_GEMM_ALGO23) ||
           (algo >= CUBLAS_GEMM_DEFAULT_TENSOR_OP && algo <= CUBLAS_GEMM_ALGO15_TENSOR_OP) ||
           algo == CUBLAS_GEMM_AUTOTUNE;
}

// How the product is computed: sums in float (alpha and beta are float) or in
// double (alpha and beta double); none when the emulator does not do it.
enum class sums { none, in_half, in_float, in_double };

bool is_float_compute(cublasComputeType_t t) {
    return t == CUBLAS_COMPUTE_32F || t == CUBLAS_COMPUTE_32F_PEDANTIC;
}
bool is_fast_float_compute(cublasComputeType_t t) {
    return t == CUBLAS_COMPUTE_32F_FAST_16F || t == CUBLAS_COMPUTE_32F_FAST_16BF ||
           t == CUBLAS_COMPUTE_32F_FAST_TF32;
}
bool is_half_compute(cublasComputeType_t t) {
    return t == CUBLAS_COMPUTE_16F || t == CUBLAS_COMPUTE_16F_PEDANTIC;
}

sums plan_for(cudaDataType a, cudaDataType b, cudaDataType c, cublasComputeType_t compute) {
    if (a != b) return sums::none;
    if (is_float_compute(compute)) {
        if (a == CUDA_R_16F && (c == CUDA_R_16F || c == CUDA_R_32F)) return sums::in_float;
        if (a == CUDA_R_16BF && (c == CUDA_R_16BF || c == CUDA_R_32F)) return sums::in_float;
        if (a == CUDA_R_32F && c == CUDA_R_32F) return sums::in_float;
    }
    if (is_fast_float_compute(compute) && a == CUDA_R_32F && c == CUDA_R_32F) return sums::in_float;
    if (is_half_compute(compute) && a == CUDA_R_16F && c == CUDA_R_16F) return sums::in_half;
    if ((compute == CUBLAS_COMPUTE_64F || compute == CUBLAS_COMPUTE_64F_PEDANTIC) &&
        a == CUDA_R_64F && c == CUDA_R_64F)
        return sums::in_double;
    return sums::none;
}

// Combinations cuBLAS has and the emulator does not: 8-bit integers, complex
// numbers, the emulated-precision compute types.
bool cublas_has_but_not_emulated(cudaDataType a, cudaDataType b, cudaDataType c,
                                 cublasComputeType_t compute) {
    if (a != b) return false;
    const bool int_sums = compute == CUBLAS_COMPUTE_32I || compute == CUBLAS_COMPUTE_32I_PEDANTIC;
    if (int_sums) return a == CUDA_R_8I && c == CUDA_R_32I;
    if (is_float_compute(compute) && a == CUDA_R_8I) return c == CUDA_R_32F;
    if (is_float_compute(compute) || is_fast_float_compute(compute))
        return a == CUDA_C_32F && c == CUDA_C_32F;
    if (compute == CUBLAS_COMPUTE_32F_EMULATED_16BFX9) return a == CUDA_R_32F && c == CUDA_R_32F;
    if (compute == CUBLAS_COMPUTE_64F || compute == CUBLAS_COMPUTE_64F_PEDANTIC)
        return a == CUDA_C_64F && c == CUDA_C_64F;
    if (compute == CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT) return a == CUDA_R_64F && c == CUDA_R_64F;
    return false;
}

void explain_types(const call_site& at, cudaDataType a, cudaDataType b, cudaDataType c,
                   cublasComputeType_t compute) {
    auto name = [](const char* known, int value, char* buf, std::size_t size) {
        if (known) return known;
        std::snprintf(buf, size, "%d (no cudaDataType the emulator knows)", value);
        return const_cast<const char*>(buf);
    };
    char ab[60], bb[60], cb[60], compb[60];
    const char* compute_name = compute_type_name(compute);
    if (!compute_name) {
        std::snprintf(compb, sizeof compb, "computeType %d (not a cublasComputeType_t)", compute);
        compute_name = compb;
    }
    const bool not_emulated = cublas_has_but_not_emulated(a, b, c, compute);
    std::fprintf(stderr,
                 "cuemu: %s at %s:%d: Atype %s, Btype %s, Ctype %s with %s %s\n"
                 "  the emulator's cublasGemmEx does: A and B CUDA_R_16F with C CUDA_R_16F or "
                 "CUDA_R_32F, or A and B\n"
                 "  CUDA_R_16BF with C CUDA_R_16BF or CUDA_R_32F, each with CUBLAS_COMPUTE_32F; "
                 "all CUDA_R_32F with\n"
                 "  CUBLAS_COMPUTE_32F or a _FAST_ kind of it; all CUDA_R_64F with "
                 "CUBLAS_COMPUTE_64F; all\n"
                 "  CUDA_R_16F with CUBLAS_COMPUTE_16F\n"
                 "  %s returns CUBLAS_STATUS_NOT_SUPPORTED%s\n",
                 at.call, at.file, at.line, name(data_type_name(a), a, ab, sizeof ab),
                 name(data_type_name(b), b, bb, sizeof bb), name(data_type_name(c), c, cb, sizeof cb),
                 compute_name,
                 not_emulated ? "is a combination cuBLAS has and the emulator does not (8-bit "
                                "integers, complex numbers and emulated precisions are not "
                                "emulated)"
                              : "is not a combination cuBLAS supports",
                 at.call,
                 not_emulated ? "; on a GPU it would compute: build with nvcc for one"
                              : ", as cuBLAS does");
}

std::size_t element_size(cudaDataType t) {
    switch (t) {
        case CUDA_R_16F:
        case CUDA_R_16BF: return 2;
        case CUDA_R_64F: return 8;
        default: return 4;
    }
}

const cuemu::fp::format& narrow_format(cudaDataType t) {
    return t == CUDA_R_16F ? cuemu::fp::binary16 : cuemu::fp::bfloat16;
}

// A rows x cols matrix of half or bfloat16, column-major with leading
// dimension ld, as floats packed with leading dimension rows. Exact.
std::vector<float> widen(const void* p, cudaDataType t, int rows, int cols, int ld) {
    const auto* bits = static_cast<const std::uint16_t*>(p);
    const cuemu::fp::format& f = narrow_format(t);
    std::vector<float> out(static_cast<std::size_t>(rows) * cols);
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i)
            out[i + static_cast<std::size_t>(j) * rows] =
                static_cast<float>(cuemu::fp::value_of(bits[i + static_cast<std::size_t>(j) * ld], f));
    return out;
}

// The packed float matrix written back into p (type t, leading dimension ld),
// each element rounded to nearest even; the rows between m and ld untouched.
void narrow_into(void* p, cudaDataType t, const std::vector<float>& values, int rows, int cols,
                 int ld) {
    auto* bits = static_cast<std::uint16_t*>(p);
    const cuemu::fp::format& f = narrow_format(t);
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i)
            bits[i + static_cast<std::size_t>(j) * ld] = static_cast<std::uint16_t>(cuemu::fp::round_to(
                values[i + static_cast<std::size_t>(j) * rows], f, cuemu::fp::to_nearest_even));
}

// TF32: float's exponent, 10 stored mantissa bits.
constexpr cuemu::fp::format tf32{8, 10, 0x7fffffffu};

// The format a _FAST_ compute type rounds float inputs to; null for the others.
const cuemu::fp::format* fast_input_format(cublasComputeType_t t) {
    switch (t) {
        case CUBLAS_COMPUTE_32F_FAST_16F: return &cuemu::fp::binary16;
        case CUBLAS_COMPUTE_32F_FAST_16BF: return &cuemu::fp::bfloat16;
        case CUBLAS_COMPUTE_32F_FAST_TF32: return &tf32;
        default: return nullptr;
    }
}

// A rows x cols float matrix (leading dimension ld), each element rounded to
// f to nearest even, packed with leading dimension rows.
std::vector<float> rounded(const void* p, const cuemu::fp::format& f, int rows, int cols, int ld) {
    const auto* in = static_cast<const float*>(p);
    std::vector<float> out(static_cast<std::size_t>(rows) * cols);
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i) {
            const float x = in[i + static_cast<std::size_t>(j) * ld];
            out[i + static_cast<std::size_t>(j) * rows] = static_cast<float>(
                cuemu::fp::value_of(cuemu::fp::round_to(x, f, cuemu::fp::to_nearest_even), f));
        }
    return out;
}

// One product of the batch with float sums: A and B widened unless float (or
// rounded to input_format, for a _FAST_ compute type), C widened and narrowed
// again unless float.
void float_product(const gemm_shape& s, float alpha, const void* A, cudaDataType ab_type,
                   const void* B, float beta, void* C, cudaDataType c_type,
                   const cuemu::fp::format* input_format) {
    std::vector<float> a_wide, b_wide, c_wide;
    const float* a = static_cast<const float*>(A);
    const float* b = static_cast<const float*>(B);
    int lda = s.lda, ldb = s.ldb;
    if ((ab_type != CUDA_R_32F || input_format) && s.k > 0) {
        if (input_format) {
            a_wide = rounded(A, *input_format, s.rows_a(), s.cols_a(), s.lda);
            b_wide = rounded(B, *input_format, s.rows_b(), s.cols_b(), s.ldb);
        } else {
            a_wide = widen(A, ab_type, s.rows_a(), s.cols_a(), s.lda);
            b_wide = widen(B, ab_type, s.rows_b(), s.cols_b(), s.ldb);
        }
        a = a_wide.data();
        b = b_wide.data();
        lda = s.rows_a() > 1 ? s.rows_a() : 1;
        ldb = s.rows_b() > 1 ? s.rows_b() : 1;
    }
    if (c_type == CUDA_R_32F) {
        blas_gemm(s.transa, s.transb, s.m, s.n, s.k, alpha, a, lda, b, ldb, beta,
                  static_cast<float*>(C), s.ldc);
        return;
    }
    // beta == 0: C need not hold numbers (cuBLAS), so it is not read.
    if (beta != 0.0f) c_wide = widen(C, c_type, s.m, s.n, s.ldc);
    else c_wide.assign(static_cast<std::size_t>(s.m) * s.n, 0.0f);
    blas_gemm(s.transa, s.transb, s.m, s.n, s.k, alpha, a, lda, b, ldb, beta, c_wide.data(), s.m);
    narrow_into(C, c_type, c_wide, s.m, s.n, s.ldc);
}

// One product of the batch with half sums, in the order the top of the file
// gives; alpha, beta, A, B and C are half bits.
void half_product(const gemm_shape& s, std::uint16_t alpha, const void* A, const void* B,
                  std::uint16_t beta, void* C) {
    namespace fp = cuemu::fp;
    const auto* a = static_cast<const std::uint16_t*>(A);
    const auto* b = static_cast<const std::uint16_t*>(B);
    auto* c = static_cast<std::uint16_t*>(C);
    auto half = [](double v) {
        return fp::value_of(fp::round_to(v, fp::binary16, fp::to_nearest_even), fp::binary16);
    };
    const double alpha_v = fp::value_of(alpha, fp::binary16);
    const double beta_v = fp::value_of(beta, fp::binary16);
    const bool a_plain = s.transa == CUBLAS_OP_N, b_plain = s.transb == CUBLAS_OP_N;
    for (int j = 0; j < s.n; ++j)
        for (int i = 0; i < s.m; ++i) {
            double sum = 0;
            for (int p = 0; p < s.k; ++p) {
                const std::size_t at_a = a_plain ? i + static_cast<std::size_t>(p) * s.lda
                                                 : p + static_cast<std::size_t>(i) * s.lda;
                const std::size_t at_b = b_plain ? p + static_cast<std::size_t>(j) * s.ldb
                                                 : j + static_cast<std::size_t>(p) * s.ldb;
                sum = half(fp::fma_to_odd(fp::value_of(a[at_a], fp::binary16),
                                          fp::value_of(b[at_b], fp::binary16), sum));
            }
            std::uint16_t& out = c[i + static_cast<std::size_t>(j) * s.ldc];
            const double scaled = half(alpha_v * sum);  // a product of halves: exact in double
            const double result =
                beta_v == 0.0 ? scaled
                              : fp::fma_to_odd(beta_v, fp::value_of(out, fp::binary16), scaled);
            out = static_cast<std::uint16_t>(
                fp::round_to(result, fp::binary16, fp::to_nearest_even));
        }
}

const void* nth(const void* base, long long stride, std::size_t element, int i) {
    return static_cast<const char*>(base) + i * stride * static_cast<long long>(element);
}
void* nth(void* base, long long stride, std::size_t element, int i) {
    return static_cast<char*>(base) + i * stride * static_cast<long long>(element);
}

// Checks alpha and beta (of type S, the sums' type), A, B and C, and queues
// the batch: product(alpha, A, B, beta, C) for each of its matrices.
template <class S, class Product>
cublasStatus_t queue_products(const call_site& at, cublasHandle_t handle, const gemm_shape& s,
                              const void* alpha, const void* beta, const void* A, const void* B,
                              std::size_t ab_size, void* C, std::size_t c_size, Product product) {
    operand_checks checks(at);
    scalar_arg<S> a_scalar, b_scalar;
    const bool fine =
        take_scalar(handle, static_cast<const S*>(alpha), "alpha", checks, &a_scalar) &&
        take_scalar(handle, static_cast<const S*>(beta), "beta", checks, &b_scalar) &&
        gemm_operands_on_device(checks, s, A, ab_size, B, ab_size, C, c_size);
    if (!fine) return submit(handle, at, checks.failed_work());
    return submit(handle, at, [=](std::uint64_t) {
        for (int i = 0; i < s.batch; ++i) {
            void* c = nth(C, s.stride_c, c_size, i);
            product(a_scalar.get(), nth(A, s.stride_a, ab_size, i), nth(B, s.stride_b, ab_size, i),
                    b_scalar.get(), c);
            note_matrix_written(c, c_size, s.m, s.n, s.ldc);
        }
        return cudaSuccess;
    });
}

cublasStatus_t gemm_ex(const call_site& at, cublasHandle_t handle, const gemm_shape& s,
                       const void* alpha, const void* A, cudaDataType Atype, const void* B,
                       cudaDataType Btype, const void* beta, void* C, cudaDataType Ctype,
                       cublasComputeType_t compute, cublasGemmAlgo_t algo) {
    if (cublasStatus_t status = check_handle(handle, at)) return status;
    if (!valid_gemm_arguments(at, s, alpha, beta)) return CUBLAS_STATUS_INVALID_VALUE;
    const sums plan = plan_for(Atype, Btype, Ctype, compute);
    if (plan == sums::none) {
        explain_types(at, Atype, Btype, Ctype, compute);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (!valid_algo(algo)) {
        std::fprintf(stderr,
                     "cuemu: %s at %s:%d: algo = %d is not a cublasGemmAlgo_t (CUBLAS_GEMM_DEFAULT "
                     "lets cuBLAS choose)\n  %s returns CUBLAS_STATUS_INVALID_VALUE, as cuBLAS "
                     "does\n",
                     at.call, at.file, at.line, static_cast<int>(algo), at.call);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (s.empty()) return CUBLAS_STATUS_SUCCESS;
    const std::size_t ab_size = element_size(Atype), c_size = element_size(Ctype);
    if (plan == sums::in_double)
        return queue_products<double>(
            at, handle, s, alpha, beta, A, B, ab_size, C, c_size,
            [s](double a_scalar, const void* a, const void* b, double b_scalar, void* c) {
                blas_gemm(s.transa, s.transb, s.m, s.n, s.k, a_scalar,
                          static_cast<const double*>(a), s.lda, static_cast<const double*>(b),
                          s.ldb, b_scalar, static_cast<double*>(c), s.ldc);
            });
    if (plan == sums::in_half)  // alpha and beta are half: their bits are passed
        return queue_products<std::uint16_t>(
            at, handle, s, alpha, beta, A, B, ab_size, C, c_size,
            [s](std::uint16_t a_scalar, const void* a, const void* b, std::uint16_t b_scalar,
                void* c) { half_product(s, a_scalar, a, b, b_scalar, c); });
    const cuemu::fp::format* input_format = fast_input_format(compute);
    return queue_products<float>(
        at, handle, s, alpha, beta, A, B, ab_size, C, c_size,
        [s, Atype, Ctype, input_format](float a_scalar, const void* a, const void* b,
                                        float b_scalar, void* c) {
            float_product(s, a_scalar, a, Atype, b, b_scalar, c, Ctype, input_format);
        });
}

}  // namespace

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void* alpha,
                            const void* A, cudaDataType Atype, int lda, const void* B,
                            cudaDataType Btype, int ldb, const void* beta, void* C,
                            cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo, const char* file, int line) {
    return gemm_ex({"cublasGemmEx", file, line}, handle,
                   {transa, transb, m, n, k, lda, ldb, ldc, 0, 0, 0, 1}, alpha, A, Atype, B, Btype,
                   beta, C, Ctype, computeType, algo);
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                          cublasOperation_t transb, int m, int n, int k,
                                          const void* alpha, const void* A, cudaDataType Atype,
                                          int lda, long long int strideA, const void* B,
                                          cudaDataType Btype, int ldb, long long int strideB,
                                          const void* beta, void* C, cudaDataType Ctype, int ldc,
                                          long long int strideC, int batchCount,
                                          cublasComputeType_t computeType, cublasGemmAlgo_t algo,
                                          const char* file, int line) {
    return gemm_ex({"cublasGemmStridedBatchedEx", file, line}, handle,
                   {transa, transb, m, n, k, lda, ldb, ldc, strideA, strideB, strideC, batchCount},
                   alpha, A, Atype, B, Btype, beta, C, Ctype, computeType, algo);
}
