// graph_nodes.cpp - the parameters of graph nodes after they are made, and
// the node kinds beyond work: cudaGraph{Memcpy,Memset,Host}Node{Get,Set}Params
// and their cudaGraphExec*SetParams forms, event record and wait nodes,
// child graph nodes, cudaGraphRemoveDependencies, cudaGraphNode{Get,Set}Enabled,
// cudaGraphExecGetFlags, cudaGraphDebugDotPrint and memcpy nodes to and
// from symbols (cudaGraph*MemcpyNode*{To,From}Symbol). Graphs, the Add calls of
// work nodes, instantiation and launch are in graphs.cpp; memory nodes in
// graph_memory.cpp.
//
// New parameters make new work, checked as the Add call checks it (a node
// keeps its old work when they are refused). An event node holds no work:
// cudaGraphLaunch records or waits for its event in stream order, as
// cudaEventRecord and cudaStreamWaitEvent would at that point. A child graph
// node owns a copy of the graph it was given; launching runs its steps in
// place of the node.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>

#include "cuemu/runtime.h"
#include "device_queue.h"
#include "graph_internal.h"
#include "trace.h"

using namespace cuemu::detail;

namespace {

bool node_is_locked(cudaGraphNode_t node, cudaGraphNodeType type) {
    return is_live_node_locked(node) && node->type == type;
}

work_label label_of(const char* category, const char* trace_name) {
    work_label label;
    label.category = category;
    if (trace_enabled()) label.name = trace_name;
    return label;
}

// A captured copy, fill or host function keeps no parameters (CUDA's would).
cudaError_t no_params(const char* call) {
    std::fprintf(stderr, "cuemu: %s of a captured node is not emulated (the emulator keeps a captured "
                         "call's work, not its parameters): only nodes added by hand have them\n",
                 call);
    return record(cudaErrorNotSupported);
}

// Makes a node's new work (without the graph lock: it may call the runtime)
// after checking its type, then gives it the work and keeps the parameters.
cudaError_t set_node(cudaGraphNode_t node, cudaGraphNodeType type,
                     const std::function<cudaError_t(device_work*, work_label*)>& make,
                     const std::function<void(CUgraphNode_st&)>& keep) {
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!node_is_locked(node, type)) return record(cudaErrorInvalidValue);
    }
    device_work work;
    work_label label;
    if (cudaError_t e = make(&work, &label)) return record(e);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!node_is_locked(node, type)) return record(cudaErrorInvalidValue);
    node->work = std::move(work);
    node->label = std::move(label);
    node->has_params = true;
    keep(*node);
    return cudaSuccess;
}

// The same for the step of an executable graph. CUDA lets these calls change
// one-row copies and fills only (`multidimensional`: the new parameters').
cudaError_t set_step(cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraphNodeType type, bool multidimensional,
                     const std::function<cudaError_t(device_work*, work_label*)>& make) {
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        CUgraphExec_st::step* s = step_of_locked(exec, node);
        if (!s || s->type != type) return record(cudaErrorInvalidValue);
        if (s->multidimensional || multidimensional) return record(cudaErrorInvalidValue);
    }
    device_work work;
    work_label label;
    if (cudaError_t e = make(&work, &label)) return record(e);
    std::lock_guard<std::mutex> lock(graph_mutex());
    CUgraphExec_st::step* s = step_of_locked(exec, node);
    if (!s) return record(cudaErrorInvalidValue);
    s->work = std::move(work);
    s->label = std::move(label);
    return cudaSuccess;
}

std::function<cudaError_t(device_work*, work_label*)> memcpy_1d_maker(void* dst, const void* src, size_t count,
                                                                      cudaMemcpyKind kind, const char* file,
                                                                      int line) {
    return [=](device_work* work, work_label* label) {
        return record_one_call([&] { return cudaMemcpyAsync(dst, src, count, kind, 0, file, line); }, work,
                               label);
    };
}

std::function<cudaError_t(device_work*, work_label*)> memcpy_3d_maker(const cudaMemcpy3DParms* p) {
    return [p](device_work* work, work_label* label) {
        *label = label_of("copy", "memcpy node");
        return make_memcpy3d_work(p, work);
    };
}

std::function<cudaError_t(device_work*, work_label*)> memset_maker(const cudaMemsetParams* p) {
    return [p](device_work* work, work_label* label) {
        *label = label_of("memset", "memset node");
        return make_memset_work(p, work);
    };
}

std::function<cudaError_t(device_work*, work_label*)> host_maker(const cudaHostNodeParams* p) {
    return [p](device_work* work, work_label* label) {
        if (!p || !p->fn) return cudaErrorInvalidValue;
        return record_one_call([&] { return cudaLaunchHostFunc(0, p->fn, p->userData); }, work, label);
    };
}

// A node's parameters as kept, for the GetParams calls.
template <class T>
cudaError_t get_params(cudaGraphNode_t node, cudaGraphNodeType type, T* out, T CUgraphNode_st::*member,
                       const char* call) {
    if (!out) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!node_is_locked(node, type)) return record(cudaErrorInvalidValue);
    if (!node->has_params) return no_params(call);
    *out = (*node).*member;
    return cudaSuccess;
}

}  // namespace

cudaMemcpy3DParms cuemu::detail::memcpy_1d_params(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(src), count, count, 1);
    p.dstPtr = make_cudaPitchedPtr(dst, count, count, 1);
    p.extent = make_cudaExtent(count, 1, 1);
    p.kind = kind;
    return p;
}

// ---- memcpy, memset and host node parameters ------------------------------------------
cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, cudaMemcpy3DParms* pNodeParams) {
    return get_params(node, cudaGraphNodeTypeMemcpy, pNodeParams, &CUgraphNode_st::copy_params,
                      "cudaGraphMemcpyNodeGetParams");
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const cudaMemcpy3DParms* pNodeParams) {
    return set_node(node, cudaGraphNodeTypeMemcpy, memcpy_3d_maker(pNodeParams),
                    [&](CUgraphNode_st& n) { keep_copy_params(n, *pNodeParams); });
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src, size_t count,
                                           cudaMemcpyKind kind, const char* cuemu_file, int cuemu_line) {
    return set_node(node, cudaGraphNodeTypeMemcpy, memcpy_1d_maker(dst, src, count, kind, cuemu_file, cuemu_line),
                    [&](CUgraphNode_st& n) { keep_copy_params(n, memcpy_1d_params(dst, src, count, kind)); });
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, cudaMemsetParams* pNodeParams) {
    return get_params(node, cudaGraphNodeTypeMemset, pNodeParams, &CUgraphNode_st::memset_params,
                      "cudaGraphMemsetNodeGetParams");
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams* pNodeParams) {
    return set_node(node, cudaGraphNodeTypeMemset, memset_maker(pNodeParams),
                    [&](CUgraphNode_st& n) { keep_fill_params(n, *pNodeParams); });
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams* pNodeParams) {
    return get_params(node, cudaGraphNodeTypeHost, pNodeParams, &CUgraphNode_st::host_params,
                      "cudaGraphHostNodeGetParams");
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams* pNodeParams) {
    return set_node(node, cudaGraphNodeTypeHost, host_maker(pNodeParams),
                    [&](CUgraphNode_st& n) { n.host_params = *pNodeParams; });
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const cudaMemcpy3DParms* pNodeParams) {
    return set_step(hGraphExec, node, cudaGraphNodeTypeMemcpy, multidimensional_copy(pNodeParams),
                    memcpy_3d_maker(pNodeParams));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void* dst,
                                               const void* src, size_t count, cudaMemcpyKind kind,
                                               const char* cuemu_file, int cuemu_line) {
    return set_step(hGraphExec, node, cudaGraphNodeTypeMemcpy, false,
                    memcpy_1d_maker(dst, src, count, kind, cuemu_file, cuemu_line));
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const cudaMemsetParams* pNodeParams) {
    return set_step(hGraphExec, node, cudaGraphNodeTypeMemset, multidimensional_fill(pNodeParams),
                    memset_maker(pNodeParams));
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                           const cudaHostNodeParams* pNodeParams) {
    return set_step(hGraphExec, node, cudaGraphNodeTypeHost, false, host_maker(pNodeParams));
}

// ---- event record and wait nodes ---------------------------------------------------------
namespace {

bool is_event(cudaEvent_t event) { return event && queue_of_event(event) != nullptr; }

cudaError_t add_event_node(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                           size_t numDependencies, cudaEvent_t event, cudaGraphNodeType type) {
    if (!is_event(event)) return record(cudaErrorInvalidValue);
    const bool recording = type == cudaGraphNodeTypeEventRecord;
    cudaError_t e = add_work_node(pGraphNode, graph, pDependencies, numDependencies, type, device_work{},
                                  recording ? "event record" : "event wait",
                                  recording ? "event record node" : "event wait node");
    if (e != cudaSuccess) return e;
    std::lock_guard<std::mutex> lock(graph_mutex());
    (*pGraphNode)->event = event;
    return cudaSuccess;
}

cudaError_t get_event(cudaGraphNode_t node, cudaGraphNodeType type, cudaEvent_t* event_out) {
    if (!event_out) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!node_is_locked(node, type)) return record(cudaErrorInvalidValue);
    *event_out = node->event;
    return cudaSuccess;
}

cudaError_t set_event(cudaGraphNode_t node, cudaGraphNodeType type, cudaEvent_t event) {
    if (!is_event(event)) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!node_is_locked(node, type)) return record(cudaErrorInvalidValue);
    node->event = event;
    return cudaSuccess;
}

cudaError_t set_step_event(cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraphNodeType type, cudaEvent_t event) {
    if (!is_event(event)) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    CUgraphExec_st::step* s = step_of_locked(exec, node);
    if (!s || s->type != type) return record(cudaErrorInvalidValue);
    s->event = event;
    return cudaSuccess;
}

}  // namespace

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                        cudaEvent_t event) {
    return add_event_node(pGraphNode, graph, pDependencies, numDependencies, event, cudaGraphNodeTypeEventRecord);
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                      const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                      cudaEvent_t event) {
    return add_event_node(pGraphNode, graph, pDependencies, numDependencies, event, cudaGraphNodeTypeWaitEvent);
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event_out) {
    return get_event(node, cudaGraphNodeTypeEventRecord, event_out);
}

cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
    return set_event(node, cudaGraphNodeTypeEventRecord, event);
}

cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event_out) {
    return get_event(node, cudaGraphNodeTypeWaitEvent, event_out);
}

cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
    return set_event(node, cudaGraphNodeTypeWaitEvent, event);
}

cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                 cudaEvent_t event) {
    return set_step_event(hGraphExec, hNode, cudaGraphNodeTypeEventRecord, event);
}

cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                               cudaEvent_t event) {
    return set_step_event(hGraphExec, hNode, cudaGraphNodeTypeWaitEvent, event);
}

// ---- child graph nodes ---------------------------------------------------------------------
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                       cudaGraph_t childGraph) {
    if (!pGraphNode) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    std::vector<cudaGraphNode_t> deps;
    if (!is_live_graph_locked(graph) || !is_live_graph_locked(childGraph) || childGraph == graph ||
        !dependencies_valid_locked(graph, pDependencies, numDependencies, &deps))
        return record(cudaErrorInvalidValue);
    if (!graph_memory_allows_locked(childGraph, "cudaGraphAddChildGraphNode"))
        return record(cudaErrorNotSupported);
    if (!graph_standalone_locked(childGraph, "cudaGraphAddChildGraphNode")) return record(cudaErrorInvalidValue);
    if (has_conditional_nodes_locked(childGraph)) {
        std::fprintf(stderr, "cuemu: cudaGraphAddChildGraphNode: a graph with conditional nodes cannot "
                             "be a child graph\n");
        return record(cudaErrorInvalidValue);
    }
    cudaGraphNode_t node = add_node_locked(graph, cudaGraphNodeTypeGraph, deps, device_work{},
                                           label_of("child graph", "child graph node"));
    node->child = new_graph_locked();  // CUDA clones the graph into the node
    copy_graph_locked(childGraph, node->child);
    *pGraphNode = node;
    return cudaSuccess;
}

// The node's own graph, not a copy: changes to it show in the node.
cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* pGraph) {
    if (!pGraph) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!node_is_locked(node, cudaGraphNodeTypeGraph)) return record(cudaErrorInvalidValue);
    *pGraph = node->child;
    return cudaSuccess;
}

// The child's steps taken from childGraph, which must have the node's graph's
// shape (nodes added in the same order, the same edges and node types).
cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                 cudaGraph_t childGraph) {
    std::lock_guard<std::mutex> lock(graph_mutex());
    CUgraphExec_st::step* s = step_of_locked(hGraphExec, node);
    if (!s || s->type != cudaGraphNodeTypeGraph || !is_live_graph_locked(childGraph))
        return record(cudaErrorInvalidValue);
    if (!graph_memory_allows_locked(childGraph, "cudaGraphExecChildGraphNodeSetParams"))
        return record(cudaErrorNotSupported);
    CUgraphExec_st::step fresh{};
    fresh.type = cudaGraphNodeTypeGraph;
    fresh.after = s->after;
    if (!build_steps_locked(childGraph, &fresh.inner) || !same_shape(*s, fresh)) {
        std::fprintf(stderr, "cuemu: cudaGraphExecChildGraphNodeSetParams refused: the new graph's "
                             "nodes, node types or edges differ from the child graph's\n");
        return record(cudaErrorGraphExecUpdateFailure);  // as cudaGraphExecUpdate
    }
    update_step(*s, std::move(fresh), s->updated_from ? s->updated_from : s->node);
    return cudaSuccess;
}

// ---- edges, enabled nodes, flags, DOT -------------------------------------------------------
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                        const cudaGraphEdgeData* edgeData, size_t numDependencies) {
    if (numDependencies && (!from || !to)) return record(cudaErrorInvalidValue);
    if (edgeData)
        for (size_t i = 0; i < numDependencies; ++i)
            if (edgeData[i].type != cudaGraphDependencyTypeDefault || edgeData[i].from_port || edgeData[i].to_port)
                return record(cudaErrorInvalidValue);  // no such edge: the emulator makes default ones only
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(graph)) return record(cudaErrorInvalidValue);
    for (size_t i = 0; i < numDependencies; ++i) {
        if (!node_of_graph_locked(from[i], graph) || !node_of_graph_locked(to[i], graph))
            return record(cudaErrorInvalidValue);
        const auto& deps = to[i]->dependencies;
        if (std::find(deps.begin(), deps.end(), from[i]) == deps.end()) return record(cudaErrorInvalidValue);
    }
    if (numDependencies && !graph_memory_allows_locked(graph, "cudaGraphRemoveDependencies"))
        return record(cudaErrorNotSupported);
    for (size_t i = 0; i < numDependencies; ++i) {
        auto& deps = to[i]->dependencies;
        deps.erase(std::remove(deps.begin(), deps.end(), from[i]), deps.end());
    }
    return cudaSuccess;
}

namespace {
// The step of a kernel, memcpy or memset node: the kinds CUDA lets one disable.
CUgraphExec_st::step* switchable_step_locked(cudaGraphExec_t exec, cudaGraphNode_t node) {
    CUgraphExec_st::step* s = step_of_locked(exec, node);
    if (!s) return nullptr;
    const bool switchable = s->type == cudaGraphNodeTypeKernel || s->type == cudaGraphNodeTypeMemcpy ||
                            s->type == cudaGraphNodeTypeMemset;
    return switchable ? s : nullptr;
}
}  // namespace

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, unsigned int* isEnabled) {
    if (!isEnabled) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    CUgraphExec_st::step* s = switchable_step_locked(hGraphExec, hNode);
    if (!s) return record(cudaErrorInvalidValue);
    *isEnabled = s->enabled ? 1 : 0;
    return cudaSuccess;
}

// A disabled node does nothing at the next launches, as an empty node.
cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, unsigned int isEnabled) {
    std::lock_guard<std::mutex> lock(graph_mutex());
    CUgraphExec_st::step* s = switchable_step_locked(hGraphExec, hNode);
    if (!s) return record(cudaErrorInvalidValue);
    s->enabled = isEnabled != 0;
    return cudaSuccess;
}

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long* flags) {
    if (!flags) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_exec_locked(graphExec)) return record(cudaErrorInvalidValue);
    *flags = graphExec->flags;
    return cudaSuccess;
}

namespace {

const char* type_name(cudaGraphNodeType type) {
    switch (type) {
        case cudaGraphNodeTypeKernel: return "KERNEL";
        case cudaGraphNodeTypeMemcpy: return "MEMCPY";
        case cudaGraphNodeTypeMemset: return "MEMSET";
        case cudaGraphNodeTypeHost: return "HOST";
        case cudaGraphNodeTypeGraph: return "GRAPH";
        case cudaGraphNodeTypeEmpty: return "EMPTY";
        case cudaGraphNodeTypeWaitEvent: return "EVENT_WAIT";
        case cudaGraphNodeTypeEventRecord: return "EVENT_RECORD";
        case cudaGraphNodeTypeMemAlloc: return "MEM_ALLOC";
        case cudaGraphNodeTypeMemFree: return "MEM_FREE";
        case cudaGraphNodeTypeConditional: return "CONDITIONAL";
        default: return "OTHER";
    }
}

// One graph's nodes and edges; a child graph or a conditional node's body as
// a cluster of its own.
void print_dot_locked(std::FILE* out, cudaGraph_t graph, const std::string& prefix, int* clusters) {
    for (size_t i = 0; i < graph->nodes.size(); ++i) {
        const CUgraphNode_st& n = *graph->nodes[i];
        const std::string id = prefix + "node" + std::to_string(i);
        std::string detail;
        if (!n.label.name.empty()) detail = "\\n" + n.label.name;
        if (n.type == cudaGraphNodeTypeKernel && n.has_kernel_params) {
            cuemu::known_kernel kernel;
            if (cuemu::find_kernel(n.kernel_params.func, &kernel)) detail = std::string("\\n") + kernel.name;
        }
        if (n.allocation) {
            char text[64];
            std::snprintf(text, sizeof text, "\\n%p", n.allocation->params.dptr);
            detail = text;
        }
        std::fprintf(out, "  \"%s\" [shape=box label=\"%s %zu%s\"];\n", id.c_str(), type_name(n.type), i,
                     detail.c_str());
        if (n.child) {
            const std::string inner = prefix + "child" + std::to_string(i) + "_";
            std::fprintf(out, "  subgraph cluster_%d {\n  label=\"child graph of %s\";\n", ++*clusters, id.c_str());
            print_dot_locked(out, n.child, inner, clusters);
            std::fprintf(out, "  }\n");
        }
        static const char* const kinds[] = {"IF", "WHILE", "SWITCH"};
        for (size_t b = 0; b < n.bodies.size(); ++b) {  // a conditional node's bodies
            const std::string inner = prefix + "body" + std::to_string(i) + "_" + std::to_string(b) + "_";
            std::fprintf(out, "  subgraph cluster_%d {\n  label=\"%s body %zu of %s\";\n", ++*clusters,
                         kinds[n.condition_type], b, id.c_str());
            print_dot_locked(out, n.bodies[b], inner, clusters);
            std::fprintf(out, "  }\n");
        }
    }
    for (size_t i = 0; i < graph->nodes.size(); ++i)
        for (cudaGraphNode_t d : graph->nodes[i]->dependencies) {
            const size_t from = std::find_if(graph->nodes.begin(), graph->nodes.end(),
                                             [d](const auto& p) { return p.get() == d; }) -
                                graph->nodes.begin();
            std::fprintf(out, "  \"%snode%zu\" -> \"%snode%zu\";\n", prefix.c_str(), from, prefix.c_str(), i);
        }
}

}  // namespace

// A DOT file of the graph: a box per node (its type, its number in the order
// nodes were added, and the kernel, copy or allocation it stands for), an
// arrow per edge. The flags choose nothing here: every detail known is written.
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned int) {
    if (!path) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(graph)) return record(cudaErrorInvalidValue);
    std::FILE* out = std::fopen(path, "w");
    if (!out) return record(cudaErrorOperatingSystem);
    std::fprintf(out, "digraph cuemu_graph {\n  rankdir=TB;\n");
    int clusters = 0;
    print_dot_locked(out, graph, "", &clusters);
    std::fprintf(out, "}\n");
    return std::fclose(out) == 0 ? cudaSuccess : record(cudaErrorOperatingSystem);
}

// ---- memcpy nodes to and from symbols --------------------------------------------------
// The symbol is checked as cudaMemcpyToSymbol checks it; the node is then a
// 1D memcpy node between the copy's ends, made or changed by the 1D calls.
cudaError_t cuemu::graph_symbol_copy(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                     cudaGraphExec_t exec, cudaGraphNode_t node, void* symbol,
                                     std::size_t symbol_size, std::size_t offset, void* other,
                                     std::size_t count, cudaMemcpyKind kind, bool to_symbol) {
    void* dst;
    const void* src;
    if (cudaError_t e = symbol_copy_ends(symbol, symbol_size, offset, other, count, kind, to_symbol,
                                         &dst, &src))
        return e;
    if (exec) return cudaGraphExecMemcpyNodeSetParams1D(exec, node, dst, src, count, kind);
    if (node) return cudaGraphMemcpyNodeSetParams1D(node, dst, src, count, kind);
    return cudaGraphAddMemcpyNode1D(pGraphNode, graph, pDependencies, numDependencies, dst, src,
                                    count, kind);
}
