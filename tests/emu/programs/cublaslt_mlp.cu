// A two-layer MLP block the way llm.c drives cuBLASLt: row-major activations
// (tokens x channels) handed to column-major cuBLASLt as their transposes,
// one helper that sets up descriptors, layouts, a preference and the
// heuristic for every product, and fused epilogues: bias + GELU saving the
// pre-activation (GELU_AUX_BIAS), bias (BIAS), the GELU backward from the
// saved pre-activation (DGELU), and the weight gradient with its bias
// gradient (BGRADB). Built with -lcublasLt; checked against plain loops.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1); } } while (0)
#define LT_OK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    std::printf("cuBLASLt error %d at line %d\n", (int)s_, __LINE__); std::exit(1); } } while (0)

static cublasLtHandle_t lt;
static void* workspace;
static const size_t workspace_bytes = 4 << 20;

// D (m x n, column-major) = op(A) op(B) [+ epilogue], in the manner of
// llm.c's matmul_cublaslt. aux: the pre-GELU matrix (ld m), bias: the bias or
// its gradient.
static void matmul(float* d, const float* a, const float* b, const float* bias, int m, int n, int k,
                   bool trans_a, bool trans_b, float* aux, cublasLtEpilogue_t epilogue, cudaStream_t stream) {
    cublasLtMatmulDesc_t desc;
    LT_OK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    LT_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof(op_a)));
    LT_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof(op_b)));
    LT_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
    if (bias) {
        cudaDataType_t bias_type = CUDA_R_32F;
        LT_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof(bias_type)));
        LT_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
    }
    if (aux) {
        int64_t aux_ld = m;
        LT_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof(aux)));
        LT_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld, sizeof(aux_ld)));
    }
    cublasLtMatrixLayout_t la, lb, ld;
    LT_OK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, trans_a ? k : m, trans_a ? m : k, trans_a ? k : m));
    LT_OK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, trans_b ? n : k, trans_b ? k : n, trans_b ? n : k));
    LT_OK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, m));
    cublasLtMatmulPreference_t pref;
    LT_OK(cublasLtMatmulPreferenceCreate(&pref));
    LT_OK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                               sizeof(workspace_bytes)));
    cublasLtMatmulHeuristicResult_t heuristic;
    int found = 0;
    LT_OK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 1, &heuristic, &found));
    if (found == 0) { std::printf("no cuBLASLt algorithm at line %d\n", __LINE__); std::exit(1); }
    const float one = 1.0f, zero = 0.0f;
    LT_OK(cublasLtMatmul(lt, desc, &one, a, la, b, lb, &zero, d, ld, d, ld, &heuristic.algo, workspace,
                         workspace_bytes, stream));
    LT_OK(cublasLtMatmulPreferenceDestroy(pref));
    LT_OK(cublasLtMatrixLayoutDestroy(la));
    LT_OK(cublasLtMatrixLayoutDestroy(lb));
    LT_OK(cublasLtMatrixLayoutDestroy(ld));
    LT_OK(cublasLtMatmulDescDestroy(desc));
}

static float* upload(const std::vector<float>& h) {
    float* d;
    CUDA_OK(cudaMalloc(&d, h.size() * sizeof(float)));
    CUDA_OK(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}
static std::vector<float> download(const float* d, size_t n) {
    std::vector<float> h(n);
    CUDA_OK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    return h;
}
static std::vector<float> random_vector(size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = 2.0f * rand() / RAND_MAX - 1.0f;
    return v;
}
static double gelu_ref(double x) {
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}
static double gelu_grad_ref(double x) {
    double s = std::sqrt(2 / M_PI), t = std::tanh(s * (x + 0.044715 * x * x * x));
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * s * (1 + 3 * 0.044715 * x * x);
}

int main(int argc, char** argv) {
    const int BT = argc > 1 ? std::atoi(argv[1]) : 37;  // tokens
    const int C = 29, H = 48, OC = 24;                  // channels in, hidden (a multiple of 8), out
    srand(2024u + BT);
    // Row-major, as llm.c keeps them: x (BT x C), W1 (H x C), W2 (OC x H), dy (BT x OC).
    std::vector<float> x = random_vector(BT * C), w1 = random_vector(H * C), b1 = random_vector(H),
                       w2 = random_vector(OC * H), b2 = random_vector(OC), dy = random_vector(BT * OC);
    float *d_x = upload(x), *d_w1 = upload(w1), *d_b1 = upload(b1), *d_w2 = upload(w2), *d_b2 = upload(b2),
          *d_dy = upload(dy);
    float *d_pre, *d_h, *d_y, *d_dpre, *d_dw1, *d_db1;
    CUDA_OK(cudaMalloc(&d_pre, BT * H * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_h, BT * H * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_y, BT * OC * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_dpre, BT * H * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_dw1, H * C * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_db1, H * sizeof(float)));
    CUDA_OK(cudaMalloc(&workspace, workspace_bytes));
    LT_OK(cublasLtCreate(&lt));
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreate(&stream));

    // Forward. h = gelu(x W1^T + b1), pre = x W1^T + b1; y = h W2^T + b2.
    matmul(d_h, d_w1, d_x, d_b1, H, BT, C, true, false, d_pre, CUBLASLT_EPILOGUE_GELU_AUX_BIAS, stream);
    matmul(d_y, d_w2, d_h, d_b2, OC, BT, H, true, false, nullptr, CUBLASLT_EPILOGUE_BIAS, stream);
    // Backward. dpre = (dy W2) * gelu'(pre); dW1 = dpre^T x, db1 = column sums of dpre.
    matmul(d_dpre, d_w2, d_dy, nullptr, H, BT, OC, false, false, d_pre, CUBLASLT_EPILOGUE_DGELU, stream);
    matmul(d_dw1, d_x, d_dpre, d_db1, C, H, BT, false, true, nullptr, CUBLASLT_EPILOGUE_BGRADB, stream);
    CUDA_OK(cudaStreamSynchronize(stream));

    std::vector<float> y = download(d_y, BT * OC), dpre = download(d_dpre, BT * H), dw1 = download(d_dw1, H * C),
                       db1 = download(d_db1, H);
    std::vector<double> pre(BT * H), h(BT * H), dpre_ref(BT * H, 0.0);
    int errors = 0;
    auto check = [&](double got, double want) { if (std::fabs(got - want) > 1e-4 * (1 + std::fabs(want))) ++errors; };
    for (int t = 0; t < BT; ++t)
        for (int j = 0; j < H; ++j) {
            double s = b1[j];
            for (int c = 0; c < C; ++c) s += (double)x[t * C + c] * w1[j * C + c];
            pre[t * H + j] = s;
            h[t * H + j] = gelu_ref(s);
        }
    for (int t = 0; t < BT; ++t)
        for (int o = 0; o < OC; ++o) {
            double s = b2[o];
            for (int j = 0; j < H; ++j) s += h[t * H + j] * w2[o * H + j];
            check(y[t * OC + o], s);
        }
    for (int t = 0; t < BT; ++t)
        for (int j = 0; j < H; ++j) {
            double s = 0;
            for (int o = 0; o < OC; ++o) s += (double)dy[t * OC + o] * w2[o * H + j];
            dpre_ref[t * H + j] = s * gelu_grad_ref(pre[t * H + j]);
            check(dpre[t * H + j], dpre_ref[t * H + j]);
        }
    for (int j = 0; j < H; ++j) {
        double bias_sum = 0;
        for (int t = 0; t < BT; ++t) bias_sum += dpre_ref[t * H + j];
        check(db1[j], bias_sum);
        for (int c = 0; c < C; ++c) {
            double s = 0;
            for (int t = 0; t < BT; ++t) s += dpre_ref[t * H + j] * x[t * C + c];
            check(dw1[j * C + c], s);
        }
    }
    LT_OK(cublasLtDestroy(lt));
    CUDA_OK(cudaStreamDestroy(stream));
    for (float* p : {d_x, d_w1, d_b1, d_w2, d_b2, d_dy, d_pre, d_h, d_y, d_dpre, d_dw1, d_db1}) CUDA_OK(cudaFree(p));
    CUDA_OK(cudaFree(workspace));
    std::printf("cublaslt_mlp BT=%d C=%d H=%d OC=%d errors=%d %s\n", BT, C, H, OC, errors, errors ? "FAILED" : "OK");
    return errors ? 1 : 0;
}
