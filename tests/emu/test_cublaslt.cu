// test_cublaslt.cu - the emulator's cuBLASLt subset (common/emu/include/cublasLt.h)
// against a plain CPU loop in double: every emulated epilogue (bias, ReLU, the
// tanh GELU with and without the auxiliary matrix, DGELU, the bias gradients)
// for float, half and bfloat16 at 37 x 53 x 29, each transpose of A and B,
// strided batches, alpha and beta (beta = 0 with a NaN-poisoned C), D apart
// from C with its own leading dimension (the padding must stay untouched);
// descriptors' attributes read back; the heuristic's answer; statuses for bad
// arguments and for what the emulator refuses; stream order; the report for a
// host pointer. Test cases named "process: ..." end with a sticky error and
// run as processes of their own.
// Genuine cuBLASLt code: it also compiles with nvcc.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "stderr_capture.h"

namespace {

const float nan_f = std::numeric_limits<float>::quiet_NaN();

float to_float(float x) { return x; }
float to_float(__half x) { return __half2float(x); }
float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T>
T from_float(float x);
template <>
float from_float<float>(float x) { return x; }
template <>
__half from_float<__half>(float x) { return __float2half(x); }
template <>
__nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16(x); }

// How far a result may be from the double loop: the float sums' error plus
// one rounding to the output's type.
template <class T>
double tolerance() { return 1e-4; }
template <>
double tolerance<__half>() { return 4e-3; }
template <>
double tolerance<__nv_bfloat16>() { return 2e-2; }
// The unit roundoff of D's type (0 for float, whose rounding the sums' part
// of tolerance() covers).
template <class T>
double unit_roundoff() { return 0; }
template <>
double unit_roundoff<__half>() { return 1.0 / 2048; }
template <>
double unit_roundoff<__nv_bfloat16>() { return 1.0 / 256; }

template <class T>
std::vector<T> random_matrix(size_t n) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<T> v(n);
    for (T& x : v) x = from_float<T>(dist(rng()));
    return v;
}

double gelu(double x) {
    const double s = std::sqrt(2.0 / 3.14159265358979323846);
    return 0.5 * x * (1.0 + std::tanh(s * (x + 0.044715 * x * x * x)));
}
double gelu_derivative(double x) {
    const double s = std::sqrt(2.0 / 3.14159265358979323846);
    const double t = std::tanh(s * (x + 0.044715 * x * x * x));
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * s * (1.0 + 3.0 * 0.044715 * x * x);
}

template <class T>
void set_desc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const T& value) {
    REQUIRE(cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof value) == CUBLAS_STATUS_SUCCESS);
}
template <class T>
void set_layout(cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr, const T& value) {
    REQUIRE(cublasLtMatrixLayoutSetAttribute(layout, attr, &value, sizeof value) == CUBLAS_STATUS_SUCCESS);
}

struct lt_handle {
    cublasLtHandle_t h = nullptr;
    lt_handle() { REQUIRE(cublasLtCreate(&h) == CUBLAS_STATUS_SUCCESS); }
    ~lt_handle() { CHECK(cublasLtDestroy(h) == CUBLAS_STATUS_SUCCESS); }
};

// A column-major matrix layout with batches, destroyed when it goes.
struct layout {
    cublasLtMatrixLayout_t l = nullptr;
    layout(cudaDataType type, int rows, int cols, int ld, int batch = 1, long long stride = 0) {
        REQUIRE(cublasLtMatrixLayoutCreate(&l, type, rows, cols, ld) == CUBLAS_STATUS_SUCCESS);
        if (batch != 1) {
            set_layout(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, int32_t(batch));
            set_layout(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, int64_t(stride));
        }
    }
    ~layout() { CHECK(cublasLtMatrixLayoutDestroy(l) == CUBLAS_STATUS_SUCCESS); }
};

struct matmul_desc {
    cublasLtMatmulDesc_t d = nullptr;
    matmul_desc() { REQUIRE(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS); }
    ~matmul_desc() { CHECK(cublasLtMatmulDescDestroy(d) == CUBLAS_STATUS_SUCCESS); }
};

struct preference {
    cublasLtMatmulPreference_t p = nullptr;
    preference() {
        REQUIRE(cublasLtMatmulPreferenceCreate(&p) == CUBLAS_STATUS_SUCCESS);
        const uint64_t workspace = 1 << 20;
        REQUIRE(cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                     &workspace, sizeof workspace) == CUBLAS_STATUS_SUCCESS);
    }
    ~preference() { CHECK(cublasLtMatmulPreferenceDestroy(p) == CUBLAS_STATUS_SUCCESS); }
};

bool epilogue_has(cublasLtEpilogue_t e, unsigned bit) { return (static_cast<unsigned>(e) & bit) != 0; }
bool has_bias(cublasLtEpilogue_t e) { return epilogue_has(e, 4); }
bool has_gelu(cublasLtEpilogue_t e) { return epilogue_has(e, 32); }
bool has_dgelu(cublasLtEpilogue_t e) { return epilogue_has(e, 64); }
bool has_aux(cublasLtEpilogue_t e) { return epilogue_has(e, 128); }
bool has_bgrad(cublasLtEpilogue_t e) { return epilogue_has(e, 16); }
bool has_relu(cublasLtEpilogue_t e) { return epilogue_has(e, 2); }
bool grads_from_input(cublasLtEpilogue_t e) {
    return e == CUBLASLT_EPILOGUE_BGRADA || e == CUBLASLT_EPILOGUE_BGRADB;
}

// cuBLASLt sums A or B for BGRADA or BGRADB only when it is stored with k
// along its columns (A not transposed, B transposed); its heuristic answers
// CUBLAS_STATUS_NOT_SUPPORTED for the other transposes (measured on an H200,
// every type and size this file uses).
bool cublaslt_has(cublasLtEpilogue_t e, cublasOperation_t ta, cublasOperation_t tb) {
    if (e == CUBLASLT_EPILOGUE_BGRADA) return ta == CUBLAS_OP_N;
    if (e == CUBLASLT_EPILOGUE_BGRADB) return tb != CUBLAS_OP_N;
    return true;
}

struct product_case {
    cublasOperation_t ta, tb;
    int m, n, k, batch;
    float alpha, beta;
    cublasLtEpilogue_t epilogue;
};

// Element (i, j) of op(M), M column-major (leading dimension ld), as float.
template <class T>
float op_at(const std::vector<T>& M, size_t base, cublasOperation_t op, int ld, int i, int j) {
    return to_float(op == CUBLAS_OP_N ? M[base + i + static_cast<size_t>(j) * ld]
                                      : M[base + j + static_cast<size_t>(i) * ld]);
}

// Runs one product through heuristic and cublasLtMatmul, and checks D, the
// auxiliary matrix and the bias gradient against the double loop; or, for a
// combination cuBLASLt does not have, that both refuse it.
template <class T>
void check_product(cudaDataType type, const product_case& s) {
    CAPTURE(s.ta);
    CAPTURE(s.tb);
    CAPTURE(s.batch);
    CAPTURE(s.epilogue);
    CAPTURE(s.beta);
    const int rows_a = s.ta == CUBLAS_OP_N ? s.m : s.k, cols_a = s.ta == CUBLAS_OP_N ? s.k : s.m;
    const int rows_b = s.tb == CUBLAS_OP_N ? s.k : s.n, cols_b = s.tb == CUBLAS_OP_N ? s.n : s.k;
    const int lda = rows_a + 3, ldb = rows_b + 2, ldc = s.m + 2, ldd = s.m + 1;
    const int aux_ld = (s.m + 7) / 8 * 8 + 8;
    const long long stride_a = (long long)lda * cols_a + 5, stride_b = (long long)ldb * cols_b + 7,
                    stride_c = (long long)ldc * s.n + 1, stride_d = (long long)ldd * s.n + 3,
                    stride_aux = (long long)aux_ld * s.n;
    const int bias_len = s.epilogue == CUBLASLT_EPILOGUE_BGRADB ? s.n : s.m;
    const long long stride_bias = bias_len + 2;
    const T nan_t = from_float<T>(nan_f);

    std::vector<T> A = random_matrix<T>(stride_a * s.batch), B = random_matrix<T>(stride_b * s.batch);
    std::vector<T> C = random_matrix<T>(stride_c * s.batch);
    if (s.beta == 0.0f) C.assign(C.size(), nan_t);  // must not be read
    std::vector<T> bias = random_matrix<T>(stride_bias * s.batch);
    const bool bias_written = has_bgrad(s.epilogue) || grads_from_input(s.epilogue);
    if (bias_written) bias.assign(bias.size(), nan_t);
    std::vector<T> aux = has_dgelu(s.epilogue) ? random_matrix<T>(stride_aux * s.batch)
                                               : std::vector<T>(stride_aux * s.batch, nan_t);
    if (has_dgelu(s.epilogue))  // GELU's inputs: spread over its curved part
        for (T& v : aux) v = from_float<T>(3.0f * to_float(v));

    device_buffer<T> dA(A.size()), dB(B.size()), dC(C.size()), dD(stride_d * s.batch),
        dbias(bias.size()), daux(aux.size());
    dA.write(A);
    dB.write(B);
    dC.write(C);
    dD.write(std::vector<T>(dD.n, nan_t));
    dbias.write(bias);
    daux.write(aux);

    lt_handle h;
    matmul_desc desc;
    set_desc(desc.d, CUBLASLT_MATMUL_DESC_TRANSA, int32_t(s.ta));
    set_desc(desc.d, CUBLASLT_MATMUL_DESC_TRANSB, int32_t(s.tb));
    set_desc(desc.d, CUBLASLT_MATMUL_DESC_EPILOGUE, uint32_t(s.epilogue));
    if (has_bias(s.epilogue) || bias_written) {
        set_desc(desc.d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, static_cast<void*>(dbias.ptr));
        set_desc(desc.d, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, int32_t(type));
        set_desc(desc.d, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, int64_t(stride_bias));
    }
    if (has_aux(s.epilogue)) {
        set_desc(desc.d, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, static_cast<void*>(daux.ptr));
        set_desc(desc.d, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, int64_t(aux_ld));
        set_desc(desc.d, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, int64_t(stride_aux));
    }
    layout la(type, rows_a, cols_a, lda, s.batch, stride_a), lb(type, rows_b, cols_b, ldb, s.batch, stride_b),
        lc(type, s.m, s.n, ldc, s.batch, stride_c), ld(type, s.m, s.n, ldd, s.batch, stride_d);
    preference pref;
    cublasLtMatmulHeuristicResult_t result[4] = {};
    int returned = 0;
    if (!cublaslt_has(s.epilogue, s.ta, s.tb)) {
#ifdef CUEMU
        stderr_capture capture;
#endif
        CHECK(cublasLtMatmulAlgoGetHeuristic(h.h, desc.d, la.l, lb.l, lc.l, ld.l, pref.p, 4, result, &returned) ==
              CUBLAS_STATUS_NOT_SUPPORTED);
        CHECK(returned == 0);
        CHECK(cublasLtMatmul(h.h, desc.d, &s.alpha, dA.ptr, la.l, dB.ptr, lb.l, &s.beta, dC.ptr, lc.l, dD.ptr,
                             ld.l, nullptr, nullptr, 0, 0) == CUBLAS_STATUS_NOT_SUPPORTED);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        for (T v : dbias.read()) CHECK(std::isnan(to_float(v)));  // nothing written
#ifdef CUEMU
        CHECK(capture.finish().find("cuBLASLt has no kernel for it") != std::string::npos);
#endif
        return;
    }
    REQUIRE(cublasLtMatmulAlgoGetHeuristic(h.h, desc.d, la.l, lb.l, lc.l, ld.l, pref.p, 4, result,
                                           &returned) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(returned >= 1);
    REQUIRE(result[0].state == CUBLAS_STATUS_SUCCESS);
    void* workspace = nullptr;
    if (result[0].workspaceSize) REQUIRE(cudaMalloc(&workspace, result[0].workspaceSize) == cudaSuccess);
    REQUIRE(cublasLtMatmul(h.h, desc.d, &s.alpha, dA.ptr, la.l, dB.ptr, lb.l, &s.beta, dC.ptr, lc.l,
                           dD.ptr, ld.l, &result[0].algo, workspace, result[0].workspaceSize,
                           0) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    if (workspace) CHECK(cudaFree(workspace) == cudaSuccess);

    const std::vector<T> D = dD.read(), aux_out = daux.read(), bias_out = dbias.read();
    const double tol = tolerance<T>();
    auto close = [&](float got, double want) {
        return std::fabs(double(got) - want) <= tol * (1.0 + std::fabs(want));
    };
    for (int b = 0; b < s.batch; ++b) {
        CAPTURE(b);
        // For DGELU_BGRAD also the sum of |D| (its rounding's scale) and the
        // sum of D as stored, shown when the gradient is out of bounds.
        std::vector<double> gradient(bias_len, 0.0), magnitude(bias_len, 0.0), stored_sum(bias_len, 0.0);
        for (int j = 0; j < s.n; ++j)
            for (int i = 0; i < s.m; ++i) {
                CAPTURE(i);
                CAPTURE(j);
                double x = 0;
                for (int p = 0; p < s.k; ++p)
                    x += double(op_at(A, b * stride_a, s.ta, lda, i, p)) * op_at(B, b * stride_b, s.tb, ldb, p, j);
                x *= s.alpha;
                if (s.beta != 0.0f) x += double(s.beta) * to_float(C[b * stride_c + i + (size_t)j * ldc]);
                if (has_bias(s.epilogue)) x += to_float(bias[b * stride_bias + i]);
                const size_t aux_at = b * stride_aux + i + (size_t)j * aux_ld;
                if (has_gelu(s.epilogue)) {
                    if (has_aux(s.epilogue)) REQUIRE(close(to_float(aux_out[aux_at]), x));
                    x = gelu(x);
                }
                if (has_dgelu(s.epilogue)) x *= gelu_derivative(to_float(aux[aux_at]));
                if (has_relu(s.epilogue)) x = x > 0 ? x : 0;
                const float stored = to_float(D[b * stride_d + i + (size_t)j * ldd]);
                if (has_bgrad(s.epilogue)) {
                    gradient[i] += x;
                    magnitude[i] += std::fabs(x);
                    stored_sum[i] += stored;
                }
                REQUIRE(close(stored, x));
            }
        // The padding rows of D (and of the auxiliary matrix) are untouched.
        for (int j = 0; j < s.n; ++j) REQUIRE(std::isnan(to_float(D[b * stride_d + s.m + (size_t)j * ldd])));
        if (has_gelu(s.epilogue) && has_aux(s.epilogue))
            REQUIRE(std::isnan(to_float(aux_out[b * stride_aux + s.m])));
        if (s.epilogue == CUBLASLT_EPILOGUE_BGRADA)
            for (int i = 0; i < s.m; ++i)
                for (int p = 0; p < s.k; ++p) gradient[i] += op_at(A, b * stride_a, s.ta, lda, i, p);
        if (s.epilogue == CUBLASLT_EPILOGUE_BGRADB)
            for (int j = 0; j < s.n; ++j)
                for (int p = 0; p < s.k; ++p) gradient[j] += op_at(B, b * stride_b, s.tb, ldb, p, j);
        // DGELU_BGRAD: cuBLASLt does not say whether it sums each D(i, j)
        // before or after rounding it to D's type. After, each term may be
        // off by D's unit roundoff of its magnitude; that is allowed too.
        // (An H200 was off the plain bound with bfloat16 D.)
        if (bias_written) {
            for (int i = 0; i < bias_len; ++i) {
                CAPTURE(i);
                const float got = to_float(bias_out[b * stride_bias + i]);
                CAPTURE(got);
                CAPTURE(gradient[i]);
                CAPTURE(stored_sum[i]);
                REQUIRE(std::fabs(got - gradient[i]) <=
                        tol * (1.0 + std::fabs(gradient[i])) + unit_roundoff<T>() * magnitude[i]);
            }
            REQUIRE(std::isnan(to_float(bias_out[b * stride_bias + bias_len])));
        }
    }
}

const cublasLtEpilogue_t every_epilogue[] = {
    CUBLASLT_EPILOGUE_DEFAULT,   CUBLASLT_EPILOGUE_BIAS,       CUBLASLT_EPILOGUE_RELU,
    CUBLASLT_EPILOGUE_RELU_BIAS, CUBLASLT_EPILOGUE_GELU,       CUBLASLT_EPILOGUE_GELU_AUX,
    CUBLASLT_EPILOGUE_GELU_BIAS, CUBLASLT_EPILOGUE_GELU_AUX_BIAS, CUBLASLT_EPILOGUE_DGELU,
    CUBLASLT_EPILOGUE_DGELU_BGRAD, CUBLASLT_EPILOGUE_BGRADA,   CUBLASLT_EPILOGUE_BGRADB};
const cublasOperation_t ops[] = {CUBLAS_OP_N, CUBLAS_OP_T};

template <class T>
void check_every_epilogue(cudaDataType type) {
    for (cublasLtEpilogue_t e : every_epilogue)
        for (cublasOperation_t ta : ops)
            for (cublasOperation_t tb : ops) check_product<T>(type, {ta, tb, 37, 53, 29, 1, 0.75f, -0.5f, e});
}

}  // namespace

TEST_CASE("cublasLtMatmul: float, every epilogue and transpose against the CPU loop at 37 x 53 x 29") {
    check_every_epilogue<float>(CUDA_R_32F);
}
TEST_CASE("cublasLtMatmul: half inputs and outputs, float sums, every epilogue and transpose") {
    check_every_epilogue<__half>(CUDA_R_16F);
}
TEST_CASE("cublasLtMatmul: bfloat16 inputs and outputs, float sums, every epilogue and transpose") {
    check_every_epilogue<__nv_bfloat16>(CUDA_R_16BF);
}

TEST_CASE("cublasLtMatmul: strided batches, beta = 0 with a NaN C, k = 1, alpha = 1") {
    for (cublasLtEpilogue_t e : every_epilogue) {
        check_product<float>(CUDA_R_32F, {CUBLAS_OP_T, CUBLAS_OP_N, 19, 11, 7, 3, 1.0f, 0.0f, e});
        check_product<__nv_bfloat16>(CUDA_R_16BF, {CUBLAS_OP_N, CUBLAS_OP_T, 9, 13, 1, 2, 1.0f, 0.0f, e});
        check_product<__half>(CUDA_R_16F, {CUBLAS_OP_N, CUBLAS_OP_N, 16, 8, 24, 2, -1.5f, 2.0f, e});
    }
}

// With k = 1 every product is exact in float, so D must be exactly that float
// rounded to nearest even, as a GPU converts its float accumulator.
template <class T>
void check_rounding(cudaDataType type) {
    const int m = 37, n = 53;
    std::vector<T> A = random_matrix<T>(m), B = random_matrix<T>(n);
    device_buffer<T> dA(m), dB(n), dD(m * n);
    dA.write(A);
    dB.write(B);
    lt_handle h;
    matmul_desc desc;
    layout la(type, m, 1, m), lb(type, 1, n, 1), ld(type, m, n, m);
    const float one = 1, zero = 0;
    REQUIRE(cublasLtMatmul(h.h, desc.d, &one, dA.ptr, la.l, dB.ptr, lb.l, &zero, dD.ptr, ld.l, dD.ptr, ld.l,
                           nullptr, nullptr, 0, 0) == CUBLAS_STATUS_SUCCESS);
    const std::vector<T> D = dD.read();
    int inexact = 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            const float exact = to_float(A[i]) * to_float(B[j]);
            const T want = from_float<T>(exact);  // round to nearest even
            if (to_float(want) != exact) ++inexact;
            CAPTURE(exact);
            REQUIRE(to_float(D[i + j * m]) == to_float(want));
        }
    CHECK(inexact > m * n / 2);  // the rounding was exercised
}

TEST_CASE("cublasLtMatmul: half and bfloat16 D are the float result rounded to nearest even") {
    check_rounding<__half>(CUDA_R_16F);
    check_rounding<__nv_bfloat16>(CUDA_R_16BF);
}

TEST_CASE("cublasLtMatmul: half A and B with float C and D") {
    const int m = 9, n = 7, k = 5;
    std::vector<__half> A = random_matrix<__half>(m * k), B = random_matrix<__half>(k * n);
    std::vector<float> bias = random_matrix<float>(m);
    device_buffer<__half> dA(A.size()), dB(B.size());
    device_buffer<float> dC(m * n), dD(m * n), dbias(m);
    dA.write(A);
    dB.write(B);
    dbias.write(bias);
    lt_handle h;
    matmul_desc desc;
    set_desc(desc.d, CUBLASLT_MATMUL_DESC_EPILOGUE, uint32_t(CUBLASLT_EPILOGUE_BIAS));
    set_desc(desc.d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, static_cast<void*>(dbias.ptr));
    layout la(CUDA_R_16F, m, k, m), lb(CUDA_R_16F, k, n, k), lc(CUDA_R_32F, m, n, m), ld(CUDA_R_32F, m, n, m);
    const float one = 1, zero = 0;
    REQUIRE(cublasLtMatmul(h.h, desc.d, &one, dA.ptr, la.l, dB.ptr, lb.l, &zero, dC.ptr, lc.l, dD.ptr, ld.l,
                           nullptr, nullptr, 0, 0) == CUBLAS_STATUS_SUCCESS);
    const std::vector<float> D = dD.read();
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double x = bias[i];
            for (int p = 0; p < k; ++p) x += double(to_float(A[i + p * m])) * to_float(B[p + j * k]);
            REQUIRE(std::fabs(D[i + j * m] - x) <= 1e-5 * (1 + std::fabs(x)));
        }
}

TEST_CASE("descriptors: attributes read back, sizes checked, the heuristic's one answer, the version") {
    CHECK(cublasLtGetVersion() == CUBLAS_VERSION);
    CHECK(std::string(cublasLtGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED)) == "CUBLAS_STATUS_NOT_SUPPORTED");
    matmul_desc desc;
    int32_t value = -7;
    size_t written = 0;
    CHECK(cublasLtMatmulDescGetAttribute(desc.d, CUBLASLT_MATMUL_DESC_TRANSA, &value, sizeof value, &written) ==
          CUBLAS_STATUS_SUCCESS);
    CHECK(value == CUBLAS_OP_N);
    CHECK(written == sizeof value);
    set_desc(desc.d, CUBLASLT_MATMUL_DESC_TRANSA, int32_t(CUBLAS_OP_T));
    CHECK(cublasLtMatmulDescGetAttribute(desc.d, CUBLASLT_MATMUL_DESC_TRANSA, &value, sizeof value, nullptr) ==
          CUBLAS_STATUS_SUCCESS);
    CHECK(value == CUBLAS_OP_T);
    CHECK(cublasLtMatmulDescGetAttribute(desc.d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, nullptr, 0, &written) ==
          CUBLAS_STATUS_SUCCESS);
    CHECK(written == sizeof(void*));
    CHECK(cublasLtMatmulDescGetAttribute(desc.d, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &value, sizeof value, nullptr) ==
          CUBLAS_STATUS_SUCCESS);
    CHECK(value == CUBLAS_COMPUTE_32F);
    // A size that is not the attribute's: INVALID_VALUE (libcublasLt answers so).
    const int64_t wide = 1;
    CHECK(cublasLtMatmulDescSetAttribute(desc.d, CUBLASLT_MATMUL_DESC_TRANSA, &wide, sizeof wide) ==
          CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasLtMatmulDescSetAttribute(desc.d, CUBLASLT_MATMUL_DESC_TRANSA, nullptr, 4) ==
          CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasLtMatmulDescGetAttribute(desc.d, CUBLASLT_MATMUL_DESC_TRANSA, nullptr, 0, nullptr) ==
          CUBLAS_STATUS_INVALID_VALUE);

    layout l(CUDA_R_16BF, 5, 6, 8, 3, 100);
    uint64_t rows = 0;
    int64_t stride = 0;
    uint32_t type = 0;
    CHECK(cublasLtMatrixLayoutGetAttribute(l.l, CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof rows, nullptr) ==
          CUBLAS_STATUS_SUCCESS);
    CHECK(cublasLtMatrixLayoutGetAttribute(l.l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                           sizeof stride, nullptr) == CUBLAS_STATUS_SUCCESS);
    CHECK(cublasLtMatrixLayoutGetAttribute(l.l, CUBLASLT_MATRIX_LAYOUT_TYPE, &type, sizeof type, nullptr) ==
          CUBLAS_STATUS_SUCCESS);
    CHECK(rows == 5);
    CHECK(stride == 100);
    CHECK(type == CUDA_R_16BF);
    const int32_t column_major = CUBLASLT_ORDER_COL;
    CHECK(cublasLtMatrixLayoutSetAttribute(l.l, CUBLASLT_MATRIX_LAYOUT_ORDER, &column_major,
                                           sizeof column_major) == CUBLAS_STATUS_SUCCESS);
    CHECK(cublasLtMatrixLayoutSetAttribute(l.l, CUBLASLT_MATRIX_LAYOUT_ORDER, &column_major, 8) ==
          CUBLAS_STATUS_INVALID_VALUE);

    preference pref;
    uint64_t workspace = 0;
    CHECK(cublasLtMatmulPreferenceGetAttribute(pref.p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                               sizeof workspace, nullptr) == CUBLAS_STATUS_SUCCESS);
    CHECK(workspace == (1 << 20));
}

TEST_CASE("argument checks: cuBLASLt's statuses, and a line saying why") {
    const float one = 1;
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 4096 * sizeof(float)) == cudaSuccess);
    lt_handle h;
    matmul_desc desc;
    layout a(CUDA_R_32F, 8, 4, 8), b(CUDA_R_32F, 4, 6, 4), c(CUDA_R_32F, 8, 6, 8), wrong(CUDA_R_32F, 7, 6, 8),
        half_b(CUDA_R_16F, 4, 6, 4);
    preference pref;
    cublasLtMatmulHeuristicResult_t result = {};
    int returned = 0;
#ifdef CUEMU
    stderr_capture capture;
#endif
    CHECK(cublasLtMatmul(nullptr, desc.d, &one, d, a.l, d, b.l, &one, d, c.l, d, c.l, nullptr, nullptr, 0, 0) ==
          CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(cublasLtMatmulAlgoGetHeuristic(nullptr, desc.d, a.l, b.l, c.l, c.l, pref.p, 1, &result, &returned) ==
          CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(cublasLtMatmulAlgoGetHeuristic(h.h, desc.d, a.l, b.l, c.l, c.l, pref.p, 0, &result, &returned) ==
          CUBLAS_STATUS_INVALID_VALUE);
    // D's rows differ from op(A)'s.
    CHECK(cublasLtMatmulAlgoGetHeuristic(h.h, desc.d, a.l, b.l, wrong.l, wrong.l, pref.p, 1, &result,
                                         &returned) == CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasLtMatmul(h.h, desc.d, &one, d, a.l, d, b.l, &one, d, wrong.l, d, wrong.l, nullptr, nullptr, 0,
                         0) == CUBLAS_STATUS_INVALID_VALUE);
#ifdef CUEMU  // cuBLASLt reads alpha without checking it: on an H200 a null one crashed the process (SIGSEGV)
    CHECK(cublasLtMatmul(h.h, desc.d, nullptr, d, a.l, d, b.l, &one, d, c.l, d, c.l, nullptr, nullptr, 0, 0) ==
          CUBLAS_STATUS_INVALID_VALUE);
#endif
    // A float, B half: no such combination (CUBLAS_STATUS_INVALID_VALUE on an H200).
    CHECK(cublasLtMatmulAlgoGetHeuristic(h.h, desc.d, a.l, half_b.l, c.l, c.l, pref.p, 1, &result, &returned) ==
          CUBLAS_STATUS_INVALID_VALUE);
    // BIAS without a bias vector: the emulator refuses it; cuBLASLt documents
    // no check, and its kernel would read the vector at address 0.
    set_desc(desc.d, CUBLASLT_MATMUL_DESC_EPILOGUE, uint32_t(CUBLASLT_EPILOGUE_BIAS));
#ifdef CUEMU
    CHECK(cublasLtMatmul(h.h, desc.d, &one, d, a.l, d, b.l, &one, d, c.l, d, c.l, nullptr, nullptr, 0, 0) ==
          CUBLAS_STATUS_INVALID_VALUE);
#endif
    // GELU_AUX with a leading dimension that is not a multiple of 8: documented
    // as needing one, yet an H200's heuristic accepted it.
    set_desc(desc.d, CUBLASLT_MATMUL_DESC_EPILOGUE, uint32_t(CUBLASLT_EPILOGUE_GELU_AUX));
    set_desc(desc.d, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, static_cast<void*>(d));
    set_desc(desc.d, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, int64_t(12));
    CHECK(cublasLtMatmulAlgoGetHeuristic(h.h, desc.d, a.l, b.l, c.l, c.l, pref.p, 1, &result, &returned) ==
          CUBLAS_STATUS_SUCCESS);
    set_desc(desc.d, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, int64_t(16));
    CHECK(cublasLtMatmulAlgoGetHeuristic(h.h, desc.d, a.l, b.l, c.l, c.l, pref.p, 1, &result, &returned) ==
          CUBLAS_STATUS_SUCCESS);
    CHECK(returned == 1);
    CHECK(result.workspaceSize == 0);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(cudaFree(d) == cudaSuccess);
#ifdef CUEMU
    // Each refusal says why, naming the call and its line.
    const std::string report = capture.finish();
    for (const char* why : {"cublasLtMatmul at ", "the layouts do not make a product: D is 7 x 6, C 7 x 6, op(A) 8 x 4",
                            "alpha or beta is a null pointer",
                            "A CUDA_R_32F with B CUDA_R_16F: A and B must have one type",
                            "CUBLASLT_EPILOGUE_BIAS needs a bias vector: BIAS_POINTER is a null pointer",
                            "requestedAlgoCount = 0 must be at least 1"}) {
        CAPTURE(why);
        CHECK(report.find(why) != std::string::npos);
    }
#endif
}

#ifdef CUEMU  // what the emulator refuses where a GPU's cuBLASLt runs
TEST_CASE("refused attribute values: CUBLAS_STATUS_NOT_SUPPORTED and a line naming them") {
    matmul_desc desc;
    layout l(CUDA_R_32F, 4, 4, 4);
    stderr_capture capture;
    const int32_t row_major = CUBLASLT_ORDER_ROW;
    CHECK(cublasLtMatrixLayoutSetAttribute(l.l, CUBLASLT_MATRIX_LAYOUT_ORDER, &row_major, sizeof row_major) ==
          CUBLAS_STATUS_NOT_SUPPORTED);
    const uint32_t relu_mask = CUBLASLT_EPILOGUE_RELU_AUX;
    CHECK(cublasLtMatmulDescSetAttribute(desc.d, CUBLASLT_MATMUL_DESC_EPILOGUE, &relu_mask, sizeof relu_mask) ==
          CUBLAS_STATUS_NOT_SUPPORTED);
    const int32_t device_mode = CUBLASLT_POINTER_MODE_DEVICE;
    CHECK(cublasLtMatmulDescSetAttribute(desc.d, CUBLASLT_MATMUL_DESC_POINTER_MODE, &device_mode,
                                         sizeof device_mode) == CUBLAS_STATUS_NOT_SUPPORTED);
    const std::string report = capture.finish();
    CHECK(report.find("CUBLASLT_MATRIX_LAYOUT_ORDER = 1 is not emulated") != std::string::npos);
    CHECK(report.find("CUBLASLT_MATMUL_DESC_EPILOGUE = CUBLASLT_EPILOGUE_RELU_AUX is not emulated") !=
          std::string::npos);
    CHECK(report.find("CUBLASLT_MATMUL_DESC_POINTER_MODE = 1 is not emulated") != std::string::npos);
    uint32_t epilogue = 0;
    CHECK(cublasLtMatmulDescGetAttribute(desc.d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue,
                                         nullptr) == CUBLAS_STATUS_SUCCESS);
    CHECK(epilogue == CUBLASLT_EPILOGUE_DEFAULT);  // the refused value was not kept
}

TEST_CASE("a destroyed descriptor is reported, not read") {
    lt_handle h;
    matmul_desc desc;
    layout a(CUDA_R_32F, 4, 4, 4);
    preference pref;
    cublasLtMatrixLayout_t gone = nullptr;
    REQUIRE(cublasLtMatrixLayoutCreate(&gone, CUDA_R_32F, 4, 4, 4) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cublasLtMatrixLayoutDestroy(gone) == CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulHeuristicResult_t result = {};
    int returned = 0;
    stderr_capture capture;
    CHECK(cublasLtMatmulAlgoGetHeuristic(h.h, desc.d, a.l, a.l, gone, a.l, pref.p, 1, &result, &returned) ==
          CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasLtMatmulAlgoGetHeuristic(h.h, desc.d, a.l, a.l, a.l, nullptr, pref.p, 1, &result, &returned) ==
          CUBLAS_STATUS_INVALID_VALUE);
    const std::string report = capture.finish();
    CHECK(report.find("Cdesc is destroyed or of another kind, not a live matrix layout") != std::string::npos);
    CHECK(report.find("Ddesc is a null pointer, not a live matrix layout") != std::string::npos);
    CHECK(returned == 0);
}
#endif

TEST_CASE("stream order: cublasLtMatmul runs after earlier work on its stream") {
    const int m = 33, n = 17, k = 21;
    std::vector<float> A = random_matrix<float>(m * k), B = random_matrix<float>(k * n);
    std::vector<float> host_b(B.size());
    device_buffer<float> dA(A.size()), dB(B.size()), dD(m * n);
    dA.write(A);
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    float* pinned = nullptr;
    REQUIRE(cudaMallocHost(&pinned, B.size() * sizeof(float)) == cudaSuccess);
    std::copy(B.begin(), B.end(), pinned);
    lt_handle h;
    matmul_desc desc;
    layout la(CUDA_R_32F, m, k, m), lb(CUDA_R_32F, k, n, k), ld(CUDA_R_32F, m, n, m);
    const float one = 1, zero = 0;
    REQUIRE(cudaMemcpyAsync(dB.ptr, pinned, B.size() * sizeof(float), cudaMemcpyHostToDevice, stream) ==
            cudaSuccess);
    REQUIRE(cublasLtMatmul(h.h, desc.d, &one, dA.ptr, la.l, dB.ptr, lb.l, &zero, dD.ptr, ld.l, dD.ptr, ld.l,
                           nullptr, nullptr, 0, stream) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    const std::vector<float> D = dD.read();
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double x = 0;
            for (int p = 0; p < k; ++p) x += double(A[i + p * m]) * B[p + j * k];
            REQUIRE(std::fabs(D[i + j * m] - x) <= 1e-4 * (1 + std::fabs(x)));
        }
    CHECK(cudaFreeHost(pinned) == cudaSuccess);
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
}

#ifdef CUEMU  // the report is the emulator's; on a GPU the kernel would fault
TEST_CASE("process: host pointer") {
    const int m = 4, n = 3, k = 2;
    std::vector<float> host_a(m * k, 1.0f);
    float *b = nullptr, *d = nullptr;  // never freed: the error that follows is sticky
    REQUIRE(cudaMalloc(&b, k * n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d, m * n * sizeof(float)) == cudaSuccess);
    lt_handle h;
    matmul_desc desc;
    layout la(CUDA_R_32F, m, k, m), lb(CUDA_R_32F, k, n, k), ld(CUDA_R_32F, m, n, m);
    const float one = 1, zero = 0;
    stderr_capture capture(capture_until::device_idle);
    const int line = __LINE__ + 1;
    CHECK(cublasLtMatmul(h.h, desc.d, &one, host_a.data(), la.l, b, lb.l, &zero, d, ld.l, d, ld.l, nullptr,
                         nullptr, 0, 0) == CUBLAS_STATUS_SUCCESS);
    const std::string report = capture.finish();
    CHECK(report.find("cuemu: cublasLtMatmul at " + std::string(__FILE__) + ":" + std::to_string(line) +
                      ": the matrix A (4 x 2 elements, leading dimension 4) is ") != std::string::npos);
    CHECK(report.find("host memory, not device memory") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}
#endif
