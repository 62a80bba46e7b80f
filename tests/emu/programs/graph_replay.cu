// graph_replay.cu - many small launches, captured once into a CUDA graph and
// replayed: heat spreading along a rod, three tiny kernels per time step.
// The graph's result must equal the same launches made one by one, and both
// must match the CPU.
//
//   ./graph_replay [n] [steps]
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_OK(call)                                                              \
    do {                                                                           \
        cudaError_t err_ = (call);                                                 \
        if (err_ != cudaSuccess) {                                                 \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,   \
                    cudaGetErrorString(err_));                                     \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

const float kDiffusion = 0.2f;
const float kHeat = 1.0f;
const int kStepsPerGraph = 10;

__global__ void diffuse(const float* in, float* out, int n, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float left = in[i > 0 ? i - 1 : i];
    float right = in[i < n - 1 ? i + 1 : i];
    out[i] = in[i] + k * (left - 2.0f * in[i] + right);
}

__global__ void heat_middle(float* t, int n, float amount) {
    if (blockIdx.x == 0 && threadIdx.x == 0) t[n / 2] += amount;
}

// One time step: three launches.
void step(float* a, float* b, int n, cudaStream_t s) {
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    diffuse<<<blocks, threads, 0, s>>>(a, b, n, kDiffusion);
    diffuse<<<blocks, threads, 0, s>>>(b, a, n, kDiffusion);
    heat_middle<<<1, 32, 0, s>>>(a, n, kHeat);
}

void cpu_step(std::vector<float>& a, std::vector<float>& b) {
    int n = (int)a.size();
    for (int pass = 0; pass < 2; ++pass) {
        const std::vector<float>& in = pass == 0 ? a : b;
        std::vector<float>& out = pass == 0 ? b : a;
        for (int i = 0; i < n; ++i) {
            float left = in[i > 0 ? i - 1 : i];
            float right = in[i < n - 1 ? i + 1 : i];
            out[i] = in[i] + kDiffusion * (left - 2.0f * in[i] + right);
        }
    }
    a[n / 2] += kHeat;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100003;
    int steps = argc > 2 ? atoi(argv[2]) : 200;
    steps -= steps % kStepsPerGraph;
    size_t bytes = n * sizeof(float);

    std::vector<float> start(n);
    srand(2024);
    for (int i = 0; i < n; ++i) start[i] = (float)(rand() % 1000) / 1000.0f;

    float *d_a, *d_b, *g_a, *g_b;
    CUDA_OK(cudaMalloc(&d_a, bytes));
    CUDA_OK(cudaMalloc(&d_b, bytes));
    CUDA_OK(cudaMalloc(&g_a, bytes));
    CUDA_OK(cudaMalloc(&g_b, bytes));
    CUDA_OK(cudaMemcpy(d_a, start.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(g_a, start.data(), bytes, cudaMemcpyHostToDevice));

    cudaStream_t stream;
    CUDA_OK(cudaStreamCreate(&stream));

    // One launch at a time.
    for (int s = 0; s < steps; ++s) step(d_a, d_b, n, stream);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(stream));

    // The same launches, captured once for kStepsPerGraph steps.
    cudaGraph_t graph;
    cudaGraphExec_t graph_exec;
    CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    for (int s = 0; s < kStepsPerGraph; ++s) step(g_a, g_b, n, stream);
    CUDA_OK(cudaStreamEndCapture(stream, &graph));
    size_t nodes = 0;
    CUDA_OK(cudaGraphGetNodes(graph, NULL, &nodes));
    CUDA_OK(cudaGraphInstantiate(&graph_exec, graph, 0));
    for (int s = 0; s < steps; s += kStepsPerGraph) CUDA_OK(cudaGraphLaunch(graph_exec, stream));
    CUDA_OK(cudaStreamSynchronize(stream));

    std::vector<float> direct(n), replayed(n);
    CUDA_OK(cudaMemcpy(direct.data(), d_a, bytes, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(replayed.data(), g_a, bytes, cudaMemcpyDeviceToHost));

    std::vector<float> a = start, b(n);
    for (int s = 0; s < steps; ++s) cpu_step(a, b);

    int mismatches = 0;
    double max_diff = 0.0;
    for (int i = 0; i < n; ++i) {
        if (direct[i] != replayed[i]) ++mismatches;
        double diff = fabs((double)replayed[i] - (double)a[i]);
        if (diff > max_diff) max_diff = diff;
    }
    bool ok = mismatches == 0 && max_diff < 1e-3 && nodes == (size_t)(3 * kStepsPerGraph);

    CUDA_OK(cudaGraphExecDestroy(graph_exec));
    CUDA_OK(cudaGraphDestroy(graph));
    CUDA_OK(cudaStreamDestroy(stream));
    CUDA_OK(cudaFree(d_a));
    CUDA_OK(cudaFree(d_b));
    CUDA_OK(cudaFree(g_a));
    CUDA_OK(cudaFree(g_b));

    printf("graph_replay n=%d steps=%d nodes=%zu graph_vs_direct_mismatches=%d max_diff=%.2e %s\n",
           n, steps, nodes, mismatches, max_diff, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
