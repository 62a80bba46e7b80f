// cublaslt_heuristic_dump.cu - prints what cublasLtMatmulAlgoGetHeuristic
// answers (status, number of results, the first result's state and
// workspace) for every epilogue, transpose pair and data type that
// tests/emu/test_cublaslt.cu multiplies with, at its odd sizes and leading
// dimensions, and at aligned ones. Built with nvcc and run on a GPU, its output
// was kept in docs/gpu-runs/; the emulator's heuristic is compared with it.
//
//   nvcc -arch=sm_90 cublaslt_heuristic_dump.cu -o dump -lcublasLt && ./dump > gpu.txt
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "gpu_dump.h"

#define CHECK_LT(call)                                                                \
    do {                                                                              \
        cublasStatus_t st_ = (call);                                                  \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                           \
            std::fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #call, \
                         static_cast<int>(st_));                                      \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

struct epilogue_name {
    cublasLtEpilogue_t e;
    const char* name;
};
const epilogue_name epilogues[] = {
    {CUBLASLT_EPILOGUE_DEFAULT, "DEFAULT"},       {CUBLASLT_EPILOGUE_BIAS, "BIAS"},
    {CUBLASLT_EPILOGUE_RELU, "RELU"},             {CUBLASLT_EPILOGUE_RELU_BIAS, "RELU_BIAS"},
    {CUBLASLT_EPILOGUE_GELU, "GELU"},             {CUBLASLT_EPILOGUE_GELU_AUX, "GELU_AUX"},
    {CUBLASLT_EPILOGUE_GELU_BIAS, "GELU_BIAS"},   {CUBLASLT_EPILOGUE_GELU_AUX_BIAS, "GELU_AUX_BIAS"},
    {CUBLASLT_EPILOGUE_DGELU, "DGELU"},           {CUBLASLT_EPILOGUE_DGELU_BGRAD, "DGELU_BGRAD"},
    {CUBLASLT_EPILOGUE_BGRADA, "BGRADA"},         {CUBLASLT_EPILOGUE_BGRADB, "BGRADB"}};

struct type_name {
    cudaDataType t;
    const char* name;
};
const type_name types[] = {{CUDA_R_32F, "float"}, {CUDA_R_16F, "half"}, {CUDA_R_16BF, "bf16"}};

static bool has(cublasLtEpilogue_t e, unsigned bit) { return (static_cast<unsigned>(e) & bit) != 0; }

template <class T>
static void set_desc(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a, T v) {
    CHECK_LT(cublasLtMatmulDescSetAttribute(d, a, &v, sizeof v));
}

static cublasLtMatrixLayout_t layout(cudaDataType t, int rows, int cols, int ld, int batch,
                                     long long stride) {
    cublasLtMatrixLayout_t l;
    CHECK_LT(cublasLtMatrixLayoutCreate(&l, t, rows, cols, ld));
    if (batch > 1) {
        int32_t b = batch;
        CHECK_LT(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b, sizeof b));
        CHECK_LT(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                  &stride, sizeof stride));
    }
    return l;
}

int main() {
    cublasLtHandle_t h;
    CHECK_LT(cublasLtCreate(&h));
    void* d_buffer = nullptr;  // one big buffer for every operand; only the heuristic runs
    CHECK(cudaMalloc(&d_buffer, 64 << 20));
    char* base = static_cast<char*>(d_buffer);
    struct size_case {
        const char* name;
        int m, n, k, batch, pad;
    };
    // The test's sizes and padded leading dimensions, then aligned ones.
    const size_case sizes[] = {{"odd", 37, 53, 29, 1, 1}, {"odd-batched", 37, 53, 29, 3, 1},
                               {"odd-k1", 37, 53, 1, 3, 1}, {"aligned", 64, 64, 64, 1, 0}};
    for (const size_case& s : sizes)
        for (const type_name& ty : types)
            for (const epilogue_name& ep : epilogues)
                for (int ta = 0; ta < 2; ++ta)
                    for (int tb = 0; tb < 2; ++tb) {
                        const cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
                        const cublasOperation_t opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
                        const int rows_a = ta ? s.k : s.m, cols_a = ta ? s.m : s.k;
                        const int rows_b = tb ? s.n : s.k, cols_b = tb ? s.k : s.n;
                        const int lda = rows_a + 3 * s.pad, ldb = rows_b + 2 * s.pad;
                        const int ldc = s.m + 2 * s.pad, ldd = s.m + s.pad;
                        const int aux_ld = (s.m + 7) / 8 * 8 + 8 * s.pad;
                        const long long sa = (long long)lda * cols_a + 5 * s.pad,
                                        sb = (long long)ldb * cols_b + 7 * s.pad,
                                        sc = (long long)ldc * s.n + s.pad,
                                        sd = (long long)ldd * s.n + 3 * s.pad;
                        const int bias_len = ep.e == CUBLASLT_EPILOGUE_BGRADB ? s.n : s.m;
                        cublasLtMatmulDesc_t desc;
                        CHECK_LT(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
                        set_desc(desc, CUBLASLT_MATMUL_DESC_TRANSA, int32_t(opa));
                        set_desc(desc, CUBLASLT_MATMUL_DESC_TRANSB, int32_t(opb));
                        set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, uint32_t(ep.e));
                        const bool bias_written = has(ep.e, 16) || ep.e == CUBLASLT_EPILOGUE_BGRADA ||
                                                  ep.e == CUBLASLT_EPILOGUE_BGRADB;
                        if (has(ep.e, 4) || bias_written) {
                            set_desc(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                     static_cast<void*>(base + (48 << 20)));
                            set_desc(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, int32_t(ty.t));
                            set_desc(desc, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
                                     int64_t(bias_len + 2 * s.pad));
                        }
                        if (has(ep.e, 128)) {
                            set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                                     static_cast<void*>(base + (56 << 20)));
                            set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, int64_t(aux_ld));
                            set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE,
                                     int64_t((long long)aux_ld * s.n));
                        }
                        cublasLtMatrixLayout_t la = layout(ty.t, rows_a, cols_a, lda, s.batch, sa),
                                               lb = layout(ty.t, rows_b, cols_b, ldb, s.batch, sb),
                                               lc = layout(ty.t, s.m, s.n, ldc, s.batch, sc),
                                               ld = layout(ty.t, s.m, s.n, ldd, s.batch, sd);
                        cublasLtMatmulPreference_t pref;
                        CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
                        const uint64_t workspace = 1 << 20;
                        CHECK_LT(cublasLtMatmulPreferenceSetAttribute(
                            pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace));
                        cublasLtMatmulHeuristicResult_t result[4] = {};
                        int returned = 0;
                        const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(
                            h, desc, la, lb, lc, ld, pref, 4, result, &returned);
                        std::printf("%s %s %s %c%c: status %d returned %d", s.name, ty.name, ep.name,
                                    ta ? 'T' : 'N', tb ? 'T' : 'N', static_cast<int>(st), returned);
                        if (st == CUBLAS_STATUS_SUCCESS && returned > 0)
                            std::printf(" state %d", static_cast<int>(result[0].state));
                        std::printf("\n");
                        CHECK_LT(cublasLtMatmulPreferenceDestroy(pref));
                        CHECK_LT(cublasLtMatrixLayoutDestroy(la));
                        CHECK_LT(cublasLtMatrixLayoutDestroy(lb));
                        CHECK_LT(cublasLtMatrixLayoutDestroy(lc));
                        CHECK_LT(cublasLtMatrixLayoutDestroy(ld));
                        CHECK_LT(cublasLtMatmulDescDestroy(desc));
                    }
    CHECK(cudaFree(d_buffer));
    CHECK_LT(cublasLtDestroy(h));
    return 0;
}
