// graph_conditional.cpp - conditional nodes: cudaGraphConditionalHandleCreate,
// the device's cudaGraphSetConditional, conditional nodes made by
// cudaGraphAddNode (graph_generic.cpp hands them here) with their body graphs,
// the checks CUDA makes when such a graph is instantiated, and the work that
// runs a conditional node at each launch.
//
// A handle is the address of its conditional_state (graph_internal.h), so a
// kernel sets it without a lock. A conditional node's step is one piece of
// work on the stream: when the work before it is done, it reads the value and
// runs the chosen body's steps one after another on the device's thread
// (bodies hold only kernel, memcpy, memset, empty, child graph and
// conditional nodes, as in CUDA), again while a WHILE node's value is not zero.
#include <cstdio>
#include <unordered_set>

#include "cuemu/runtime.h"
#include "graph_internal.h"

using namespace cuemu::detail;

namespace {

// Every handle made (guarded by handles_mutex, taken after graph_mutex where
// both are: kernels setting a value take only this one).
std::mutex handles_mutex;
std::unordered_set<conditional_state*>& live_handles() {
    static auto& s = *new std::unordered_set<conditional_state*>;
    return s;
}
bool is_handle(conditional_state* state) {
    std::lock_guard<std::mutex> lock(handles_mutex);
    return live_handles().count(state) != 0;
}

conditional_state* state_of(cudaGraphConditionalHandle handle) {
    return reinterpret_cast<conditional_state*>(static_cast<std::uintptr_t>(handle));
}

// Whether `graph` is `ancestor` or lies inside it (a body or moved child, at any depth).
bool inside_locked(cudaGraph_t graph, cudaGraph_t ancestor) {
    for (cudaGraph_t g = graph; g; g = g->owner_node ? g->owner_node->graph : nullptr)
        if (g == ancestor) return true;
    return false;
}

bool allowed_in_body(cudaGraphNodeType type) {
    return type == cudaGraphNodeTypeKernel || type == cudaGraphNodeTypeMemcpy ||
           type == cudaGraphNodeTypeMemset || type == cudaGraphNodeTypeEmpty ||
           type == cudaGraphNodeTypeGraph || type == cudaGraphNodeTypeConditional;
}

const char* type_name(cudaGraphNodeType type) {
    switch (type) {
        case cudaGraphNodeTypeHost: return "host";
        case cudaGraphNodeTypeWaitEvent: return "event wait";
        case cudaGraphNodeTypeEventRecord: return "event record";
        case cudaGraphNodeTypeMemAlloc: return "memory allocation";
        case cudaGraphNodeTypeMemFree: return "memory free";
        default: return "external semaphore";
    }
}

// Every node of a body (and of graphs inside it) of a type CUDA allows there.
cudaError_t check_body_locked(cudaGraph_t body, cudaGraphInstantiateResult* result, cudaGraphNode_t* error_node) {
    for (auto& n : body->nodes) {
        if (!allowed_in_body(n->type)) {
            std::fprintf(stderr, "cuemu: cudaGraphInstantiate: a %s node in the body of a conditional node "
                                 "(bodies hold kernel, memcpy, memset, empty, child graph and "
                                 "conditional nodes only)\n",
                         type_name(n->type));
            *result = cudaGraphInstantiateNodeOperationNotSupported;
            *error_node = n.get();
            return cudaErrorNotSupported;
        }
        if (n->child)
            if (cudaError_t e = check_body_locked(n->child, result, error_node)) return e;
        for (cudaGraph_t b : n->bodies)
            if (cudaError_t e = check_body_locked(b, result, error_node)) return e;
    }
    return cudaSuccess;
}

// Whether a conditional node in `graph` (or inside it) uses `state`.
bool uses_locked(cudaGraph_t graph, conditional_state* state) {
    for (auto& n : graph->nodes) {
        if (n->condition == state) return true;
        if (n->child && uses_locked(n->child, state)) return true;
        for (cudaGraph_t b : n->bodies)
            if (uses_locked(b, state)) return true;
    }
    return false;
}

cudaError_t run_steps(std::vector<CUgraphExec_st::step>& steps, std::uint64_t seq);

// One run of a conditional node: the chosen bodies, in place.
cudaError_t run_conditional(CUgraphExec_st::step& s, std::uint64_t seq) {
    auto& bodies = s.bodies;
    switch (s.condition_type) {
        case cudaGraphCondTypeIf: {
            const unsigned int value = s.condition->value.load();
            if (value) return run_steps(bodies[0], seq);
            return bodies.size() == 2 ? run_steps(bodies[1], seq) : cudaSuccess;
        }
        case cudaGraphCondTypeWhile:
            while (s.condition->value.load())
                if (cudaError_t e = run_steps(bodies[0], seq)) return e;
            return cudaSuccess;
        case cudaGraphCondTypeSwitch: {
            const unsigned int value = s.condition->value.load();
            return value < bodies.size() ? run_steps(bodies[value], seq) : cudaSuccess;
        }
    }
    return cudaSuccess;
}

// A body's steps, each after the one before (a launch's order), on this thread.
cudaError_t run_steps(std::vector<CUgraphExec_st::step>& steps, std::uint64_t seq) {
    for (CUgraphExec_st::step& s : steps) {
        if (!s.enabled) continue;
        cudaError_t e = cudaSuccess;
        if (s.type == cudaGraphNodeTypeGraph) e = run_steps(s.inner, seq);
        else if (s.type == cudaGraphNodeTypeConditional) e = run_conditional(s, seq);
        else if (s.work) e = s.work(seq);
        if (e) return e;
    }
    return cudaSuccess;
}

}  // namespace

void cuemu::set_conditional(cudaGraphConditionalHandle handle, unsigned int value) {
    conditional_state* state = state_of(handle);
    if (!is_handle(state)) {  // undefined in CUDA: said, and nothing set
        std::fprintf(stderr, "cuemu: cudaGraphSetConditional: %#llx is no conditional handle "
                             "(cudaGraphConditionalHandleCreate makes them)\n", handle);
        return;
    }
    state->value.store(value);
}

namespace cuemu::detail {

bool has_conditional_nodes_locked(cudaGraph_t graph) {
    for (auto& n : graph->nodes)
        if (n->type == cudaGraphNodeTypeConditional || (n->child && has_conditional_nodes_locked(n->child)))
            return true;
    return false;
}

cudaError_t add_conditional_node(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                 size_t count, cudaConditionalNodeParams* p) {
    const bool size_ok = p->type == cudaGraphCondTypeWhile    ? p->size == 1
                         : p->type == cudaGraphCondTypeIf     ? p->size == 1 || p->size == 2
                         : p->type == cudaGraphCondTypeSwitch ? p->size >= 1
                                                              : false;
    if (!size_ok) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    conditional_state* state = state_of(p->handle);
    std::vector<cudaGraphNode_t> dependencies;
    if (!is_live_graph_locked(graph) || !is_handle(state) ||
        !dependencies_valid_locked(graph, deps, count, &dependencies))
        return record(cudaErrorInvalidValue);
    // The handle belongs to this graph or to a graph this one is a body of.
    if (!is_live_graph_locked(state->graph) || !inside_locked(graph, state->graph)) {
        std::fprintf(stderr, "cuemu: cudaGraphAddNode: the conditional handle was made for another graph "
                             "(a handle serves its own graph and the bodies inside it)\n");
        return record(cudaErrorInvalidValue);
    }
    work_label label;
    label.category = "conditional";
    cudaGraphNode_t node = add_node_locked(graph, cudaGraphNodeTypeConditional, dependencies, device_work{}, label);
    node->condition = state;
    node->condition_type = p->type;
    for (unsigned int i = 0; i < p->size; ++i) {
        cudaGraph_t body = new_graph_locked();
        body->owner_node = node;
        node->bodies.push_back(body);
    }
    p->phGraph_out = node->bodies.data();  // owned by the node, as CUDA's array
    *pGraphNode = node;
    return cudaSuccess;
}

cudaError_t check_conditionals_locked(cudaGraph_t graph, cudaGraphInstantiateResult* result,
                                      cudaGraphNode_t* error_node) {
    for (conditional_state* state : graph->handles)
        if (!uses_locked(graph, state)) {
            std::fprintf(stderr, "cuemu: cudaGraphInstantiate: a conditional handle made for this graph "
                                 "is used by no conditional node\n");
            *result = cudaGraphInstantiateConditionalHandleUnused;
            return cudaErrorInvalidValue;
        }
    for (auto& n : graph->nodes) {
        for (cudaGraph_t b : n->bodies) {
            if (cudaError_t e = check_body_locked(b, result, error_node)) return e;
            if (cudaError_t e = check_conditionals_locked(b, result, error_node)) return e;
        }
        if (n->child)
            if (cudaError_t e = check_conditionals_locked(n->child, result, error_node)) return e;
    }
    return cudaSuccess;
}

device_work conditional_work(const CUgraphExec_st::step& step) {
    return [s = step](std::uint64_t seq) mutable { return run_conditional(s, seq); };
}

void collect_condition_defaults_locked(cudaGraph_t graph, std::vector<conditional_state*>* out) {
    for (conditional_state* state : graph->handles)
        if (state->assign_default) out->push_back(state);
    for (auto& n : graph->nodes) {
        if (n->child) collect_condition_defaults_locked(n->child, out);
        for (cudaGraph_t b : n->bodies) collect_condition_defaults_locked(b, out);
    }
}

}  // namespace cuemu::detail

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* pHandle_out, cudaGraph_t graph,
                                             unsigned int defaultLaunchValue, unsigned int flags) {
    if (!pHandle_out || (flags & ~unsigned(cudaGraphCondAssignDefault))) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(graph)) return record(cudaErrorInvalidValue);
    auto* state = new conditional_state;  // kept for the life of the program (see the top)
    state->value = defaultLaunchValue;
    state->default_value = defaultLaunchValue;
    state->assign_default = flags & cudaGraphCondAssignDefault;
    state->graph = graph;
    {
        std::lock_guard<std::mutex> handles_lock(handles_mutex);
        live_handles().insert(state);
    }
    graph->handles.push_back(state);
    *pHandle_out = static_cast<cudaGraphConditionalHandle>(reinterpret_cast<std::uintptr_t>(state));
    return cudaSuccess;
}
