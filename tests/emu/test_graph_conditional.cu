// test_graph_conditional.cu - conditional graph nodes (common/emu/README.md,
// "CUDA graphs"): handles and their defaults, IF (with and without an ELSE
// body), WHILE and SWITCH nodes made with cudaGraphAddNode, kernels that set
// the condition with cudaGraphSetConditional, and the rules CUDA checks.
// Genuine CUDA: nvcc compiles this file too (emu_tests_nvcc_compile_check).
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// Sets the handle to *flag.
__global__ void cond_set_from(cudaGraphConditionalHandle handle, const int* flag) {
    if (threadIdx.x == 0) cudaGraphSetConditional(handle, static_cast<unsigned int>(*flag));
}

// out[slot] += add.
__global__ void cond_add(int* out, int slot, int add) {
    if (threadIdx.x == 0) out[slot] += add;
}

// One WHILE iteration: counts in out[0]; stops the loop after out[1] iterations.
__global__ void cond_loop_step(cudaGraphConditionalHandle handle, int* out) {
    if (threadIdx.x == 0) {
        out[0] += 1;
        if (out[0] >= out[1]) cudaGraphSetConditional(handle, 0);
    }
}

namespace {

// A kernel node of one block of 32 threads.
cudaGraphNode_t add_kernel(cudaGraph_t graph, void* func, void** args, const cudaGraphNode_t* deps = nullptr,
                           size_t num_deps = 0) {
    cudaKernelNodeParams p = {};
    p.func = func;
    p.gridDim = dim3(1);
    p.blockDim = dim3(32);
    p.kernelParams = args;
    cudaGraphNode_t node = nullptr;
    REQUIRE(cudaGraphAddKernelNode(&node, graph, deps, num_deps, &p) == cudaSuccess);
    return node;
}

cudaGraphNode_t add_adder(cudaGraph_t graph, int* out, int slot, int add) {
    void* args[] = {&out, &slot, &add};
    return add_kernel(graph, (void*)cond_add, args);
}

// A conditional node after `dep`; its bodies in *bodies.
cudaGraphNode_t add_conditional(cudaGraph_t graph, cudaGraphNode_t dep, cudaGraphConditionalHandle handle,
                                cudaGraphConditionalNodeType type, unsigned int size,
                                std::vector<cudaGraph_t>* bodies) {
    cudaGraphNodeParams params = {};
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = handle;
    params.conditional.type = type;
    params.conditional.size = size;
    cudaGraphNode_t node = nullptr;
    REQUIRE(cudaGraphAddNode(&node, graph, dep ? &dep : nullptr, nullptr, dep ? 1 : 0, &params) == cudaSuccess);
    REQUIRE(params.conditional.phGraph_out != nullptr);
    bodies->assign(params.conditional.phGraph_out, params.conditional.phGraph_out + size);
    return node;
}

struct device_ints {
    int* p = nullptr;
    explicit device_ints(int n) {
        REQUIRE(cudaMalloc(&p, n * sizeof(int)) == cudaSuccess);
        REQUIRE(cudaMemset(p, 0, n * sizeof(int)) == cudaSuccess);
    }
    ~device_ints() { cudaFree(p); }
    void set(int i, int v) { REQUIRE(cudaMemcpy(p + i, &v, sizeof v, cudaMemcpyHostToDevice) == cudaSuccess); }
    int get(int i) {
        int v = -1;
        REQUIRE(cudaMemcpy(&v, p + i, sizeof v, cudaMemcpyDeviceToHost) == cudaSuccess);
        return v;
    }
};

// The graph launched once, waited for.
void run(cudaGraphExec_t exec) {
    REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
}

// A graph with one conditional node on a handle of its own, after a kernel
// that sets the handle from *flag (when flag is given).
struct conditional_graph {
    cudaGraph_t graph = nullptr;
    cudaGraphConditionalHandle handle = 0;
    std::vector<cudaGraph_t> bodies;
    cudaGraphExec_t exec = nullptr;
    conditional_graph(cudaGraphConditionalNodeType type, unsigned int size, unsigned int default_value,
                      unsigned int flags, int* flag = nullptr) {
        REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
        REQUIRE(cudaGraphConditionalHandleCreate(&handle, graph, default_value, flags) == cudaSuccess);
        cudaGraphNode_t setter = nullptr;
        if (flag) {
            void* args[] = {&handle, &flag};
            setter = add_kernel(graph, (void*)cond_set_from, args);
        }
        add_conditional(graph, setter, handle, type, size, &bodies);
    }
    void instantiate() { REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess); }
    ~conditional_graph() {
        if (exec) cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
    }
};

}  // namespace

TEST_CASE("an IF node runs its body when a kernel set the condition, its ELSE body when not") {
    device_ints flag(1), out(4);
    conditional_graph g(cudaGraphCondTypeIf, 2, 0, 0, flag.p);
    REQUIRE(g.bodies.size() == 2);
    add_adder(g.bodies[0], out.p, 0, 1);  // then
    add_adder(g.bodies[1], out.p, 1, 1);  // else
    g.instantiate();
    flag.set(0, 7);
    run(g.exec);
    CHECK(out.get(0) == 1);
    CHECK(out.get(1) == 0);
    flag.set(0, 0);
    run(g.exec);
    run(g.exec);
    CHECK(out.get(0) == 1);
    CHECK(out.get(1) == 2);
}

TEST_CASE("a WHILE node repeats its body until a kernel clears the condition; the default starts each launch") {
    device_ints out(2);
    conditional_graph g(cudaGraphCondTypeWhile, 1, 1, cudaGraphCondAssignDefault);
    void* args[] = {&g.handle, &out.p};
    add_kernel(g.bodies[0], (void*)cond_loop_step, args);
    g.instantiate();
    out.set(1, 5);
    run(g.exec);
    CHECK(out.get(0) == 5);
    // The loop ended with the value 0; the default (1) starts the next launch.
    out.set(0, 0);
    out.set(1, 3);
    run(g.exec);
    CHECK(out.get(0) == 3);
}

TEST_CASE("a WHILE node whose condition starts at zero never runs its body") {
    device_ints out(2);
    conditional_graph g(cudaGraphCondTypeWhile, 1, 0, cudaGraphCondAssignDefault);
    add_adder(g.bodies[0], out.p, 0, 1);
    g.instantiate();
    run(g.exec);
    CHECK(out.get(0) == 0);
}

TEST_CASE("a SWITCH node runs the body its value names, none past the last") {
    device_ints flag(1), out(3);
    conditional_graph g(cudaGraphCondTypeSwitch, 3, 0, 0, flag.p);
    for (int i = 0; i < 3; ++i) add_adder(g.bodies[i], out.p, i, 10 + i);
    g.instantiate();
    flag.set(0, 1);
    run(g.exec);
    CHECK(out.get(0) == 0);
    CHECK(out.get(1) == 11);
    CHECK(out.get(2) == 0);
    flag.set(0, 2);
    run(g.exec);
    flag.set(0, 3);  // past the last body: nothing
    run(g.exec);
    CHECK(out.get(0) == 0);
    CHECK(out.get(1) == 11);
    CHECK(out.get(2) == 12);
}

TEST_CASE("nested: an IF node inside a WHILE body, with the parent graph's handles") {
    device_ints flag(1), out(3);
    cudaGraph_t graph;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    cudaGraphConditionalHandle loop, inner;
    REQUIRE(cudaGraphConditionalHandleCreate(&loop, graph, 1, cudaGraphCondAssignDefault) == cudaSuccess);
    REQUIRE(cudaGraphConditionalHandleCreate(&inner, graph, 1, cudaGraphCondAssignDefault) == cudaSuccess);
    std::vector<cudaGraph_t> loop_body, if_body;
    add_conditional(graph, nullptr, loop, cudaGraphCondTypeWhile, 1, &loop_body);
    void* step_args[] = {&loop, &out.p};
    cudaGraphNode_t step = add_kernel(loop_body[0], (void*)cond_loop_step, step_args);
    add_conditional(loop_body[0], step, inner, cudaGraphCondTypeIf, 1, &if_body);
    add_adder(if_body[0], out.p, 2, 1);
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    out.set(1, 4);
    run(exec);
    CHECK(out.get(0) == 4);
    CHECK(out.get(2) == 4);  // the IF body ran in every iteration
    // The DOT dump draws the bodies as clusters (the emulator's layout; CUDA's differs).
    // The process id keeps this file apart from the one-worker variant's, which ctest runs at the same time.
    const std::string dot_path = "cuemu_graph_conditional_test." + std::to_string(getpid()) + ".dot";
    const char* path = dot_path.c_str();
    REQUIRE(cudaGraphDebugDotPrint(graph, path, 0) == cudaSuccess);
    std::stringstream text;
    text << std::ifstream(path).rdbuf();
#if defined(CUEMU)
    CHECK(text.str().find("CONDITIONAL") != std::string::npos);
    CHECK(text.str().find("WHILE body 0") != std::string::npos);
    CHECK(text.str().find("IF body 0") != std::string::npos);
#endif
    CHECK(!text.str().empty());
    std::remove(path);
    REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
    REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
}

TEST_CASE("cudaStreamBeginCaptureToGraph captures a WHILE body, and work after a graph's own node") {
    device_ints out(3);
    conditional_graph g(cudaGraphCondTypeWhile, 1, 1, cudaGraphCondAssignDefault);
    // Beside the loop: a memset node of the parent graph clears out[2]; a
    // kernel captured after it adds to it.
    cudaGraph_t graph = g.graph;
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    REQUIRE(cudaStreamBeginCaptureToGraph(stream, g.bodies[0], nullptr, nullptr, 0,
                                          cudaStreamCaptureModeGlobal) == cudaSuccess);
    cond_loop_step<<<1, 32, 0, stream>>>(g.handle, out.p);
    cudaGraph_t captured = nullptr;
    REQUIRE(cudaStreamEndCapture(stream, &captured) == cudaSuccess);
    CHECK(captured == g.bodies[0]);
    cudaMemsetParams clear = {};
    clear.dst = out.p + 2;
    clear.value = 0;
    clear.elementSize = 4;
    clear.width = 1;
    clear.height = 1;
    cudaGraphNode_t cleared;
    REQUIRE(cudaGraphAddMemsetNode(&cleared, graph, nullptr, 0, &clear) == cudaSuccess);
    REQUIRE(cudaStreamBeginCaptureToGraph(stream, graph, &cleared, nullptr, 1, cudaStreamCaptureModeGlobal) ==
            cudaSuccess);
    cond_add<<<1, 32, 0, stream>>>(out.p, 2, 9);
    REQUIRE(cudaStreamEndCapture(stream, &captured) == cudaSuccess);
    CHECK(captured == graph);
    size_t nodes = 0;
    REQUIRE(cudaGraphGetNodes(graph, nullptr, &nodes) == cudaSuccess);
    CHECK(nodes == 3);  // the conditional node, the memset and the captured kernel
    g.instantiate();
    out.set(1, 6);
    out.set(2, 5);
    run(g.exec);
    CHECK(out.get(0) == 6);
    CHECK(out.get(2) == 9);  // cleared, then 9 added
    // A null graph; a node of another graph as a dependency (the emulator's answer).
#if defined(CUEMU)
    CHECK(cudaStreamBeginCaptureToGraph(stream, g.bodies[0], &cleared, nullptr, 1,
                                        cudaStreamCaptureModeGlobal) == cudaErrorInvalidValue);
#endif
    CHECK(cudaStreamBeginCaptureToGraph(stream, nullptr, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal) ==
          cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("conditional nodes refuse bad input; instantiation checks the handles") {
    cudaGraph_t graph, other;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphCreate(&other, 0) == cudaSuccess);
    cudaGraphConditionalHandle handle, foreign;
    CHECK(cudaGraphConditionalHandleCreate(nullptr, graph, 0, 0) == cudaErrorInvalidValue);
    CHECK(cudaGraphConditionalHandleCreate(&handle, graph, 0, 2) == cudaErrorInvalidValue);
    REQUIRE(cudaGraphConditionalHandleCreate(&handle, graph, 0, 0) == cudaSuccess);
    REQUIRE(cudaGraphConditionalHandleCreate(&foreign, other, 0, 0) == cudaSuccess);
    cudaGraphNodeParams params = {};
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = handle;
    params.conditional.type = cudaGraphCondTypeWhile;
    params.conditional.size = 2;  // a WHILE node has one body
    cudaGraphNode_t node;
    CHECK(cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &params) == cudaErrorInvalidValue);
    params.conditional.type = cudaGraphCondTypeIf;
    params.conditional.size = 3;  // an IF node has one or two
    CHECK(cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &params) == cudaErrorInvalidValue);
    params.conditional.type = cudaGraphCondTypeSwitch;
    params.conditional.size = 0;
    CHECK(cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &params) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    params.conditional.size = 1;
    cudaGraphExec_t exec = nullptr;
    cudaGraphInstantiateParams ip = {};
#if defined(CUEMU)
    // A handle made for another graph. `other`'s handle is used by no node:
    // its instantiation fails and says why (CUDA: "may cause" it to fail).
    params.conditional.handle = foreign;
    CHECK(cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &params) == cudaErrorInvalidValue);
    cudaGraphNode_t empty;
    REQUIRE(cudaGraphAddEmptyNode(&empty, other, nullptr, 0) == cudaSuccess);
    CHECK(cudaGraphInstantiateWithParams(&exec, other, &ip) != cudaSuccess);
    CHECK(ip.result_out == cudaGraphInstantiateConditionalHandleUnused);
    cudaGetLastError();
#endif

    params.conditional.handle = handle;
    REQUIRE(cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &params) == cudaSuccess);
    ip = {};
    REQUIRE(cudaGraphInstantiateWithParams(&exec, graph, &ip) == cudaSuccess);
    CHECK(ip.result_out == cudaGraphInstantiateSuccess);
    CHECK(ip.errNode_out == nullptr);
#if defined(CUEMU)
    // One executable graph at a time; no clone; not a child graph; a body goes with its node.
    cudaGraphExec_t second;
    CHECK(cudaGraphInstantiate(&second, graph, 0) == cudaErrorInvalidValue);
    cudaGraph_t clone;
    CHECK(cudaGraphClone(&clone, graph) == cudaErrorInvalidValue);
    cudaGraphNode_t child;
    CHECK(cudaGraphAddChildGraphNode(&child, other, nullptr, 0, graph) == cudaErrorInvalidValue);
    CHECK(cudaGraphDestroy(params.conditional.phGraph_out[0]) == cudaErrorInvalidValue);
    cudaGetLastError();
#endif
    REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
    REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
    REQUIRE(cudaGraphDestroy(other) == cudaSuccess);
}

#if defined(CUEMU)
TEST_CASE("a host node in a conditional body is refused at instantiation with cudaErrorNotSupported") {
    conditional_graph g(cudaGraphCondTypeIf, 1, 1, cudaGraphCondAssignDefault);
    cudaHostNodeParams host = {};
    host.fn = [](void*) {};
    cudaGraphNode_t host_node;
    REQUIRE(cudaGraphAddHostNode(&host_node, g.bodies[0], nullptr, 0, &host) == cudaSuccess);
    cudaGraphInstantiateParams ip = {};
    CHECK(cudaGraphInstantiateWithParams(&g.exec, g.graph, &ip) == cudaErrorNotSupported);
    CHECK(ip.result_out == cudaGraphInstantiateNodeOperationNotSupported);
    CHECK(ip.errNode_out == host_node);
    cudaGetLastError();
}
#endif
