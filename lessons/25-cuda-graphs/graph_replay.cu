// Lesson 25: CUDA graphs and launch overhead.
//
// Every kernel launch costs the host a call into the driver and the GPU a
// moment to start the kernel, a few microseconds each, whatever the kernel's
// size. A step made of many tiny kernels (a small network: a matrix-vector
// product and an activation per layer, then a parameter update per layer)
// can spend more time launching than computing. A CUDA graph records the
// step's work once, with its order, and launches all of it with one call:
//
//   capture:      cudaStreamBeginCapture, the step's usual calls on the
//                 stream (they are recorded, not run), cudaStreamEndCapture
//   instantiate:  cudaGraphInstantiate, once: the graph made ready to run
//   replay:       cudaGraphLaunch, once per step
//
// A graph keeps the pointers it was given, so new contents in the same
// buffers (the next input, parameters the step itself updated) need nothing;
// a value argument (the learning rate) is frozen into it, and changing it
// takes an update (cudaGraphExecUpdate). A graph can also be built by hand,
// node by node, with the dependencies that say what may run at once.
//
// Build and run:   ./tutorial run 25 [--width 128] [--layers 8] [--steps 40]
//                  ./tutorial run 25 --bench   (time per step for 2, 8 and 32 layers)
//                  ./tutorial check 25         (the exercise's test)
//                  ./tutorial solution 25      (the finished version)
// It prints the launches per step, the steps' results against the CPU with
// and without the graph, the time per step of each (on the emulator: its CPU
// time, not a GPU's), a hand-built graph's result, what a capture refuses,
// and PASS or FAIL.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "timer.h"
#include "cpu_reference_graphs.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

// ---- the kernels: tiny on purpose, one thread per element ----

static const float kLeak = 0.1f;  // the leaky ReLU's slope below zero
static const int kBlock = 64;

// One thread per row: y[row] = sum over k of W[row][k] * x[k].
__global__ void matvec_kernel(const float* w, const float* x, float* y, int width) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= width) return;
    float sum = 0.0f;
    for (int k = 0; k < width; ++k) sum += w[(size_t)row * width + k] * x[k];
    y[row] = sum;
}

__global__ void bias_leaky_relu_kernel(const float* pre, const float* bias, float* out, int width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= width) return;
    const float v = pre[i] + bias[i];
    out[i] = v > 0.0f ? v : kLeak * v;
}

// The step's update: every bias takes a small step against its layer's
// output. `rate` is passed by value: a graph keeps the value it recorded.
__global__ void nudge_bias_kernel(float* bias, const float* activation, float rate, int width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < width) bias[i] -= rate * activation[i];
}

// The diamond's join: y = scale * (a + b).
__global__ void sum_scale_kernel(const float* a, const float* b, float scale, float* y, int width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < width) y[i] = scale * (a[i] + b[i]);
}

// ---- the network on the device ----

struct DeviceNet {
    int width = 0, layers = 0;
    float* weights = nullptr;      // layers x width x width, row-major
    float* biases = nullptr;       // layers x width
    float* activations = nullptr;  // (layers + 1) x width: the input, then each layer's output
    float* pre = nullptr;          // width: W x before the bias and the activation
    float* host_input = nullptr;   // pinned: the host writes each step's input here
    float* host_output = nullptr;  // pinned: each step's output arrives here
};

DeviceNet make_device_net(const float* weights, const float* biases, int width, int layers) {
    DeviceNet net;
    net.width = width;
    net.layers = layers;
    const size_t w = (size_t)width;
    CUDA_CHECK(cudaMalloc(&net.weights, layers * w * w * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&net.biases, layers * w * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&net.activations, (layers + 1) * w * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&net.pre, w * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&net.host_input, w * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&net.host_output, w * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(net.weights, weights, layers * w * w * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(net.biases, biases, layers * w * sizeof(float), cudaMemcpyHostToDevice));
    std::fill(net.host_input, net.host_input + w, 0.0f);
    return net;
}

void free_device_net(DeviceNet& net) {
    CUDA_CHECK(cudaFree(net.weights));
    CUDA_CHECK(cudaFree(net.biases));
    CUDA_CHECK(cudaFree(net.activations));
    CUDA_CHECK(cudaFree(net.pre));
    CUDA_CHECK(cudaFreeHost(net.host_input));
    CUDA_CHECK(cudaFreeHost(net.host_output));
    net = DeviceNet{};
}

int kernels_per_step(int layers) { return 3 * layers; }

// ---- one step, the plain way: every piece queued on the stream ----

// Queues one step and returns; nothing waits. Reads the input from the
// pinned buffer and writes the output to the other one when it runs.
// [snippet: step]
void enqueue_step(const DeviceNet& net, float rate, cudaStream_t stream) {
    const int width = net.width, blocks = (width + kBlock - 1) / kBlock;
    const size_t bytes = (size_t)width * sizeof(float);
    CUDA_CHECK(cudaMemcpyAsync(net.activations, net.host_input, bytes, cudaMemcpyHostToDevice, stream));
    for (int l = 0; l < net.layers; ++l) {
        const float* x = net.activations + (size_t)l * width;
        float* next = net.activations + (size_t)(l + 1) * width;
        matvec_kernel<<<blocks, kBlock, 0, stream>>>(net.weights + (size_t)l * width * width, x,
                                                     net.pre, width);
        CUDA_CHECK(cudaGetLastError());
        bias_leaky_relu_kernel<<<blocks, kBlock, 0, stream>>>(net.pre, net.biases + (size_t)l * width,
                                                              next, width);
        CUDA_CHECK(cudaGetLastError());
    }
    for (int l = 0; l < net.layers; ++l) {
        nudge_bias_kernel<<<blocks, kBlock, 0, stream>>>(
            net.biases + (size_t)l * width, net.activations + (size_t)(l + 1) * width, rate, width);
        CUDA_CHECK(cudaGetLastError());
    }
    const float* last = net.activations + (size_t)net.layers * width;
    CUDA_CHECK(cudaMemcpyAsync(net.host_output, last, bytes, cudaMemcpyDeviceToHost, stream));
}
// [end snippet]

// ---- the same step as a graph: captured once, replayed every step ----

// Records one step into a new graph. Between the two capture calls the
// stream runs nothing: each call on it becomes a node of the graph.
// [snippet: capture]
cudaGraph_t capture_step(const DeviceNet& net, float rate, cudaStream_t stream) {
    cudaGraph_t graph = nullptr;
    // TODO(25.1): start capturing `stream` here (global capture mode), so
    // that the step below is recorded instead of run ...
    enqueue_step(net, rate, stream);
    // TODO(25.1): ... and end the capture here, into `graph`. As it is, the
    // step runs at once (on whatever input is there) and no graph is made.
    return graph;
}
// [end snippet]

struct StepGraph {
    cudaGraph_t graph = nullptr;     // the recording
    cudaGraphExec_t exec = nullptr;  // the recording made ready to launch
};

// [snippet: replay]
// Instantiating checks and prepares the whole graph: costly, done once.
cudaGraphExec_t instantiate_step(cudaGraph_t graph) {
    cudaGraphExec_t exec = nullptr;
    // TODO(25.2): instantiate `graph` into `exec` (no flags).
    (void)graph;
    return exec;
}

// One call queues the whole step.
void replay_step(const StepGraph& step, cudaStream_t stream) {
    // TODO(25.2): launch the executable graph step.exec on `stream`. As it
    // is, nothing runs and the step's output stays NaN.
    (void)step, (void)stream;
}
// [end snippet]

StepGraph make_step_graph(const DeviceNet& net, float rate, cudaStream_t stream) {
    StepGraph step;
    step.graph = capture_step(net, rate, stream);
    step.exec = instantiate_step(step.graph);
    return step;
}

// A handle never made (null) is skipped.
void destroy_step_graph(StepGraph& step) {
    if (step.exec) CUDA_CHECK(cudaGraphExecDestroy(step.exec));
    if (step.graph) CUDA_CHECK(cudaGraphDestroy(step.graph));
    step = StepGraph{};
}

// The rate is a value argument: the executable graph holds the value it was
// captured with. A new rate means a new capture, whose arguments
// cudaGraphExecUpdate copies into the executable graph, far cheaper than
// instantiating again. CUDA refuses the update when the new graph's shape
// differs (other kernels, other dependencies); then a new instantiation it is.
// [snippet: set-rate]
void set_step_rate(StepGraph& step, const DeviceNet& net, float rate, cudaStream_t stream) {
    cudaGraph_t fresh = capture_step(net, rate, stream);
    cudaGraphExecUpdateResultInfo info = {};
    if (cudaGraphExecUpdate(step.exec, fresh, &info) == cudaSuccess) {
        CUDA_CHECK(cudaGraphDestroy(step.graph));
        step.graph = fresh;
        return;
    }
    (void)cudaGetLastError();  // a refused update is not an error: clear it
    destroy_step_graph(step);
    step.graph = fresh;
    step.exec = instantiate_step(fresh);
}
// [end snippet]

// ---- running many steps, with or without the graph ----

struct StepTimes {
    double per_step_ms = 0.0;  // median of the steps: queue the work, wait for it
    double setup_ms = 0.0;     // the graph: capture + instantiate (once)
    double update_ms = 0.0;    // the graph: the last rate change (capture + update)
};

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// Step s reads inputs + s * width with learning rate rates[s] and writes
// outputs + s * width. The host fills the pinned input before each step and
// reads the output after it, the same buffers every time.
// [snippet: run-steps]
StepTimes run_steps(DeviceNet& net, const float* inputs, const float* rates, float* outputs,
                    int steps, bool use_graph, cudaStream_t stream) {
    const size_t width = (size_t)net.width;
    StepTimes times;
    std::vector<double> step_ms;
    StepGraph step;
    for (int s = 0; s < steps; ++s) {
        if (use_graph && s == 0) {
            const double start = wall_time_ms();
            step = make_step_graph(net, rates[0], stream);
            times.setup_ms = wall_time_ms() - start;
        } else if (use_graph && rates[s] != rates[s - 1]) {
            const double start = wall_time_ms();
            set_step_rate(step, net, rates[s], stream);
            times.update_ms = wall_time_ms() - start;
        }
        // The host writes the pinned buffers next: nothing queued may still use them.
        CUDA_CHECK(cudaStreamSynchronize(stream));
        std::copy(inputs + s * width, inputs + (s + 1) * width, net.host_input);
        fill_poison(net.host_output, width);  // a step that did not run shows NaN
        const double start = wall_time_ms();
        if (use_graph)
            replay_step(step, stream);
        else
            enqueue_step(net, rates[s], stream);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        step_ms.push_back(wall_time_ms() - start);
        std::copy(net.host_output, net.host_output + width, outputs + s * width);
    }
    destroy_step_graph(step);
    times.per_step_ms = median(step_ms);
    return times;
}
// [end snippet]

// The launcher the test calls. biases: in, the starting biases; out, the
// biases after the last step.
void run_steps_on_gpu(const float* weights, float* biases, int width, int layers,
                      const float* inputs, const float* rates, float* outputs, int steps,
                      bool use_graph) {
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    DeviceNet net = make_device_net(weights, biases, width, layers);
    run_steps(net, inputs, rates, outputs, steps, use_graph, stream);
    CUDA_CHECK(cudaMemcpy(biases, net.biases, (size_t)layers * width * sizeof(float),
                          cudaMemcpyDeviceToHost));
    free_device_net(net);
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// ---- a graph built by hand: a diamond ----

// copy x in -> { a = Wa x , b = Wb x } -> y = scale * (a + b) -> copy y out
// The two products depend only on the copy in, so a GPU may run them at the
// same time; the join waits for both. Run twice: with scale_first, then with
// scale_second set in the executable graph's join node.
// [snippet: diamond]
void diamond_on_gpu(const float* wa, const float* wb, const float* x, int width, float scale_first,
                    float scale_second, float* y_first, float* y_second) {
    const size_t bytes = (size_t)width * sizeof(float);
    float *d_wa, *d_wb, *d_x, *d_a, *d_b, *d_y, *h_x, *h_y;
    CUDA_CHECK(cudaMalloc(&d_wa, bytes * width));
    CUDA_CHECK(cudaMalloc(&d_wb, bytes * width));
    for (float** p : {&d_x, &d_a, &d_b, &d_y}) CUDA_CHECK(cudaMalloc(p, bytes));
    CUDA_CHECK(cudaMallocHost(&h_x, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    CUDA_CHECK(cudaMemcpy(d_wa, wa, bytes * width, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_wb, wb, bytes * width, cudaMemcpyHostToDevice));
    std::copy(x, x + width, h_x);

    cudaGraph_t dag;
    CUDA_CHECK(cudaGraphCreate(&dag, 0));
    cudaGraphNode_t copy_in, product_a, product_b, join, copy_out;
    CUDA_CHECK(cudaGraphAddMemcpyNode1D(&copy_in, dag, nullptr, 0, d_x, h_x, bytes,
                                        cudaMemcpyHostToDevice));

    // A kernel node names the kernel, its launch shape, and a pointer to
    // each argument; the values are copied into the node when it is added.
    cudaKernelNodeParams kernel = {};
    kernel.gridDim = dim3((width + kBlock - 1) / kBlock);
    kernel.blockDim = dim3(kBlock);
    kernel.func = (void*)matvec_kernel;
    void* args_a[] = {&d_wa, &d_x, &d_a, &width};
    kernel.kernelParams = args_a;
    CUDA_CHECK(cudaGraphAddKernelNode(&product_a, dag, &copy_in, 1, &kernel));
    void* args_b[] = {&d_wb, &d_x, &d_b, &width};
    kernel.kernelParams = args_b;
    CUDA_CHECK(cudaGraphAddKernelNode(&product_b, dag, &copy_in, 1, &kernel));

    const cudaGraphNode_t both[] = {product_a, product_b};
    float scale = scale_first;
    void* args_join[] = {&d_a, &d_b, &scale, &d_y, &width};
    kernel.func = (void*)sum_scale_kernel;
    kernel.kernelParams = args_join;
    CUDA_CHECK(cudaGraphAddKernelNode(&join, dag, both, 2, &kernel));
    CUDA_CHECK(cudaGraphAddMemcpyNode1D(&copy_out, dag, &join, 1, h_y, d_y, bytes,
                                        cudaMemcpyDeviceToHost));

    cudaGraphExec_t dag_exec;
    CUDA_CHECK(cudaGraphInstantiate(&dag_exec, dag, 0));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaGraphLaunch(dag_exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::copy(h_y, h_y + width, y_first);

    // A new value for the join's scale, in the executable graph only: the
    // node's arguments are read again from args_join.
    scale = scale_second;
    CUDA_CHECK(cudaGraphExecKernelNodeSetParams(dag_exec, join, &kernel));
    CUDA_CHECK(cudaGraphLaunch(dag_exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::copy(h_y, h_y + width, y_second);
    // [end snippet]

    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaGraphExecDestroy(dag_exec));
    CUDA_CHECK(cudaGraphDestroy(dag));
    for (float* p : {d_wa, d_wb, d_x, d_a, d_b, d_y}) CUDA_CHECK(cudaFree(p));
    CUDA_CHECK(cudaFreeHost(h_x));
    CUDA_CHECK(cudaFreeHost(h_y));
}

// ---- main: count, check, time, build by hand, and what a capture refuses ----
#ifndef TUTORIAL_TEST_BUILD

struct Problem {
    int width = 0, layers = 0, steps = 0;
    std::vector<float> weights, biases, inputs, rates;
};

// Weights spread about 1/sqrt(width), so that the activations keep their size
// from layer to layer; a learning rate that halves halfway through.
static Problem make_problem(int width, int layers, int steps, uint64_t seed) {
    Problem p;
    p.width = width;
    p.layers = layers;
    p.steps = steps;
    const float spread = std::sqrt(3.0f / (float)width);
    p.weights.resize((size_t)layers * width * width);
    p.biases.resize((size_t)layers * width);
    p.inputs.resize((size_t)steps * width);
    fill_random(p.weights.data(), p.weights.size(), seed, -spread, spread);
    fill_random(p.biases.data(), p.biases.size(), seed + 1, -0.1f, 0.1f);
    fill_random(p.inputs.data(), p.inputs.size(), seed + 2, -1.0f, 1.0f);
    for (int s = 0; s < steps; ++s) p.rates.push_back(s < (steps + 1) / 2 ? 0.02f : 0.01f);
    return p;
}

// Every step's output and the final biases against the CPU; PASS or FAIL.
static bool check_steps(const char* label, const Problem& p, const float* outputs,
                        const float* biases) {
    std::vector<float> ref_out((size_t)p.steps * p.width), ref_bias = p.biases;
    for (int s = 0; s < p.steps; ++s)
        cpu_graph_step(p.weights.data(), ref_bias.data(), p.width, p.layers, p.rates[s],
                       &p.inputs[(size_t)s * p.width], &ref_out[(size_t)s * p.width]);
    // The same sums in the same order on both sides; on a GPU a fused
    // multiply-add rounds once less per product, a few roundings per layer.
    const double atol = 1e-4, rtol = 1e-4;
    size_t bad = compare_floats(label, outputs, ref_out.data(), ref_out.size(), atol, rtol, 5);
    bad += compare_floats("final biases", biases, ref_bias.data(), ref_bias.size(), atol, rtol, 5);
    std::printf("  %s, %d steps: %s\n", label, p.steps, bad == 0 ? "PASS" : "FAIL");
    return bad == 0;
}

// Runs the problem's steps on a fresh copy of the network; times them.
static StepTimes steps_on_device(const Problem& p, bool use_graph, cudaStream_t stream,
                                 std::vector<float>* outputs, std::vector<float>* biases) {
    DeviceNet net = make_device_net(p.weights.data(), p.biases.data(), p.width, p.layers);
    outputs->assign((size_t)p.steps * p.width, 0.0f);
    const StepTimes t = run_steps(net, p.inputs.data(), p.rates.data(), outputs->data(), p.steps,
                                  use_graph, stream);
    biases->resize(p.biases.size());
    CUDA_CHECK(cudaMemcpy(biases->data(), net.biases, biases->size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    free_device_net(net);
    return t;
}

static const char* kTimeLabel =
#ifdef CUEMU
    "CPU time on the emulator: its own cost per launch, not a GPU's";
#else
    "wall-clock time on the host, the GPU's work included";
#endif

// What a capture refuses: a call that would make the host wait, or change
// the device's memory, while the stream's work is only being recorded.
// [snippet: refused]
static void show_refused_malloc(cudaStream_t capturing) {
    CUDA_CHECK(cudaStreamBeginCapture(capturing, cudaStreamCaptureModeGlobal));
    float* scratch = nullptr;
    const cudaError_t malloc_result = cudaMalloc(&scratch, 1024);
    cudaGraph_t graph = nullptr;
    const cudaError_t end_result = cudaStreamEndCapture(capturing, &graph);
    (void)cudaGetLastError();  // both errors were expected: clear them
    std::printf("  cudaMalloc during the capture:   %s\n", cudaGetErrorName(malloc_result));
    std::printf("  then cudaStreamEndCapture:       %s, %s\n", cudaGetErrorName(end_result),
                graph ? "a graph" : "no graph");
    if (scratch) CUDA_CHECK(cudaFree(scratch));
    if (graph) CUDA_CHECK(cudaGraphDestroy(graph));
}
// [end snippet]

int main(int argc, char** argv) {
    long long width = 128, layers = 8, steps = 40, seed = 1, bench = 0;
    cli_option options[] = {
        {"--width", "units per layer", CLI_INT, &width, 1, 2048},
        {"--layers", "layers of the network", CLI_INT, &layers, 1, 64},
        {"--steps", "steps run each way (plain launches, graph replays)", CLI_INT, &steps, 2, 10000},
        {"--seed", "seed of the weights and inputs", CLI_INT, &seed, 0, 1000000000},
        {"--bench", "time per step for 2, 8 and 32 layers, with and without the graph",
         CLI_FLAG, &bench, 0, 1},
    };
    cli_parse(argc, argv,
              "A step of many tiny kernels, launched one by one and replayed as a CUDA graph;\n"
              "a graph built by hand; what a capture refuses.",
              options, 5);
    {
        // Memory: weights and biases, the inputs and two sets of outputs
        // on the host; the network on the device. Time: every launch costs
        // the emulator about 0.1 ms, and each product width x width
        // multiply-adds at about 50 million a second (measured for this
        // program on the 2-core machine); --bench runs three more sizes.
        const double w = (double)width, params = layers * (w * w + w);
        run_limits_require_memory(4.0 * (3.0 * params + 4.0 * steps * w),
                                  4.0 * (params + (layers + 3.0) * w));
        const double launches = 2.0 * steps * (3.0 * layers + 2.0);
        const double work = launches * 1e-4 + 2.0 * steps * layers * w * w / 5e7 +
                            (bench ? 2.0 * steps * 42.0 * (3.0 * 1e-4 + w * w / 5e7) : 0.0);
        run_limits_check_duration(work, 1.0, 0.05, "--steps, --layers or --width");
    }
    const Problem p = make_problem((int)width, (int)layers, (int)steps, (uint64_t)seed);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const int kernels = kernels_per_step(p.layers);
    std::printf("1. one step of a %d-layer network, %d units wide:\n"
                "   1 copy in, %d x (matrix-vector product, bias + leaky ReLU), %d x bias update,"
                " 1 copy out\n"
                "   = %d kernel launches + 2 copies: %d calls on the host per step,"
                " 1 cudaGraphLaunch as a graph\n",
                p.layers, p.width, p.layers, p.layers, kernels, kernels + 2);

    std::printf("\n2. %d steps, each on a new input; learning rate %.2f, then %.2f from step %d\n",
                p.steps, p.rates.front(), p.rates.back(), (p.steps + 1) / 2 + 1);
    std::vector<float> plain_out, plain_bias, graph_out, graph_bias;
    const StepTimes plain = steps_on_device(p, false, stream, &plain_out, &plain_bias);
    const StepTimes graph = steps_on_device(p, true, stream, &graph_out, &graph_bias);
    bool passed = check_steps("plain launches", p, plain_out.data(), plain_bias.data());
    passed = check_steps("graph replays", p, graph_out.data(), graph_bias.data()) && passed;

    std::printf("\n3. time per step, median of %d (%s)\n", p.steps, kTimeLabel);
    std::printf("   plain launches: %8.3f ms\n", plain.per_step_ms);
    std::printf("   graph replay:   %8.3f ms  (%.2f times the speed of plain launches)\n",
                graph.per_step_ms, graph.per_step_ms > 0 ? plain.per_step_ms / graph.per_step_ms : 0.0);
    std::printf("   once: capture + instantiate %.3f ms; the rate change (capture + update) %.3f ms\n",
                graph.setup_ms, graph.update_ms);

    std::printf("\n4. a diamond built by hand: copy in, two products side by side, their sum, copy out\n");
    {
        const int w = p.width;
        std::vector<float> wa((size_t)w * w), wb((size_t)w * w), x((size_t)w);
        fill_random(wa.data(), wa.size(), seed + 3, -1.0f, 1.0f);
        fill_random(wb.data(), wb.size(), seed + 4, -1.0f, 1.0f);
        fill_random(x.data(), x.size(), seed + 5, -1.0f, 1.0f);
        std::vector<float> got_first((size_t)w), got_second((size_t)w), ref((size_t)w);
        fill_poison(got_first.data(), got_first.size());
        fill_poison(got_second.data(), got_second.size());
        diamond_on_gpu(wa.data(), wb.data(), x.data(), w, 1.0f, 0.5f, got_first.data(),
                       got_second.data());
        bool ok = true;
        for (float scale : {1.0f, 0.5f}) {
            cpu_graph_diamond(wa.data(), wb.data(), x.data(), w, scale, ref.data());
            const float* got = scale == 1.0f ? got_first.data() : got_second.data();
            ok = compare_floats("y", got, ref.data(), (size_t)w, 1e-4, 1e-4, 5) == 0 && ok;
        }
        std::printf("   scale 1, then 0.5 set in the executable graph: %s\n", ok ? "PASS" : "FAIL");
        passed = passed && ok;
    }

    std::printf("\n5. what a capture refuses\n");
    show_refused_malloc(stream);

    if (bench) {
        std::printf("\ntime per step, %d units wide, median of %d (%s)\n", p.width, p.steps,
                    kTimeLabel);
        std::printf("  %6s %9s %12s %12s %9s\n", "layers", "launches", "plain", "graph", "ratio");
        for (int l : {2, 8, 32}) {
            const Problem q = make_problem(p.width, l, p.steps, (uint64_t)seed);
            std::vector<float> out, bias;
            const StepTimes a = steps_on_device(q, false, stream, &out, &bias);
            const StepTimes b = steps_on_device(q, true, stream, &out, &bias);
            std::printf("  %6d %9d %9.3f ms %9.3f ms %8.2fx\n", l, kernels_per_step(l) + 2,
                        a.per_step_ms, b.per_step_ms, b.per_step_ms > 0 ? a.per_step_ms / b.per_step_ms : 0.0);
        }
    }
    CUDA_CHECK(cudaStreamDestroy(stream));
    std::printf("\n%s\n", passed ? "PASS" : "FAIL");
    return passed ? 0 : 1;
}
#endif  // TUTORIAL_TEST_BUILD
