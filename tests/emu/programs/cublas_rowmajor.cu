// Row-major matrices multiplied with cuBLAS, the way forum answers do it: swap
// the operands (C^T = B^T A^T) instead of transposing anything, then a
// matrix-vector product on a stream of its own. Built with -lcublas.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)
#define CHECK_CUBLAS(x) do { cublasStatus_t s = (x); if (s != CUBLAS_STATUS_SUCCESS) { \
    printf("cuBLAS error %s at line %d\n", cublasGetStatusName(s), __LINE__); exit(1); } } while (0)

int main(int argc, char** argv) {
    const int M = argc > 1 ? atoi(argv[1]) : 37, K = 29, N = 45;
    std::vector<float> A(M * K), B(K * N), C(M * N), x(N), y(M);
    srand(12345u + M);
    for (auto& v : A) v = rand() / (float)RAND_MAX - 0.5f;
    for (auto& v : B) v = rand() / (float)RAND_MAX - 0.5f;
    for (auto& v : x) v = rand() / (float)RAND_MAX - 0.5f;
    float *dA, *dB, *dC, *dx, *dy;
    CHECK_CUDA(cudaMalloc(&dA, A.size() * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dB, B.size() * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dC, C.size() * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dx, x.size() * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dy, y.size() * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));

    cublasHandle_t handle;
    CHECK_CUBLAS(cublasCreate(&handle));
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreate(&stream));
    CHECK_CUBLAS(cublasSetStream(handle, stream));
    const float one = 1.0f, zero = 0.0f;
    // Row-major C (M x N) = A (M x K) * B (K x N): to cuBLAS these buffers are
    // the column-major transposes, so ask for C^T = B^T * A^T.
    CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, dB, N, dA, K, &zero, dC, N));
    // Row-major y = A x: A's buffer is A^T column-major, so transpose it back.
    CHECK_CUBLAS(cublasSgemv(handle, CUBLAS_OP_T, K, M, &one, dA, K, dx, 1, &zero, dy, 1));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double ref = 0;
            for (int p = 0; p < K; ++p) ref += (double)A[i * K + p] * B[p * N + j];
            if (fabs(C[i * N + j] - ref) > 1e-4) ++errors;
        }
    // y = A x with the first K entries of x (the gemv reads K of them).
    for (int i = 0; i < M; ++i) {
        double ref = 0;
        for (int p = 0; p < K; ++p) ref += (double)A[i * K + p] * x[p];
        if (fabs(y[i] - ref) > 1e-4) ++errors;
    }
    CHECK_CUBLAS(cublasDestroy(handle));
    CHECK_CUDA(cudaStreamDestroy(stream));
    printf("cublas_rowmajor %dx%dx%d errors=%d %s\n", M, N, K, errors, errors ? "FAILED" : "OK");
    return errors ? 1 : 0;
}
