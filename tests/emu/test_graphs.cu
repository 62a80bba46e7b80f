// test_graphs.cu - CUDA graphs (common/emu/README.md, "CUDA graphs"): stream
// capture replayed equals the work run directly, fork and join of streams
// through events, graphs built by hand run in dependency order, parameters
// of an executable graph changed and updated, and the errors CUDA gives for
// calls a capture forbids and for graphs used after they were destroyed.
// Genuine CUDA: nvcc compiles this file too (emu_tests_nvcc_compile_check).
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "graph_test_support.h"

// ---- kernels ---------------------------------------------------------------------
__global__ void affine(float* x, float scale, float add, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * scale + add;
}

__global__ void add_into(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

__global__ void fill_value(int* p, int value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = value;
}

template <int Add>
__global__ void add_constant(int* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += Add;
}

namespace {

constexpr int n = 1000;
constexpr int threads = 128;
constexpr int blocks = (n + threads - 1) / threads;

struct device_floats {
    float* p = nullptr;
    explicit device_floats(int count) { REQUIRE(cudaMalloc(&p, count * sizeof(float)) == cudaSuccess); }
    ~device_floats() { cudaFree(p); }
};

std::vector<float> ramp() {
    std::vector<float> v(n);
    for (int i = 0; i < n; ++i) v[i] = 0.5f + 0.25f * float(i % 17);
    return v;
}

std::vector<float> read_back(const float* d) {
    std::vector<float> v(n);
    REQUIRE(cudaMemcpy(v.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    return v;
}

void CUDART_CB count_call(void* data) { ++*static_cast<int*>(data); }

size_t node_count(cudaGraph_t graph) {
    size_t count = 0;
    REQUIRE(cudaGraphGetNodes(graph, nullptr, &count) == cudaSuccess);
    return count;
}

}  // namespace

// ---- stream capture ----------------------------------------------------------------
TEST_CASE("a captured chain of kernels and copies, replayed, equals the chain run directly") {
    const int rounds = 5;
    const std::vector<float> start = ramp();
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    device_floats direct(n), replayed(n), scratch(n);
    float* pinned = nullptr;
    REQUIRE(cudaMallocHost(&pinned, n * sizeof(float)) == cudaSuccess);
    int host_calls = 0;

    // Directly: each round scales, copies to scratch, and adds scratch back.
    REQUIRE(cudaMemcpy(direct.p, start.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    for (int r = 0; r < rounds; ++r) {
        affine<<<blocks, threads, 0, stream>>>(direct.p, 1.5f, -0.25f, n);
        cudaMemcpyAsync(scratch.p, direct.p, n * sizeof(float), cudaMemcpyDeviceToDevice, stream);
        add_into<<<blocks, threads, 0, stream>>>(direct.p, scratch.p, direct.p, n);
    }
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    const std::vector<float> expected = read_back(direct.p);

    // Captured once: nothing runs while the stream captures.
    REQUIRE(cudaMemcpy(replayed.p, start.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    cudaGraph_t graph;
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    affine<<<blocks, threads, 0, stream>>>(replayed.p, 1.5f, -0.25f, n);
    CHECK(cudaMemcpyAsync(scratch.p, replayed.p, n * sizeof(float), cudaMemcpyDeviceToDevice, stream) ==
          cudaSuccess);
    add_into<<<blocks, threads, 0, stream>>>(replayed.p, scratch.p, replayed.p, n);
    CHECK(cudaMemcpyAsync(pinned, replayed.p, n * sizeof(float), cudaMemcpyDeviceToHost, stream) ==
          cudaSuccess);
    CHECK(cudaLaunchHostFunc(stream, count_call, &host_calls) == cudaSuccess);
    CHECK(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
    REQUIRE(graph != nullptr);
    CHECK(node_count(graph) == 5);
    CHECK(read_back(replayed.p) == start);
    CHECK(host_calls == 0);

    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    for (int r = 0; r < rounds; ++r) REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    CHECK(read_back(replayed.p) == expected);
    CHECK(std::vector<float>(pinned, pinned + n) == expected);  // the last replay's copy
    CHECK(host_calls == rounds);

    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
    cudaFreeHost(pinned);
    cudaStreamDestroy(stream);
}

TEST_CASE("capture forks into a second stream and joins it back through events") {
    cudaStream_t main_stream, side;
    REQUIRE(cudaStreamCreate(&main_stream) == cudaSuccess);
    REQUIRE(cudaStreamCreate(&side) == cudaSuccess);
    cudaEvent_t forked, joined;
    REQUIRE(cudaEventCreate(&forked) == cudaSuccess);
    REQUIRE(cudaEventCreate(&joined) == cudaSuccess);
    device_floats a(n), b(n), sum(n);
    const std::vector<float> start = ramp();
    REQUIRE(cudaMemcpy(a.p, start.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(b.p, start.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);

    cudaGraph_t graph;
    REQUIRE(cudaStreamBeginCapture(main_stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    REQUIRE(cudaEventRecord(forked, main_stream) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(side, forked, 0) == cudaSuccess);  // side joins the capture
    cudaStreamCaptureStatus status;
    REQUIRE(cudaStreamIsCapturing(side, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusActive);
    affine<<<blocks, threads, 0, main_stream>>>(a.p, 2.0f, 1.0f, n);
    affine<<<blocks, threads, 0, side>>>(b.p, 3.0f, -1.0f, n);
    REQUIRE(cudaEventRecord(joined, side) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(main_stream, joined, 0) == cudaSuccess);
    add_into<<<blocks, threads, 0, main_stream>>>(a.p, b.p, sum.p, n);
    REQUIRE(cudaStreamEndCapture(main_stream, &graph) == cudaSuccess);
    REQUIRE(cudaStreamIsCapturing(side, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusNone);  // the capture ended for both

    // Two independent roots, and the sum after both.
    CHECK(node_count(graph) == 3);
    size_t roots = 0;
    REQUIRE(cudaGraphGetRootNodes(graph, nullptr, &roots) == cudaSuccess);
    CHECK(roots == 2);

    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, main_stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(main_stream) == cudaSuccess);
    const std::vector<float> got = read_back(sum.p);
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        if (got[i] != (start[i] * 2.0f + 1.0f) + (start[i] * 3.0f - 1.0f)) ++wrong;
    CHECK(wrong == 0);

    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaEventDestroy(forked);
    cudaEventDestroy(joined);
    cudaStreamDestroy(side);
    cudaStreamDestroy(main_stream);
}

// A capture on `origin` forked into `side`, which then launched a kernel
// and was never joined back.
namespace {  // its member device_floats is of this file alone
struct unjoined_fork {
    cudaStream_t origin, side;
    cudaEvent_t forked;
    device_floats a{n};
    unjoined_fork() {
        REQUIRE(cudaStreamCreate(&origin) == cudaSuccess);
        REQUIRE(cudaStreamCreate(&side) == cudaSuccess);
        REQUIRE(cudaEventCreate(&forked) == cudaSuccess);
        REQUIRE(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal) == cudaSuccess);
        REQUIRE(cudaEventRecord(forked, origin) == cudaSuccess);
        REQUIRE(cudaStreamWaitEvent(side, forked, 0) == cudaSuccess);
        affine<<<blocks, threads, 0, side>>>(a.p, 2.0f, 1.0f, n);
    }
    ~unjoined_fork() {
        cudaGetLastError();
        cudaEventDestroy(forked);
        cudaStreamDestroy(side);
        cudaStreamDestroy(origin);
    }
};
}  // namespace

TEST_CASE("a capture ends only on the stream that began it: cudaErrorStreamCaptureUnmatched") {
    unjoined_fork fork;
    cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(0x1);
    CHECK(cudaStreamEndCapture(fork.side, &graph) == cudaErrorStreamCaptureUnmatched);
    CHECK(cudaStreamEndCapture(fork.origin, &graph) != cudaSuccess);
    CHECK(graph == nullptr);
    cudaStreamCaptureStatus status;
    REQUIRE(cudaStreamIsCapturing(fork.side, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusNone);
}

TEST_CASE("unjoined work: cudaErrorStreamCaptureUnjoined and no graph") {
    unjoined_fork fork;
    cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(0x1);
    CHECK(cudaStreamEndCapture(fork.origin, &graph) == cudaErrorStreamCaptureUnjoined);
    CHECK(graph == nullptr);
}

TEST_CASE("cudaStreamGetCaptureInfo: the sequence, its graph and the next node's dependencies") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    device_floats a(n);
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    affine<<<blocks, threads, 0, stream>>>(a.p, 2.0f, 1.0f, n);
    cudaStreamCaptureStatus status;
    unsigned long long id = 0;
    cudaGraph_t capturing = nullptr;
    const cudaGraphNode_t* deps = nullptr;
    size_t count = 0;
    REQUIRE(cudaStreamGetCaptureInfo(stream, &status, &id, &capturing, &deps, nullptr, &count) ==
            cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusActive);
    CHECK(id != 0);
    REQUIRE(count == 1);
    cudaGraphNodeType type;
    REQUIRE(cudaGraphNodeGetType(deps[0], &type) == cudaSuccess);
    CHECK(type == cudaGraphNodeTypeKernel);
    cudaGraph_t graph;
    REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
    CHECK(graph == capturing);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
}

TEST_CASE("a graph launched into a capturing stream is refused; a child graph node takes it into the capture") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    device_floats a(n);
    const std::vector<float> start = ramp();
    REQUIRE(cudaMemcpy(a.p, start.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    cudaGraph_t inner, outer;
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    affine<<<blocks, threads, 0, stream>>>(a.p, 2.0f, 0.0f, n);
    REQUIRE(cudaStreamEndCapture(stream, &inner) == cudaSuccess);
    cudaGraphExec_t inner_exec, outer_exec;
    REQUIRE(cudaGraphInstantiate(&inner_exec, inner, 0) == cudaSuccess);
    cudaStream_t other;  // the last launch of inner_exec is on another stream
    REQUIRE(cudaStreamCreate(&other) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(inner_exec, other) == cudaSuccess);  // x2
    REQUIRE(cudaStreamSynchronize(other) == cudaSuccess);

    // cudaGraphLaunch into a capture: refused, and the capture invalidated
    // (measured on an H200, CUDA 13.0: cudaErrorStreamCaptureUnsupported).
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(cudaGraphLaunch(inner_exec, stream) == cudaErrorStreamCaptureUnsupported);
    cudaStreamCaptureStatus status;
    REQUIRE(cudaStreamIsCapturing(stream, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusInvalidated);
    outer = reinterpret_cast<cudaGraph_t>(0x1);
    CHECK(cudaStreamEndCapture(stream, &outer) == cudaErrorStreamCaptureInvalidated);
    CHECK(outer == nullptr);
    cudaGetLastError();

    // The graph goes into the capture as a child graph node after the
    // capture's last work, and the stream's next work comes after it.
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    cudaGraph_t capturing = nullptr;
    const cudaGraphNode_t* deps = nullptr;
    size_t count = 0;
    REQUIRE(cudaStreamGetCaptureInfo(stream, &status, nullptr, &capturing, &deps, nullptr, &count) ==
            cudaSuccess);
    cudaGraphNode_t child;
    REQUIRE(cudaGraphAddChildGraphNode(&child, capturing, deps, count, inner) == cudaSuccess);
    REQUIRE(cudaStreamUpdateCaptureDependencies(stream, &child, nullptr, 1, cudaStreamSetCaptureDependencies) ==
            cudaSuccess);
    affine<<<blocks, threads, 0, stream>>>(a.p, 1.0f, 3.0f, n);
    REQUIRE(cudaStreamEndCapture(stream, &outer) == cudaSuccess);
    CHECK(node_count(outer) == 2);
    REQUIRE(cudaGraphInstantiate(&outer_exec, outer, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(outer_exec, stream) == cudaSuccess);  // x2 + 3
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    const std::vector<float> got = read_back(a.p);
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        if (got[i] != start[i] * 4.0f + 3.0f) ++wrong;
    CHECK(wrong == 0);
    cudaGraphExecDestroy(outer_exec);
    cudaGraphExecDestroy(inner_exec);
    cudaGraphDestroy(outer);
    cudaGraphDestroy(inner);
    cudaStreamDestroy(other);
    cudaStreamDestroy(stream);
}

// ---- graphs made by hand -------------------------------------------------------------
TEST_CASE("a diamond of host nodes runs each node after the nodes it depends on") {
    order_log log;
    host_step a{&log, 'A'}, b{&log, 'B'}, c{&log, 'C'}, d{&log, 'D'};
    cudaGraph_t graph;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    cudaGraphNode_t na, nb, nc, nd;
    // Added in an order that is not a valid order to run them in.
    cudaHostNodeParams pd{note_step, &d};
    REQUIRE(cudaGraphAddHostNode(&nd, graph, nullptr, 0, &pd) == cudaSuccess);
    cudaHostNodeParams pb{note_step, &b}, pc{note_step, &c}, pa{note_step, &a};
    REQUIRE(cudaGraphAddHostNode(&nb, graph, nullptr, 0, &pb) == cudaSuccess);
    REQUIRE(cudaGraphAddHostNode(&nc, graph, nullptr, 0, &pc) == cudaSuccess);
    REQUIRE(cudaGraphAddHostNode(&na, graph, nullptr, 0, &pa) == cudaSuccess);
    const cudaGraphNode_t from[] = {na, na, nb, nc};
    const cudaGraphNode_t to[] = {nb, nc, nd, nd};
    REQUIRE(cudaGraphAddDependencies(graph, from, to, nullptr, 4) == cudaSuccess);
    // An edge that closes a cycle is taken, and the graph is not instantiated
    // until it is removed (measured on an H200, CUDA 13.0); a repeated edge
    // is refused.
    CHECK(cudaGraphAddDependencies(graph, &nd, &na, nullptr, 1) == cudaSuccess);
    CHECK(cudaGraphAddDependencies(graph, &na, &nb, nullptr, 1) == cudaErrorInvalidValue);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaErrorInvalidValue);
    cudaGetLastError();
    REQUIRE(cudaGraphRemoveDependencies(graph, &nd, &na, nullptr, 1) == cudaSuccess);

    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    REQUIRE(log.ran.size() == 8);
    for (int launch = 0; launch < 2; ++launch) {
        const std::string run = log.ran.substr(launch * 4, 4);
        INFO(run);
        CHECK(run.front() == 'A');
        CHECK(run.back() == 'D');
        CHECK((run.substr(1, 2) == "BC" || run.substr(1, 2) == "CB"));
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
}

TEST_CASE("kernel, memset and memcpy nodes made by hand") {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, n * sizeof(int)) == cudaSuccess);
    int* host = nullptr;  // pinned: a memcpy node's host memory
    REQUIRE(cudaMallocHost(&host, n * sizeof(int)) == cudaSuccess);
    std::fill(host, host + n, -1);
    cudaGraph_t graph;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);

    cudaMemsetParams memset_params = {};
    memset_params.dst = d;
    memset_params.value = 5;
    memset_params.elementSize = sizeof(int);
    memset_params.width = n;
    memset_params.height = 1;
    cudaGraphNode_t set_node, kernel_node, copy_node, empty_node;
    REQUIRE(cudaGraphAddMemsetNode(&set_node, graph, nullptr, 0, &memset_params) == cudaSuccess);

    int count = n / 2;  // the kernel overwrites the first half
    int value = 7;
    int* target = d;
    void* args[] = {&target, &value, &count};
    cudaKernelNodeParams kernel_params = {};
    kernel_params.func = (void*)fill_value;
    kernel_params.gridDim = dim3(blocks);
    kernel_params.blockDim = dim3(threads);
    kernel_params.kernelParams = args;
    REQUIRE(cudaGraphAddKernelNode(&kernel_node, graph, &set_node, 1, &kernel_params) == cudaSuccess);
    value = 100;  // the arguments were copied when the node was added
    REQUIRE(cudaGraphAddEmptyNode(&empty_node, graph, &kernel_node, 1) == cudaSuccess);
    REQUIRE(cudaGraphAddMemcpyNode1D(&copy_node, graph, &empty_node, 1, host, d,
                                     n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    cudaGraphNodeType type;
    REQUIRE(cudaGraphNodeGetType(copy_node, &type) == cudaSuccess);
    CHECK(type == cudaGraphNodeTypeMemcpy);
    REQUIRE(cudaGraphNodeGetType(set_node, &type) == cudaSuccess);
    CHECK(type == cudaGraphNodeTypeMemset);
    REQUIRE(cudaGraphNodeGetType(empty_node, &type) == cudaSuccess);
    CHECK(type == cudaGraphNodeTypeEmpty);
    cudaKernelNodeParams read_params;
    REQUIRE(cudaGraphKernelNodeGetParams(kernel_node, &read_params) == cudaSuccess);
    CHECK(read_params.func == (void*)fill_value);
    CHECK(read_params.blockDim.x == unsigned(threads));

    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiateWithFlags(&exec, graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        if (host[i] != (i < count ? 7 : 5)) ++wrong;
    CHECK(wrong == 0);

    // A clone runs the same work.
    cudaGraph_t clone;
    REQUIRE(cudaGraphClone(&clone, graph) == cudaSuccess);
    CHECK(node_count(clone) == 4);
    std::fill(host, host + n, -1);
    cudaGraphExec_t clone_exec;
    REQUIRE(cudaGraphInstantiate(&clone_exec, clone, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(clone_exec, 0) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(host[0] == 7);
    CHECK(host[n - 1] == 5);

    cudaGraphExecDestroy(clone_exec);
    cudaGraphDestroy(clone);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaFreeHost(host);
    cudaFree(d);
}

TEST_CASE("memcpy nodes from cudaMemcpy3DParms, as NVIDIA's simpleCudaGraphs makes them") {
    // A 5 x 3 block of ints copied into the middle of a pitched 9 x 4 matrix
    // (the rest keeps a memset node's value), then the whole matrix back.
    const int width = 9, height = 4, block_w = 5, block_h = 3;
    int* d = nullptr;
    size_t pitch = 0;
    REQUIRE(cudaMallocPitch(&d, &pitch, width * sizeof(int), height) == cudaSuccess);
    int* host_in = nullptr;
    int* host_out = nullptr;
    REQUIRE(cudaMallocHost(&host_in, block_w * block_h * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMallocHost(&host_out, width * height * sizeof(int)) == cudaSuccess);
    for (int i = 0; i < block_w * block_h; ++i) host_in[i] = 1000 + i;
    cudaGraph_t graph;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    cudaMemsetParams clear = {};
    clear.dst = d;
    clear.pitch = pitch;
    clear.value = 9;
    clear.elementSize = sizeof(int);
    clear.width = width;
    clear.height = height;
    cudaGraphNode_t set_node, in_node, out_node;
    REQUIRE(cudaGraphAddMemsetNode(&set_node, graph, nullptr, 0, &clear) == cudaSuccess);
    cudaMemcpy3DParms in = {};
    in.srcPtr = make_cudaPitchedPtr(host_in, block_w * sizeof(int), block_w, block_h);
    in.dstPtr = make_cudaPitchedPtr(d, pitch, width, height);
    in.dstPos = make_cudaPos(2 * sizeof(int), 1, 0);  // x in bytes
    in.extent = make_cudaExtent(block_w * sizeof(int), block_h, 1);
    in.kind = cudaMemcpyHostToDevice;
    REQUIRE(cudaGraphAddMemcpyNode(&in_node, graph, &set_node, 1, &in) == cudaSuccess);
    cudaMemcpy3DParms out = {};
    out.srcPtr = make_cudaPitchedPtr(d, pitch, width, height);
    out.dstPtr = make_cudaPitchedPtr(host_out, width * sizeof(int), width, height);
    out.extent = make_cudaExtent(width * sizeof(int), height, 1);
    out.kind = cudaMemcpyDefault;  // directions from the pointers
    REQUIRE(cudaGraphAddMemcpyNode(&out_node, graph, &in_node, 1, &out) == cudaSuccess);
    cudaGraphNodeType type;
    REQUIRE(cudaGraphNodeGetType(out_node, &type) == cudaSuccess);
    CHECK(type == cudaGraphNodeTypeMemcpy);
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    for (int launch = 0; launch < 2; ++launch) {
        std::fill(host_out, host_out + width * height, -1);
        REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
        REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
        int wrong = 0;
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const bool inside = x >= 2 && x < 2 + block_w && y >= 1 && y < 1 + block_h;
                const int want = inside ? 1000 + (y - 1) * block_w + (x - 2) : 9;
                if (host_out[y * width + x] != want) ++wrong;
            }
        CHECK(wrong == 0);
    }
    // Refused as the runtime refuses them: a row past its pitch, no parameters.
    cudaMemcpy3DParms too_wide = in;
    too_wide.dstPos = make_cudaPos(pitch - sizeof(int), 1, 0);
    cudaGraphNode_t refused;
    CHECK(cudaGraphAddMemcpyNode(&refused, graph, nullptr, 0, &too_wide) == cudaErrorInvalidValue);
    CHECK(cudaGraphAddMemcpyNode(&refused, graph, nullptr, 0, nullptr) == cudaErrorInvalidValue);
    cudaGetLastError();
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaFreeHost(host_in);
    cudaFreeHost(host_out);
    cudaFree(d);
}

TEST_CASE("edges, neighbours, a node found in a clone, and a node destroyed") {
    // A diamond of empty nodes: a -> b, a -> c, b -> d, c -> d.
    cudaGraph_t graph;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    cudaGraphNode_t a, b, c, d;
    REQUIRE(cudaGraphAddEmptyNode(&a, graph, nullptr, 0) == cudaSuccess);
    REQUIRE(cudaGraphAddEmptyNode(&b, graph, &a, 1) == cudaSuccess);
    REQUIRE(cudaGraphAddEmptyNode(&c, graph, &a, 1) == cudaSuccess);
    cudaGraphNode_t bc[] = {b, c};
    REQUIRE(cudaGraphAddEmptyNode(&d, graph, bc, 2) == cudaSuccess);

    size_t count = 0;
    REQUIRE(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count) == cudaSuccess);
    CHECK(count == 4);
    cudaGraphNode_t from[5], to[5];
    cudaGraphEdgeData data[5];
    std::memset(data, 0xff, sizeof data);
    count = 5;
    REQUIRE(cudaGraphGetEdges(graph, from, to, data, &count) == cudaSuccess);
    CHECK(count == 4);
    CHECK(to[4] == nullptr);  // the slot past the edges
    int into_d = 0;
    for (int i = 0; i < 4; ++i) into_d += to[i] == d && (from[i] == b || from[i] == c);
    CHECK(into_d == 2);
    CHECK(data[0].type == 0);  // default edges

    cudaGraphNode_t nodes[3];
    count = 3;
    REQUIRE(cudaGraphNodeGetDependencies(d, nodes, nullptr, &count) == cudaSuccess);
    CHECK(count == 2);
    CHECK(((nodes[0] == b && nodes[1] == c) || (nodes[0] == c && nodes[1] == b)));
    count = 3;
    REQUIRE(cudaGraphNodeGetDependentNodes(a, nodes, nullptr, &count) == cudaSuccess);
    CHECK(count == 2);

    cudaGraph_t clone;
    REQUIRE(cudaGraphClone(&clone, graph) == cudaSuccess);
    cudaGraphNode_t d_copy = nullptr;
    REQUIRE(cudaGraphNodeFindInClone(&d_copy, d, clone) == cudaSuccess);
    CHECK(d_copy != d);
    REQUIRE(cudaGraphNodeGetDependencies(d_copy, nullptr, nullptr, &count) == cudaSuccess);
    CHECK(count == 2);
    CHECK(cudaGraphNodeFindInClone(&d_copy, d, graph) == cudaErrorInvalidValue);  // not a clone
    cudaGetLastError();

    REQUIRE(cudaGraphDestroyNode(c) == cudaSuccess);
    REQUIRE(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count) == cudaSuccess);
    CHECK(count == 2);
    REQUIRE(cudaGraphNodeGetDependencies(d, nodes, nullptr, &(count = 3)) == cudaSuccess);
    CHECK(count == 1);
    CHECK(nodes[0] == b);
    CHECK(node_count(graph) == 3);
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(clone);
    cudaGraphDestroy(graph);
}

TEST_CASE("cudaGraphExecKernelNodeSetParams and cudaGraphExecUpdate change what the next launch does") {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, n * sizeof(int)) == cudaSuccess);
    int count = n, value = 7;
    void* args[] = {&d, &value, &count};
    cudaKernelNodeParams params = {};
    params.func = (void*)fill_value;
    params.gridDim = dim3(blocks);
    params.blockDim = dim3(threads);
    params.kernelParams = args;
    cudaGraph_t graph;
    cudaGraphNode_t node;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphAddKernelNode(&node, graph, nullptr, 0, &params) == cudaSuccess);
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    auto run_and_read = [&](cudaGraphExec_t e) {
        std::vector<int> out(n);
        REQUIRE(cudaGraphLaunch(e, 0) == cudaSuccess);
        REQUIRE(cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
        return out;
    };
    CHECK(run_and_read(exec) == std::vector<int>(n, 7));

    value = 9;
    REQUIRE(cudaGraphExecKernelNodeSetParams(exec, node, &params) == cudaSuccess);
    CHECK(run_and_read(exec) == std::vector<int>(n, 9));
    // The graph itself is unchanged: a new instance still writes 7.
    cudaGraphExec_t fresh;
    REQUIRE(cudaGraphInstantiate(&fresh, graph, 0) == cudaSuccess);
    CHECK(run_and_read(fresh) == std::vector<int>(n, 7));

    // An update from a graph of the same shape takes its parameters.
    value = 11;
    cudaGraph_t same_shape;
    cudaGraphNode_t other;
    REQUIRE(cudaGraphCreate(&same_shape, 0) == cudaSuccess);
    REQUIRE(cudaGraphAddKernelNode(&other, same_shape, nullptr, 0, &params) == cudaSuccess);
    cudaGraphExecUpdateResultInfo info;
    REQUIRE(cudaGraphExecUpdate(exec, same_shape, &info) == cudaSuccess);
    CHECK(info.result == cudaGraphExecUpdateSuccess);
    CHECK(run_and_read(exec) == std::vector<int>(n, 11));

    // One of another shape is refused, and says why.
    cudaGraph_t bigger;
    cudaGraphNode_t first, second;
    REQUIRE(cudaGraphCreate(&bigger, 0) == cudaSuccess);
    REQUIRE(cudaGraphAddKernelNode(&first, bigger, nullptr, 0, &params) == cudaSuccess);
    REQUIRE(cudaGraphAddEmptyNode(&second, bigger, &first, 1) == cudaSuccess);
    CHECK(cudaGraphExecUpdate(exec, bigger, &info) == cudaErrorGraphExecUpdateFailure);
    CHECK(info.result == cudaGraphExecUpdateErrorTopologyChanged);
    cudaGetLastError();
    CHECK(run_and_read(exec) == std::vector<int>(n, 11));

    cudaGraphDestroy(bigger);
    cudaGraphDestroy(same_shape);
    cudaGraphExecDestroy(fresh);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaFree(d);
}

// ---- what CUDA refuses -----------------------------------------------------------------
TEST_CASE("synchronizing a capturing stream invalidates the capture") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    device_floats a(n);
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    affine<<<blocks, threads, 0, stream>>>(a.p, 2.0f, 1.0f, n);
    CHECK(cudaStreamSynchronize(stream) == cudaErrorStreamCaptureUnsupported);
    cudaStreamCaptureStatus status;
    REQUIRE(cudaStreamIsCapturing(stream, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusInvalidated);
    CHECK(cudaMemsetAsync(a.p, 0, n * sizeof(float), stream) == cudaErrorStreamCaptureInvalidated);
    cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(0x1);
    CHECK(cudaStreamEndCapture(stream, &graph) == cudaErrorStreamCaptureInvalidated);
    CHECK(graph == nullptr);
    cudaGetLastError();
    // The stream works as before once the capture has ended.
    CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
    cudaStreamDestroy(stream);
}

TEST_CASE("capture calls CUDA refuses: the legacy stream, twice, no capture, device sync") {
    cudaStream_t stream, non_blocking;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking) == cudaSuccess);
    device_floats a(n);
    std::vector<float> host(n, 1.0f);
    cudaGraph_t graph;

    CHECK(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal) == cudaErrorStreamCaptureUnsupported);
    CHECK(cudaStreamEndCapture(stream, &graph) == cudaErrorIllegalState);
    cudaGetLastError();

    // A blocking stream captures: the legacy stream would depend on it.
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaErrorIllegalState);
    CHECK(cudaMemcpy(a.p, host.data(), n * sizeof(float), cudaMemcpyHostToDevice) ==
          cudaErrorStreamCaptureImplicit);
    CHECK(cudaStreamEndCapture(stream, &graph) == cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();

    // A non-blocking stream captures: the legacy stream does not wait for it,
    // so a synchronous copy runs, in every mode (measured on an H200, CUDA
    // 13.0), and the capture goes on.
    REQUIRE(cudaStreamBeginCapture(non_blocking, cudaStreamCaptureModeRelaxed) == cudaSuccess);
    CHECK(cudaMemcpy(a.p, host.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaStreamEndCapture(non_blocking, &graph) == cudaSuccess);
    cudaGraphDestroy(graph);
    REQUIRE(cudaStreamBeginCapture(non_blocking, cudaStreamCaptureModeGlobal) == cudaSuccess);
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    REQUIRE(cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
    CHECK(mode == cudaStreamCaptureModeGlobal);
    CHECK(cudaMemcpy(a.p, host.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
    CHECK(cudaMemcpy(a.p, host.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaStreamEndCapture(non_blocking, &graph) == cudaSuccess);
    cudaGraphDestroy(graph);

    // cudaMalloc is potentially unsafe: allowed in relaxed mode only.
    REQUIRE(cudaStreamBeginCapture(non_blocking, cudaStreamCaptureModeGlobal) == cudaSuccess);
    float* extra = nullptr;
    mode = cudaStreamCaptureModeRelaxed;
    REQUIRE(cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
    CHECK(cudaMalloc(&extra, 64) == cudaSuccess);
    REQUIRE(cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
    float* refused = nullptr;
    CHECK(cudaMalloc(&refused, 64) == cudaErrorStreamCaptureUnsupported);
    CHECK(cudaStreamEndCapture(non_blocking, &graph) == cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();
    cudaFree(extra);

    REQUIRE(cudaStreamBeginCapture(non_blocking, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaErrorStreamCaptureUnsupported);
    CHECK(cudaStreamEndCapture(non_blocking, &graph) == cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();
    cudaStreamDestroy(non_blocking);
    cudaStreamDestroy(stream);
}

TEST_CASE("events and capture: a captured event cannot be waited for, an outside one cannot be joined") {
    cudaStream_t stream, other;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    REQUIRE(cudaStreamCreate(&other) == cudaSuccess);
    cudaEvent_t inside, outside;
    REQUIRE(cudaEventCreate(&inside) == cudaSuccess);
    REQUIRE(cudaEventCreate(&outside) == cudaSuccess);
    REQUIRE(cudaEventRecord(outside, other) == cudaSuccess);
    cudaGraph_t graph;

    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    REQUIRE(cudaEventRecord(inside, stream) == cudaSuccess);
    CHECK(cudaEventQuery(inside) == cudaErrorCapturedEvent);
    CHECK(cudaStreamEndCapture(stream, &graph) == cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();

    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(cudaStreamWaitEvent(stream, outside, 0) == cudaErrorStreamCaptureIsolation);
    CHECK(cudaStreamEndCapture(stream, &graph) == cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();
    // Recorded in a capture that has ended: refused until it is recorded
    // again (measured on an H200, CUDA 13.0), then an ordinary event.
    CHECK(cudaEventSynchronize(inside) == cudaErrorInvalidValue);
    cudaGetLastError();
    REQUIRE(cudaEventRecord(inside, other) == cudaSuccess);
    CHECK(cudaEventSynchronize(inside) == cudaSuccess);

    cudaEventDestroy(inside);
    cudaEventDestroy(outside);
    cudaStreamDestroy(other);
    cudaStreamDestroy(stream);
}

TEST_CASE("capture modes: another thread's unsafe call is refused in global mode only") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    device_floats a(n);
    std::vector<float> host(n, 1.0f);
    auto copy_from_another_thread = [&] {
        cudaError_t result;
        std::thread t([&] { result = cudaMemcpy(a.p, host.data(), n * sizeof(float), cudaMemcpyHostToDevice); });
        t.join();
        return result;
    };
    auto malloc_from_another_thread = [] {
        cudaError_t result;
        std::thread t([&] {
            void* p = nullptr;
            result = cudaMalloc(&p, 64);
            cudaFree(p);
        });
        t.join();
        return result;
    };
    cudaGraph_t graph;
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    CHECK(copy_from_another_thread() == cudaSuccess);
    CHECK(malloc_from_another_thread() == cudaSuccess);
    REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
    cudaGraphDestroy(graph);

    // cudaMemcpy is no unsafe call: allowed in global mode too (measured on
    // an H200, CUDA 13.0); cudaMalloc is.
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(copy_from_another_thread() == cudaSuccess);
    CHECK(malloc_from_another_thread() == cudaErrorStreamCaptureUnsupported);
    // The refused cudaMalloc invalidated the capture, which ending it says
    // first, even from another thread than the one that began it; the capture
    // is over all the same (measured on an H200, CUDA 13.0).
    cudaError_t ended;
    std::thread t([&] { ended = cudaStreamEndCapture(stream, &graph); });
    t.join();
    CHECK(ended == cudaErrorStreamCaptureInvalidated);
    CHECK(cudaStreamEndCapture(stream, &graph) == cudaErrorIllegalState);
    cudaGetLastError();
    cudaStreamDestroy(stream);
}

TEST_CASE("a capturing stream destroyed: a new stream is not taken for it") {
    for (int round = 0; round < 4; ++round) {  // a new stream may get the old handle
        cudaStream_t stream;
        REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
        REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed) == cudaSuccess);
        REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
        REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
        cudaStreamCaptureStatus status;
        REQUIRE(cudaStreamIsCapturing(stream, &status) == cudaSuccess);
        CHECK(status == cudaStreamCaptureStatusNone);
        CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
        cudaStreamDestroy(stream);
    }
}

TEST_CASE("graphs and executable graphs used after they were destroyed are refused") {
    cudaGraph_t graph;
    cudaGraphNode_t node;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphAddEmptyNode(&node, graph, nullptr, 0) == cudaSuccess);
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
    // The executable graph outlives its graph, as in CUDA.
    CHECK(cudaGraphLaunch(exec, 0) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    cudaGraphExec_t again;
    CHECK(cudaGraphInstantiate(&again, graph, 0) == cudaErrorInvalidValue);
    CHECK(cudaGraphAddEmptyNode(&node, graph, nullptr, 0) == cudaErrorInvalidValue);
    CHECK(cudaGraphDestroy(graph) == cudaErrorInvalidValue);
    REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphLaunch(exec, 0) == cudaErrorInvalidValue);
    CHECK(cudaGraphExecDestroy(exec) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaGraphCreate(&graph, 1) == cudaErrorInvalidValue);  // flags must be 0
    cudaGetLastError();
}

namespace {
// A kernel node's parameters: `func` on one thread of one block.
cudaKernelNodeParams on_one_thread(void* func, void** args) {
    cudaKernelNodeParams params = {};
    params.func = func;
    params.gridDim = dim3(1);
    params.blockDim = dim3(1);
    params.kernelParams = args;
    return params;
}

// A graph of one kernel node, instantiated.
cudaGraphExec_t one_node_exec(const cudaKernelNodeParams& params, cudaGraph_t* graph) {
    REQUIRE(cudaGraphCreate(graph, 0) == cudaSuccess);
    cudaGraphNode_t node;
    REQUIRE(cudaGraphAddKernelNode(&node, *graph, nullptr, 0, &params) == cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    REQUIRE(cudaGraphInstantiate(&exec, *graph, 0) == cudaSuccess);
    return exec;
}
}  // namespace

// A template kernel's instantiation named by its address: its arguments
// are read with its own parameter types, as for a plain kernel.
TEST_CASE("a kernel node of a template kernel's instantiation") {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMemset(d, 0, sizeof(int)) == cudaSuccess);
    int count = 1;
    void* args[] = {&d, &count};
    cudaGraph_t graph;
    cudaGraphExec_t exec = one_node_exec(on_one_thread((void*)add_constant<3>, args), &graph);
    REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
    int value = 0;
    REQUIRE(cudaMemcpy(&value, d, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(value == 6);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaFree(d);
}

#if defined(CUEMU)
// Two kernels of one name (overloads): neither is in the emulator's registry
// of kernel addresses (cuemu/kernel_registry.h): refused, with a line saying so.
__global__ void overloaded_add(int* p, int n) {
    if (threadIdx.x < n) p[threadIdx.x] += 1;
}
__global__ void overloaded_add(float* p, int n) {
    if (threadIdx.x < n) p[threadIdx.x] += 1.0f;
}

TEST_CASE("a kernel node whose kernel the emulator cannot find by address is refused") {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, sizeof(int)) == cudaSuccess);
    int count = 1;
    void* args[] = {&d, &count};
    const cudaKernelNodeParams params = on_one_thread((void*)static_cast<void (*)(int*, int)>(overloaded_add), args);
    cudaGraph_t graph;
    cudaGraphNode_t node;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    CHECK(cudaGraphAddKernelNode(&node, graph, nullptr, 0, &params) == cudaErrorInvalidDeviceFunction);
    CHECK(cudaGetLastError() == cudaErrorInvalidDeviceFunction);
    cudaGraphDestroy(graph);
    cudaFree(d);
}
#endif
