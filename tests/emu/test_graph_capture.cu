// test_graph_capture.cu - cudaStreamUpdateCaptureDependencies (common/emu/README.md,
// "CUDA graphs"): a capturing stream's dependency set replaced or added to,
// as cudaStreamGetCaptureInfo then reports it, the next captured node
// depending on exactly that set, and the errors CUDA documents for a stream
// that is not capturing, bad flags and nodes of another graph.
// Genuine CUDA: nvcc compiles this file too (emu_tests_nvcc_compile_check).
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "graph_test_support.h"

__global__ void add_one(int* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

namespace {

constexpr int n = 1000;
constexpr int threads = 128;
constexpr int blocks = (n + threads - 1) / threads;

// The set cudaStreamGetCaptureInfo says the stream's next node will depend on.
std::vector<cudaGraphNode_t> capture_dependencies(cudaStream_t stream, cudaGraph_t* graph = nullptr) {
    cudaStreamCaptureStatus status;
    const cudaGraphNode_t* deps = nullptr;
    size_t count = 0;
    REQUIRE(cudaStreamGetCaptureInfo(stream, &status, nullptr, graph, &deps, nullptr, &count) ==
            cudaSuccess);
    REQUIRE(status == cudaStreamCaptureStatusActive);
    std::vector<cudaGraphNode_t> set(deps, deps + count);
    std::sort(set.begin(), set.end());
    return set;
}

std::vector<cudaGraphNode_t> dependencies_of(cudaGraphNode_t node) {
    size_t count = 0;
    REQUIRE(cudaGraphNodeGetDependencies(node, nullptr, nullptr, &count) == cudaSuccess);
    std::vector<cudaGraphNode_t> set(count);
    if (count) REQUIRE(cudaGraphNodeGetDependencies(node, set.data(), nullptr, &count) == cudaSuccess);
    std::sort(set.begin(), set.end());
    return set;
}

std::vector<cudaGraphNode_t> sorted(std::vector<cudaGraphNode_t> set) {
    std::sort(set.begin(), set.end());
    return set;
}

// The one node of `graph` that no other node depends on and that is not `except`.
cudaGraphNode_t last_node(cudaGraph_t graph, cudaGraphNode_t except) {
    cudaGraphNode_t found = nullptr;
    for (cudaGraphNode_t node : all_nodes(graph)) {
        size_t dependents = 0;
        REQUIRE(cudaGraphNodeGetDependentNodes(node, nullptr, nullptr, &dependents) == cudaSuccess);
        if (dependents == 0 && node != except) {
            CHECK(found == nullptr);
            found = node;
        }
    }
    REQUIRE(found != nullptr);
    return found;
}

struct capture_stream {
    cudaStream_t stream = nullptr;
    int* d = nullptr;
    capture_stream() {
        REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
        REQUIRE(cudaMalloc(&d, n * sizeof(int)) == cudaSuccess);
        REQUIRE(cudaMemset(d, 0, n * sizeof(int)) == cudaSuccess);
    }
    ~capture_stream() {
        CHECK(cudaFree(d) == cudaSuccess);
        CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    }
    int first_value() {
        int v = -1;
        REQUIRE(cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost) == cudaSuccess);
        return v;
    }
};

}  // namespace

// The pattern CUDA documents the call for: a node added to the capture's graph
// by hand becomes the stream's only dependency, so the captured work goes on
// after it.
TEST_CASE("cudaStreamSetCaptureDependencies: a node added by hand is what the next captured node follows") {
    capture_stream s;
    order_log log;
    host_step first{&log, 'A'}, middle{&log, 'H'}, last{&log, 'B'};
    REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    REQUIRE(cudaLaunchHostFunc(s.stream, note_step, &first) == cudaSuccess);
    add_one<<<blocks, threads, 0, s.stream>>>(s.d, n);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    cudaGraph_t capturing = nullptr;
    const std::vector<cudaGraphNode_t> before = capture_dependencies(s.stream, &capturing);
    REQUIRE(before.size() == 1);
    cudaGraphNode_t by_hand;
    cudaHostNodeParams params{note_step, &middle};
    REQUIRE(cudaGraphAddHostNode(&by_hand, capturing, before.data(), before.size(), &params) ==
            cudaSuccess);
    REQUIRE(cudaStreamUpdateCaptureDependencies(s.stream, &by_hand, nullptr, 1,
                                                cudaStreamSetCaptureDependencies) == cudaSuccess);
    CHECK(capture_dependencies(s.stream) == std::vector<cudaGraphNode_t>{by_hand});
    REQUIRE(cudaLaunchHostFunc(s.stream, note_step, &last) == cudaSuccess);
    cudaGraph_t graph;
    REQUIRE(cudaStreamEndCapture(s.stream, &graph) == cudaSuccess);
    CHECK(graph == capturing);
    const cudaGraphNode_t next = last_node(graph, nullptr);
    CHECK(dependencies_of(next) == std::vector<cudaGraphNode_t>{by_hand});

    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, s.stream) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, s.stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s.stream) == cudaSuccess);
    CHECK(log.ran == "AHBAHB");
    CHECK(s.first_value() == 2);
    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
}

// Flags 0 is cudaStreamAddCaptureDependencies: the set grows; a node named
// twice (already in the set, or twice in the array) is one dependency.
TEST_CASE("cudaStreamAddCaptureDependencies: the set keeps its nodes and gains the new ones") {
    capture_stream s;
    REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    add_one<<<blocks, threads, 0, s.stream>>>(s.d, n);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    cudaGraph_t capturing = nullptr;
    const std::vector<cudaGraphNode_t> before = capture_dependencies(s.stream, &capturing);
    REQUIRE(before.size() == 1);
    cudaGraphNode_t root;  // a node of the graph that depends on nothing
    REQUIRE(cudaGraphAddEmptyNode(&root, capturing, nullptr, 0) == cudaSuccess);
    cudaGraphNode_t added[] = {root, before[0], root};
    const cudaGraphEdgeData plain[3] = {};  // default edges, as if none were given
    REQUIRE(cudaStreamUpdateCaptureDependencies(s.stream, added, plain, 3, 0) == cudaSuccess);
    const std::vector<cudaGraphNode_t> both = sorted({before[0], root});
    CHECK(capture_dependencies(s.stream) == both);
    add_one<<<blocks, threads, 0, s.stream>>>(s.d, n);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    cudaGraph_t graph;
    REQUIRE(cudaStreamEndCapture(s.stream, &graph) == cudaSuccess);
    CHECK(dependencies_of(last_node(graph, nullptr)) == both);

    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, s.stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s.stream) == cudaSuccess);
    CHECK(s.first_value() == 2);
    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
}

// An empty set: the next node is a root of the graph. The node dropped from
// the set is not "unjoined" work at cudaStreamEndCapture (CUDA says so).
TEST_CASE("cudaStreamSetCaptureDependencies with no nodes: the next node depends on nothing") {
    capture_stream s;
    REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    add_one<<<blocks, threads, 0, s.stream>>>(s.d, n);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    const std::vector<cudaGraphNode_t> dropped = capture_dependencies(s.stream);
    REQUIRE(dropped.size() == 1);
    REQUIRE(cudaStreamUpdateCaptureDependencies(s.stream, nullptr, nullptr, 0,
                                                cudaStreamSetCaptureDependencies) == cudaSuccess);
    CHECK(capture_dependencies(s.stream).empty());
    add_one<<<blocks, threads, 0, s.stream>>>(s.d, n);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    cudaGraph_t graph;
    REQUIRE(cudaStreamEndCapture(s.stream, &graph) == cudaSuccess);
    size_t roots = 0;
    REQUIRE(cudaGraphGetRootNodes(graph, nullptr, &roots) == cudaSuccess);
    CHECK(roots == 2);
    CHECK(dependencies_of(last_node(graph, dropped[0])).empty());
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
}

TEST_CASE("cudaStreamUpdateCaptureDependencies refuses what CUDA refuses") {
    capture_stream s;
    // Not capturing: cudaErrorIllegalState, on a stream and on the legacy stream.
    CHECK(cudaStreamUpdateCaptureDependencies(s.stream, nullptr, nullptr, 0,
                                              cudaStreamAddCaptureDependencies) == cudaErrorIllegalState);
    CHECK(cudaStreamUpdateCaptureDependencies(0, nullptr, nullptr, 0) == cudaErrorIllegalState);
    CHECK(cudaGetLastError() == cudaErrorIllegalState);

    cudaGraph_t other;  // a node of a graph the capture does not build
    REQUIRE(cudaGraphCreate(&other, 0) == cudaSuccess);
    cudaGraphNode_t foreign;
    REQUIRE(cudaGraphAddEmptyNode(&foreign, other, nullptr, 0) == cudaSuccess);
    REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    add_one<<<blocks, threads, 0, s.stream>>>(s.d, n);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    [[maybe_unused]] const std::vector<cudaGraphNode_t> before = capture_dependencies(s.stream);
    // Flags other than Add (0) and Set (1); a node of another graph; a count without nodes.
    CHECK(cudaStreamUpdateCaptureDependencies(s.stream, nullptr, nullptr, 0, 2) == cudaErrorInvalidValue);
    CHECK(cudaStreamUpdateCaptureDependencies(s.stream, &foreign, nullptr, 1,
                                              cudaStreamSetCaptureDependencies) == cudaErrorInvalidValue);
    CHECK(cudaStreamUpdateCaptureDependencies(s.stream, nullptr, nullptr, 1,
                                              cudaStreamAddCaptureDependencies) == cudaErrorInvalidValue);
    cudaGetLastError();  // the refusals above are not sticky
#if defined(CUEMU)
    // The emulator leaves the set and the capture as they were; CUDA does not
    // document whether such a refusal invalidates the capture.
    CHECK(capture_dependencies(s.stream) == before);
#endif
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(s.stream, &graph);
    CHECK((ended == cudaSuccess || ended == cudaErrorStreamCaptureInvalidated));
    if (graph) {
        CHECK(cudaGraphDestroy(graph) == cudaSuccess);
    }
    cudaGetLastError();
    CHECK(cudaGraphDestroy(other) == cudaSuccess);
}
