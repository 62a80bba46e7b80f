// Lesson 07: device functions - a sigmoid and a ReLU applied to a vector.
//
// A kernel (__global__) can call ordinary functions, as long as they are
// compiled for the device: mark them __device__. A __device__ function runs
// on the GPU and can be called only from kernels and other device code. Mark
// it __host__ __device__ and the compiler builds it twice, once for each
// side, so the CPU and the GPU share one definition of the math.
//
//     sigmoid(x) = 1 / (1 + e^-x)        relu(x) = max(x, 0)
//
// The sigmoid here uses expf; a second version uses the GPU's fast intrinsic
// __expf, which trades accuracy for speed. The program measures both against
// a double-precision sigmoid and prints how the error grows with |x|.
//
// Build and run:   ./tutorial run 07 [--n 1000000] [--block 256] [--range 80] [--bench]
//                  ./tutorial check 07              (the exercise's test)
//                  ./tutorial solution 07           (the finished version)
// It prints the accuracy of each sigmoid, checks the ReLU, and ends with
// PASS or FAIL. --bench times the three kernels.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference.h"
#include "timer.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <vector>

// ---- functions for the device (and the host) ----

// One definition, compiled for both sides: the CPU code below and the kernel
// call the very same function. expf works on both (on the device it is
// CUDA's own expf, accurate to 2 ulp).
// [snippet: device-functions]
__host__ __device__ float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// The same formula with __expf, the GPU's fast approximate exponential. It is
// an intrinsic: it exists in device code only, so this function can only be
// __device__.
__device__ float sigmoid_fast(float x) { return 1.0f / (1.0f + __expf(-x)); }

// The rectifier: negative inputs become 0, the rest pass through.
__device__ float relu(float x) {
    return x;  // TODO(07.1): max(x, 0): x when it is positive, else 0.0f
}
// [end snippet]

// ---- kernels: one thread per element, each calling a device function ----

// [snippet: sigmoid-kernel]
__global__ void sigmoid_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = sigmoid(x[i]);
}
// [end snippet]

__global__ void sigmoid_fast_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = sigmoid_fast(x[i]);
}

__global__ void relu_kernel(const float* x, float* y, int n) {
    // TODO(07.2): one thread per element, as in sigmoid_kernel: this thread's
    //             index, the bounds check, and y[i] = relu(x[i]).
}

// ---- launchers ----

enum class Activation { sigmoid, sigmoid_fast, relu };

// y = f(x) on vectors already on the device (the launcher below and the
// benchmark in main share it).
// [snippet: launch]
static void launch_activation(Activation f, const float* d_x, float* d_y, int n, int block_size) {
    int num_blocks = (n + block_size - 1) / block_size;
    switch (f) {
    case Activation::sigmoid:
        sigmoid_kernel<<<num_blocks, block_size>>>(d_x, d_y, n);
        break;
    case Activation::sigmoid_fast:
        sigmoid_fast_kernel<<<num_blocks, block_size>>>(d_x, d_y, n);
        break;
    case Activation::relu:
        // TODO(07.3): launch relu_kernel, like the two launches above.
        break;
    }
    CUDA_CHECK(cudaGetLastError());
}
// [end snippet]

// y = f(x) for host vectors of n floats, with blocks of block_size threads.
void activation_on_gpu(Activation f, const float* h_x, float* h_y, int n, int block_size) {
    const size_t bytes = (size_t)n * sizeof(float);
    float *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    launch_activation(f, d_x, d_y, n, block_size);
    CUDA_CHECK(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
}

// The shared definition, called on the CPU: a plain loop over sigmoid().
void sigmoid_on_cpu(const float* x, float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = sigmoid(x[i]);
}

// ---- main: accuracy against double precision, the ReLU check, a benchmark ----
#ifndef TUTORIAL_TEST_BUILD

// |got - exact| / |exact|, in units of FLT_EPSILON (2^-23, the gap between 1
// and the next float): roughly "how many units in the last place".
static double error_in_eps(float got, double exact) {
    return std::fabs((double)got - exact) / std::fabs(exact) / FLT_EPSILON;
}

// The largest error of each sigmoid on every stretch of x, so that the table
// shows how the error depends on x.
static void accuracy_table(const std::vector<float>& x, const std::vector<float>& y_expf,
                           const std::vector<float>& y_fast, const std::vector<float>& y_cpu,
                           double range) {
    const double edges[] = {-80, -40, -20, -10, -1, 1, 10, 20, 40, 80};
    const int bins = sizeof(edges) / sizeof(edges[0]) - 1;
    std::vector<double> worst_expf(bins, 0.0), worst_fast(bins, 0.0), worst_cpu(bins, 0.0);
    std::vector<long long> counts(bins, 0);
    for (size_t i = 0; i < x.size(); ++i) {
        int bin = 0;
        while (bin < bins - 1 && x[i] >= edges[bin + 1]) ++bin;
        double exact = cpu_sigmoid_exact(x[i]);
        ++counts[bin];
        worst_expf[bin] = std::fmax(worst_expf[bin], error_in_eps(y_expf[i], exact));
        worst_fast[bin] = std::fmax(worst_fast[bin], error_in_eps(y_fast[i], exact));
        worst_cpu[bin] = std::fmax(worst_cpu[bin], error_in_eps(y_cpu[i], exact));
    }
    std::printf("\nlargest relative error against the double-precision sigmoid,\n"
                "in units of FLT_EPSILON (%.3g):\n", (double)FLT_EPSILON);
    std::printf("  %-14s %9s %13s %15s %12s\n", "x in", "inputs", "kernel expf",
                "kernel __expf", "CPU expf");
    for (int b = 0; b < bins; ++b) {
        if (edges[b + 1] <= -range || edges[b] >= range) continue;
        char label[32];
        std::snprintf(label, sizeof label, "[%g, %g)", edges[b], edges[b + 1]);
        std::printf("  %-14s %9lld %13.2f %15.2f %12.2f\n", label, counts[b], worst_expf[b],
                    worst_fast[b], worst_cpu[b]);
    }
}

static const char* activation_name(Activation f) {
    switch (f) {
    case Activation::sigmoid: return "sigmoid (expf)";
    case Activation::sigmoid_fast: return "sigmoid (__expf)";
    case Activation::relu: return "relu";
    }
    return "?";
}

// Times each kernel alone: a warm-up launch, then `repeats` launches between
// two CUDA events.
static void bench(const char* device_name, const float* h_x, int n, int block_size) {
    const size_t bytes = (size_t)n * sizeof(float);
    float *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    const int repeats = 10;
    std::printf("\nbenchmark on %s, n = %d, %d threads per block\n"
                "kernel only: CUDA events around %d launches after a warm-up;\n"
                "the copies to and from the device are not included\n",
                device_name, n, block_size, repeats);
    std::printf("  %-18s %12s %16s\n", "kernel", "ms/launch", "G elements/s");
    for (Activation f : {Activation::sigmoid, Activation::sigmoid_fast, Activation::relu}) {
        launch_activation(f, d_x, d_y, n, block_size);  // warm-up
        CUDA_CHECK(cudaEventRecord(start));
        for (int r = 0; r < repeats; ++r) launch_activation(f, d_x, d_y, n, block_size);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        double per_launch = ms / repeats;
        std::printf("  %-18s %12.3f %16.3f\n", activation_name(f), per_launch,
                    n / (per_launch * 1e-3) / 1e9);
    }
    // The CPU running the same sigmoid(), for comparison: one core, a plain loop.
    std::vector<float> h_y((size_t)n);
    sigmoid_on_cpu(h_x, h_y.data(), n);  // warm-up
    double t0 = wall_time_ms();
    for (int r = 0; r < repeats; ++r) sigmoid_on_cpu(h_x, h_y.data(), n);
    double cpu_ms = (wall_time_ms() - t0) / repeats;
    std::printf("  %-18s %12.3f %16.3f   (host code, one CPU core)\n", "sigmoid on the CPU",
                cpu_ms, n / (cpu_ms * 1e-3) / 1e9);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
}

int main(int argc, char** argv) {
    long long n = 1000000, block_size = 256, range = 80, run_bench = 0;
    cli_option options[] = {
        {"--n", "number of elements", CLI_INT, &n, 1, 100000000},
        {"--block", "threads per block", CLI_INT, &block_size, 1, 1024},
        {"--range", "inputs are uniform in [-range, range)", CLI_INT, &range, 1, 80},
        {"--bench", "time the three kernels and the CPU loop", CLI_FLAG, &run_bench, 0, 1},
    };
    cli_parse(argc, argv,
              "Applies a __device__ sigmoid and ReLU to a vector; measures expf against __expf.",
              options, 4);
    // Seven host arrays (inputs, four outputs, two references), two on the device.
    run_limits_require_memory(7.0 * 4.0 * (double)n, 2.0 * 4.0 * (double)n);

    cudaDeviceProp prop = {};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);
    std::printf("n = %lld inputs, uniform in [-%lld, %lld), %lld threads per block\n", n, range,
                range, block_size);

    const size_t count = (size_t)n;
    std::vector<float> h_x(count), h_expf(count), h_fast(count), h_cpu(count), h_relu(count);
    std::vector<float> h_sigmoid_ref(count), h_relu_ref(count);
    fill_random(h_x.data(), count, 1, -(float)range, (float)range);
    cpu_sigmoid(h_x.data(), h_sigmoid_ref.data(), (int)n);  // double precision, rounded to float
    cpu_relu(h_x.data(), h_relu_ref.data(), (int)n);

    for (std::vector<float>* out : {&h_expf, &h_fast, &h_cpu, &h_relu})
        fill_poison(out->data(), count);  // NaN: an element no thread wrote cannot pass
    activation_on_gpu(Activation::sigmoid, h_x.data(), h_expf.data(), (int)n, (int)block_size);
    activation_on_gpu(Activation::sigmoid_fast, h_x.data(), h_fast.data(), (int)n,
                      (int)block_size);
    activation_on_gpu(Activation::relu, h_x.data(), h_relu.data(), (int)n, (int)block_size);
    sigmoid_on_cpu(h_x.data(), h_cpu.data(), (int)n);

    // Tolerances, relative because the sigmoid spans many orders of magnitude
    // (about 1e-35 at x = -80): an absolute one of 1e-6 would pass anything
    // below x = -14. expf is good to 2 ulp on the GPU; with the addition, the
    // division and the reference's own rounding, 5 FLT_EPSILON is a bound.
    // __expf is documented as good to 2 + 1.173 |x| ulp, so its bound grows
    // with the range of the inputs.
    const double rtol_expf = 5 * FLT_EPSILON;
    const double rtol_fast = (4 + 1.173 * range) * FLT_EPSILON;
    bool passed = true;
    std::printf("\nchecks against the double-precision sigmoid (rounded to float) and the CPU ReLU:\n");
    struct Check {
        const char* label;
        const std::vector<float>& got;
        const std::vector<float>& ref;
        double rtol;
    } checks[] = {
        {"kernel sigmoid, expf", h_expf, h_sigmoid_ref, rtol_expf},
        {"kernel sigmoid, __expf", h_fast, h_sigmoid_ref, rtol_fast},
        {"CPU sigmoid, same function", h_cpu, h_sigmoid_ref, rtol_expf},
        {"kernel relu", h_relu, h_relu_ref, 0.0},  // a comparison and a copy: exact
    };
    for (const Check& c : checks) {
        size_t bad = compare_floats(c.label, c.got.data(), c.ref.data(), count, 0.0, c.rtol, 3);
        std::printf("  %-28s rtol %-9.3g %s\n", c.label, c.rtol, bad == 0 ? "PASS" : "FAIL");
        passed &= bad == 0;
    }

    // The same source line, sigmoid(), ran on both sides. Same bits?
    size_t differ = 0;
    for (size_t i = 0; i < count; ++i) differ += h_expf[i] != h_cpu[i];
    std::printf("\nsigmoid() on the device and on the host differ in %zu of %zu elements\n",
                differ, count);

    accuracy_table(h_x, h_expf, h_fast, h_cpu, (double)range);

    if (run_bench) bench(prop.name, h_x.data(), (int)n, (int)block_size);

    std::printf("\n%s\n", passed ? "PASS" : "FAIL");
    return passed ? 0 : 1;
}
#endif
