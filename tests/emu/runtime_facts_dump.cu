// runtime_facts_dump.cu - prints what the CUDA runtime answers to queries whose
// answers the emulator must match or mirror: every cudaDeviceGetAttribute
// number, every cudaDeviceGetLimit number, and the counts of the default memory
// pool and of graph memory as stream-ordered and graph allocations come and go.
// Built with nvcc and run on a GPU, its output was kept in docs/gpu-runs/.
//
//   nvcc -arch=sm_90 runtime_facts_dump.cu -o dump && ./dump > gpu.txt
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "gpu_dump.h"

static void pool_counts(cudaMemPool_t pool, const char* when) {
    const cudaMemPoolAttr attrs[] = {cudaMemPoolAttrReservedMemCurrent, cudaMemPoolAttrReservedMemHigh,
                                     cudaMemPoolAttrUsedMemCurrent, cudaMemPoolAttrUsedMemHigh};
    const char* names[] = {"reserved", "reserved-high", "used", "used-high"};
    std::printf("pool %s:", when);
    for (int a = 0; a < 4; ++a) {
        unsigned long long v = 0;
        cudaError_t e = cudaMemPoolGetAttribute(pool, attrs[a], &v);
        std::printf(" %s %llu (%d)", names[a], v, static_cast<int>(e));
    }
    std::printf("\n");
}

static void graph_counts(const char* when) {
    const cudaGraphMemAttributeType attrs[] = {cudaGraphMemAttrUsedMemCurrent, cudaGraphMemAttrUsedMemHigh,
                                               cudaGraphMemAttrReservedMemCurrent,
                                               cudaGraphMemAttrReservedMemHigh};
    const char* names[] = {"used", "used-high", "reserved", "reserved-high"};
    std::printf("graph-memory %s:", when);
    for (int a = 0; a < 4; ++a) {
        unsigned long long v = 0;
        cudaError_t e = cudaDeviceGetGraphMemAttribute(0, attrs[a], &v);
        std::printf(" %s %llu (%d)", names[a], v, static_cast<int>(e));
    }
    std::printf("\n");
}

int main() {
    // Before anything else has made the context.
    std::printf("first call cudaCtxResetPersistingL2Cache: %d\n",
                static_cast<int>(cudaCtxResetPersistingL2Cache()));
    std::printf("then cudaGetLastError: %d\n", static_cast<int>(cudaGetLastError()));
    CHECK(cudaFree(nullptr));
    std::printf("after cudaFree(0) cudaCtxResetPersistingL2Cache: %d\n",
                static_cast<int>(cudaCtxResetPersistingL2Cache()));
    cudaGetLastError();

    for (int a = 0; a < 260; ++a) {
        int v = 0;
        cudaError_t e = cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(a), 0);
        std::printf("attribute %d: %d value %d\n", a, static_cast<int>(e), e == cudaSuccess ? v : 0);
    }
    cudaGetLastError();
    for (int l = 0; l < 12; ++l) {
        size_t v = 0;
        cudaError_t e = cudaDeviceGetLimit(&v, static_cast<cudaLimit>(l));
        std::printf("limit %d: %d value %zu\n", l, static_cast<int>(e), e == cudaSuccess ? v : 0);
    }
    cudaGetLastError();

    // The default pool: sizes that straddle its granularity.
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    pool_counts(pool, "at start");
    const size_t sizes[] = {1, 256, 257, 4000, 2u << 20, (2u << 20) + 1, 40u << 20};
    for (size_t bytes : sizes) {
        void* p = nullptr;
        CHECK(cudaMallocAsync(&p, bytes, stream));
        CHECK(cudaStreamSynchronize(stream));
        char when[64];
        std::snprintf(when, sizeof when, "after malloc %zu", bytes);
        pool_counts(pool, when);
        CHECK(cudaFreeAsync(p, stream));
        CHECK(cudaStreamSynchronize(stream));
        std::snprintf(when, sizeof when, "after free %zu", bytes);
        pool_counts(pool, when);
    }
    CHECK(cudaMemPoolTrimTo(pool, 0));
    pool_counts(pool, "after trim to 0");
    unsigned long long zero = 0;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));
    pool_counts(pool, "after resetting the highs");

    // Graph memory: an alloc node, a kernel, a free node.
    graph_counts("at start");
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaMemAllocNodeParams alloc = {};
    alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    alloc.poolProps.location.id = 0;
    alloc.bytesize = 1000 * sizeof(int);
    cudaGraphNode_t alloc_node, free_node;
    CHECK(cudaGraphAddMemAllocNode(&alloc_node, graph, nullptr, 0, &alloc));
    CHECK(cudaGraphAddMemFreeNode(&free_node, graph, &alloc_node, 1, alloc.dptr));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    graph_counts("after instantiate");
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    graph_counts("after launch");
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    graph_counts("after destroy");
    CHECK(cudaDeviceGraphMemTrim(0));
    graph_counts("after trim");
    CHECK(cudaStreamDestroy(stream));
    return 0;
}
