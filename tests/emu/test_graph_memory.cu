// test_graph_memory.cu - graph memory exists only from its alloc node to its
// free, in stream order (common/emu/README.md, "CUDA graphs", memory nodes):
// a correct program that relaunches its graph and uses the memory between
// the nodes is not reported, and a kernel that touches the memory after the
// free (or before the first alloc node) is reported as a use after free.
// Test cases named "process: ..." end with a sticky error: each runs as a
// process of its own, in an emulator build only.
// Genuine CUDA: nvcc compiles this file too (emu_tests_nvcc_compile_check).
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "graph_memory_kernels.h"
#include "graph_test_support.h"
#include "stderr_capture.h"

namespace {

bool holds(const std::vector<int>& v, int base) {
    for (int i = 0; i < count; ++i)
        if (v[i] != base + i) return false;
    return true;
}

// A graph that allocates `bytes` and fills them (no free node): *d is the memory.
cudaGraph_t allocating_graph(int** d) {
    cudaGraph_t graph;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    cudaMemAllocNodeParams params = alloc_params(bytes);
    cudaGraphNode_t alloc;
    REQUIRE(cudaGraphAddMemAllocNode(&alloc, graph, nullptr, 0, &params) == cudaSuccess);
    *d = static_cast<int*>(params.dptr);
    return graph;
}

// Captures `work` on `stream` into `graph` after `after` (null: a new graph).
template <class Work>
cudaGraph_t capture(cudaStream_t stream, cudaGraph_t graph, cudaGraphNode_t after, Work work) {
    if (graph)
        REQUIRE(cudaStreamBeginCaptureToGraph(stream, graph, &after, nullptr, 1, cudaStreamCaptureModeGlobal) ==
                cudaSuccess);
    else
        REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    work();
    cudaGraph_t captured;
    REQUIRE(cudaStreamEndCapture(stream, &captured) == cudaSuccess);
    return captured;
}

}  // namespace

TEST_CASE("graph memory used between its alloc and free nodes, at every launch, is not reported") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
#if defined(CUEMU)
    stderr_capture capture_reports(capture_until::device_idle);
#endif
    std::vector<int> host(count, -1);
    int* d = nullptr;
    cudaGraph_t graph = capture(stream, nullptr, nullptr, [&] {
        REQUIRE(cudaMallocAsync(&d, bytes, stream) == cudaSuccess);
        node_fill<<<blocks, threads, 0, stream>>>(d, 10, count);
        node_add<<<blocks, threads, 0, stream>>>(d, 5, count);
        REQUIRE(cudaMemcpyAsync(host.data(), d, bytes, cudaMemcpyDeviceToHost, stream) == cudaSuccess);
        REQUIRE(cudaFreeAsync(d, stream) == cudaSuccess);
    });
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    for (int launch = 0; launch < 3; ++launch) {  // the same address, mapped again at each launch
        std::fill(host.begin(), host.end(), -1);
        REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
        REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
        CHECK(holds(host, 15));
    }

    // Memory the graph leaves allocated: stream work after each launch uses
    // it until cudaFreeAsync, and work queued for after the second launch
    // names it while the device may not have reached that launch's alloc node.
    int* kept = nullptr;
    cudaGraph_t keeps = allocating_graph(&kept);
    cudaGraphExec_t keeps_exec;
    REQUIRE(cudaGraphInstantiate(&keeps_exec, keeps, 0) == cudaSuccess);
    for (int launch = 0; launch < 2; ++launch) {
        std::fill(host.begin(), host.end(), -1);
        REQUIRE(cudaGraphLaunch(keeps_exec, stream) == cudaSuccess);
        node_fill<<<blocks, threads, 0, stream>>>(kept, 100 * launch, count);
        REQUIRE(cudaGetLastError() == cudaSuccess);
        REQUIRE(cudaMemcpyAsync(host.data(), kept, bytes, cudaMemcpyDeviceToHost, stream) == cudaSuccess);
        REQUIRE(cudaFreeAsync(kept, stream) == cudaSuccess);
        REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
        CHECK(holds(host, 100 * launch));
    }
#if defined(CUEMU)
    CHECK(capture_reports.finish().find("cuemu:") == std::string::npos);
#endif
    CHECK(cudaGraphExecDestroy(keeps_exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(keeps) == cudaSuccess);
    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
}

#if defined(CUEMU)
namespace {
// An executable graph, captured: cudaMallocAsync of *d, a kernel that fills
// it, cudaFreeAsync, and (use_after_free) a kernel that still adds to it.
cudaGraphExec_t freeing_exec(cudaStream_t stream, int** d, bool use_after_free) {
    cudaGraph_t graph = capture(stream, nullptr, nullptr, [&] {
        REQUIRE(cudaMallocAsync(d, bytes, stream) == cudaSuccess);
        node_fill<<<blocks, threads, 0, stream>>>(*d, 0, count);
        REQUIRE(cudaFreeAsync(*d, stream) == cudaSuccess);
        if (use_after_free) node_add<<<blocks, threads, 0, stream>>>(*d, 1, count);
    });
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    return exec;  // the process ends with a sticky error: the graph is not destroyed
}
}  // namespace

// Captured in order: the second kernel's node depends on the free node.
TEST_CASE("process: a kernel captured after cudaFreeAsync uses freed graph memory") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    int* d = nullptr;
    cudaGraphExec_t exec = freeing_exec(stream, &d, true);
    stderr_capture capture_reports(capture_until::device_idle);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    const std::string report = capture_reports.finish();
    CHECK(report.find("use after cudaFreeAsync captured in a graph: read in kernel 'node_add'") !=
          std::string::npos);
    CHECK(report.find("this graph memory was freed by cudaFreeAsync captured in a graph at " __FILE__ ":") !=
          std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

// A graph made by hand: alloc node, free node, and a kernel captured into the
// graph after the free node.
TEST_CASE("process: a kernel node after a free node uses freed graph memory") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    int* d = nullptr;
    cudaGraph_t graph = allocating_graph(&d);
    cudaGraphNode_t alloc = all_nodes(graph).at(0), release;
    REQUIRE(cudaGraphAddMemFreeNode(&release, graph, &alloc, 1, d) == cudaSuccess);
    capture(stream, graph, release, [&] { node_fill<<<blocks, threads, 0, stream>>>(d, 0, count); });
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    stderr_capture capture_reports(capture_until::device_idle);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    const std::string report = capture_reports.finish();
    CHECK(report.find("use after a graph's free node: write in kernel 'node_fill'") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

// The graph frees its memory; stream work after the launch still uses it.
TEST_CASE("process: a kernel after the launch of a graph that frees the memory") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    int* d = nullptr;
    cudaGraphExec_t exec = freeing_exec(stream, &d, false);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);  // a relaunch maps it again, and frees it
    stderr_capture capture_reports(capture_until::device_idle);
    node_add<<<blocks, threads, 0, stream>>>(d, 1, count);
    const std::string report = capture_reports.finish();
    CHECK(report.find("use after cudaFreeAsync captured in a graph") != std::string::npos);
    CHECK(report.find("kernel 'node_add'") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

// A copy the device runs after the graph's free crashes the program (a
// copy's fault is not survivable here), in a child process.
void copy_after_graph_free() {
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    int* d = nullptr;
    cudaGraphLaunch(freeing_exec(stream, &d, false), stream);
    std::vector<int> host(count);
    cudaMemcpyAsync(host.data(), d, bytes, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
}
TEST_CASE("process: a copy after the launch of a graph that frees the memory") {
    const child_result r = run_in_child(copy_after_graph_free);
    CHECK(WIFSIGNALED(r.status));
    CHECK(r.err.find("cudaMemcpyAsync at " __FILE__) != std::string::npos);
    CHECK(r.err.find("use after cudaFreeAsync captured in a graph: read") != std::string::npos);
    CHECK(r.err.find("host buffer") == std::string::npos);  // not taken for a host buffer's fault
}

TEST_CASE("process: a kernel before the first launch uses graph memory not allocated yet") {
    int* d = nullptr;
    cudaGraph_t graph = allocating_graph(&d);
    stderr_capture capture_reports(capture_until::device_idle);
    node_fill<<<blocks, threads>>>(d, 0, count);
    const std::string report = capture_reports.finish();
    CHECK(report.find("use of graph memory before its alloc node ran: write in kernel 'node_fill'") !=
          std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
    (void)graph;  // the process ends with the sticky error
}
#endif
