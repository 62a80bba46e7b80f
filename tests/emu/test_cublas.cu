// test_cublas.cu - the emulator's cuBLAS subset (common/emu/include/cublas_v2.h)
// against plain CPU loops: every transpose combination, odd sizes, leading
// dimensions larger than the matrix, alpha and beta (beta = 0 with a
// NaN-poisoned C, which must not be read), strided batches, the level-1 and
// level-2 calls, batches of pointers, the Set/Get copies, the version,
// pointer modes, statuses and their strings, argument checks,
// stream order, and the report for a host pointer; cublasGemmEx and its
// strided batches for each type combination done, against an FP64 loop.
// Test cases named "process: ..." end with a sticky error and run as processes of their own.
// Genuine cuBLAS code: it also compiles with nvcc.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "device_buffer.h"
#include "stderr_capture.h"

namespace {

const float nan_f = std::numeric_limits<float>::quiet_NaN();

template <class T>
std::vector<T> random_values(size_t n) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<T> v(n);
    for (T& x : v) x = static_cast<T>(dist(rng()));
    return v;
}

// Element (i, j) of op(M), M column-major with leading dimension ld.
template <class T>
T op_at(const std::vector<T>& M, cublasOperation_t op, int ld, int i, int j) {
    return op == CUBLAS_OP_N ? M[i + static_cast<size_t>(j) * ld] : M[j + static_cast<size_t>(i) * ld];
}

// C = alpha op(A) op(B) + beta C, the plain triple loop (in double). With
// beta == 0 the old C is not read, as BLAS specifies.
template <class T>
void cpu_gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, T alpha,
              const std::vector<T>& A, int lda, const std::vector<T>& B, int ldb, T beta,
              std::vector<T>& C, int ldc) {
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double sum = 0;
            for (int p = 0; p < k; ++p) sum += double(op_at(A, ta, lda, i, p)) * op_at(B, tb, ldb, p, j);
            T& c = C[i + static_cast<size_t>(j) * ldc];
            c = static_cast<T>(alpha * sum + (beta == T(0) ? 0.0 : double(beta) * c));
        }
}

template <class T>
void require_close(const std::vector<T>& got, const std::vector<T>& want, double tol) {
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        CAPTURE(i);
        if (std::isnan(want[i])) {  // padding between columns: left as it was
            REQUIRE(std::isnan(got[i]));
            continue;
        }
        REQUIRE(std::fabs(double(got[i]) - double(want[i])) <= tol * (1 + std::fabs(double(want[i]))));
    }
}

const char* op_text(cublasOperation_t op) {
    return op == CUBLAS_OP_N ? "N" : op == CUBLAS_OP_T ? "T" : "C";
}

struct handle_guard {
    cublasHandle_t h = nullptr;
    handle_guard() { REQUIRE(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS); }
    ~handle_guard() { CHECK(cublasDestroy(h) == CUBLAS_STATUS_SUCCESS); }
};

cublasStatus_t run_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                        int k, const float* alpha, const float* A, int lda, const float* B, int ldb,
                        const float* beta, float* C, int ldc) {
    return cublasSgemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
cublasStatus_t run_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                        int k, const double* alpha, const double* A, int lda, const double* B,
                        int ldb, const double* beta, double* C, int ldc) {
    return cublasDgemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

// One gemm through cuBLAS and through the CPU loop. Leading dimensions are
// larger than the matrices (pad rows); the padding is NaN and must stay so.
template <class T>
void check_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                T alpha, T beta, int pad, double tol) {
    CAPTURE(op_text(ta));
    CAPTURE(op_text(tb));
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(k);
    CAPTURE(beta);
    const int rows_a = ta == CUBLAS_OP_N ? m : k, cols_a = ta == CUBLAS_OP_N ? k : m;
    const int rows_b = tb == CUBLAS_OP_N ? k : n, cols_b = tb == CUBLAS_OP_N ? n : k;
    const int lda = rows_a + pad, ldb = rows_b + pad, ldc = m + pad;
    std::vector<T> A = random_values<T>(size_t(lda) * cols_a), B = random_values<T>(size_t(ldb) * cols_b);
    std::vector<T> C = random_values<T>(size_t(ldc) * n);
    for (int j = 0; j < n; ++j)
        for (int i = m; i < ldc; ++i) C[i + size_t(j) * ldc] = static_cast<T>(nan_f);
    if (beta == T(0))
        for (T& c : C) c = static_cast<T>(nan_f);  // must not be read
    std::vector<T> want = C;
    cpu_gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, want, ldc);
    device_buffer<T> dA(A.size()), dB(B.size()), dC(C.size());
    dA.write(A);
    dB.write(B);
    dC.write(C);
    REQUIRE(run_gemm(h, ta, tb, m, n, k, &alpha, dA.ptr, lda, dB.ptr, ldb, &beta, dC.ptr, ldc) ==
            CUBLAS_STATUS_SUCCESS);
    require_close(dC.read(), want, tol);
}

const cublasOperation_t all_ops[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
struct mnk {
    int m, n, k;
};
const mnk odd_sizes[] = {{1, 1, 1}, {7, 13, 5}, {130, 67, 33}};

}  // namespace

// Sums of up to 130 products of numbers in [-1, 1]: float keeps about 7
// digits, so 1e-4 relative to the size of the result leaves room for any
// summation order and nothing for a wrong element.
TEST_CASE("Sgemm: every transpose combination matches the CPU loop, odd sizes, padded ld") {
    handle_guard g;
    for (cublasOperation_t ta : all_ops)
        for (cublasOperation_t tb : all_ops)
            for (mnk s : odd_sizes) {
                check_gemm<float>(g.h, ta, tb, s.m, s.n, s.k, 1.5f, -0.75f, 3, 1e-4);
                check_gemm<float>(g.h, ta, tb, s.m, s.n, s.k, -0.5f, 0.0f, 2, 1e-4);
            }
}

TEST_CASE("Dgemm: every transpose combination matches the CPU loop") {
    handle_guard g;
    for (cublasOperation_t ta : all_ops)
        for (cublasOperation_t tb : all_ops)
            for (mnk s : odd_sizes) {
                check_gemm<double>(g.h, ta, tb, s.m, s.n, s.k, 0.25, 2.0, 1, 1e-12);
                check_gemm<double>(g.h, ta, tb, s.m, s.n, s.k, 1.0, 0.0, 4, 1e-12);
            }
}

TEST_CASE("Sgemm with m, n or k = 0, and alpha = 0") {
    handle_guard g;
    device_buffer<float> d(64);
    const float one = 1, two = 2;
    std::vector<float> before = random_values<float>(64);
    d.write(before);
    // m = 0: nothing to do, nothing touched.
    REQUIRE(cublasSgemm(g.h, CUBLAS_OP_N, CUBLAS_OP_N, 0, 4, 4, &one, d.ptr, 1, d.ptr, 4, &two, d.ptr, 1) ==
            CUBLAS_STATUS_SUCCESS);
    require_close(d.read(), before, 0);
    // k = 0: C = beta C.
    REQUIRE(cublasSgemm(g.h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 0, &one, nullptr, 8, nullptr, 1, &two,
                        d.ptr, 8) == CUBLAS_STATUS_SUCCESS);
    std::vector<float> doubled = before;
    for (float& x : doubled) x *= 2;
    require_close(d.read(), doubled, 1e-6);
}

TEST_CASE("SgemmStridedBatched: each matrix of the batch, strides beyond the matrix, a shared A") {
    handle_guard g;
    const int m = 7, n = 5, k = 9, batch = 4;
    for (cublasOperation_t ta : {CUBLAS_OP_N, CUBLAS_OP_T})
        for (bool shared_a : {false, true}) {
            CAPTURE(op_text(ta));
            CAPTURE(shared_a);
            const int lda = (ta == CUBLAS_OP_N ? m : k) + 1, ldb = k + 2, ldc = m + 1;
            const long long stride_a = shared_a ? 0 : lda * (ta == CUBLAS_OP_N ? k : m) + 5;
            const long long stride_b = ldb * n + 3, stride_c = ldc * n + 7;
            std::vector<float> A = random_values<float>(size_t(shared_a ? lda * (ta == CUBLAS_OP_N ? k : m)
                                                                          : stride_a * batch));
            std::vector<float> B = random_values<float>(size_t(stride_b * batch));
            std::vector<float> C(size_t(stride_c * batch), nan_f);
            std::vector<float> want = C;
            const float alpha = 0.5f, beta = 0.0f;
            for (int i = 0; i < batch; ++i) {
                std::vector<float> a(A.begin() + i * stride_a, A.end());
                std::vector<float> b(B.begin() + i * stride_b, B.end());
                std::vector<float> c(want.begin() + i * stride_c, want.end());
                cpu_gemm(ta, CUBLAS_OP_N, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
                std::copy(c.begin(), c.begin() + ldc * n, want.begin() + i * stride_c);
            }
            device_buffer<float> dA(A.size()), dB(B.size()), dC(C.size());
            dA.write(A);
            dB.write(B);
            dC.write(C);
            REQUIRE(cublasSgemmStridedBatched(g.h, ta, CUBLAS_OP_N, m, n, k, &alpha, dA.ptr, lda, stride_a,
                                              dB.ptr, ldb, stride_b, &beta, dC.ptr, ldc, stride_c,
                                              batch) == CUBLAS_STATUS_SUCCESS);
            require_close(dC.read(), want, 1e-4);
        }
}

TEST_CASE("SgemmBatched and DgemmBatched: arrays of device pointers, filled earlier on the stream") {
    handle_guard g;
    const int m = 6, n = 5, k = 7, batch = 3;
    for (cublasOperation_t tb : {CUBLAS_OP_N, CUBLAS_OP_T}) {
        CAPTURE(op_text(tb));
        const int lda = m + 1, ldb = (tb == CUBLAS_OP_N ? k : n) + 2, ldc = m + 3;
        const size_t a_size = size_t(lda) * k, b_size = size_t(ldb) * (tb == CUBLAS_OP_N ? n : k),
                     c_size = size_t(ldc) * n;
        std::vector<std::vector<float>> A, B, want;
        std::deque<device_buffer<float>> dA, dB, dC;  // never moved: each owns its memory
        std::vector<const float*> a_ptrs, b_ptrs;
        std::vector<float*> c_ptrs;
        const float alpha = 1.5f, beta = -0.5f;
        for (int i = 0; i < batch; ++i) {
            A.push_back(random_values<float>(a_size));
            B.push_back(random_values<float>(b_size));
            std::vector<float> C = random_values<float>(c_size);
            dA.emplace_back(a_size);
            dB.emplace_back(b_size);
            dC.emplace_back(c_size);
            dA[i].write(A[i]);
            dB[i].write(B[i]);
            dC[i].write(C);
            cpu_gemm(CUBLAS_OP_N, tb, m, n, k, alpha, A[i], lda, B[i], ldb, beta, C, ldc);
            want.push_back(C);
        }
        // The matrices in reverse order: the arrays decide which is which.
        for (int i = batch - 1; i >= 0; --i) {
            a_ptrs.push_back(dA[i].ptr);
            b_ptrs.push_back(dB[i].ptr);
            c_ptrs.push_back(dC[i].ptr);
        }
        device_buffer<const float*> d_a_ptrs(batch), d_b_ptrs(batch);
        device_buffer<float*> d_c_ptrs(batch);
        d_a_ptrs.write(a_ptrs);
        d_b_ptrs.write(b_ptrs);
        d_c_ptrs.write(c_ptrs);
        REQUIRE(cublasSgemmBatched(g.h, CUBLAS_OP_N, tb, m, n, k, &alpha, d_a_ptrs.ptr, lda, d_b_ptrs.ptr,
                                   ldb, &beta, d_c_ptrs.ptr, ldc, batch) == CUBLAS_STATUS_SUCCESS);
        for (int i = 0; i < batch; ++i) require_close(dC[i].read(), want[i], 1e-4);
    }
    SUBCASE("double, and the pointer array copied in just before, asynchronously") {
        const int mm = 3, nn = 4, kk = 5;
        std::vector<double> A = random_values<double>(mm * kk), B = random_values<double>(kk * nn);
        std::vector<double> C(mm * nn, 0.0), want = C;
        cpu_gemm(CUBLAS_OP_N, CUBLAS_OP_N, mm, nn, kk, 1.0, A, mm, B, kk, 0.0, want, mm);
        device_buffer<double> dA(A.size()), dB(B.size()), dC(C.size());
        dA.write(A);
        dB.write(B);
        const double* h_a[] = {dA.ptr};
        const double* h_b[] = {dB.ptr};
        double* h_c[] = {dC.ptr};
        device_buffer<const double*> pa(1), pb(1);
        device_buffer<double*> pc(1);
        REQUIRE(cudaMemcpyAsync(pa.ptr, h_a, sizeof h_a, cudaMemcpyHostToDevice, 0) == cudaSuccess);
        REQUIRE(cudaMemcpyAsync(pb.ptr, h_b, sizeof h_b, cudaMemcpyHostToDevice, 0) == cudaSuccess);
        REQUIRE(cudaMemcpyAsync(pc.ptr, h_c, sizeof h_c, cudaMemcpyHostToDevice, 0) == cudaSuccess);
        const double one = 1.0, zero = 0.0;
        REQUIRE(cublasDgemmBatched(g.h, CUBLAS_OP_N, CUBLAS_OP_N, mm, nn, kk, &one, pa.ptr, mm, pb.ptr, kk,
                                   &zero, pc.ptr, mm, 1) == CUBLAS_STATUS_SUCCESS);
        require_close(dC.read(), want, 1e-12);
    }
}

TEST_CASE("Set/GetVector and Set/GetMatrix: strided copies, and cuBLAS's statuses") {
    const int rows = 5, cols = 4, lda = 7, ldb = 6;
    std::vector<float> host = random_values<float>(size_t(lda) * cols);
    device_buffer<float> d(size_t(ldb) * cols);
    std::vector<float> poison(size_t(ldb) * cols, nan_f);
    d.write(poison);
    REQUIRE(cublasSetMatrix(rows, cols, sizeof(float), host.data(), lda, d.ptr, ldb) == CUBLAS_STATUS_SUCCESS);
    std::vector<float> on_device = d.read();
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < ldb; ++i) {
            CAPTURE(i);
            CAPTURE(j);
            if (i < rows)
                CHECK(on_device[i + j * ldb] == host[i + j * lda]);
            else
                CHECK(std::isnan(on_device[i + j * ldb]));  // between columns: untouched
        }
    std::vector<float> back(size_t(lda) * cols, -1.0f);
    REQUIRE(cublasGetMatrix(rows, cols, sizeof(float), d.ptr, ldb, back.data(), lda) == CUBLAS_STATUS_SUCCESS);
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < lda; ++i) CHECK(back[i + j * lda] == (i < rows ? host[i + j * lda] : -1.0f));

    // Vectors: every third host element into every second device element.
    const int n = 6;
    std::vector<double> x = random_values<double>(3 * n);
    device_buffer<double> dy(2 * n);
    std::vector<double> zeros(2 * n, 0.0);
    dy.write(zeros);
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    REQUIRE(cublasSetVectorAsync(n, sizeof(double), x.data(), 3, dy.ptr, 2, stream) == CUBLAS_STATUS_SUCCESS);
    std::vector<double> y(n, 0.0);
    REQUIRE(cublasGetVectorAsync(n, sizeof(double), dy.ptr, 2, y.data(), 1, stream) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    for (int i = 0; i < n; ++i) CHECK(y[i] == x[3 * i]);
    CHECK(dy.read()[1] == 0.0);  // the elements between were not written
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);

    // libcublas's answers (measured with the toolkit's library, which checks
    // its arguments without a GPU): invalid values first, then the copy.
    stderr_capture capture;
    CHECK(cublasSetMatrix(-1, cols, 4, host.data(), lda, d.ptr, ldb) == CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasSetMatrix(rows, cols, 0, host.data(), lda, d.ptr, ldb) == CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasGetMatrix(rows, cols, 4, d.ptr, 0, back.data(), lda) == CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasSetVector(n, 8, x.data(), 0, dy.ptr, 1) == CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasSetVector(n, 8, x.data(), -1, dy.ptr, 1) == CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasSetMatrix(0, cols, 4, host.data(), lda, d.ptr, ldb) == CUBLAS_STATUS_SUCCESS);
    CHECK(cublasSetVector(0, 8, x.data(), 1, dy.ptr, 1) == CUBLAS_STATUS_SUCCESS);
    CHECK(cublasSetVector(-1, 8, x.data(), 1, dy.ptr, 1) == CUBLAS_STATUS_MAPPING_ERROR);
    CHECK(cublasSetMatrix(rows, cols, 4, host.data(), rows - 1, d.ptr, ldb) == CUBLAS_STATUS_MAPPING_ERROR);
    (void)cudaGetLastError();  // the failed copy's error, left for cudaGetLastError as cuBLAS leaves it
    const std::string said = capture.finish();
#ifdef CUEMU  // the emulator's lines; libcublas on an H200 printed none
    CHECK(said.find("cublasSetMatrix at ") != std::string::npos);
    CHECK(said.find("returns CUBLAS_STATUS_INVALID_VALUE") != std::string::npos);
    CHECK(said.find("returns CUBLAS_STATUS_MAPPING_ERROR") != std::string::npos);
#else
    (void)said;
#endif
}

TEST_CASE("cublasGetVersion, cublasGetProperty and CUBLAS_API_H_") {
#ifndef CUBLAS_API_H_
    FAIL("CUBLAS_API_H_ is not defined");
#endif
    handle_guard g;
    int version = 0, major = -1, minor = -1, patch = -1;
    CHECK(cublasGetVersion(g.h, &version) == CUBLAS_STATUS_SUCCESS);
    CHECK(version == CUBLAS_VERSION);
    CHECK(cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS);
    CHECK(cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS);
    CHECK(cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS);
    CHECK(major * 10000 + minor * 100 + patch == CUBLAS_VERSION);
    // No handle needed: cuBLAS 13 gives the version for a null one (measured on an H200).
    version = 0;
    CHECK(cublasGetVersion(nullptr, &version) == CUBLAS_STATUS_SUCCESS);
    CHECK(version == CUBLAS_VERSION);
}

TEST_CASE("Sgemv: both orientations, increments, beta = 0 with a poisoned y") {
    handle_guard g;
    const int m = 13, n = 6, lda = 15;
    std::vector<float> A = random_values<float>(size_t(lda) * n);
    for (cublasOperation_t op : {CUBLAS_OP_N, CUBLAS_OP_T})
        for (float beta : {0.0f, 0.5f}) {
            CAPTURE(op_text(op));
            CAPTURE(beta);
            const int len_x = op == CUBLAS_OP_N ? n : m, len_y = op == CUBLAS_OP_N ? m : n;
            const int incx = 2, incy = 3;
            std::vector<float> x = random_values<float>(size_t(len_x) * incx);
            std::vector<float> y = random_values<float>(size_t(len_y) * incy);
            if (beta == 0.0f)
                for (int i = 0; i < len_y; ++i) y[size_t(i) * incy] = nan_f;
            std::vector<float> want = y;
            const float alpha = -1.25f;
            for (int i = 0; i < len_y; ++i) {
                double sum = 0;
                for (int j = 0; j < len_x; ++j)
                    sum += double(op == CUBLAS_OP_N ? A[i + size_t(j) * lda] : A[j + size_t(i) * lda]) *
                           x[size_t(j) * incx];
                float& out = want[size_t(i) * incy];
                out = static_cast<float>(alpha * sum + (beta == 0.0f ? 0.0 : double(beta) * out));
            }
            device_buffer<float> dA(A.size()), dx(x.size()), dy(y.size());
            dA.write(A);
            dx.write(x);
            dy.write(y);
            REQUIRE(cublasSgemv(g.h, op, m, n, &alpha, dA.ptr, lda, dx.ptr, incx, &beta, dy.ptr, incy) ==
                    CUBLAS_STATUS_SUCCESS);
            require_close(dy.read(), want, 1e-5);
        }
}

TEST_CASE("Saxpy, Sdot, Snrm2, Sscal, with positive and negative increments") {
    handle_guard g;
    const int n = 1001;
    std::vector<float> x = random_values<float>(size_t(n) * 2), y = random_values<float>(size_t(n) * 3);
    device_buffer<float> dx(x.size()), dy(y.size());
    dx.write(x);
    dy.write(y);
    // Element i of a vector with increment inc < 0 is at (n - 1 - i) * |inc| (BLAS).
    auto at = [&](int i, int inc) { return size_t(inc > 0 ? i * inc : (n - 1 - i) * -inc); };
    for (int incy : {3, -3}) {
        CAPTURE(incy);
        double dot = 0;
        for (int i = 0; i < n; ++i) dot += double(x[at(i, 2)]) * y[at(i, incy)];
        float got = nan_f;
        REQUIRE(cublasSdot(g.h, n, dx.ptr, 2, dy.ptr, incy, &got) == CUBLAS_STATUS_SUCCESS);
        CHECK(std::fabs(got - dot) <= 1e-4 * (1 + std::fabs(dot)));
    }
    double sumsq = 0;
    for (int i = 0; i < n; ++i) sumsq += double(x[at(i, 2)]) * x[at(i, 2)];
    float norm = nan_f;
    REQUIRE(cublasSnrm2(g.h, n, dx.ptr, 2, &norm) == CUBLAS_STATUS_SUCCESS);
    CHECK(std::fabs(norm - std::sqrt(sumsq)) <= 1e-5 * std::sqrt(sumsq));

    const float alpha = 0.75f;
    std::vector<float> want = y;
    for (int i = 0; i < n; ++i) want[at(i, -3)] += alpha * x[at(i, 2)];
    REQUIRE(cublasSaxpy(g.h, n, &alpha, dx.ptr, 2, dy.ptr, -3) == CUBLAS_STATUS_SUCCESS);
    require_close(dy.read(), want, 1e-6);

    const float scale = -2.0f;
    for (int i = 0; i < n; ++i) want[at(i, 3)] *= scale;
    REQUIRE(cublasSscal(g.h, n, &scale, dy.ptr, 3) == CUBLAS_STATUS_SUCCESS);
    require_close(dy.read(), want, 1e-6);

    // n = 0: results are 0, nothing is read.
    float zero = nan_f;
    REQUIRE(cublasSdot(g.h, 0, nullptr, 1, nullptr, 1, &zero) == CUBLAS_STATUS_SUCCESS);
    CHECK(zero == 0.0f);
}

TEST_CASE("device pointer mode: alpha and beta read from device memory, results written there") {
    handle_guard g;
    REQUIRE(cublasSetPointerMode(g.h, CUBLAS_POINTER_MODE_DEVICE) == CUBLAS_STATUS_SUCCESS);
    cublasPointerMode_t mode = CUBLAS_POINTER_MODE_HOST;
    REQUIRE(cublasGetPointerMode(g.h, &mode) == CUBLAS_STATUS_SUCCESS);
    CHECK(mode == CUBLAS_POINTER_MODE_DEVICE);
    const int m = 5, n = 4, k = 3;
    std::vector<float> A = random_values<float>(m * k), B = random_values<float>(k * n);
    std::vector<float> C(m * n, nan_f), want = C;
    cpu_gemm(CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, 3.0f, A, m, B, k, 0.0f, want, m);
    device_buffer<float> dA(A.size()), dB(B.size()), dC(C.size()), scalars(3);
    dA.write(A);
    dB.write(B);
    dC.write(C);
    scalars.write({3.0f, 0.0f, nan_f});
    REQUIRE(cublasSgemm(g.h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, scalars.ptr, dA.ptr, m, dB.ptr, k,
                        scalars.ptr + 1, dC.ptr, m) == CUBLAS_STATUS_SUCCESS);
    require_close(dC.read(), want, 1e-5);
    REQUIRE(cublasSnrm2(g.h, 4, dA.ptr, 1, scalars.ptr + 2) == CUBLAS_STATUS_SUCCESS);
    double sumsq = 0;
    for (int i = 0; i < 4; ++i) sumsq += double(A[i]) * A[i];
    CHECK(std::fabs(scalars.read()[2] - std::sqrt(sumsq)) <= 1e-5);
}

// The names and strings are libcublas 13's (emu.cublas.status-table compares
// every code with the real library where the CUDA toolkit is installed).
TEST_CASE("status codes, names and strings are cuBLAS 13's") {
    CHECK(CUBLAS_STATUS_SUCCESS == 0);
    CHECK(CUBLAS_STATUS_NOT_INITIALIZED == 1);
    CHECK(CUBLAS_STATUS_ALLOC_FAILED == 3);
    CHECK(CUBLAS_STATUS_INVALID_VALUE == 7);
    CHECK(CUBLAS_STATUS_ARCH_MISMATCH == 8);
    CHECK(CUBLAS_STATUS_MAPPING_ERROR == 11);
    CHECK(CUBLAS_STATUS_EXECUTION_FAILED == 13);
    CHECK(CUBLAS_STATUS_INTERNAL_ERROR == 14);
    CHECK(CUBLAS_STATUS_NOT_SUPPORTED == 15);
    CHECK(CUBLAS_STATUS_LICENSE_ERROR == 16);
    CHECK(std::string(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE)) == "CUBLAS_STATUS_INVALID_VALUE");
    CHECK(std::string(cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE)) ==
          "an unsupported value or parameter was passed to the function");
    CHECK(std::string(cublasGetStatusString(CUBLAS_STATUS_NOT_INITIALIZED)) ==
          "the library was not initialized");
    CHECK(std::string(cublasGetStatusName(static_cast<cublasStatus_t>(2))) == "unrecognized status");
}

TEST_CASE("argument checks: cuBLAS's statuses, and a line saying which argument") {
    const float one = 1;
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 256 * sizeof(float)) == cudaSuccess);
    // A null handle: NOT_INITIALIZED before anything else (libcublas answers so without a GPU).
    CHECK(cublasSgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, -1, 1, 1, &one, d, 1, d, 1, &one, d, 1) ==
          CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(cublasSetStream(nullptr, 0) == CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(cublasCreate(nullptr) == CUBLAS_STATUS_INVALID_VALUE);
    cublasHandle_t h = nullptr;
    REQUIRE(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS);
    stderr_capture capture;
    const int bad_ld_line = __LINE__ + 1;
    CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, d, 7, d, 8, &one, d, 8) ==
          CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, 8, 8, 4, &one, d, 3, d, 4, &one, d, 8) ==
          CUBLAS_STATUS_INVALID_VALUE);  // A is 4 x 8 as stored: lda >= 4
    CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, d, 8, d, 8, &one, d, 7) ==
          CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, -1, 8, &one, d, 8, d, 8, &one, d, 8) ==
          CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasSgemm(h, static_cast<cublasOperation_t>(5), CUBLAS_OP_N, 8, 8, 8, &one, d, 8, d, 8,
                      &one, d, 8) == CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, nullptr, d, 8, d, 8, &one, d, 8) ==
          CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, 2, 4, d, 2, 4, &one,
                                    d, 2, 4, -1) == CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasSgemv(h, CUBLAS_OP_T, 8, 4, &one, d, 7, d, 1, &one, d, 1) == CUBLAS_STATUS_INVALID_VALUE);
    // A null result in host pointer mode: cuBLAS's copy of the result fails (measured on an H200).
    CHECK(cublasSdot(h, 4, d, 1, d, 1, nullptr) == CUBLAS_STATUS_MAPPING_ERROR);
    CHECK(cublasSetPointerMode(h, static_cast<cublasPointerMode_t>(7)) == CUBLAS_STATUS_INVALID_VALUE);
    std::string report = capture.finish();
#ifdef CUEMU  // the emulator's lines; libcublas on an H200 printed none
    CHECK(report.find("cuemu: cublasSgemm at " + std::string(__FILE__) + ":" + std::to_string(bad_ld_line) +
                      ": lda = 7 is smaller than the 8 rows of A as stored") != std::string::npos);
    CHECK(report.find("ldb") == std::string::npos);  // each line names the argument that is wrong
    CHECK(report.find("ldc = 7 is smaller than the 8 rows of C") != std::string::npos);
    CHECK(report.find("lda = 3 is smaller than the 4 rows of A as stored (k, as A is transposed)") !=
          std::string::npos);
    CHECK(report.find("returns CUBLAS_STATUS_INVALID_VALUE") != std::string::npos);
    CHECK(report.find("result is a null pointer: cuBLAS copies the result there from the device") !=
          std::string::npos);
#else
    (void)report;
    (void)bad_ld_line;
#endif
    // incx = 0: cuBLAS takes it (measured on an H200), and x is x[0] repeated.
    std::vector<float> a_x_y(8 * 8 + 1 + 8);
    for (int j = 0; j < 8; ++j)
        for (int i = 0; i < 8; ++i) a_x_y[i + 8 * j] = float(i + 2 * j);
    a_x_y[64] = 3;  // x[0]
    for (int i = 0; i < 8; ++i) a_x_y[65 + i] = float(i);
    REQUIRE(cudaMemcpy(d, a_x_y.data(), a_x_y.size() * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    const float half_beta = 0.5f;
    CHECK(cublasSgemv(h, CUBLAS_OP_N, 8, 8, &one, d, 8, d + 64, 0, &half_beta, d + 65, 1) ==
          CUBLAS_STATUS_SUCCESS);
    std::vector<float> y(8);
    REQUIRE(cudaMemcpy(y.data(), d + 65, sizeof(float) * 8, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < 8; ++i) CHECK(y[i] == 3.0f * (8 * i + 56) + 0.5f * i);  // sum over j of (i + 2j) * 3
    // A destroyed handle is no handle. Undefined in cuBLAS: an H200's libcublas
    // read the freed handle and answered CUBLAS_STATUS_NOT_SUPPORTED; the
    // emulator says what happened.
    REQUIRE(cublasDestroy(h) == CUBLAS_STATUS_SUCCESS);
#ifdef CUEMU
    stderr_capture capture2;
    CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, d, 8, d, 8, &one, d, 8) ==
          CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(capture2.finish().find("not a live cuBLAS handle") != std::string::npos);
#endif
    CHECK(cudaFree(d) == cudaSuccess);
}

namespace {
// Fills v[i] = value for i < n; slow enough (a loop per thread) that work
// queued after it but done at once would find the data missing.
__global__ void fill_slowly(float* v, int n, float value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = 0;
    for (int r = 0; r < 2000; ++r) x += 1e-30f;
    v[i] = value + x * 0;
}
}  // namespace

TEST_CASE("stream order: a cuBLAS call runs after earlier work in its stream, synchronization waits for it") {
    handle_guard g;
    cudaStream_t s = nullptr;
    REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
    REQUIRE(cublasSetStream(g.h, s) == CUBLAS_STATUS_SUCCESS);
    cudaStream_t got = nullptr;
    REQUIRE(cublasGetStream(g.h, &got) == CUBLAS_STATUS_SUCCESS);
    CHECK(got == s);
    const int n = 256;
    device_buffer<float> a(n * n), b(n * n), c(n * n);  // poisoned on creation
    for (int round = 0; round < 3; ++round) {
        fill_slowly<<<(n * n + 255) / 256, 256, 0, s>>>(a.ptr, n * n, 1.0f);
        fill_slowly<<<(n * n + 255) / 256, 256, 0, s>>>(b.ptr, n * n, 2.0f);
        REQUIRE(cudaGetLastError() == cudaSuccess);
        const float one = 1, zero = 0;
        REQUIRE(cublasSgemm(g.h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.ptr, n, b.ptr, n, &zero, c.ptr,
                            n) == CUBLAS_STATUS_SUCCESS);
        // After the gemm in the stream: C must already hold the product.
        const float half = 0.5f;
        REQUIRE(cublasSscal(g.h, n * n, &half, c.ptr, 1) == CUBLAS_STATUS_SUCCESS);
        REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
        std::vector<float> out(size_t(n) * n);
        REQUIRE(cudaMemcpy(out.data(), c.ptr, out.size() * sizeof(float), cudaMemcpyDeviceToHost) ==
                cudaSuccess);
        for (float v : out) REQUIRE(v == 1.0f * 2.0f * n * 0.5f);
        // Poison again for the next round, in the stream.
        REQUIRE(cudaMemsetAsync(a.ptr, 0xFF, n * n * sizeof(float), s) == cudaSuccess);
        REQUIRE(cudaMemsetAsync(b.ptr, 0xFF, n * n * sizeof(float), s) == cudaSuccess);
    }
    REQUIRE(cublasSetStream(g.h, 0) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
}

#ifdef CUEMU
namespace {
// Device memory these processes never free: after the sticky error every call fails.
float* device_floats(int n) {
    float* p = nullptr;
    REQUIRE(cudaMalloc(&p, n * sizeof(float)) == cudaSuccess);
    return p;
}
}  // namespace

// A host array where device memory belongs: a report naming the call, the
// argument and the line, and the work fails as a faulting kernel does.
TEST_CASE("process: host pointer") {
    handle_guard g;
    const int m = 4, n = 3, k = 2;
    std::vector<float> h_a(m * k, 1.0f);
    float *b = device_floats(k * n), *c = device_floats(m * n);
    const float one = 1, zero = 0;
    stderr_capture capture(capture_until::device_idle);
    const int line = __LINE__ + 1;
    CHECK(cublasSgemm(g.h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, h_a.data(), m, b, k, &zero, c, m) ==
          CUBLAS_STATUS_SUCCESS);
    const std::string report = capture.finish();
    char pointer[32];
    std::snprintf(pointer, sizeof pointer, "%p", static_cast<void*>(h_a.data()));
    CHECK(report.find("cuemu: cublasSgemm at " + std::string(__FILE__) + ":" + std::to_string(line) +
                      ": the matrix A (4 x 2 elements, leading dimension 4) is " + pointer +
                      ", host memory, not device memory") != std::string::npos);
    CHECK(report.find("cudaMemcpy the data into it") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

// A batch's array naming host memory: found when the work reads the array.
TEST_CASE("process: host pointer in a batch") {
    handle_guard g;
    const int m = 2, n = 2, k = 2;
    std::vector<float> h_a(m * k, 1.0f);
    float *b = device_floats(k * n), *c = device_floats(m * n);
    const float* a_list[] = {b, h_a.data()};  // the second matrix is the host array
    const float* b_list[] = {b, b};
    float* c_list[] = {c, c};
    const float **d_a_list = nullptr, **d_b_list = nullptr;
    float** d_c_list = nullptr;
    REQUIRE(cudaMalloc(&d_a_list, sizeof a_list) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_b_list, sizeof b_list) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_c_list, sizeof c_list) == cudaSuccess);
    REQUIRE(cudaMemcpy(d_a_list, a_list, sizeof a_list, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(d_b_list, b_list, sizeof b_list, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(d_c_list, c_list, sizeof c_list, cudaMemcpyHostToDevice) == cudaSuccess);
    const float one = 1, zero = 0;
    stderr_capture capture(capture_until::device_idle);
    CHECK(cublasSgemmBatched(g.h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, d_a_list, m, d_b_list, k, &zero,
                             d_c_list, m, 2) == CUBLAS_STATUS_SUCCESS);
    const std::string report = capture.finish();
    CHECK(report.find("cuemu: cublasSgemmBatched at " + std::string(__FILE__)) != std::string::npos);
    CHECK(report.find("Aarray[1]") != std::string::npos);
    CHECK(report.find("host memory, not device memory") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

// A buffer too small for the sizes and leading dimension given.
TEST_CASE("process: buffer too small") {
    handle_guard g;
    float *a = device_floats(10), *b = device_floats(4), *c = device_floats(16);
    const float one = 1, zero = 0;
    stderr_capture capture(capture_until::device_idle);
    CHECK(cublasSgemm(g.h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 1, &one, a, 6, b, 1, &zero, c, 4) ==
          CUBLAS_STATUS_SUCCESS);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);  // that one fits: it ran
    CHECK(cublasSgemm(g.h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, a, 4, b, 4, &zero, c, 4) ==
          CUBLAS_STATUS_SUCCESS);
    const std::string report = capture.finish();
    CHECK(report.find("the matrix A (4 x 4 elements, leading dimension 4) needs 64 bytes from byte offset 0 "
                      "of a 40-byte buffer from cudaMalloc") != std::string::npos);
    CHECK(report.find("24 bytes past its end") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}
#endif

// ---- cublasGemmEx: A, B and C of the types named, float or double sums --------------
namespace {

// What the test needs of each element type: its cudaDataType, how a value is
// read and stored, and its unit roundoff (0 for the types that hold the
// sums, whose rounding the sum bound covers).
template <class T>
struct element_traits;
template <>
struct element_traits<__half> {
    static constexpr cudaDataType type = CUDA_R_16F;
    static double read(__half x) { return __half2float(x); }
    static __half make(double v) { return __float2half(static_cast<float>(v)); }
    static constexpr double roundoff = 1.0 / 2048;  // 2^-11
};
template <>
struct element_traits<__nv_bfloat16> {
    static constexpr cudaDataType type = CUDA_R_16BF;
    static double read(__nv_bfloat16 x) { return __bfloat162float(x); }
    static __nv_bfloat16 make(double v) { return __float2bfloat16(static_cast<float>(v)); }
    static constexpr double roundoff = 1.0 / 256;  // 2^-8
};
template <>
struct element_traits<float> {
    static constexpr cudaDataType type = CUDA_R_32F;
    static double read(float x) { return x; }
    static float make(double v) { return static_cast<float>(v); }
    static constexpr double roundoff = 0;
};
template <>
struct element_traits<double> {
    static constexpr cudaDataType type = CUDA_R_64F;
    static double read(double x) { return x; }
    static double make(double v) { return v; }
    static constexpr double roundoff = 0;
};

template <class T>
std::vector<T> random_elements(size_t n) {
    std::vector<T> v(n);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (T& x : v) x = element_traits<T>::make(dist(rng()));
    return v;
}

// How a compute type may round float A and B before multiplying them (the
// _FAST_ kinds allow half, bfloat16 or TF32): each input a may become any
// value within delta |a| + eta of it. delta is the widest the kind allows
// (TF32 cut short rather than rounded: 2^-10), eta the absolute error of
// half's subnormals. `emulated` is the rounding the emulator documents
// (to nearest even, to half, bfloat16 or TF32); null for the exact kinds.
struct input_rounding {
    double delta = 0, eta = 0;
    float (*emulated)(float) = nullptr;
};
float to_half_rn(float x) { return __half2float(__float2half(x)); }
float to_bfloat16_rn(float x) { return __bfloat162float(__float2bfloat16(x)); }
float to_tf32_rn(float x) {  // 10 stored mantissa bits, float's exponent; x is finite here
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    bits += 0xfffu + ((bits >> 13) & 1u);  // half the dropped part, ties to the even side
    bits &= ~0x1fffu;
    std::memcpy(&x, &bits, sizeof x);
    return x;
}
input_rounding rounding_of(cublasComputeType_t compute) {
    switch (compute) {
        case CUBLAS_COMPUTE_32F_FAST_16F: return {std::ldexp(1.0, -10), std::ldexp(1.0, -25), to_half_rn};
        case CUBLAS_COMPUTE_32F_FAST_16BF: return {std::ldexp(1.0, -8), 0, to_bfloat16_rn};
        case CUBLAS_COMPUTE_32F_FAST_TF32: return {std::ldexp(1.0, -10), 0, to_tf32_rn};
        default: return {};
    }
}

// C = alpha op(A) op(B) + beta C through cublasGemmEx, A and B of type AB, C
// of type CT, sums of type S (float or double, as alpha and beta), against
// the product of the same stored values in double. Each element may be off by
// the sums' rounding, 2 (k + 4) u_S of its magnitude |alpha| sum |a b| +
// |beta c| (any order, both ways), plus one rounding of C to its own type:
// a wrong element, a wrong transpose or a conversion that does not round to
// nearest (off by up to a whole step of half) is outside it. A _FAST_ kind
// adds what rounding the inputs may change each product (and the magnitude
// grows with it); the emulator's result must also be the product of the
// inputs rounded as it documents, within the sums' bound, which it is not
// when it skips that rounding. The padding rows (NaN) must stay NaN; beta = 0
// poisons all of C, which must not be read.
template <class AB, class CT, class S>
void check_gemm_ex(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                   S alpha, S beta, cublasComputeType_t compute, int pad) {
    const input_rounding rounding = rounding_of(compute);
    CAPTURE(op_text(ta));
    CAPTURE(op_text(tb));
    CAPTURE(beta);
    const int rows_a = ta == CUBLAS_OP_N ? m : k, cols_a = ta == CUBLAS_OP_N ? k : m;
    const int rows_b = tb == CUBLAS_OP_N ? k : n, cols_b = tb == CUBLAS_OP_N ? n : k;
    const int lda = rows_a + pad, ldb = rows_b + pad, ldc = m + pad;
    std::vector<AB> A = random_elements<AB>(size_t(lda) * cols_a), B = random_elements<AB>(size_t(ldb) * cols_b);
    std::vector<CT> C = random_elements<CT>(size_t(ldc) * n);
    for (int j = 0; j < n; ++j)
        for (int i = m; i < ldc; ++i) C[i + size_t(j) * ldc] = element_traits<CT>::make(nan_f);
    if (beta == S(0))
        for (CT& c : C) c = element_traits<CT>::make(nan_f);
    device_buffer<AB> dA(A.size()), dB(B.size());
    device_buffer<CT> dC(C.size());
    dA.write(A);
    dB.write(B);
    dC.write(C);
    REQUIRE(cublasGemmEx(h, ta, tb, m, n, k, &alpha, dA.ptr, element_traits<AB>::type, lda, dB.ptr,
                         element_traits<AB>::type, ldb, &beta, dC.ptr, element_traits<CT>::type, ldc,
                         compute, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS);
    const std::vector<CT> got = dC.read();
    const double sum_roundoff = sizeof(S) == sizeof(float) ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
    auto value = [](const auto& M, cublasOperation_t op, int ld, int i, int j) {
        return element_traits<typename std::decay_t<decltype(M)>::value_type>::read(op_at(M, op, ld, i, j));
    };
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < ldc; ++i) {
            CAPTURE(i);
            CAPTURE(j);
            const size_t at = i + size_t(j) * ldc;
            const double result = element_traits<CT>::read(got[at]);
            if (i >= m) {
                REQUIRE(std::isnan(result));
                continue;
            }
            double sum = 0, magnitude = 0, input_error = 0, rounded_sum = 0;
            for (int p = 0; p < k; ++p) {
                const double a = value(A, ta, lda, i, p), b = value(B, tb, ldb, p, j);
                sum += a * b;
                // The most |a b| may become once a and b are rounded.
                const double widest = (std::fabs(a) * (1 + rounding.delta) + rounding.eta) *
                                      (std::fabs(b) * (1 + rounding.delta) + rounding.eta);
                magnitude += widest;
                input_error += widest - std::fabs(a * b);
                if (rounding.emulated)
                    rounded_sum += double(rounding.emulated(float(a))) * rounding.emulated(float(b));
            }
            const double old_c = beta == S(0) ? 0.0 : element_traits<CT>::read(C[at]);
            const double exact = double(alpha) * sum + double(beta) * old_c;
            magnitude = std::fabs(double(alpha)) * magnitude + std::fabs(double(beta) * old_c);
            const double sums_bound = 2.0 * (k + 4) * sum_roundoff * magnitude;
            const double bound = sums_bound + std::fabs(double(alpha)) * input_error +
                                 element_traits<CT>::roundoff * std::fabs(exact) * (1 + 1e-6);
            REQUIRE(std::fabs(result - exact) <= bound);
#ifdef CUEMU
            if (rounding.emulated)
                REQUIRE(std::fabs(result - (double(alpha) * rounded_sum + double(beta) * old_c)) <= sums_bound);
#endif
        }
    }
}

const cublasOperation_t plain_and_transposed[] = {CUBLAS_OP_N, CUBLAS_OP_T};

template <class AB, class CT, class S>
void check_gemm_ex_all_ops(cublasComputeType_t compute) {
    handle_guard g;
    for (cublasOperation_t ta : plain_and_transposed)
        for (cublasOperation_t tb : plain_and_transposed) {
            check_gemm_ex<AB, CT, S>(g.h, ta, tb, 17, 33, 65, S(1.5), S(-0.75), compute, 3);
            check_gemm_ex<AB, CT, S>(g.h, ta, tb, 17, 33, 65, S(-0.5), S(0), compute, 2);
        }
}

}  // namespace

TEST_CASE("GemmEx: half A and B, float C, float sums, at 17 x 33 x 65, every transpose") {
    check_gemm_ex_all_ops<__half, float, float>(CUBLAS_COMPUTE_32F);
}
TEST_CASE("GemmEx: half A, B and C, float sums rounded to half at the end") {
    check_gemm_ex_all_ops<__half, __half, float>(CUBLAS_COMPUTE_32F);
}
TEST_CASE("GemmEx: bfloat16 A and B, float C; and all bfloat16") {
    check_gemm_ex_all_ops<__nv_bfloat16, float, float>(CUBLAS_COMPUTE_32F);
    check_gemm_ex_all_ops<__nv_bfloat16, __nv_bfloat16, float>(CUBLAS_COMPUTE_32F_PEDANTIC);
}
// The FAST kinds let a GPU round float inputs to half, bfloat16 or TF32, and
// an H200 does: with CUBLAS_COMPUTE_32F_FAST_16F it was off by seven times
// float's bound. The bound adds what that rounding may do; the emulator
// rounds as the kind says (check_gemm_ex).
TEST_CASE("GemmEx: all float, with CUBLAS_COMPUTE_32F and its FAST kinds; all double") {
    for (cublasComputeType_t compute : {CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F_FAST_16F,
                                        CUBLAS_COMPUTE_32F_FAST_16BF, CUBLAS_COMPUTE_32F_FAST_TF32}) {
        CAPTURE(compute);
        check_gemm_ex_all_ops<float, float, float>(compute);
    }
    check_gemm_ex_all_ops<double, double, double>(CUBLAS_COMPUTE_64F);
}

namespace {
// Half A, B and C with half sums (CUBLAS_COMPUTE_16F, alpha and beta half),
// against the product of the same stored values in double. Every step of a
// GPU's half sums may round (or cut short), so each element may be off by
// 2 (k + 4) u_16 of its magnitude |alpha| sum |a b| + |beta c|, u_16 = 2^-11;
// float sums rounded once at the end are inside that too. The emulator's
// result must also be exactly its documented order: s = fma(a, b, s) in half
// for p = 0 .. k-1, then alpha * s in half, then fma(beta, c, that) in half
// (the double sums below hold each step exactly, rounded once by
// __double2half).
void check_half_sums(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                     float alpha_value, float beta_value, int pad) {
    CAPTURE(op_text(ta));
    CAPTURE(op_text(tb));
    CAPTURE(beta_value);
    const __half alpha = __float2half(alpha_value), beta = __float2half(beta_value);
    const int rows_a = ta == CUBLAS_OP_N ? m : k, cols_a = ta == CUBLAS_OP_N ? k : m;
    const int rows_b = tb == CUBLAS_OP_N ? k : n, cols_b = tb == CUBLAS_OP_N ? n : k;
    const int lda = rows_a + pad, ldb = rows_b + pad, ldc = m + pad;
    std::vector<__half> A = random_elements<__half>(size_t(lda) * cols_a);
    std::vector<__half> B = random_elements<__half>(size_t(ldb) * cols_b);
    std::vector<__half> C = random_elements<__half>(size_t(ldc) * n);
    for (int j = 0; j < n; ++j)
        for (int i = m; i < ldc; ++i) C[i + size_t(j) * ldc] = __float2half(nan_f);
    if (beta_value == 0.0f)
        for (__half& c : C) c = __float2half(nan_f);
    device_buffer<__half> dA(A.size()), dB(B.size()), dC(C.size());
    dA.write(A);
    dB.write(B);
    dC.write(C);
    REQUIRE(cublasGemmEx(h, ta, tb, m, n, k, &alpha, dA.ptr, CUDA_R_16F, lda, dB.ptr, CUDA_R_16F, ldb, &beta,
                         dC.ptr, CUDA_R_16F, ldc, CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS);
    const std::vector<__half> got = dC.read();
    auto in_half = [](double v) { return double(__half2float(__double2half(v))); };
    const double a_s = __half2float(alpha), b_s = __half2float(beta), u16 = std::ldexp(1.0, -11);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < ldc; ++i) {
            CAPTURE(i);
            CAPTURE(j);
            const size_t at = i + size_t(j) * ldc;
            const double result = __half2float(got[at]);
            if (i >= m) {
                REQUIRE(std::isnan(result));
                continue;
            }
            double sum = 0, magnitude = 0, steps = 0;
            for (int p = 0; p < k; ++p) {
                const double product = double(__half2float(op_at(A, ta, lda, i, p))) *
                                       __half2float(op_at(B, tb, ldb, p, j));
                sum += product;
                magnitude += std::fabs(product);
                steps = in_half(product + steps);
            }
            const double old_c = beta_value == 0.0f ? 0.0 : __half2float(C[at]);
            const double exact = a_s * sum + b_s * old_c;
            magnitude = std::fabs(a_s) * magnitude + std::fabs(b_s * old_c);
            REQUIRE(std::fabs(result - exact) <= 2.0 * (k + 4) * u16 * magnitude);
#ifdef CUEMU
            const double scaled = in_half(a_s * steps);
            REQUIRE(result == (beta_value == 0.0f ? scaled : in_half(b_s * old_c + scaled)));
#endif
        }
}
}  // namespace

TEST_CASE("GemmEx: half A, B and C with half sums (CUBLAS_COMPUTE_16F), every transpose") {
    handle_guard g;
    for (cublasOperation_t ta : plain_and_transposed)
        for (cublasOperation_t tb : plain_and_transposed) {
            check_half_sums(g.h, ta, tb, 17, 33, 65, 1.5f, -0.75f, 3);
            check_half_sums(g.h, ta, tb, 17, 33, 65, -0.5f, 0.0f, 2);
        }
}

// Three products, strides beyond each matrix: each must be its own.
TEST_CASE("GemmStridedBatchedEx: half inputs, float C, each matrix of the batch") {
    handle_guard g;
    const int m = 5, n = 7, k = 9, batch = 3;
    const long long stride_a = m * k + 4, stride_b = k * n + 2, stride_c = m * n + 3;
    std::vector<__half> A = random_elements<__half>(stride_a * batch), B = random_elements<__half>(stride_b * batch);
    device_buffer<__half> dA(A.size()), dB(B.size());
    device_buffer<float> dC(stride_c * batch);
    dA.write(A);
    dB.write(B);
    const float one = 1, zero = 0;
    REQUIRE(cublasGemmStridedBatchedEx(g.h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dA.ptr, CUDA_R_16F, m,
                                       stride_a, dB.ptr, CUDA_R_16F, k, stride_b, &zero, dC.ptr,
                                       CUDA_R_32F, m, stride_c, batch, CUBLAS_COMPUTE_32F,
                                       CUBLAS_GEMM_DEFAULT_TENSOR_OP) == CUBLAS_STATUS_SUCCESS);
    const std::vector<float> got = dC.read();
    for (int b = 0; b < batch; ++b)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i) {
                CAPTURE(b);
                double sum = 0, magnitude = 0;
                for (int p = 0; p < k; ++p) {
                    const double product = double(__half2float(A[b * stride_a + i + p * m])) *
                                           __half2float(B[b * stride_b + p + j * k]);
                    sum += product;
                    magnitude += std::fabs(product);
                }
                REQUIRE(std::fabs(got[b * stride_c + i + j * m] - sum) <= 2.0 * (k + 4) * std::ldexp(magnitude, -24));
            }
}

// cuBLAS refuses a combination of types it does not support with
// CUBLAS_STATUS_NOT_SUPPORTED; the emulator also says which and why, and
// refuses the same way the combinations cuBLAS has and it does not (8-bit
// integers), saying so.
TEST_CASE("GemmEx: unsupported combinations, arguments, math modes") {
    handle_guard g;
    device_buffer<float> d(256);
    const float one = 1;
    stderr_capture capture;
    const int mixed_line = __LINE__ + 1;
    CHECK(cublasGemmEx(g.h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d.ptr, CUDA_R_16F, 4, d.ptr,
                       CUDA_R_16BF, 4, &one, d.ptr, CUDA_R_32F, 4, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK(cublasGemmEx(g.h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d.ptr, CUDA_R_16F, 4, d.ptr,
                       CUDA_R_16F, 4, &one, d.ptr, CUDA_R_16BF, 4, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK(cublasGemmEx(g.h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d.ptr, CUDA_R_32F, 4, d.ptr,
                       CUDA_R_32F, 4, &one, d.ptr, CUDA_R_32F, 4, CUBLAS_COMPUTE_64F,
                       CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED);
    const __half half_one = __float2half(1.0f);
    CHECK(cublasGemmEx(g.h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &half_one, d.ptr, CUDA_R_16F, 4, d.ptr,
                       CUDA_R_16F, 4, &half_one, d.ptr, CUDA_R_16F, 4, CUBLAS_COMPUTE_16F,
                       CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS);  // half sums: done
#ifdef CUEMU  // cuBLAS computes this one; the emulator does not
    const int int8_line = __LINE__ + 1;
    CHECK(cublasGemmEx(g.h, CUBLAS_OP_T, CUBLAS_OP_N, 4, 4, 4, &one, d.ptr, CUDA_R_8I, 4, d.ptr, CUDA_R_8I, 4,
                       &one, d.ptr, CUDA_R_32I, 4, CUBLAS_COMPUTE_32I,
                       CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED);
#endif
    // Not a cublasGemmAlgo_t: INVALID_VALUE (measured on an H200).
    CHECK(cublasGemmEx(g.h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d.ptr, CUDA_R_16F, 4, d.ptr,
                       CUDA_R_16F, 4, &one, d.ptr, CUDA_R_32F, 4, CUBLAS_COMPUTE_32F,
                       static_cast<cublasGemmAlgo_t>(50)) == CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasGemmEx(g.h, CUBLAS_OP_T, CUBLAS_OP_N, 4, 4, 8, &one, d.ptr, CUDA_R_16F, 4, d.ptr,
                       CUDA_R_16F, 8, &one, d.ptr, CUDA_R_32F, 4, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_INVALID_VALUE);  // A is 8 x 4: lda >= 8
    const std::string report = capture.finish();
#ifdef CUEMU
    CHECK(report.find("cuemu: cublasGemmEx at " + std::string(__FILE__) + ":" + std::to_string(mixed_line) +
                      ": Atype CUDA_R_16F, Btype CUDA_R_16BF, Ctype CUDA_R_32F with CUBLAS_COMPUTE_32F is "
                      "not a combination cuBLAS supports") != std::string::npos);
    CHECK(report.find("Ctype CUDA_R_16BF with CUBLAS_COMPUTE_32F is not a combination") != std::string::npos);
    CHECK(report.find("cuemu: cublasGemmEx at " + std::string(__FILE__) + ":" + std::to_string(int8_line) +
                      ": Atype CUDA_R_8I, Btype CUDA_R_8I, Ctype CUDA_R_32I with CUBLAS_COMPUTE_32I is a "
                      "combination cuBLAS has and the emulator does not") != std::string::npos);
    CHECK(report.find("algo = 50 is not a cublasGemmAlgo_t") != std::string::npos);
    CHECK(report.find("lda = 4 is smaller than the 8 rows of A as stored") != std::string::npos);
#else
    (void)mixed_line;
#endif
    CHECK(cublasGemmEx(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d.ptr, CUDA_R_16F, 4, d.ptr,
                       CUDA_R_16F, 4, &one, d.ptr, CUDA_R_32F, 4, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_INITIALIZED);
    // Code from before CUDA 11 names the sums by a cudaDataType (CUDA_R_32F):
    // the C++ header maps it to a compute type, as cuBLAS's does.
    device_buffer<__half> halves(16);
    device_buffer<float> product(16);
    REQUIRE(cudaMemset(halves.ptr, 0, 16 * sizeof(__half)) == cudaSuccess);
    const float zero = 0;
    CHECK(cublasGemmEx(g.h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, halves.ptr, CUDA_R_16F, 4,
                       halves.ptr, CUDA_R_16F, 4, &zero, product.ptr, CUDA_R_32F, 4, CUDA_R_32F,
                       CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS);
    for (float v : product.read()) CHECK(v == 0.0f);  // the poison overwritten by 0 * 0 sums
    CHECK(cublasGemmEx(g.h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, halves.ptr, CUDA_R_16F, 4,
                       halves.ptr, CUDA_R_16F, 4, &zero, product.ptr, CUDA_R_32F, 4, CUDA_R_8U,
                       CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED);
    cublasMath_t mode = CUBLAS_PEDANTIC_MATH;
    REQUIRE(cublasGetMathMode(g.h, &mode) == CUBLAS_STATUS_SUCCESS);
    CHECK(mode == CUBLAS_DEFAULT_MATH);
    REQUIRE(cublasSetMathMode(g.h, CUBLAS_TF32_TENSOR_OP_MATH) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cublasGetMathMode(g.h, &mode) == CUBLAS_STATUS_SUCCESS);
    CHECK(mode == CUBLAS_TF32_TENSOR_OP_MATH);
    // The modes are bits that combine: 5 is CUBLAS_TENSOR_OP_MATH |
    // CUBLAS_FP32_EMULATED_BF16X9_MATH, which cuBLAS takes (measured on an H200).
    CHECK(cublasSetMathMode(g.h, static_cast<cublasMath_t>(5)) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cublasGetMathMode(g.h, &mode) == CUBLAS_STATUS_SUCCESS);
    CHECK(mode == static_cast<cublasMath_t>(5));
    CHECK(cublasGetMathMode(g.h, nullptr) == CUBLAS_STATUS_INVALID_VALUE);
}

// alpha and beta of the sums' type (float for CUBLAS_COMPUTE_32F), read from
// device memory when the work runs in device pointer mode.
TEST_CASE("GemmEx: device pointer mode reads alpha and beta, of the sums' type, from device memory") {
    handle_guard g;
    const int n = 4;
    device_buffer<__half> ones(n * n);
    ones.write(std::vector<__half>(n * n, __float2half(1.0f)));
    device_buffer<__half> c(n * n);
    c.write(std::vector<__half>(n * n, __float2half(0.5f)));
    device_buffer<float> scalars(2);
    scalars.write({3.0f, -2.0f});
    REQUIRE(cublasSetPointerMode(g.h, CUBLAS_POINTER_MODE_DEVICE) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cublasGemmEx(g.h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, scalars.ptr, ones.ptr, CUDA_R_16F, n,
                         ones.ptr, CUDA_R_16F, n, scalars.ptr + 1, c.ptr, CUDA_R_16F, n,
                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cublasSetPointerMode(g.h, CUBLAS_POINTER_MODE_HOST) == CUBLAS_STATUS_SUCCESS);
    for (__half v : c.read()) CHECK(__half2float(v) == 3.0f * n - 2.0f * 0.5f);
}
