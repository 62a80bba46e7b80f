// events_timing.cu - timing a kernel with CUDA events, the way the CUDA blog
// and most courses do it, plus a check that the result is right and that the
// event time is a sane number (positive, and inside the host-measured span).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CUDA_RT_CALL(call)                                                           \
    do {                                                                             \
        cudaError_t cudaStatus = call;                                               \
        if (cudaSuccess != cudaStatus) {                                             \
            fprintf(stderr, "ERROR: CUDA RT call \"%s\" in line %d of file %s failed " \
                    "with %s (%d).\n", #call, __LINE__, __FILE__,                    \
                    cudaGetErrorString(cudaStatus), cudaStatus);                     \
            exit(cudaStatus);                                                        \
        }                                                                            \
    } while (0)

// Enough arithmetic per element that the kernel takes measurable time.
__global__ void polynomial(const float* x, float* y, int n, int terms) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], acc = 0.0f;
    for (int k = terms; k > 0; --k) acc = acc * v + 1.0f / k;  // Horner
    y[i] = acc;
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    const int terms = 16;
    if (n < 1) { fprintf(stderr, "n must be at least 1\n"); return 2; }
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> h_x(n), h_y(n);
    for (auto& v : h_x) v = dist(rng);

    float *d_x, *d_y;
    CUDA_RT_CALL(cudaMalloc(&d_x, n * sizeof(float)));
    CUDA_RT_CALL(cudaMalloc(&d_y, n * sizeof(float)));
    CUDA_RT_CALL(cudaMemcpy(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    cudaEvent_t start, stop;
    CUDA_RT_CALL(cudaEventCreate(&start));
    CUDA_RT_CALL(cudaEventCreate(&stop));

    auto host_start = std::chrono::steady_clock::now();
    CUDA_RT_CALL(cudaEventRecord(start, 0));
    polynomial<<<(n + 127) / 128, 128>>>(d_x, d_y, n, terms);
    CUDA_RT_CALL(cudaGetLastError());
    CUDA_RT_CALL(cudaEventRecord(stop, 0));
    CUDA_RT_CALL(cudaEventSynchronize(stop));
    auto host_stop = std::chrono::steady_clock::now();
    CUDA_RT_CALL(cudaEventQuery(stop));  // completed, so cudaSuccess

    float ms = 0;
    CUDA_RT_CALL(cudaEventElapsedTime(&ms, start, stop));
    double host_ms = std::chrono::duration<double, std::milli>(host_stop - host_start).count();

    CUDA_RT_CALL(cudaMemcpy(h_y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    int errors = 0;
    for (int i = 0; i < n; ++i) {
        double acc = 0.0;
        for (int k = terms; k > 0; --k) acc = acc * h_x[i] + 1.0 / k;
        // |x| < 1 and 16 float steps with |acc| < 3.4: a few float ulps of 3.4
        if (fabs(h_y[i] - acc) > 1e-5) ++errors;
    }
    // Event resolution is about half a microsecond; allow that much slack.
    bool time_ok = ms > 0.0f && ms <= host_ms + 0.001;
    printf("kernel: %.3f ms (events), %.3f ms (host clock around it)\n", ms, host_ms);

    CUDA_RT_CALL(cudaEventDestroy(start));
    CUDA_RT_CALL(cudaEventDestroy(stop));
    CUDA_RT_CALL(cudaFree(d_x));
    CUDA_RT_CALL(cudaFree(d_y));
    bool ok = errors == 0 && time_ok;
    printf("events_timing n=%d errors=%d time %s %s\n", n, errors, time_ok ? "sane" : "NOT sane",
           ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
