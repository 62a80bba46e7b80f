// graph_generic.cpp - the generic node calls of CUDA 12.2+: cudaGraphAddNode,
// cudaGraphNodeSetParams, cudaGraphExecNodeSetParams (each a tagged union,
// cudaGraphNodeParams, handed to the per-type call of graphs.cpp,
// graph_nodes.cpp, graph_memory.cpp or graph_conditional.cpp), child graph
// nodes that take their graph (cudaGraphChildGraphOwnershipMove), and
// cudaGraphInstantiateWithParams.
//
// As CUDA asks, the union's bytes past the member in use, reserved0 and
// reserved2 must be zero (cudaErrorInvalidValue otherwise); a type whose node
// the emulator does not have (external semaphores) is refused with
// cudaErrorNotSupported and a line.
#include <cstdio>
#include <cstring>

#include "cuemu/runtime.h"
#include "graph_internal.h"

using namespace cuemu::detail;

namespace {

static_assert(sizeof(cudaGraphNodeParams) == 256, "cudaGraphNodeParams has CUDA's size");

// The size of the union member a node type uses (0: a type with no member).
size_t member_size(cudaGraphNodeType type) {
    switch (type) {
        case cudaGraphNodeTypeKernel: return sizeof(cudaKernelNodeParamsV2);
        case cudaGraphNodeTypeMemcpy: return sizeof(cudaMemcpyNodeParams);
        case cudaGraphNodeTypeMemset: return sizeof(cudaMemsetParamsV2);
        case cudaGraphNodeTypeHost: return sizeof(cudaHostNodeParamsV2);
        case cudaGraphNodeTypeGraph: return sizeof(cudaChildGraphNodeParams);
        case cudaGraphNodeTypeWaitEvent: return sizeof(cudaEventWaitNodeParams);
        case cudaGraphNodeTypeEventRecord: return sizeof(cudaEventRecordNodeParams);
        // Refused, but as not emulated (cudaErrorNotSupported), not as malformed.
        case cudaGraphNodeTypeExtSemaphoreSignal: return sizeof(cudaExternalSemaphoreSignalNodeParamsV2);
        case cudaGraphNodeTypeExtSemaphoreWait: return sizeof(cudaExternalSemaphoreWaitNodeParamsV2);
        case cudaGraphNodeTypeMemAlloc: return sizeof(cudaMemAllocNodeParamsV2);
        case cudaGraphNodeTypeMemFree: return sizeof(cudaMemFreeNodeParams);
        case cudaGraphNodeTypeConditional: return sizeof(cudaConditionalNodeParams);
        default: return 0;
    }
}

// The reserved fields and the union's unused bytes are zero, the type known.
bool well_formed(const cudaGraphNodeParams* p) {
    if (!p || p->reserved2) return false;
    for (int r : p->reserved0)
        if (r) return false;
    if (p->type < cudaGraphNodeTypeKernel || p->type >= cudaGraphNodeTypeCount || p->type == 0x0c)
        return false;
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(p->reserved1);
    for (size_t i = member_size(p->type); i < sizeof(p->reserved1); ++i)
        if (bytes[i]) return false;
    if (p->type == cudaGraphNodeTypeMemcpy &&
        (p->memcpy.flags || p->memcpy.reserved[0] || p->memcpy.reserved[1] || p->memcpy.reserved[2]))
        return false;
    return true;
}

cudaError_t semaphores_refused(const char* call) {
    std::fprintf(stderr, "cuemu: %s: external semaphore nodes are not emulated\n", call);
    return cudaErrorNotSupported;
}

cudaKernelNodeParams kernel_params_of(const cudaKernelNodeParamsV2& v) {
    cudaKernelNodeParams k{};
    k.func = v.func;
    k.grid_dim_member = v.grid_dim_member;
    k.block_dim_member = v.block_dim_member;
    k.sharedMemBytes = v.sharedMemBytes;
    k.kernelParams = v.kernelParams;
    k.extra = v.extra;
    return k;
}

cudaMemsetParams memset_params_of(const cudaMemsetParamsV2& v) {
    return cudaMemsetParams{v.dst, v.pitch, v.value, v.elementSize, v.width, v.height};
}

cudaHostNodeParams host_params_of(const cudaHostNodeParamsV2& v) { return cudaHostNodeParams{v.fn, v.userData}; }

// A child graph node that takes `child` itself: it belongs to the node from
// now on (destroyed with it; not instantiated, destroyed, updated from or
// made a child again on its own).
cudaError_t add_moved_child(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* deps,
                            size_t count, cudaGraph_t child) {
    std::lock_guard<std::mutex> lock(graph_mutex());
    std::vector<cudaGraphNode_t> dependencies;
    if (!is_live_graph_locked(graph) || !is_live_graph_locked(child) || child == graph ||
        child->owner_node || child->being_captured ||
        !dependencies_valid_locked(graph, deps, count, &dependencies))
        return record(cudaErrorInvalidValue);
    for (cudaGraph_t g = graph; g; g = g->owner_node ? g->owner_node->graph : nullptr)
        if (g == child) return record(cudaErrorInvalidValue);  // a graph inside itself
    if (has_conditional_nodes_locked(child)) {
        std::fprintf(stderr, "cuemu: cudaGraphAddNode: a graph with conditional nodes cannot be a "
                             "child graph\n");
        return record(cudaErrorInvalidValue);
    }
    if (has_memory_nodes_locked(child)) {
        std::fprintf(stderr, "cuemu: cudaGraphAddNode: a child graph with memory nodes moved into its "
                             "parent (cudaGraphChildGraphOwnershipMove) is not emulated\n");
        return record(cudaErrorNotSupported);
    }
    work_label label;
    label.category = "child graph";
    cudaGraphNode_t node = add_node_locked(graph, cudaGraphNodeTypeGraph, dependencies, device_work{}, label);
    node->child = child;
    child->owner_node = node;
    *pGraphNode = node;
    return cudaSuccess;
}

// The node's type, which well-formed parameters must name (cudaErrorInvalidValue otherwise).
cudaError_t type_named(cudaGraphNode_t node, const cudaGraphNodeParams* p, cudaGraphNodeType* type) {
    if (!well_formed(p)) return cudaErrorInvalidValue;
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_node_locked(node) || node->type != p->type) return cudaErrorInvalidValue;
    *type = node->type;
    return cudaSuccess;
}

}  // namespace

cudaError_t cudaGraphAddNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                             const cudaGraphNode_t* pDependencies, const cudaGraphEdgeData* dependencyData,
                             size_t numDependencies, cudaGraphNodeParams* nodeParams, const char* cuemu_file,
                             int cuemu_line) {
    if (!pGraphNode || !well_formed(nodeParams)) return record(cudaErrorInvalidValue);
    if (!default_edges(dependencyData, numDependencies, "cudaGraphAddNode")) return record(cudaErrorNotSupported);
    cudaGraphNodeParams& p = *nodeParams;
    const cudaGraphNode_t* deps = pDependencies;
    const size_t n = numDependencies;
    switch (p.type) {
        case cudaGraphNodeTypeKernel: {
            const cudaKernelNodeParams k = kernel_params_of(p.kernel);
            return cudaGraphAddKernelNode(pGraphNode, graph, deps, n, &k, cuemu_file, cuemu_line);
        }
        case cudaGraphNodeTypeMemcpy: return cudaGraphAddMemcpyNode(pGraphNode, graph, deps, n, &p.memcpy.copyParams);
        case cudaGraphNodeTypeMemset: {
            const cudaMemsetParams m = memset_params_of(p.memset);
            return cudaGraphAddMemsetNode(pGraphNode, graph, deps, n, &m);
        }
        case cudaGraphNodeTypeHost: {
            const cudaHostNodeParams h = host_params_of(p.host);
            return cudaGraphAddHostNode(pGraphNode, graph, deps, n, &h);
        }
        case cudaGraphNodeTypeGraph:
            if (p.graph.ownership == cudaGraphChildGraphOwnershipMove)
                return add_moved_child(pGraphNode, graph, deps, n, p.graph.graph);
            if (p.graph.ownership != cudaGraphChildGraphOwnershipClone) return record(cudaErrorInvalidValue);
            return cudaGraphAddChildGraphNode(pGraphNode, graph, deps, n, p.graph.graph);
        case cudaGraphNodeTypeEmpty: return cudaGraphAddEmptyNode(pGraphNode, graph, deps, n);
        case cudaGraphNodeTypeWaitEvent: return cudaGraphAddEventWaitNode(pGraphNode, graph, deps, n, p.eventWait.event);
        case cudaGraphNodeTypeEventRecord:
            return cudaGraphAddEventRecordNode(pGraphNode, graph, deps, n, p.eventRecord.event);
        case cudaGraphNodeTypeMemAlloc: {
            cudaMemAllocNodeParams a{p.alloc.poolProps, p.alloc.accessDescs, p.alloc.accessDescCount,
                                     p.alloc.bytesize, nullptr};
            const cudaError_t e = cudaGraphAddMemAllocNode(pGraphNode, graph, deps, n, &a, cuemu_file, cuemu_line);
            if (e == cudaSuccess) p.alloc.dptr = a.dptr;
            return e;
        }
        case cudaGraphNodeTypeMemFree: return cudaGraphAddMemFreeNode(pGraphNode, graph, deps, n, p.free.dptr);
        case cudaGraphNodeTypeConditional:
            return add_conditional_node(pGraphNode, graph, deps, n, &p.conditional);
        default: return record(semaphores_refused("cudaGraphAddNode"));
    }
}

cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, cudaGraphNodeParams* nodeParams, const char* cuemu_file,
                                   int cuemu_line) {
    cudaGraphNodeType type;
    if (cudaError_t e = type_named(node, nodeParams, &type)) return record(e);
    const cudaGraphNodeParams& p = *nodeParams;
    switch (type) {
        case cudaGraphNodeTypeKernel: {
            const cudaKernelNodeParams k = kernel_params_of(p.kernel);
            return cudaGraphKernelNodeSetParams(node, &k, cuemu_file, cuemu_line);
        }
        case cudaGraphNodeTypeMemcpy: return cudaGraphMemcpyNodeSetParams(node, &p.memcpy.copyParams);
        case cudaGraphNodeTypeMemset: {
            const cudaMemsetParams m = memset_params_of(p.memset);
            return cudaGraphMemsetNodeSetParams(node, &m);
        }
        case cudaGraphNodeTypeHost: {
            const cudaHostNodeParams h = host_params_of(p.host);
            return cudaGraphHostNodeSetParams(node, &h);
        }
        case cudaGraphNodeTypeEmpty: return cudaSuccess;  // nothing to set
        case cudaGraphNodeTypeWaitEvent: return cudaGraphEventWaitNodeSetEvent(node, p.eventWait.event);
        case cudaGraphNodeTypeEventRecord: return cudaGraphEventRecordNodeSetEvent(node, p.eventRecord.event);
        case cudaGraphNodeTypeGraph:
        case cudaGraphNodeTypeMemAlloc:
        case cudaGraphNodeTypeMemFree:
        case cudaGraphNodeTypeConditional:
            // CUDA changes these nodes by their own graphs (child, bodies) or not at all.
            std::fprintf(stderr, "cuemu: cudaGraphNodeSetParams: the parameters of a %s node cannot be "
                                 "changed (CUDA does not support it)\n",
                         type == cudaGraphNodeTypeGraph         ? "child graph"
                         : type == cudaGraphNodeTypeConditional ? "conditional"
                                                                : "memory allocation or free");
            return record(cudaErrorNotSupported);
        default: return record(semaphores_refused("cudaGraphNodeSetParams"));
    }
}

cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                       cudaGraphNodeParams* nodeParams, const char* cuemu_file, int cuemu_line) {
    cudaGraphNodeType type;
    if (cudaError_t e = type_named(node, nodeParams, &type)) return record(e);
    const cudaGraphNodeParams& p = *nodeParams;
    switch (type) {
        case cudaGraphNodeTypeKernel: {
            const cudaKernelNodeParams k = kernel_params_of(p.kernel);
            return cudaGraphExecKernelNodeSetParams(graphExec, node, &k, cuemu_file, cuemu_line);
        }
        case cudaGraphNodeTypeMemcpy: return cudaGraphExecMemcpyNodeSetParams(graphExec, node, &p.memcpy.copyParams);
        case cudaGraphNodeTypeMemset: {
            const cudaMemsetParams m = memset_params_of(p.memset);
            return cudaGraphExecMemsetNodeSetParams(graphExec, node, &m);
        }
        case cudaGraphNodeTypeHost: {
            const cudaHostNodeParams h = host_params_of(p.host);
            return cudaGraphExecHostNodeSetParams(graphExec, node, &h);
        }
        case cudaGraphNodeTypeGraph: return cudaGraphExecChildGraphNodeSetParams(graphExec, node, p.graph.graph);
        case cudaGraphNodeTypeEmpty: {
            std::lock_guard<std::mutex> lock(graph_mutex());
            return step_of_locked(graphExec, node) ? cudaSuccess : record(cudaErrorInvalidValue);
        }
        case cudaGraphNodeTypeWaitEvent:
            return cudaGraphExecEventWaitNodeSetEvent(graphExec, node, p.eventWait.event);
        case cudaGraphNodeTypeEventRecord:
            return cudaGraphExecEventRecordNodeSetEvent(graphExec, node, p.eventRecord.event);
        case cudaGraphNodeTypeMemAlloc:
        case cudaGraphNodeTypeMemFree:
        case cudaGraphNodeTypeConditional:
            std::fprintf(stderr, "cuemu: cudaGraphExecNodeSetParams: the parameters of a %s node cannot be "
                                 "changed in an executable graph (CUDA does not support it)\n",
                         type == cudaGraphNodeTypeConditional ? "conditional" : "memory allocation or free");
            return record(cudaErrorNotSupported);
        default: return record(semaphores_refused("cudaGraphExecNodeSetParams"));
    }
}

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams* instantiateParams) {
    if (!instantiateParams) return record(cudaErrorInvalidValue);
    cudaGraphInstantiateParams& p = *instantiateParams;
    p.errNode_out = nullptr;
    p.result_out = cudaGraphInstantiateError;
    const cudaError_t e = instantiate_checked(pGraphExec, graph, p.flags, &p.result_out, &p.errNode_out);
    if (e) return e;
    if (p.flags & cudaGraphInstantiateFlagUpload) {
        if (cudaError_t u = cudaGraphUpload(*pGraphExec, p.uploadStream)) {
            cudaGraphExecDestroy(*pGraphExec);
            p.result_out = cudaGraphInstantiateError;
            return u;
        }
    }
    return cudaSuccess;
}
