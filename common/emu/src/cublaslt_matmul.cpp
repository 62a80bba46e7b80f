// cublaslt_matmul.cpp - cublasLtMatmulAlgoGetHeuristic and cublasLtMatmul
// (include/cublasLt.h): the descriptors checked as cuBLASLt checks them, then
// D = epilogue(alpha * op(A) op(B) + beta * C) queued on the stream given, as
// cublasSgemm's work is queued (cublas.cpp), and done by the system's BLAS.
//
// Decisions:
//   - Types: A and B float, half or bfloat16 (the same), C and D the same
//     type, that of A or float; CUBLAS_COMPUTE_32F (or _PEDANTIC, or a _FAST_
//     kind for all-float), alpha and beta float (CUDA_R_32F scale type), as
//     cuBLASLt's table of supported combinations has them. Half and bfloat16
//     are widened to float (exactly), multiplied by the BLAS's sgemm, and the
//     float result rounded once to D's type, to nearest even, after the
//     epilogue, as cublasGemmEx does (cublas_gemm_ex.cpp). Anything else is
//     CUBLAS_STATUS_NOT_SUPPORTED with a line saying why.
//   - The epilogues, as NVIDIA's cuBLASLt documentation describes them
//     (docs.nvidia.com/cuda/cublas, "cublasLtEpilogue_t" and
//     "cublasLtMatmulDescAttributes_t"), with x = alpha * op(A) op(B) + beta * C:
//       BIAS       x + bias[row]: the bias has one element per row of D, is
//                  packed, and is added before the activation;
//       RELU       max(x, 0);
//       GELU       gelu(x), the tanh approximation
//                  0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). NVIDIA's
//                  pages name the epilogue "GELU" without a formula; the tanh
//                  form is the one programs fusing it rely on (llm.c checks
//                  its fused cuBLASLt path against its own tanh GELU kernel),
//                  and it has not been compared with a GPU's output here;
//       _AUX       also stores GELU's input (after the bias) in the auxiliary
//                  matrix (EPILOGUE_AUX_POINTER, leading dimension
//                  EPILOGUE_AUX_LD, which the documentation requires to be a
//                  multiple of 8 and at least D's rows), of D's type;
//       DGELU      x * gelu'(aux): the auxiliary matrix is GELU's input saved
//                  by the forward product;
//       DGELU_BGRAD  also the bias gradient: for each row of D, the sum over
//                  its columns of the DGELU result (in float, before D's
//                  rounding; cuBLASLt does not say which), into BIAS_POINTER;
//       BGRADA, BGRADB  the bias gradient from A or B: the sum of op(A) over
//                  k (one element per row of D), or of op(B) over k (one per
//                  column of D), into BIAS_POINTER; D is the plain product.
//                  cuBLASLt has these only where the matrix summed is stored
//                  with k along its columns: BGRADA with TRANSA = CUBLAS_OP_N,
//                  BGRADB with TRANSB = CUBLAS_OP_T. Its heuristic answers
//                  CUBLAS_STATUS_NOT_SUPPORTED for the other transposes, for
//                  every type, size and batch tried (measured on an H200), and
//                  so do the emulator's heuristic and cublasLtMatmul, with a
//                  line saying why.
//     ReLU bit masks (RELU_AUX, DRELU) are refused when the epilogue is set
//     (cublaslt.cpp).
//   - Pointer modes: alpha and beta are read at the call (host memory); the
//     device modes are refused when set.
//   - The heuristic has one algorithm to give, which needs no workspace; its
//     descriptor is ignored by cublasLtMatmul (a null algo is taken too, as
//     cuBLASLt takes one).
#include <cmath>
#include <climits>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cublaslt_internal.h"
#include "cuemu/fp_round.h"
#include "internal.h"

using namespace cuemu::detail;
using namespace cuemu::cublaslt_detail;
using cuemu::cublas_detail::blas_gemm;
using cuemu::cublas_detail::note_matrix_written;
using cuemu::cublas_detail::operand_checks;

namespace {

constexpr std::uint32_t epilogue_bias = 4, epilogue_relu = 2, epilogue_bgrad = 16,
                        epilogue_gelu = 32, epilogue_dgelu = 64, epilogue_aux = 128;

bool uses_bias_vector(std::uint32_t e) {
    return (e & (epilogue_bias | epilogue_bgrad)) || e == CUBLASLT_EPILOGUE_BGRADA ||
           e == CUBLASLT_EPILOGUE_BGRADB;
}
bool writes_bias_vector(std::uint32_t e) {
    return (e & epilogue_bgrad) || e == CUBLASLT_EPILOGUE_BGRADA || e == CUBLASLT_EPILOGUE_BGRADB;
}
bool uses_aux(std::uint32_t e) { return (e & epilogue_aux) != 0; }

// Everything a product needs, checked: the shape, the types, the epilogue.
struct product {
    cublasOperation_t transa, transb;
    int m, n, k;
    int ab_type, cd_type;
    layout_fields a, b, c, d;
    int batch;
    std::uint32_t epilogue;
    int bias_length;  // rows or columns of D
    const void* bias;
    long long bias_stride;
    void* aux;
    long long aux_ld, aux_stride;
};

const char* type_words(int type, char* buf, std::size_t size) {
    if (const char* name = data_type_name(type)) return name;
    std::snprintf(buf, size, "type %d", type);
    return buf;
}

cublasStatus_t say(const call_site& at, cublasStatus_t status, const char* why) {
    const bool invalid = status == CUBLAS_STATUS_INVALID_VALUE;
    std::fprintf(stderr, "cuemu: %s at %s:%d: %s\n  %s returns %s\n", at.call, at.file, at.line,
                 why, at.call,
                 invalid ? "CUBLAS_STATUS_INVALID_VALUE, as cuBLASLt does"
                         : "CUBLAS_STATUS_NOT_SUPPORTED");
    return status;
}

bool valid_op(std::int32_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }
bool is_float_compute(std::int32_t t) {
    return t == CUBLAS_COMPUTE_32F || t == CUBLAS_COMPUTE_32F_PEDANTIC;
}
bool is_fast_float_compute(std::int32_t t) {
    return t == CUBLAS_COMPUTE_32F_FAST_16F || t == CUBLAS_COMPUTE_32F_FAST_16BF ||
           t == CUBLAS_COMPUTE_32F_FAST_TF32;
}
bool emulated_types(int ab, int cd, std::int32_t compute, std::int32_t scale) {
    if (scale != CUDA_R_32F) return false;
    if (ab == CUDA_R_32F && cd == CUDA_R_32F) return is_float_compute(compute) || is_fast_float_compute(compute);
    return (ab == CUDA_R_16F || ab == CUDA_R_16BF) && (cd == ab || cd == CUDA_R_32F) &&
           is_float_compute(compute);
}

// The descriptors of a product, checked; *p filled when they describe one
// the emulator runs.
cublasStatus_t plan(const call_site& at, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t Adesc,
                    cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc,
                    cublasLtMatrixLayout_t Ddesc, product* p) {
    if (!check_descriptor(desc, descriptor_kind::matmul, "computeDesc", at) ||
        !check_descriptor(Adesc, descriptor_kind::layout, "Adesc", at) ||
        !check_descriptor(Bdesc, descriptor_kind::layout, "Bdesc", at) ||
        !check_descriptor(Cdesc, descriptor_kind::layout, "Cdesc", at) ||
        !check_descriptor(Ddesc, descriptor_kind::layout, "Ddesc", at))
        return CUBLAS_STATUS_INVALID_VALUE;
    const matmul_fields& op = fields_of(desc);
    p->a = fields_of(Adesc);
    p->b = fields_of(Bdesc);
    p->c = fields_of(Cdesc);
    p->d = fields_of(Ddesc);
    char why[700], t1[40], t2[40], t3[40], t4[40];
    if (!valid_op(op.transa) || !valid_op(op.transb)) {
        std::snprintf(why, sizeof why,
                      "TRANSA = %d, TRANSB = %d: each must be CUBLAS_OP_N, CUBLAS_OP_T or CUBLAS_OP_C",
                      op.transa, op.transb);
        return say(at, CUBLAS_STATUS_INVALID_VALUE, why);
    }
    p->transa = static_cast<cublasOperation_t>(op.transa);
    p->transb = static_cast<cublasOperation_t>(op.transb);
    if (p->a.type != p->b.type) {
        // What an H200's cuBLASLt answered for A CUDA_R_32F with B CUDA_R_16F.
        std::snprintf(why, sizeof why, "A %s with B %s: A and B must have one type",
                      type_words(p->a.type, t1, sizeof t1), type_words(p->b.type, t2, sizeof t2));
        return say(at, CUBLAS_STATUS_INVALID_VALUE, why);
    }
    if (p->c.type != p->d.type ||
        !emulated_types(p->a.type, p->d.type, op.compute_type, op.scale_type)) {
        std::snprintf(why, sizeof why,
                      "A %s, B %s, C %s, D %s with compute type %d and scale type %s is not "
                      "emulated:\n  the emulator's cublasLtMatmul does A and B CUDA_R_32F, "
                      "CUDA_R_16F or CUDA_R_16BF with C and D of that type or CUDA_R_32F,\n"
                      "  CUBLAS_COMPUTE_32F (a _FAST_ kind for all CUDA_R_32F) and scale type "
                      "CUDA_R_32F",
                      type_words(p->a.type, t1, sizeof t1), type_words(p->b.type, t2, sizeof t2),
                      type_words(p->c.type, t3, sizeof t3), type_words(p->d.type, t4, sizeof t4),
                      op.compute_type, type_words(op.scale_type, t1, sizeof t1));
        return say(at, CUBLAS_STATUS_NOT_SUPPORTED, why);
    }
    p->ab_type = p->a.type;
    p->cd_type = p->d.type;
    for (const layout_fields* l : {&p->a, &p->b, &p->c, &p->d})
        if (l->rows > INT_MAX || l->cols > INT_MAX || l->ld > INT_MAX)
            return say(at, CUBLAS_STATUS_NOT_SUPPORTED,
                       "a layout's rows, columns or leading dimension does not fit in an int");
    p->m = static_cast<int>(p->d.rows);
    p->n = static_cast<int>(p->d.cols);
    const bool a_plain = p->transa == CUBLAS_OP_N, b_plain = p->transb == CUBLAS_OP_N;
    p->k = static_cast<int>(a_plain ? p->a.cols : p->a.rows);
    const std::uint64_t a_m = a_plain ? p->a.rows : p->a.cols;
    const std::uint64_t b_k = b_plain ? p->b.rows : p->b.cols, b_n = b_plain ? p->b.cols : p->b.rows;
    if (a_m != p->d.rows || b_k != static_cast<std::uint64_t>(p->k) || b_n != p->d.cols ||
        p->c.rows != p->d.rows || p->c.cols != p->d.cols) {
        std::snprintf(why, sizeof why,
                      "the layouts do not make a product: D is %llu x %llu, C %llu x %llu, op(A) "
                      "%llu x %d, op(B) %llu x %llu\n  (op(A) must be rows(D) x k, op(B) k x "
                      "cols(D), C as D; TRANSA and TRANSB say whether A and B are stored "
                      "transposed)",
                      static_cast<unsigned long long>(p->d.rows), static_cast<unsigned long long>(p->d.cols),
                      static_cast<unsigned long long>(p->c.rows), static_cast<unsigned long long>(p->c.cols),
                      static_cast<unsigned long long>(a_m), p->k,
                      static_cast<unsigned long long>(b_k), static_cast<unsigned long long>(b_n));
        return say(at, CUBLAS_STATUS_INVALID_VALUE, why);
    }
    const char* names[] = {"A", "B", "C", "D"};
    const layout_fields* layouts[] = {&p->a, &p->b, &p->c, &p->d};
    for (int i = 0; i < 4; ++i) {
        const layout_fields& l = *layouts[i];
        if (l.ld < static_cast<std::int64_t>(l.rows > 1 ? l.rows : 1)) {
            std::snprintf(why, sizeof why,
                          "%s's leading dimension %lld is smaller than its %llu rows (column-major: "
                          "the distance from one column to the next)",
                          names[i], static_cast<long long>(l.ld),
                          static_cast<unsigned long long>(l.rows));
            return say(at, CUBLAS_STATUS_INVALID_VALUE, why);
        }
        if (l.batch_count != p->d.batch_count || l.batch_count < 1) {
            std::snprintf(why, sizeof why,
                          "%s's BATCH_COUNT is %d and D's %d: every layout needs the same batch "
                          "count, at least 1",
                          names[i], l.batch_count, p->d.batch_count);
            return say(at, CUBLAS_STATUS_INVALID_VALUE, why);
        }
    }
    p->batch = p->d.batch_count;
    p->epilogue = op.epilogue;
    p->bias = op.bias;
    p->bias_stride = op.bias_batch_stride;
    p->bias_length = op.epilogue == CUBLASLT_EPILOGUE_BGRADB ? p->n : p->m;
    p->aux = op.aux;
    p->aux_ld = op.aux_ld;
    p->aux_stride = op.aux_batch_stride;
    if ((op.epilogue == CUBLASLT_EPILOGUE_BGRADA && p->transa != CUBLAS_OP_N) ||
        (op.epilogue == CUBLASLT_EPILOGUE_BGRADB && p->transb == CUBLAS_OP_N)) {
        const bool from_a = op.epilogue == CUBLASLT_EPILOGUE_BGRADA;
        std::snprintf(why, sizeof why,
                      "%s with %s = %s: cuBLASLt has no kernel for it (its heuristic answers "
                      "CUBLAS_STATUS_NOT_SUPPORTED on an H200)\n  it sums %s over k only when %s is "
                      "stored with k along its columns: %s = %s",
                      epilogue_name(op.epilogue), from_a ? "TRANSA" : "TRANSB",
                      !from_a ? "CUBLAS_OP_N" : p->transa == CUBLAS_OP_C ? "CUBLAS_OP_C" : "CUBLAS_OP_T",
                      from_a ? "op(A)" : "op(B)",
                      from_a ? "A" : "B", from_a ? "TRANSA" : "TRANSB",
                      from_a ? "CUBLAS_OP_N" : "CUBLAS_OP_T");
        return say(at, CUBLAS_STATUS_NOT_SUPPORTED, why);
    }
    if (uses_bias_vector(op.epilogue) && op.bias_type != -1 && op.bias_type != p->cd_type) {
        std::snprintf(why, sizeof why,
                      "BIAS_DATA_TYPE %s with D %s is not emulated: the bias has D's type",
                      type_words(op.bias_type, t1, sizeof t1), type_words(p->cd_type, t2, sizeof t2));
        return say(at, CUBLAS_STATUS_NOT_SUPPORTED, why);
    }
    if (uses_aux(op.epilogue)) {
        if (op.aux_type != -1 && op.aux_type != p->cd_type) {
            std::snprintf(why, sizeof why,
                          "EPILOGUE_AUX_DATA_TYPE %s with D %s is not emulated: the auxiliary "
                          "matrix has D's type",
                          type_words(op.aux_type, t1, sizeof t1), type_words(p->cd_type, t2, sizeof t2));
            return say(at, CUBLAS_STATUS_NOT_SUPPORTED, why);
        }
        // cuBLASLt documents EPILOGUE_AUX_LD as a multiple of 8, but an H200's
        // heuristic accepted 12: only a leading dimension short of D's rows
        // is refused here.
        if (op.aux_ld < p->m || op.aux_ld > INT_MAX || (p->batch > 1 && op.aux_batch_stride % 8 != 0)) {
            std::snprintf(why, sizeof why,
                          "%s needs EPILOGUE_AUX_LD (%lld) at least D's %d rows, and "
                          "EPILOGUE_AUX_BATCH_STRIDE (%lld) a multiple of 8, as cuBLASLt "
                          "documents",
                          epilogue_name(op.epilogue), static_cast<long long>(op.aux_ld), p->m,
                          static_cast<long long>(op.aux_batch_stride));
            return say(at, CUBLAS_STATUS_INVALID_VALUE, why);
        }
    }
    return CUBLAS_STATUS_SUCCESS;
}

std::size_t element_size(int type) { return type == CUDA_R_32F ? 4 : 2; }

const cuemu::fp::format& narrow_format(int type) {
    return type == CUDA_R_16F ? cuemu::fp::binary16 : cuemu::fp::bfloat16;
}
float load(const void* base, int type, std::size_t i) {
    if (type == CUDA_R_32F) return static_cast<const float*>(base)[i];
    return static_cast<float>(
        cuemu::fp::value_of(static_cast<const std::uint16_t*>(base)[i], narrow_format(type)));
}
void store(void* base, int type, std::size_t i, float v) {
    if (type == CUDA_R_32F) {
        static_cast<float*>(base)[i] = v;
        return;
    }
    static_cast<std::uint16_t*>(base)[i] = static_cast<std::uint16_t>(
        cuemu::fp::round_to(v, narrow_format(type), cuemu::fp::to_nearest_even));
}

// A rows x cols matrix (leading dimension ld) as floats packed with leading
// dimension rows.
std::vector<float> widen(const void* p, int type, int rows, int cols, long long ld) {
    std::vector<float> out(static_cast<std::size_t>(rows) * cols);
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i)
            out[i + static_cast<std::size_t>(j) * rows] = load(p, type, i + j * static_cast<std::size_t>(ld));
    return out;
}

// GELU and its derivative, the tanh approximation (see the top of the file).
constexpr float sqrt_2_over_pi = 0.7978845608028654f;
constexpr float gelu_cubic = 0.044715f;
float gelu(float x) {
    return 0.5f * x * (1.0f + std::tanh(sqrt_2_over_pi * (x + gelu_cubic * x * x * x)));
}
float gelu_derivative(float x) {
    const float t = std::tanh(sqrt_2_over_pi * (x + gelu_cubic * x * x * x));
    return 0.5f * (1.0f + t) +
           0.5f * x * (1.0f - t * t) * sqrt_2_over_pi * (1.0f + 3.0f * gelu_cubic * x * x);
}

const void* nth(const void* base, long long stride, std::size_t element, int i) {
    return static_cast<const char*>(base) + i * stride * static_cast<long long>(element);
}
void* nth(void* base, long long stride, std::size_t element, int i) {
    return static_cast<char*>(base) + i * stride * static_cast<long long>(element);
}

// One product of the batch: A, B, C, D, the bias vector and the auxiliary
// matrix of this batch member.
void run_one(const product& p, float alpha, float beta, const void* A, const void* B,
             const void* C, void* D, void* bias, void* aux) {
    const int rows_a = p.transa == CUBLAS_OP_N ? p.m : p.k, cols_a = p.transa == CUBLAS_OP_N ? p.k : p.m;
    const int rows_b = p.transb == CUBLAS_OP_N ? p.k : p.n, cols_b = p.transb == CUBLAS_OP_N ? p.n : p.k;
    std::vector<float> x(static_cast<std::size_t>(p.m) * p.n, 0.0f);
    if (p.k > 0) {
        std::vector<float> a_wide, b_wide;
        const float* a = static_cast<const float*>(A);
        const float* b = static_cast<const float*>(B);
        int lda = static_cast<int>(p.a.ld), ldb = static_cast<int>(p.b.ld);
        if (p.ab_type != CUDA_R_32F) {
            a_wide = widen(A, p.ab_type, rows_a, cols_a, p.a.ld);
            b_wide = widen(B, p.ab_type, rows_b, cols_b, p.b.ld);
            a = a_wide.data();
            b = b_wide.data();
            lda = rows_a;
            ldb = rows_b;
        }
        blas_gemm(p.transa, p.transb, p.m, p.n, p.k, alpha, a, lda, b, ldb, 0.0f, x.data(), p.m);
    }
    const std::uint32_t e = p.epilogue;
    // BGRADA, BGRADB: sums of op(A) or op(B) over k, before D is written (D may be A or B).
    if (e == CUBLASLT_EPILOGUE_BGRADA || e == CUBLASLT_EPILOGUE_BGRADB) {
        const bool from_a = e == CUBLASLT_EPILOGUE_BGRADA;
        const void* src = from_a ? A : B;
        const bool plain = (from_a ? p.transa : p.transb) == CUBLAS_OP_N;
        const long long ld = from_a ? p.a.ld : p.b.ld;
        std::vector<float> sums(p.bias_length, 0.0f);
        for (int i = 0; i < p.bias_length; ++i)
            for (int kk = 0; kk < p.k; ++kk) {
                // op(A)[i][kk] or op(B)[kk][i], as stored.
                const bool index_is_row = from_a == plain;
                const std::size_t at_ = index_is_row ? i + kk * static_cast<std::size_t>(ld)
                                                     : kk + i * static_cast<std::size_t>(ld);
                sums[i] += load(src, p.ab_type, at_);
            }
        for (int i = 0; i < p.bias_length; ++i) store(bias, p.cd_type, i, sums[i]);
    }
    std::vector<float> bias_gradient((e & epilogue_bgrad) ? p.m : 0, 0.0f);
    for (int j = 0; j < p.n; ++j)
        for (int i = 0; i < p.m; ++i) {
            float v = x[i + static_cast<std::size_t>(j) * p.m];
            const std::size_t c_at = i + j * static_cast<std::size_t>(p.c.ld);
            if (beta != 0.0f) v += beta * load(C, p.cd_type, c_at);  // C is not read when beta is 0
            if (e & epilogue_bias) v += load(bias, p.cd_type, i);
            const std::size_t aux_at = i + j * static_cast<std::size_t>(p.aux_ld);
            if (e & epilogue_gelu) {
                if (e & epilogue_aux) store(aux, p.cd_type, aux_at, v);
                v = gelu(v);
            }
            if (e & epilogue_dgelu) v *= gelu_derivative(load(aux, p.cd_type, aux_at));
            if (e & epilogue_relu) v = v > 0.0f ? v : 0.0f;
            if (e & epilogue_bgrad) bias_gradient[i] += v;
            store(D, p.cd_type, i + j * static_cast<std::size_t>(p.d.ld), v);
        }
    if (e & epilogue_bgrad)
        for (int i = 0; i < p.m; ++i) store(bias, p.cd_type, i, bias_gradient[i]);
}

cublasStatus_t queue_product(const call_site& at, const product& p, float alpha, float beta,
                             const void* A, const void* B, const void* C, void* D,
                             cudaStream_t stream) {
    if (context_status() != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
    if (!is_valid_stream(stream)) {
        std::fprintf(stderr,
                     "cuemu: %s at %s:%d: the stream is not a live stream (destroyed?)\n"
                     "  %s returns CUBLAS_STATUS_EXECUTION_FAILED\n",
                     at.call, at.file, at.line, at.call);
        return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    if (p.m == 0 || p.n == 0) return CUBLAS_STATUS_SUCCESS;
    const std::size_t ab = element_size(p.ab_type), cd = element_size(p.cd_type);
    const int rows_a = p.transa == CUBLAS_OP_N ? p.m : p.k, cols_a = p.transa == CUBLAS_OP_N ? p.k : p.m;
    const int rows_b = p.transb == CUBLAS_OP_N ? p.k : p.n, cols_b = p.transb == CUBLAS_OP_N ? p.n : p.k;
    const std::uint32_t e = p.epilogue;
    operand_checks checks(at);
    const bool fine =
        (p.k == 0 || checks.matrix("A", A, ab, rows_a, cols_a, static_cast<int>(p.a.ld),
                                   p.a.batch_stride, p.batch)) &&
        (p.k == 0 || checks.matrix("B", B, ab, rows_b, cols_b, static_cast<int>(p.b.ld),
                                   p.b.batch_stride, p.batch)) &&
        (beta == 0.0f || checks.matrix("C", C, cd, p.m, p.n, static_cast<int>(p.c.ld),
                                       p.c.batch_stride, p.batch)) &&
        checks.matrix("D", D, cd, p.m, p.n, static_cast<int>(p.d.ld), p.d.batch_stride, p.batch) &&
        (!uses_bias_vector(e) || checks.matrix("bias vector (BIAS_POINTER)", p.bias, cd,
                                               p.bias_length, 1, p.bias_length, p.bias_stride,
                                               p.batch)) &&
        (!uses_aux(e) || checks.matrix("auxiliary matrix (EPILOGUE_AUX_POINTER)", p.aux, cd, p.m,
                                       p.n, static_cast<int>(p.aux_ld), p.aux_stride, p.batch));
    if (!fine) {
        enqueue(stream, checks.failed_work());
        return CUBLAS_STATUS_SUCCESS;
    }
    void* bias = const_cast<void*>(p.bias);  // written by the gradient epilogues
    enqueue(stream, [=](std::uint64_t) {
        for (int i = 0; i < p.batch; ++i) {
            void* d = nth(D, p.d.batch_stride, cd, i);
            void* bias_i = bias ? nth(bias, p.bias_stride, cd, i) : nullptr;
            void* aux_i = p.aux ? nth(p.aux, p.aux_stride, cd, i) : nullptr;
            run_one(p, alpha, beta, nth(A, p.a.batch_stride, ab, i), nth(B, p.b.batch_stride, ab, i),
                    nth(C, p.c.batch_stride, cd, i), d, bias_i, aux_i);
            note_matrix_written(d, cd, p.m, p.n, static_cast<int>(p.d.ld));
            if (writes_bias_vector(e)) note_matrix_written(bias_i, cd, p.bias_length, 1, p.bias_length);
            if ((e & epilogue_gelu) && uses_aux(e))
                note_matrix_written(aux_i, cd, p.m, p.n, static_cast<int>(p.aux_ld));
        }
        return cudaSuccess;
    });
    return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle,
                                              cublasLtMatmulDesc_t operationDesc,
                                              cublasLtMatrixLayout_t Adesc,
                                              cublasLtMatrixLayout_t Bdesc,
                                              cublasLtMatrixLayout_t Cdesc,
                                              cublasLtMatrixLayout_t Ddesc,
                                              cublasLtMatmulPreference_t preference,
                                              int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                              int* returnAlgoCount, const char* file, int line) {
    const call_site at{"cublasLtMatmulAlgoGetHeuristic", file, line};
    if (cublasStatus_t status = check_handle(lightHandle, at)) return status;
    if (requestedAlgoCount <= 0 || !heuristicResultsArray || !returnAlgoCount) {
        char why[200];
        std::snprintf(why, sizeof why,
                      "requestedAlgoCount = %d must be at least 1, and heuristicResultsArray and "
                      "returnAlgoCount must not be null pointers",
                      requestedAlgoCount);
        return say(at, CUBLAS_STATUS_INVALID_VALUE, why);
    }
    if (!check_descriptor(preference, descriptor_kind::preference, "preference", at))
        return CUBLAS_STATUS_INVALID_VALUE;
    product p{};
    if (cublasStatus_t status = plan(at, operationDesc, Adesc, Bdesc, Cdesc, Ddesc, &p)) return status;
    cublasLtMatmulHeuristicResult_t& result = heuristicResultsArray[0];
    std::memset(&result, 0, sizeof result);
    std::memcpy(result.algo.data, "cuemu", 6);  // the emulator's one algorithm
    result.workspaceSize = 0;
    result.state = CUBLAS_STATUS_SUCCESS;
    result.wavesCount = 1.0f;
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                              const void* alpha, const void* A, cublasLtMatrixLayout_t Adesc,
                              const void* B, cublasLtMatrixLayout_t Bdesc, const void* beta,
                              const void* C, cublasLtMatrixLayout_t Cdesc, void* D,
                              cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t* /*algo*/,
                              void* /*workspace*/, size_t /*workspaceSizeInBytes*/,
                              cudaStream_t stream, const char* file, int line) {
    const call_site at{"cublasLtMatmul", file, line};
    if (cublasStatus_t status = check_handle(lightHandle, at)) return status;
    product p{};
    if (cublasStatus_t status = plan(at, computeDesc, Adesc, Bdesc, Cdesc, Ddesc, &p)) return status;
    if (!alpha || !beta) return say(at, CUBLAS_STATUS_INVALID_VALUE, "alpha or beta is a null pointer");
    if (uses_bias_vector(p.epilogue) && !p.bias) {
        char why[200];
        std::snprintf(why, sizeof why, "%s needs a bias vector: BIAS_POINTER is a null pointer",
                      epilogue_name(p.epilogue));
        return say(at, CUBLAS_STATUS_INVALID_VALUE, why);
    }
    if (uses_aux(p.epilogue) && !p.aux) {
        char why[200];
        std::snprintf(why, sizeof why,
                      "%s needs an auxiliary matrix: EPILOGUE_AUX_POINTER is a null pointer",
                      epilogue_name(p.epilogue));
        return say(at, CUBLAS_STATUS_INVALID_VALUE, why);
    }
    const float alpha_value = *static_cast<const float*>(alpha);
    const float beta_value = *static_cast<const float*>(beta);
    return queue_product(at, p, alpha_value, beta_value, A, B, C, D, stream);
}
