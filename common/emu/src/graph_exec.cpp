// graph_exec.cpp - executable graphs: the launch order of a graph's nodes
// (cudaGraphInstantiate), cudaGraphLaunch, cudaGraphUpload,
// cudaGraphExecDestroy, cudaGraphExecKernelNodeSetParams and
// cudaGraphExecUpdate. Graphs and their nodes are graphs.cpp's.
//
// An executable graph is the nodes in an order that respects every
// dependency (Kahn's, ties in the order the nodes were added), each a step
// holding a copy of its node's work; cudaGraphLaunch queues the steps on the
// stream in that order.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "cuemu/runtime.h"
#include "cuemu/textures.h"
#include "graph_internal.h"
#include "texture_internal.h"
#include "trace.h"

using namespace cuemu::detail;

namespace {

std::unordered_set<cudaGraphExec_t> live_execs;      // guarded by graph_mutex()
// Kahn's order, ties in the order nodes were added; false for a cycle.
bool launch_order_locked(cudaGraph_t graph, std::vector<cudaGraphNode_t>* order) {
    std::unordered_map<cudaGraphNode_t, size_t> waiting;
    std::unordered_map<cudaGraphNode_t, std::vector<cudaGraphNode_t>> after;
    for (auto& n : graph->nodes) {
        waiting[n.get()] = n->dependencies.size();
        for (cudaGraphNode_t d : n->dependencies) after[d].push_back(n.get());
    }
    std::vector<cudaGraphNode_t> ready;
    for (auto& n : graph->nodes)
        if (n->dependencies.empty()) ready.push_back(n.get());
    while (!ready.empty()) {
        cudaGraphNode_t n = ready.front();
        ready.erase(ready.begin());
        order->push_back(n);
        for (cudaGraphNode_t next : after[n])
            if (--waiting[next] == 0) ready.push_back(next);
    }
    return order->size() == graph->nodes.size();
}

// For each node of a launch order, the positions of the nodes it depends on.
std::vector<std::vector<size_t>> dependency_positions(const std::vector<cudaGraphNode_t>& order) {
    std::unordered_map<cudaGraphNode_t, size_t> place;
    for (size_t i = 0; i < order.size(); ++i) place[order[i]] = i;
    std::vector<std::vector<size_t>> after(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        for (cudaGraphNode_t d : order[i]->dependencies) after[i].push_back(place.at(d));
        std::sort(after[i].begin(), after[i].end());
    }
    return after;
}

}  // namespace

namespace cuemu::detail {

bool is_live_exec_locked(cudaGraphExec_t exec) { return exec && live_execs.count(exec); }

CUgraphExec_st::step* step_of_locked(cudaGraphExec_t exec, cudaGraphNode_t node) {
    if (!is_live_exec_locked(exec) || !node) return nullptr;
    for (CUgraphExec_st::step& s : exec->steps)
        if (s.node == node || s.updated_from == node) return &s;
    return nullptr;
}

bool build_steps_locked(cudaGraph_t graph, std::vector<CUgraphExec_st::step>* steps) {
    std::vector<cudaGraphNode_t> order;
    if (!launch_order_locked(graph, &order)) return false;
    const std::vector<std::vector<size_t>> after = dependency_positions(order);
    for (size_t i = 0; i < order.size(); ++i) {
        cudaGraphNode_t n = order[i];
        CUgraphExec_st::step s{};
        s.node = n;
        s.type = n->type;
        s.work = n->work;
        s.label = n->label;
        s.kernel = n->has_kernel_params ? n->kernel_params.func : nullptr;
        s.after = after[i];
        s.multidimensional = n->multidimensional;
        s.event = n->event;
        s.allocation = n->allocation;
        if (n->child && !build_steps_locked(n->child, &s.inner)) return false;
        s.condition = n->condition;
        s.condition_type = n->condition_type;
        for (cudaGraph_t body : n->bodies) {
            s.bodies.emplace_back();
            if (!build_steps_locked(body, &s.bodies.back())) return false;
        }
        steps->push_back(std::move(s));
    }
    return true;
}

}  // namespace cuemu::detail

// ---- executable graphs ------------------------------------------------------------------
cudaError_t cuemu::detail::instantiate_checked(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                               unsigned long long flags, cudaGraphInstantiateResult* result,
                                               cudaGraphNode_t* error_node) {
    *result = cudaGraphInstantiateError;
    *error_node = nullptr;
    if (!pGraphExec) return record(cudaErrorInvalidValue);
    const unsigned long long known = cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                     cudaGraphInstantiateFlagUpload |
                                     cudaGraphInstantiateFlagDeviceLaunch |
                                     cudaGraphInstantiateFlagUseNodePriority;
    if (flags & ~known) return record(cudaErrorInvalidValue);
    if (flags & cudaGraphInstantiateFlagDeviceLaunch) {
        std::fprintf(stderr, "cuemu: cudaGraphInstantiateFlagDeviceLaunch (graphs launched from "
                             "the device) is not emulated\n");
        return record(cudaErrorNotSupported);
    }
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(graph)) return record(cudaErrorInvalidValue);
    if (!graph_standalone_locked(graph, "cudaGraphInstantiate")) return record(cudaErrorInvalidValue);
    if (cudaError_t e = check_conditionals_locked(graph, result, error_node)) return record(e);
    // Graphs with memory or conditional nodes may have one executable graph at a time.
    const bool memory_nodes = has_memory_nodes_locked(graph);
    const bool one_instance = memory_nodes || has_conditional_nodes_locked(graph);
    if (one_instance && graph->instance) {
        std::fprintf(stderr, "cuemu: cudaGraphInstantiate: this graph has memory allocation, free or "
                             "conditional nodes and an executable graph made from it still exists: "
                             "CUDA allows one at a time (cudaGraphExecDestroy the other first)\n");
        // Memory nodes: cudaErrorNotSupported, measured on an H200 (CUDA 13.0).
        return record(memory_nodes ? cudaErrorNotSupported : cudaErrorInvalidValue);
    }
    auto exec = std::make_unique<CUgraphExec_st>();
    if (!build_steps_locked(graph, &exec->steps)) {
        // CUDA gives only the code; cudaGraphAddDependencies took the edge.
        std::fprintf(stderr, "cuemu: cudaGraphInstantiate refused: the graph's dependencies (or a child "
                             "graph's or conditional body's) form a cycle, so no node can run first: "
                             "remove the edge that closes it (cudaGraphRemoveDependencies)\n");
        *result = cudaGraphInstantiateInvalidStructure;
        return record(cudaErrorInvalidValue);
    }
    exec->flags = flags;
    exec->source = graph;
    retain_user_objects_locked(graph, &exec->user_objects, true);
    collect_condition_defaults_locked(graph, &exec->condition_defaults);
    if (one_instance) graph->instance = exec.get();
    live_execs.insert(exec.get());
    *pGraphExec = exec.release();
    *result = cudaGraphInstantiateSuccess;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags) {
    cudaGraphInstantiateResult result;
    cudaGraphNode_t error_node;
    return instantiate_checked(pGraphExec, graph, flags, &result, &error_node);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags) {
    return cudaGraphInstantiate(pGraphExec, graph, flags);
}

namespace {

// Queues the steps' work on the stream, in order; event nodes record and wait
// now, in stream order, as cudaEventRecord and cudaStreamWaitEvent would.
cudaError_t queue_steps(std::vector<CUgraphExec_st::step>& steps, cudaStream_t stream) {
    for (CUgraphExec_st::step& s : steps) {
        if (!s.enabled) continue;  // a disabled node does nothing, as an empty node
        if (s.type == cudaGraphNodeTypeEventRecord) {
            if (cudaError_t e = cudaEventRecord(s.event, stream)) return e;
        } else if (s.type == cudaGraphNodeTypeWaitEvent) {
            if (cudaError_t e = cudaStreamWaitEvent(stream, s.event, 0)) return e;
        } else if (s.type == cudaGraphNodeTypeGraph) {
            if (cudaError_t e = queue_steps(s.inner, stream)) return e;
        } else if (s.type == cudaGraphNodeTypeConditional) {
            work_label label;
            label.category = "conditional";
            if (trace_enabled()) label.name = "conditional node";
            enqueue(stream, conditional_work(s), std::move(label));
        } else if (s.work) {
            enqueue(stream, std::move(s.work), std::move(s.label));
        }
    }
    return cudaSuccess;
}

}  // namespace

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
    if (cudaError_t e = context_status()) return e;
    std::vector<CUgraphExec_st::step> steps;
    cudaStream_t previous;
    cudaEvent_t finished;
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!graphExec || !live_execs.count(graphExec)) return record(cudaErrorInvalidValue);
        steps = graphExec->steps;
        previous = graphExec->last_stream;
    }
    if (!is_stream_of_current_device(stream)) return record(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = capture_check_stream_work(stream)) return record(e);
    // A capturing stream refuses it and the capture is invalidated (measured
    // on an H200, CUDA 13.0: cudaErrorStreamCaptureUnsupported). A graph goes
    // into a capture as a child graph node (cudaStreamGetCaptureInfo, then
    // cudaGraphAddChildGraphNode and cudaStreamUpdateCaptureDependencies).
    if (cudaError_t e = capture_check_stream_wait(stream)) return record(e);
    std::vector<device_work> auto_free;
    std::vector<conditional_state*> defaults;
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!live_execs.count(graphExec)) return record(cudaErrorInvalidValue);
        defaults = graphExec->condition_defaults;
        if (cudaError_t e = graph_memory_before_launch_locked(graphExec, &auto_free)) return record(e);
        if (!graphExec->finished) cudaEventCreateWithFlags(&graphExec->finished, cudaEventDisableTiming);
        finished = graphExec->finished;
        graphExec->last_stream = stream;
    }
    if (previous && previous != stream) cudaStreamWaitEvent(stream, finished, 0);
    for (device_work& w : auto_free) {
        work_label label;
        label.category = "free";
        if (trace_enabled()) label.name = "graph memory freed on relaunch";
        enqueue(stream, std::move(w), std::move(label));
    }
    if (!defaults.empty()) {  // cudaGraphCondAssignDefault: each launch starts from the default
        work_label label;
        label.engine = engine_kind::bookkeeping;
        label.category = "conditional";
        enqueue(stream,
                [defaults](std::uint64_t) {
                    for (conditional_state* c : defaults) c->value.store(c->default_value);
                    return cudaSuccess;
                },
                std::move(label));
    }
    const cudaError_t e = queue_steps(steps, stream);
    cudaEventRecord(finished, stream);
    return e ? record(e) : e;
}

// Nothing to upload: the work is ready; the stream and the graph are checked.
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!graphExec || !live_execs.count(graphExec)) return record(cudaErrorInvalidValue);
    }
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

namespace {
// Gives back user object references once the work of the executable graph's
// last launch is done: a piece of host work queued after it, on its stream
// (at once when it was never launched, or its stream is gone or captures).
void release_after_launches(cudaStream_t last_stream, std::map<CUuserObject_st*, unsigned long long> refs) {
    if (refs.empty()) return;
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    if (!last_stream || !is_valid_stream(last_stream) ||
        cudaStreamIsCapturing(last_stream, &capturing) != cudaSuccess ||
        capturing != cudaStreamCaptureStatusNone) {
        release_user_objects(refs);
        return;
    }
    work_label label;
    label.engine = engine_kind::host_function;
    label.category = "host";
    if (trace_enabled()) label.name = "user objects released";
    enqueue(last_stream,
            [refs = std::move(refs)](std::uint64_t) mutable {
                release_user_objects(refs);
                return cudaSuccess;
            },
            std::move(label));
}
}  // namespace

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
    cudaEvent_t finished;
    cudaStream_t last_stream;
    std::map<CUuserObject_st*, unsigned long long> refs;
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!graphExec || !live_execs.erase(graphExec)) return record(cudaErrorInvalidValue);
        finished = graphExec->finished;
        last_stream = graphExec->last_stream;
        refs = std::move(graphExec->user_objects);
        if (is_live_graph_locked(graphExec->source) && graphExec->source->instance == graphExec)
            graphExec->source->instance = nullptr;
        delete graphExec;  // queued launches hold their own copies of the work
    }
    release_after_launches(last_stream, std::move(refs));
    if (finished) cudaEventDestroy(finished);
    return cudaSuccess;
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams* pNodeParams,
                                             const char* cuemu_file, int cuemu_line) {
    if (!pNodeParams) return record(cudaErrorInvalidValue);
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!hGraphExec || !live_execs.count(hGraphExec)) return record(cudaErrorInvalidValue);
    }
    device_work work;
    work_label label;
    if (cudaError_t e = make_kernel_work(pNodeParams, cuemu_file, cuemu_line, &work, &label))
        return record(e);
    std::lock_guard<std::mutex> lock(graph_mutex());
    CUgraphExec_st::step* s = step_of_locked(hGraphExec, node);
    // Not a node of the graph it was made from, or not a kernel node.
    if (!s || s->type != cudaGraphNodeTypeKernel) return record(cudaErrorInvalidValue);
    // CUDA does not let the update change the kernel of a node made by hand.
    if (s->kernel && s->kernel != pNodeParams->func) return record(cudaErrorInvalidValue);
    s->work = std::move(work);
    s->label = std::move(label);
    s->kernel = pNodeParams->func;
    return cudaSuccess;
}

namespace {
// Why `fresh` cannot take the place of `old` in cudaGraphExecUpdate
// (cudaGraphExecUpdateSuccess when it can): the same type, dependencies and
// kernel, the same allocation for memory nodes, and child graphs of the
// same shape.
cudaGraphExecUpdateResult update_refusal(const CUgraphExec_st::step& old, const CUgraphExec_st::step& fresh) {
    if (fresh.after != old.after) return cudaGraphExecUpdateErrorTopologyChanged;
    if (fresh.type != old.type) return cudaGraphExecUpdateErrorNodeTypeChanged;
    if (old.type == cudaGraphNodeTypeKernel && old.kernel && fresh.kernel && old.kernel != fresh.kernel)
        return cudaGraphExecUpdateErrorFunctionChanged;
    if (fresh.allocation != old.allocation) return cudaGraphExecUpdateErrorParametersChanged;
    if (fresh.inner.size() != old.inner.size()) return cudaGraphExecUpdateErrorTopologyChanged;
    for (size_t i = 0; i < old.inner.size(); ++i)
        if (cudaGraphExecUpdateResult r = update_refusal(old.inner[i], fresh.inner[i])) return r;
    if (fresh.condition_type != old.condition_type || fresh.bodies.size() != old.bodies.size())
        return cudaGraphExecUpdateErrorParametersChanged;
    for (size_t b = 0; b < old.bodies.size(); ++b) {
        if (fresh.bodies[b].size() != old.bodies[b].size()) return cudaGraphExecUpdateErrorTopologyChanged;
        for (size_t i = 0; i < old.bodies[b].size(); ++i)
            if (cudaGraphExecUpdateResult r = update_refusal(old.bodies[b][i], fresh.bodies[b][i])) return r;
    }
    return cudaGraphExecUpdateSuccess;
}
}  // namespace

namespace cuemu::detail {
// Takes a step's work (and a child's steps) from `fresh`, keeping what the
// executable graph set itself (enabled, the node it was made from).
void update_step(CUgraphExec_st::step& old, CUgraphExec_st::step&& fresh, cudaGraphNode_t from) {
    old.work = std::move(fresh.work);
    old.label = std::move(fresh.label);
    old.updated_from = from;
    if (fresh.kernel) old.kernel = fresh.kernel;
    old.event = fresh.event;
    old.multidimensional = fresh.multidimensional;
    for (size_t i = 0; i < old.inner.size(); ++i)
        update_step(old.inner[i], std::move(fresh.inner[i]), old.inner[i].node);
    old.condition = fresh.condition;
    for (size_t b = 0; b < old.bodies.size(); ++b)
        for (size_t i = 0; i < old.bodies[b].size(); ++i)
            update_step(old.bodies[b][i], std::move(fresh.bodies[b][i]), old.bodies[b][i].node);
}
bool same_shape(const CUgraphExec_st::step& old, const CUgraphExec_st::step& fresh) {
    return update_refusal(old, fresh) == cudaGraphExecUpdateSuccess;
}
}  // namespace cuemu::detail

// Takes every node's work from hGraph, which must have the same shape: in
// launch order (Kahn's, ties in the order nodes were added) the same node
// types with the same dependencies, kernel nodes keeping their kernel. The
// nodes pair up by that order.
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo* resultInfo) {
    if (!resultInfo) return record(cudaErrorInvalidValue);
    *resultInfo = {cudaGraphExecUpdateError, nullptr, nullptr};
    std::unique_lock<std::mutex> lock(graph_mutex());
    if (!hGraphExec || !live_execs.count(hGraphExec) || !is_live_graph_locked(hGraph) ||
        !graph_standalone_locked(hGraph, "cudaGraphExecUpdate"))
        return record(cudaErrorInvalidValue);
    std::vector<CUgraphExec_st::step> fresh;
    if (!build_steps_locked(hGraph, &fresh)) return record(cudaErrorInvalidValue);
    auto fail = [&](cudaGraphExecUpdateResult why, cudaGraphNode_t node) {
        *resultInfo = {why, node, nullptr};
        return record(cudaErrorGraphExecUpdateFailure);
    };
    auto& steps = hGraphExec->steps;
    if (fresh.size() != steps.size()) return fail(cudaGraphExecUpdateErrorTopologyChanged, nullptr);
    for (size_t i = 0; i < fresh.size(); ++i)
        if (cudaGraphExecUpdateResult why = update_refusal(steps[i], fresh[i])) return fail(why, fresh[i].node);
    for (size_t i = 0; i < fresh.size(); ++i) {
        cudaGraphNode_t from = fresh[i].node;
        update_step(steps[i], std::move(fresh[i]), from);
    }
    // The new graph's user object references replace the old ones, which go
    // once the launches made with them are done.
    std::map<CUuserObject_st*, unsigned long long> old = std::move(hGraphExec->user_objects);
    hGraphExec->user_objects.clear();
    retain_user_objects_locked(hGraph, &hGraphExec->user_objects, true);
    hGraphExec->condition_defaults.clear();  // the new graph's handles, as its steps'
    collect_condition_defaults_locked(hGraph, &hGraphExec->condition_defaults);
    cudaStream_t last_stream = hGraphExec->last_stream;
    lock.unlock();
    release_after_launches(last_stream, std::move(old));
    *resultInfo = {cudaGraphExecUpdateSuccess, nullptr, nullptr};
    return cudaSuccess;
}
