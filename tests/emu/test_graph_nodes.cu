// test_graph_nodes.cu - CUDA graph nodes beyond kernels and copies
// (common/emu/README.md, "CUDA graphs"): memory allocation and free nodes,
// made by hand and by capturing cudaMallocAsync/cudaFreeAsync, and the
// graph memory counts; parameters of memcpy, memset and host nodes read and
// changed, in a graph and in an executable graph; event record and wait
// nodes; child graphs; removed edges, disabled nodes, instantiation flags
// and the DOT dump.
// Genuine CUDA: nvcc compiles this file too (emu_tests_nvcc_compile_check).
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "graph_memory_kernels.h"
#include "graph_test_support.h"

namespace {

// A kernel node's parameters for node_fill/node_add (args must outlive the call).
cudaKernelNodeParams kernel_params(void* func, void** args) {
    cudaKernelNodeParams p = {};
    p.func = func;
    p.gridDim = dim3(blocks);
    p.blockDim = dim3(threads);
    p.kernelParams = args;
    return p;
}

std::uint64_t graph_memory(cudaGraphMemAttributeType attr) {
    std::uint64_t value = 0;
    REQUIRE(cudaDeviceGetGraphMemAttribute(0, attr, &value) == cudaSuccess);
    return value;
}

bool filled(const std::vector<int>& v, int value) {
    for (int i = 0; i < count; ++i)
        if (v[i] != value + i) return false;
    return true;
}

size_t nodes_of_type(cudaGraph_t graph, cudaGraphNodeType type) {
    size_t found = 0;
    for (cudaGraphNode_t node : all_nodes(graph)) {
        cudaGraphNodeType t;
        REQUIRE(cudaGraphNodeGetType(node, &t) == cudaSuccess);
        if (t == type) ++found;
    }
    return found;
}

void CUDART_CB add_one(void* data) { ++*static_cast<int*>(data); }
void CUDART_CB add_ten(void* data) { *static_cast<int*>(data) += 10; }
void CUDART_CB sleep_a_while(void*) { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }

}  // namespace

// ---- memory nodes ----------------------------------------------------------------------
TEST_CASE("an alloc node's memory is written by a kernel node, copied back and freed, at one address") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    REQUIRE(cudaDeviceGraphMemTrim(0) == cudaSuccess);
    std::uint64_t zero = 0;
    REQUIRE(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero) == cudaSuccess);
    REQUIRE(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero) == cudaSuccess);
    const std::uint64_t used_before = graph_memory(cudaGraphMemAttrUsedMemCurrent);

    cudaGraph_t graph;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    cudaMemAllocNodeParams params = alloc_params(bytes);
    cudaGraphNode_t alloc, fill, copy, release;
    REQUIRE(cudaGraphAddMemAllocNode(&alloc, graph, nullptr, 0, &params) == cudaSuccess);
    int* d = static_cast<int*>(params.dptr);
    REQUIRE(d != nullptr);
    int value = 40;
    int n = count;
    void* args[] = {&d, &value, &n};
    const cudaKernelNodeParams kp = kernel_params((void*)node_fill, args);
    REQUIRE(cudaGraphAddKernelNode(&fill, graph, &alloc, 1, &kp) == cudaSuccess);
    std::vector<int> host(count, -1);
    REQUIRE(cudaGraphAddMemcpyNode1D(&copy, graph, &fill, 1, host.data(), d, bytes, cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    REQUIRE(cudaGraphAddMemFreeNode(&release, graph, &copy, 1, d) == cudaSuccess);

    cudaMemAllocNodeParams got = {};
    REQUIRE(cudaGraphMemAllocNodeGetParams(alloc, &got) == cudaSuccess);
    CHECK(got.dptr == d);
    CHECK(got.bytesize == bytes);
    CHECK(got.poolProps.location.id == 0);
    void* freed = nullptr;
    REQUIRE(cudaGraphMemFreeNodeGetParams(release, &freed) == cudaSuccess);
    CHECK(freed == d);
    CHECK(cudaGraphMemAllocNodeGetParams(release, &got) == cudaErrorInvalidValue);
    CHECK(cudaGraphMemFreeNodeGetParams(release, nullptr) == cudaErrorInvalidValue);
    cudaGetLastError();

    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    for (int launch = 0; launch < 3; ++launch) {
        std::fill(host.begin(), host.end(), -1);
        REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
        REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
        CHECK(filled(host, 40));
    }
    REQUIRE(cudaGraphMemAllocNodeGetParams(alloc, &got) == cudaSuccess);
    CHECK(got.dptr == d);  // fixed for every launch

    // Freed in the graph, the memory stays the graph's, counted in 32 MiB
    // steps (measured on an H200, CUDA 13.0); the high marks saw it; a trim
    // gives the reserve back.
    CHECK(graph_memory(cudaGraphMemAttrUsedMemCurrent) == used_before + (std::uint64_t(32) << 20));
    CHECK(graph_memory(cudaGraphMemAttrUsedMemHigh) >= used_before + bytes);
    CHECK(graph_memory(cudaGraphMemAttrReservedMemHigh) >= bytes);
    REQUIRE(cudaDeviceGraphMemTrim(0) == cudaSuccess);
    CHECK(graph_memory(cudaGraphMemAttrReservedMemCurrent) == 0);
    CHECK(graph_memory(cudaGraphMemAttrUsedMemCurrent) == used_before);
    REQUIRE(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero) == cudaSuccess);
    CHECK(graph_memory(cudaGraphMemAttrUsedMemHigh) == used_before);
    std::uint64_t seven = 7;
    CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &seven) == cudaErrorInvalidValue);
    CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero) == cudaErrorInvalidValue);
    std::uint64_t ignored;
    CHECK(cudaDeviceGetGraphMemAttribute(-1, cudaGraphMemAttrUsedMemCurrent, &ignored) == cudaErrorInvalidDevice);
    cudaGetLastError();

    // CUDA's rules for a graph with memory nodes (cudaErrorNotSupported:
    // measured on an H200, CUDA 13.0).
    cudaGraphExec_t second;
    CHECK(cudaGraphInstantiate(&second, graph, 0) == cudaErrorNotSupported);  // one at a time
    cudaGraph_t clone;
    CHECK(cudaGraphClone(&clone, graph) == cudaErrorNotSupported);
    cudaGraphNode_t again;
    CHECK(cudaGraphAddMemFreeNode(&again, graph, nullptr, 0, d) == cudaErrorInvalidValue);  // freed twice
    int* plain = nullptr;
    REQUIRE(cudaMalloc(&plain, 64) == cudaSuccess);
    CHECK(cudaGraphAddMemFreeNode(&again, graph, nullptr, 0, plain) == cudaErrorInvalidValue);
    CHECK(cudaGraphDestroyNode(copy) == cudaErrorNotSupported);
    cudaMemAllocNodeParams empty = alloc_params(0);
    CHECK(cudaGraphAddMemAllocNode(&again, graph, nullptr, 0, &empty) == cudaErrorInvalidValue);
    cudaGetLastError();
    cudaFree(plain);

    REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
    REQUIRE(cudaGraphInstantiate(&second, graph, 0) == cudaSuccess);  // the first is gone
    CHECK(cudaGraphExecDestroy(second) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
    cudaStreamDestroy(stream);
}

TEST_CASE("memory a graph leaves allocated: freed by cudaFreeAsync, cudaFree, another graph or on relaunch") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    cudaGraph_t graph;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    cudaMemAllocNodeParams params = alloc_params(bytes);
    cudaGraphNode_t alloc, fill;
    REQUIRE(cudaGraphAddMemAllocNode(&alloc, graph, nullptr, 0, &params) == cudaSuccess);
    int* d = static_cast<int*>(params.dptr);
    int value = 3;
    int n = count;
    void* args[] = {&d, &value, &n};
    const cudaKernelNodeParams kp = kernel_params((void*)node_fill, args);
    REQUIRE(cudaGraphAddKernelNode(&fill, graph, &alloc, 1, &kp) == cudaSuccess);
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);  // the executable graph keeps the memory

    // After the launch, stream work may use the memory until it is freed.
    std::vector<int> host(count, -1);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    node_add<<<blocks, threads, 0, stream>>>(d, 100, count);
    REQUIRE(cudaMemcpyAsync(host.data(), d, bytes, cudaMemcpyDeviceToHost, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    CHECK(filled(host, 103));
    CHECK(graph_memory(cudaGraphMemAttrUsedMemCurrent) >= bytes);

    // Not freed yet: a relaunch is refused.
    CHECK(cudaGraphLaunch(exec, stream) == cudaErrorInvalidValue);
    cudaGetLastError();
    REQUIRE(cudaFreeAsync(d, stream) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    REQUIRE(cudaFree(d) == cudaSuccess);
    CHECK(cudaFree(d) == cudaErrorInvalidValue);  // not allocated now
    cudaGetLastError();

    // A free node of another graph frees it.
    cudaGraph_t free_graph;
    REQUIRE(cudaGraphCreate(&free_graph, 0) == cudaSuccess);
    cudaGraphNode_t release;
    REQUIRE(cudaGraphAddMemFreeNode(&release, free_graph, nullptr, 0, d) == cudaSuccess);
    cudaGraphExec_t free_exec;
    REQUIRE(cudaGraphInstantiate(&free_exec, free_graph, 0) == cudaSuccess);
    CHECK(cudaGraphLaunch(free_exec, stream) == cudaErrorInvalidValue);  // nothing to free yet
    cudaGetLastError();
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(free_exec, stream) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaFreeAsync(d, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);

    // cudaGraphInstantiateFlagAutoFreeOnLaunch frees what the last launch left.
    REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
    cudaGraph_t again;
    REQUIRE(cudaGraphCreate(&again, 0) == cudaSuccess);
    cudaMemAllocNodeParams params2 = alloc_params(bytes);
    REQUIRE(cudaGraphAddMemAllocNode(&alloc, again, nullptr, 0, &params2) == cudaSuccess);
    cudaGraphExec_t auto_free;
    REQUIRE(cudaGraphInstantiateWithFlags(&auto_free, again, cudaGraphInstantiateFlagAutoFreeOnLaunch) ==
            cudaSuccess);
    unsigned long long flags = 0;
    REQUIRE(cudaGraphExecGetFlags(auto_free, &flags) == cudaSuccess);
    CHECK(flags == cudaGraphInstantiateFlagAutoFreeOnLaunch);
    REQUIRE(cudaGraphLaunch(auto_free, stream) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(auto_free, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    REQUIRE(cudaFree(params2.dptr) == cudaSuccess);
    CHECK(cudaGraphExecDestroy(auto_free) == cudaSuccess);
    CHECK(cudaGraphExecDestroy(free_exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(again) == cudaSuccess);
    CHECK(cudaGraphDestroy(free_graph) == cudaSuccess);
    cudaStreamDestroy(stream);
}

TEST_CASE("cudaMallocAsync and cudaFreeAsync captured become alloc and free nodes") {
    cudaStream_t stream, side;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) == cudaSuccess);
    cudaEvent_t fork, join;
    REQUIRE(cudaEventCreate(&fork) == cudaSuccess);
    REQUIRE(cudaEventCreate(&join) == cudaSuccess);
    std::vector<int> host(count, -1);
    cudaGraph_t graph;
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    int* a = nullptr;
    int* b = nullptr;
    REQUIRE(cudaMallocAsync(&a, bytes, stream) == cudaSuccess);
    REQUIRE(cudaMallocAsync(&b, bytes, stream) == cudaSuccess);
    node_fill<<<blocks, threads, 0, stream>>>(a, 5, count);
    REQUIRE(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream) == cudaSuccess);
    REQUIRE(cudaFreeAsync(a, stream) == cudaSuccess);
    // b is freed on a forked stream, which is destroyed once joined (as NVIDIA's sample does).
    REQUIRE(cudaEventRecord(fork, stream) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(side, fork, 0) == cudaSuccess);
    node_add<<<blocks, threads, 0, side>>>(b, 1000, count);
    REQUIRE(cudaMemcpyAsync(host.data(), b, bytes, cudaMemcpyDeviceToHost, side) == cudaSuccess);
    REQUIRE(cudaFreeAsync(b, side) == cudaSuccess);
    REQUIRE(cudaEventRecord(join, side) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(stream, join, 0) == cudaSuccess);
    REQUIRE(cudaStreamDestroy(side) == cudaSuccess);
    REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
    CHECK(nodes_of_type(graph, cudaGraphNodeTypeMemAlloc) == 2);
    CHECK(nodes_of_type(graph, cudaGraphNodeTypeMemFree) == 2);
    CHECK(host[0] == -1);  // nothing ran

    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    for (int launch = 0; launch < 2; ++launch) {
        std::fill(host.begin(), host.end(), -1);
        REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
        REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
        CHECK(filled(host, 1005));
    }
    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
    cudaEventDestroy(fork);
    cudaEventDestroy(join);
    cudaStreamDestroy(stream);
}

// ---- parameters of memcpy, memset and host nodes ------------------------------------
TEST_CASE("SetParams of memcpy, memset and host nodes change what the next launch does") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    int* d = nullptr;
    int* other = nullptr;
    REQUIRE(cudaMalloc(&d, bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&other, bytes) == cudaSuccess);
    REQUIRE(cudaMemset(other, 0, bytes) == cudaSuccess);
    std::vector<int> host(count, -1);
    int calls_one = 0, calls_ten = 0;

    cudaGraph_t graph;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    cudaMemsetParams ms = {};
    ms.dst = d;
    ms.value = 1;
    ms.elementSize = sizeof(int);
    ms.width = count;
    ms.height = 1;
    cudaGraphNode_t set, copy, host_node;
    REQUIRE(cudaGraphAddMemsetNode(&set, graph, nullptr, 0, &ms) == cudaSuccess);
    REQUIRE(cudaGraphAddMemcpyNode1D(&copy, graph, &set, 1, host.data(), d, bytes, cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    cudaHostNodeParams hp = {add_one, &calls_one};
    REQUIRE(cudaGraphAddHostNode(&host_node, graph, &copy, 1, &hp) == cudaSuccess);

    cudaMemsetParams ms_got = {};
    REQUIRE(cudaGraphMemsetNodeGetParams(set, &ms_got) == cudaSuccess);
    CHECK(ms_got.dst == d);
    CHECK(ms_got.value == 1);
    CHECK(ms_got.width == size_t(count));
    cudaMemcpy3DParms cp = {};
    REQUIRE(cudaGraphMemcpyNodeGetParams(copy, &cp) == cudaSuccess);
    CHECK(cp.dstPtr.ptr == host.data());
    CHECK(cp.srcPtr.ptr == d);
    CHECK(cp.extent.width * cp.extent.height * cp.extent.depth == bytes);
    cudaHostNodeParams hp_got = {};
    REQUIRE(cudaGraphHostNodeGetParams(host_node, &hp_got) == cudaSuccess);
    const bool same_function = hp_got.fn == add_one;
    CHECK(same_function);
    CHECK(cudaGraphMemsetNodeGetParams(copy, &ms_got) == cudaErrorInvalidValue);  // not a memset node
    cudaGetLastError();

    // The graph's nodes changed: executable graphs made after see it.
    ms.value = 0x02020202;
    ms.elementSize = 1;
    ms.width = bytes;
    REQUIRE(cudaGraphMemsetNodeSetParams(set, &ms) == cudaSuccess);
    hp.fn = add_ten;
    hp.userData = &calls_ten;
    REQUIRE(cudaGraphHostNodeSetParams(host_node, &hp) == cudaSuccess);
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    CHECK(host[0] == 0x02020202);
    CHECK(host[count - 1] == 0x02020202);
    CHECK(calls_one == 0);
    CHECK(calls_ten == 10);

    // The executable graph's own copies changed: the graph keeps its parameters.
    ms.value = 7;
    ms.elementSize = sizeof(int);
    ms.width = count;
    REQUIRE(cudaGraphExecMemsetNodeSetParams(exec, set, &ms) == cudaSuccess);
    hp.fn = add_one;
    hp.userData = &calls_one;
    REQUIRE(cudaGraphExecHostNodeSetParams(exec, host_node, &hp) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    CHECK(host[0] == 7);
    CHECK(host[count - 1] == 7);
    CHECK(calls_one == 1);
    CHECK(calls_ten == 10);
    REQUIRE(cudaGraphMemsetNodeGetParams(set, &ms_got) == cudaSuccess);
    CHECK(ms_got.value == 0x02020202u);

    // The copy now reads another buffer (all zeros), in the executable graph, then in the graph.
    REQUIRE(cudaGraphExecMemcpyNodeSetParams1D(exec, copy, host.data(), other, bytes, cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    CHECK(host[0] == 0);
    CHECK(host[count - 1] == 0);
    REQUIRE(cudaGraphMemcpyNodeSetParams1D(copy, host.data(), other, bytes / 2, cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    REQUIRE(cudaGraphMemcpyNodeGetParams(copy, &cp) == cudaSuccess);
    CHECK(cp.srcPtr.ptr == other);
    CHECK(cp.extent.width * cp.extent.height * cp.extent.depth == bytes / 2);

    // What CUDA refuses: a bad copy, a multi-row fill in an executable graph, a host node without fn.
    CHECK(cudaGraphMemcpyNodeSetParams1D(copy, host.data(), other, 2 * bytes, cudaMemcpyDeviceToHost) !=
          cudaSuccess);
    cudaMemsetParams rows = ms;
    rows.width = 10;
    rows.height = 2;
    rows.pitch = 64;
    CHECK(cudaGraphExecMemsetNodeSetParams(exec, set, &rows) == cudaErrorInvalidValue);
    cudaHostNodeParams no_fn = {nullptr, nullptr};
    CHECK(cudaGraphHostNodeSetParams(host_node, &no_fn) == cudaErrorInvalidValue);
    CHECK(cudaGraphExecHostNodeSetParams(exec, set, &hp) == cudaErrorInvalidValue);  // not a host node
    cudaGetLastError();

    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
    cudaFree(d);
    cudaFree(other);
    cudaStreamDestroy(stream);
}

TEST_CASE("a 3D memcpy node's parameters are read back and changed") {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, bytes) == cudaSuccess);
    std::vector<int> source(count), host(count, -1);
    for (int i = 0; i < count; ++i) source[i] = 3 * i;
    cudaGraph_t graph;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(source.data(), bytes, count, 1);
    p.dstPtr = make_cudaPitchedPtr(d, bytes, count, 1);
    p.extent = make_cudaExtent(bytes / 2, 1, 1);
    p.kind = cudaMemcpyHostToDevice;
    cudaGraphNode_t up, down;
    REQUIRE(cudaGraphAddMemcpyNode(&up, graph, nullptr, 0, &p) == cudaSuccess);
    REQUIRE(cudaGraphAddMemcpyNode1D(&down, graph, &up, 1, host.data(), d, bytes, cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    cudaMemcpy3DParms got = {};
    REQUIRE(cudaGraphMemcpyNodeGetParams(up, &got) == cudaSuccess);
    CHECK(got.extent.width == bytes / 2);
    CHECK(got.srcPtr.ptr == source.data());
    p.extent = make_cudaExtent(bytes, 1, 1);  // the whole buffer now
    REQUIRE(cudaGraphMemcpyNodeSetParams(up, &p) == cudaSuccess);
    REQUIRE(cudaMemset(d, 0, bytes) == cudaSuccess);
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
    CHECK(host == source);
    CHECK(cudaGraphExecMemcpyNodeSetParams(exec, up, &p) == cudaSuccess);
    p.extent = make_cudaExtent(16, 2, 1);  // two rows: not for an executable graph
    CHECK(cudaGraphExecMemcpyNodeSetParams(exec, up, &p) == cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
    cudaFree(d);
}

// ---- event nodes ---------------------------------------------------------------------
TEST_CASE("an event record node's event completes with the graph; a wait node orders another stream") {
    cudaStream_t first, second;
    REQUIRE(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking) == cudaSuccess);
    cudaEvent_t done, other, start;
    REQUIRE(cudaEventCreate(&done) == cudaSuccess);
    REQUIRE(cudaEventCreate(&other) == cudaSuccess);
    REQUIRE(cudaEventCreate(&start) == cudaSuccess);
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, bytes) == cudaSuccess);
    REQUIRE(cudaMemset(d, 0, bytes) == cudaSuccess);

    // Producer: a slow host step, a kernel, then the record node.
    cudaGraph_t producer;
    REQUIRE(cudaGraphCreate(&producer, 0) == cudaSuccess);
    cudaGraphNode_t slow, fill, recorded;
    cudaHostNodeParams hp = {sleep_a_while, nullptr};
    REQUIRE(cudaGraphAddHostNode(&slow, producer, nullptr, 0, &hp) == cudaSuccess);
    int value = 9;
    int n = count;
    void* args[] = {&d, &value, &n};
    const cudaKernelNodeParams kp = kernel_params((void*)node_fill, args);
    REQUIRE(cudaGraphAddKernelNode(&fill, producer, &slow, 1, &kp) == cudaSuccess);
    REQUIRE(cudaGraphAddEventRecordNode(&recorded, producer, &fill, 1, done) == cudaSuccess);
    cudaEvent_t got = nullptr;
    REQUIRE(cudaGraphEventRecordNodeGetEvent(recorded, &got) == cudaSuccess);
    CHECK(got == done);
    cudaGraphNodeType type;
    REQUIRE(cudaGraphNodeGetType(recorded, &type) == cudaSuccess);
    CHECK(type == cudaGraphNodeTypeEventRecord);

    // Consumer: waits for the event, then copies.
    std::vector<int> host(count, -1);
    cudaGraph_t consumer;
    REQUIRE(cudaGraphCreate(&consumer, 0) == cudaSuccess);
    cudaGraphNode_t wait, copy;
    REQUIRE(cudaGraphAddEventWaitNode(&wait, consumer, nullptr, 0, done) == cudaSuccess);
    REQUIRE(cudaGraphAddMemcpyNode1D(&copy, consumer, &wait, 1, host.data(), d, bytes, cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    REQUIRE(cudaGraphEventWaitNodeGetEvent(wait, &got) == cudaSuccess);
    CHECK(got == done);
    CHECK(cudaGraphEventWaitNodeGetEvent(recorded, &got) == cudaErrorInvalidValue);  // not a wait node
    CHECK(cudaGraphAddEventRecordNode(&recorded, producer, nullptr, 0, nullptr) == cudaErrorInvalidValue);
    cudaGetLastError();

    cudaGraphExec_t produce, consume;
    REQUIRE(cudaGraphInstantiate(&produce, producer, 0) == cudaSuccess);
    REQUIRE(cudaGraphInstantiate(&consume, consumer, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(produce, first) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(consume, second) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(second) == cudaSuccess);
    CHECK(filled(host, 9));  // the copy waited for the kernel
    REQUIRE(cudaEventSynchronize(done) == cudaSuccess);
    CHECK(cudaEventQuery(done) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(first) == cudaSuccess);

    // The executable graph records another event now; the graph's node keeps its own.
    REQUIRE(cudaGraphExecEventRecordNodeSetEvent(produce, recorded, other) == cudaSuccess);
    REQUIRE(cudaEventRecord(start, first) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(produce, first) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(first) == cudaSuccess);
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, other) == cudaSuccess);  // recorded by the graph
    CHECK(ms >= 0);
    REQUIRE(cudaGraphEventRecordNodeGetEvent(recorded, &got) == cudaSuccess);
    CHECK(got == done);
    REQUIRE(cudaGraphEventRecordNodeSetEvent(recorded, other) == cudaSuccess);
    REQUIRE(cudaGraphEventRecordNodeGetEvent(recorded, &got) == cudaSuccess);
    CHECK(got == other);
    REQUIRE(cudaGraphEventWaitNodeSetEvent(wait, other) == cudaSuccess);
    REQUIRE(cudaGraphEventWaitNodeGetEvent(wait, &got) == cudaSuccess);
    CHECK(got == other);
    CHECK(cudaGraphExecEventWaitNodeSetEvent(consume, wait, other) == cudaSuccess);
    CHECK(cudaGraphExecEventWaitNodeSetEvent(consume, copy, other) == cudaErrorInvalidValue);
    cudaGetLastError();

    CHECK(cudaGraphExecDestroy(produce) == cudaSuccess);
    CHECK(cudaGraphExecDestroy(consume) == cudaSuccess);
    CHECK(cudaGraphDestroy(producer) == cudaSuccess);
    CHECK(cudaGraphDestroy(consumer) == cudaSuccess);
    cudaEventDestroy(done);
    cudaEventDestroy(other);
    cudaEventDestroy(start);
    cudaFree(d);
    cudaStreamDestroy(first);
    cudaStreamDestroy(second);
}

// ---- child graphs --------------------------------------------------------------------
TEST_CASE("a child graph node runs a copy of its graph, and takes new parameters in an executable graph") {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, bytes) == cudaSuccess);
    std::vector<int> host(count, -1);
    int n = count;

    // The child adds 5.
    cudaGraph_t child;
    REQUIRE(cudaGraphCreate(&child, 0) == cudaSuccess);
    int add = 5;
    void* add_args[] = {&d, &add, &n};
    const cudaKernelNodeParams add_params = kernel_params((void*)node_add, add_args);
    cudaGraphNode_t child_add;
    REQUIRE(cudaGraphAddKernelNode(&child_add, child, nullptr, 0, &add_params) == cudaSuccess);

    // The parent fills, runs the child, copies back.
    cudaGraph_t parent;
    REQUIRE(cudaGraphCreate(&parent, 0) == cudaSuccess);
    int value = 100;
    void* fill_args[] = {&d, &value, &n};
    const cudaKernelNodeParams fill_params = kernel_params((void*)node_fill, fill_args);
    cudaGraphNode_t fill, sub, copy;
    REQUIRE(cudaGraphAddKernelNode(&fill, parent, nullptr, 0, &fill_params) == cudaSuccess);
    REQUIRE(cudaGraphAddChildGraphNode(&sub, parent, &fill, 1, child) == cudaSuccess);
    REQUIRE(cudaGraphAddMemcpyNode1D(&copy, parent, &sub, 1, host.data(), d, bytes, cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    cudaGraphNodeType type;
    REQUIRE(cudaGraphNodeGetType(sub, &type) == cudaSuccess);
    CHECK(type == cudaGraphNodeTypeGraph);

    // The node holds a copy: a node added to `child` now is not in it.
    cudaGraphNode_t late;
    REQUIRE(cudaGraphAddKernelNode(&late, child, &child_add, 1, &add_params) == cudaSuccess);
    cudaGraph_t embedded = nullptr;
    REQUIRE(cudaGraphChildGraphNodeGetGraph(sub, &embedded) == cudaSuccess);
    REQUIRE(embedded != nullptr);
    CHECK(embedded != child);
    size_t embedded_nodes = 0;
    REQUIRE(cudaGraphGetNodes(embedded, nullptr, &embedded_nodes) == cudaSuccess);
    CHECK(embedded_nodes == 1);
    CHECK(cudaGraphChildGraphNodeGetGraph(fill, &embedded) == cudaErrorInvalidValue);
    cudaGetLastError();

    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, parent, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
    CHECK(filled(host, 105));

    // New parameters for the child, from a graph of the same shape: it adds 50.
    cudaGraph_t replacement;
    REQUIRE(cudaGraphCreate(&replacement, 0) == cudaSuccess);
    int add_more = 50;
    void* more_args[] = {&d, &add_more, &n};
    const cudaKernelNodeParams more_params = kernel_params((void*)node_add, more_args);
    cudaGraphNode_t replacement_add;
    REQUIRE(cudaGraphAddKernelNode(&replacement_add, replacement, nullptr, 0, &more_params) == cudaSuccess);
    REQUIRE(cudaGraphExecChildGraphNodeSetParams(exec, sub, replacement) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
    CHECK(filled(host, 150));
    CHECK(cudaGraphExecChildGraphNodeSetParams(exec, sub, child) ==
          cudaErrorGraphExecUpdateFailure);  // two nodes now (measured on an H200, CUDA 13.0)
    CHECK(cudaGraphExecChildGraphNodeSetParams(exec, fill, replacement) == cudaErrorInvalidValue);
    cudaGetLastError();

    // A graph with memory nodes cannot be a child (measured on an H200, CUDA 13.0).
    cudaGraph_t with_memory;
    REQUIRE(cudaGraphCreate(&with_memory, 0) == cudaSuccess);
    cudaMemAllocNodeParams ap = alloc_params(64);
    cudaGraphNode_t alloc, refused;
    REQUIRE(cudaGraphAddMemAllocNode(&alloc, with_memory, nullptr, 0, &ap) == cudaSuccess);
    REQUIRE(cudaGraphAddMemFreeNode(&refused, with_memory, &alloc, 1, ap.dptr) == cudaSuccess);
    CHECK(cudaGraphAddChildGraphNode(&refused, parent, nullptr, 0, with_memory) == cudaErrorNotSupported);
    cudaGetLastError();

    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(with_memory) == cudaSuccess);
    CHECK(cudaGraphDestroy(replacement) == cudaSuccess);
    CHECK(cudaGraphDestroy(parent) == cudaSuccess);
    CHECK(cudaGraphDestroy(child) == cudaSuccess);
    cudaFree(d);
}

// ---- edges, enabled nodes, flags, DOT --------------------------------------------------
TEST_CASE("removed edges, disabled nodes, instantiation flags and the DOT dump") {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, bytes) == cudaSuccess);
    std::vector<int> host(count, -1);
    int n = count;
    cudaGraph_t graph;
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    int value = 20, add = 1;
    void* fill_args[] = {&d, &value, &n};
    void* add_args[] = {&d, &add, &n};
    const cudaKernelNodeParams fill_params = kernel_params((void*)node_fill, fill_args);
    const cudaKernelNodeParams add_params = kernel_params((void*)node_add, add_args);
    cudaGraphNode_t fill, bump, copy, host_node, spare;
    int calls = 0;
    cudaHostNodeParams hp = {add_one, &calls};
    REQUIRE(cudaGraphAddKernelNode(&fill, graph, nullptr, 0, &fill_params) == cudaSuccess);
    REQUIRE(cudaGraphAddKernelNode(&bump, graph, &fill, 1, &add_params) == cudaSuccess);
    REQUIRE(cudaGraphAddMemcpyNode1D(&copy, graph, &bump, 1, host.data(), d, bytes, cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    REQUIRE(cudaGraphAddHostNode(&host_node, graph, &copy, 1, &hp) == cudaSuccess);
    REQUIRE(cudaGraphAddEmptyNode(&spare, graph, &fill, 1) == cudaSuccess);

    size_t edges = 0;
    REQUIRE(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges) == cudaSuccess);
    CHECK(edges == 4);
    REQUIRE(cudaGraphRemoveDependencies(graph, &fill, &spare, nullptr, 1) == cudaSuccess);
    REQUIRE(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges) == cudaSuccess);
    CHECK(edges == 3);
    CHECK(cudaGraphRemoveDependencies(graph, &fill, &spare, nullptr, 1) == cudaErrorInvalidValue);  // gone
    CHECK(cudaGraphRemoveDependencies(graph, &copy, &fill, nullptr, 1) == cudaErrorInvalidValue);   // never was
    cudaGetLastError();

    // The process id keeps this file apart from other variants of this test that ctest runs at the same time.
    const std::string dot_path = "cuemu_graph_nodes_test." + std::to_string(getpid()) + ".dot";
    const char* path = dot_path.c_str();
    REQUIRE(cudaGraphDebugDotPrint(graph, path, cudaGraphDebugDotFlagsVerbose) == cudaSuccess);
    std::ifstream dot(path);
    std::stringstream text;
    text << dot.rdbuf();
    CHECK(text.str().find("digraph") != std::string::npos);
    CHECK(text.str().find("->") != std::string::npos);
    std::remove(path);
    CHECK(cudaGraphDebugDotPrint(graph, nullptr, 0) == cudaErrorInvalidValue);
    cudaGetLastError();

    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    unsigned long long flags = 99;
    REQUIRE(cudaGraphExecGetFlags(exec, &flags) == cudaSuccess);
    CHECK(flags == 0);
    unsigned int enabled = 0;
    REQUIRE(cudaGraphNodeGetEnabled(exec, bump, &enabled) == cudaSuccess);
    CHECK(enabled == 1);
    REQUIRE(cudaGraphNodeSetEnabled(exec, bump, 0) == cudaSuccess);
    REQUIRE(cudaGraphNodeGetEnabled(exec, bump, &enabled) == cudaSuccess);
    CHECK(enabled == 0);
    CHECK(cudaGraphNodeSetEnabled(exec, host_node, 0) == cudaErrorInvalidValue);  // host nodes cannot be
    cudaGetLastError();
    REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
    CHECK(filled(host, 20));  // the add did not run
    CHECK(calls == 1);
    REQUIRE(cudaGraphNodeSetEnabled(exec, bump, 1) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
    CHECK(filled(host, 21));
    CHECK(calls == 2);

    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
    cudaFree(d);
}

#if defined(CUEMU)
// The emulator keeps a captured call's work, not its parameters: it says so.
TEST_CASE("GetParams of a captured memset node is refused with cudaErrorNotSupported") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, bytes) == cudaSuccess);
    cudaGraph_t graph;
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    REQUIRE(cudaMemsetAsync(d, 0, bytes, stream) == cudaSuccess);
    REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
    size_t total = 1;
    cudaGraphNode_t node;
    REQUIRE(cudaGraphGetNodes(graph, &node, &total) == cudaSuccess);
    cudaMemsetParams p;
    CHECK(cudaGraphMemsetNodeGetParams(node, &p) == cudaErrorNotSupported);
    cudaGetLastError();
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
    cudaFree(d);
    cudaStreamDestroy(stream);
}
#endif
