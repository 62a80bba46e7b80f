// graph_test_support.h - what the graph tests share: a log that host nodes
// write their names into (the order a launch ran them in), every node of a
// graph as a vector, and an allocation node's parameters.
#ifndef CUEMU_TESTS_GRAPH_TEST_SUPPORT_H
#define CUEMU_TESTS_GRAPH_TEST_SUPPORT_H

#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <mutex>
#include <string>
#include <vector>

// Host nodes append their name: the order the graph ran them in.
struct order_log {
    std::mutex m;
    std::string ran;
};
struct host_step {
    order_log* log;
    char name;
};
inline void CUDART_CB note_step(void* data) {
    auto* step = static_cast<host_step*>(data);
    std::lock_guard<std::mutex> lock(step->log->m);
    step->log->ran += step->name;
}

inline std::vector<cudaGraphNode_t> all_nodes(cudaGraph_t graph) {
    size_t count = 0;
    REQUIRE(cudaGraphGetNodes(graph, nullptr, &count) == cudaSuccess);
    std::vector<cudaGraphNode_t> nodes(count);
    if (count) REQUIRE(cudaGraphGetNodes(graph, nodes.data(), &count) == cudaSuccess);
    return nodes;
}

// Device memory of `size` bytes on device 0, for an allocation node.
inline cudaMemAllocNodeParams alloc_params(size_t size) {
    cudaMemAllocNodeParams p = {};
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.poolProps.location.id = 0;
    p.bytesize = size;
    return p;
}

#endif
