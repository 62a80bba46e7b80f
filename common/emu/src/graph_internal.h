// graph_internal.h - what the graph files share (graphs.cpp: graphs, nodes;
// graph_exec.cpp: executable graphs; graph_nodes.cpp: node parameters, event
// and child graph nodes; graph_memory.cpp: memory allocation and free nodes;
// graph_generic.cpp: cudaGraphAddNode and friends; graph_conditional.cpp:
// conditional nodes; graph_attributes.cpp: kernel node attributes;
// graph_user_objects.cpp: user objects; graph_capture.cpp: stream capture) and the hooks the rest of the runtime
// calls so that work queued on a capturing stream becomes a node instead of
// running (queue.cpp's enqueue, and the checks in the stream, event, copy and
// launch calls).
#ifndef CUEMU_GRAPH_INTERNAL_H
#define CUEMU_GRAPH_INTERNAL_H

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "cuemu/graphs.h"
#include "cuemu/textures.h"
#include "internal.h"

namespace cuemu::detail {

// A conditional handle (graph_conditional.cpp): the handle is its address.
// Kept for the life of the program, so a kernel that sets a stale one writes
// here, not into freed memory.
struct conditional_state {
    std::atomic<unsigned int> value{0};
    unsigned int default_value = 0;
    bool assign_default = false;  // cudaGraphCondAssignDefault: the default at each launch
    CUgraph_st* graph = nullptr;  // the graph it was made for (a key: it may be gone)
};

// The memory of an allocation node (graph_memory.cpp).
struct graph_allocation {
    void* ptr = nullptr;
    size_t size = 0;
    int device = 0;
    cudaMemAllocNodeParams params{};  // as asked for, dptr filled in
    cudaGraph_t owner = nullptr;      // the graph of its alloc node (a key: it may be gone)
    bool freed_in_other_graph = false;  // a free node of another graph names it
    // The host's view (graph_mutex): a launch allocated it and no free was asked for since.
    bool unfreed = false;
    // The device's view (stats_mutex): the alloc node ran and no free since;
    // resident: it holds memory the graphs count as used, from the first time
    // its alloc node ran until a trim finds it not mapped.
    bool mapped = false;
    bool resident = false;
    ~graph_allocation();
};

}  // namespace cuemu::detail

// A node: the work it queues at each launch of an executable graph (none for
// an empty node), and the nodes it comes after.
struct CUgraphNode_st {
    CUgraph_st* graph;
    cudaGraphNodeType type;
    std::vector<CUgraphNode_st*> dependencies;
    cuemu::detail::device_work work;  // empty for an empty node
    cuemu::detail::work_label label;
    // A kernel node made with cudaGraphAddKernelNode: its parameters as
    // given (kernelParams then points at the caller's arguments, which may
    // be gone: only func and the configuration are read back). A captured
    // launch has none (has_kernel_params false).
    bool has_kernel_params = false;
    cudaKernelNodeParams kernel_params{};
    // Memcpy, memset and host nodes made by hand: their parameters as given
    // (a captured copy, fill or host function has none: has_params false).
    // A 1D memcpy node's are the cudaMemcpy3DParms CUDA describes it with.
    bool has_params = false;
    cudaMemcpy3DParms copy_params{};
    cudaMemsetParams memset_params{};
    cudaHostNodeParams host_params{};
    bool multidimensional = false;  // a memcpy or memset node of more than one row
    cudaEvent_t event = nullptr;    // an event record or wait node's event
    CUgraph_st* child = nullptr;    // a child graph node's own copy of its graph
    // An allocation node's memory, or the memory a free node frees.
    std::shared_ptr<cuemu::detail::graph_allocation> allocation;
    // A kernel node's attributes as set (graph_attributes.cpp); unset ones read as zero.
    std::map<int, cudaLaunchAttributeValue> attributes;
    // A conditional node: its handle, kind and body graphs (owned, as CUDA's).
    cuemu::detail::conditional_state* condition = nullptr;
    cudaGraphConditionalNodeType condition_type = cudaGraphCondTypeIf;
    std::vector<CUgraph_st*> bodies;
};
// More than one row: the executable graph's SetParams calls refuse such
// copies and fills (one-row ones only, as CUDA documents).
inline bool multidimensional_copy(const cudaMemcpy3DParms* p) {
    return p && (p->extent.height > 1 || p->extent.depth > 1);
}
inline bool multidimensional_fill(const cudaMemsetParams* p) { return p && p->height > 1; }
// A memcpy or memset node's parameters, kept for GetParams and that rule.
inline void keep_copy_params(CUgraphNode_st& n, const cudaMemcpy3DParms& p) {
    n.copy_params = p;
    n.multidimensional = multidimensional_copy(&p);
}
inline void keep_fill_params(CUgraphNode_st& n, const cudaMemsetParams& p) {
    n.memset_params = p;
    n.multidimensional = multidimensional_fill(&p);
}
struct CUgraph_st {
    std::vector<std::unique_ptr<CUgraphNode_st>> nodes;  // in the order they were added
    bool being_captured = false;  // a capture sequence still adds to it
    // A cudaGraphClone copy: each original node's copy (cudaGraphNodeFindInClone).
    std::unordered_map<CUgraphNode_st*, CUgraphNode_st*> copy_of;
    // A graph with memory nodes may have one executable graph at a time.
    CUgraphExec_st* instance = nullptr;
    // The user object references it owns, by object (graph_user_objects.cpp).
    std::map<CUuserObject_st*, unsigned long long> user_objects;
    // The node that owns it: a conditional node's body, or a child graph moved
    // into its node (cudaGraphChildGraphOwnershipMove). Such a graph is not
    // destroyed, instantiated, cloned or made a child on its own.
    CUgraphNode_st* owner_node = nullptr;
    // The conditional handles made for it (cudaGraphConditionalHandleCreate).
    std::vector<cuemu::detail::conditional_state*> handles;
};

// The executable graph: the work of each node, in launch order.
struct CUgraphExec_st {
    struct step {
        cudaGraphNode_t node;  // the node of the graph it was made from (a key only)
        cudaGraphNodeType type;
        cuemu::detail::device_work work;
        cuemu::detail::work_label label;
        const void* kernel = nullptr;  // a kernel node's func, when known
        std::vector<size_t> after;     // the steps it depends on, by position
        cudaGraphNode_t updated_from = nullptr;  // the node cudaGraphExecUpdate paired it with
        bool enabled = true;                     // cudaGraphNodeSetEnabled
        bool multidimensional = false;
        cudaEvent_t event = nullptr;             // event record and wait nodes: done at launch
        std::vector<step> inner;                 // a child graph node's steps
        // A conditional node: its handle, kind, and each body's steps.
        cuemu::detail::conditional_state* condition = nullptr;
        cudaGraphConditionalNodeType condition_type = cudaGraphCondTypeIf;
        std::vector<std::vector<step>> bodies;
        std::shared_ptr<cuemu::detail::graph_allocation> allocation;
    };
    std::vector<step> steps;
    unsigned long long flags = 0;  // as instantiated
    CUgraph_st* source = nullptr;  // the graph it was made from (a key: it may be gone)
    // Launches of one executable graph run one after another, as in CUDA:
    // a launch on another stream than the previous one waits for it.
    cudaStream_t last_stream = nullptr;
    cudaEvent_t finished = nullptr;
    // The user object references of its graph and child graphs, taken at
    // instantiation and given back after its last launch (graph_user_objects.cpp).
    std::map<CUuserObject_st*, unsigned long long> user_objects;
    // The conditional handles set to their default at each launch (graph_conditional.cpp).
    std::vector<cuemu::detail::conditional_state*> condition_defaults;
};

namespace cuemu::detail {

// Guards every graph, node, executable graph and capture sequence.
std::mutex& graph_mutex();

// graphs.cpp (callers hold graph_mutex).
bool is_live_graph_locked(cudaGraph_t graph);
bool is_live_exec_locked(cudaGraphExec_t exec);
bool node_of_graph_locked(cudaGraphNode_t node, cudaGraph_t graph);
// A node of a live graph.
bool is_live_node_locked(cudaGraphNode_t node);
// The dependencies as given: nodes of this graph, none twice.
bool dependencies_valid_locked(cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count,
                               std::vector<cudaGraphNode_t>* out);
// The step of an executable graph that stands for `node` (nullptr: none).
CUgraphExec_st::step* step_of_locked(cudaGraphExec_t exec, cudaGraphNode_t node);
// A kernel node's work from its parameters, checked as its launch would be
// (graphs.cpp; cudaGraphExecKernelNodeSetParams uses it too).
cudaError_t make_kernel_work(const cudaKernelNodeParams* p, const char* file, int line,
                             device_work* work, work_label* label);
// The steps of a graph, in launch order (false for a cycle).
bool build_steps_locked(cudaGraph_t graph, std::vector<CUgraphExec_st::step>* steps);
// cudaGraphExecUpdate's pairing: whether `fresh` (made from a graph now)
// may take the place of `old`, and the taking (`from`: the node fresh was made from).
bool same_shape(const CUgraphExec_st::step& old, const CUgraphExec_st::step& fresh);
void update_step(CUgraphExec_st::step& old, CUgraphExec_st::step&& fresh, cudaGraphNode_t from);
// A copy of graph's nodes and edges, children copied too, into an empty graph.
void copy_graph_locked(cudaGraph_t from, cudaGraph_t into);
// Edge data (may be null) that asks for nothing but ordinary edges; false,
// with a line naming the call, for programmatic edges (not emulated).
bool default_edges(const cudaGraphEdgeData* edges, size_t count, const char* call);
// A graph that belongs to no node (graph_standalone_locked): false, with a
// line naming the call, for a conditional node's body or a moved child graph.
bool graph_standalone_locked(cudaGraph_t graph, const char* call);
// Whether the graph (or a child graph in it) holds memory alloc or free nodes.
bool has_memory_nodes_locked(cudaGraph_t graph);
cudaGraph_t new_graph_locked();
void delete_graph_locked(cudaGraph_t graph);
cudaGraphNode_t add_node_locked(cudaGraph_t graph, cudaGraphNodeType type,
                                const std::vector<cudaGraphNode_t>& dependencies,
                                device_work work, work_label label);
// The node type of captured work, from the queue's label.
cudaGraphNodeType node_type_of(const work_label& label);

// graphs.cpp: adds a node made from one API call (record_one_call; the call
// runs without the graph lock), or from work made by the graph call itself.
cudaError_t add_call_node(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                          const cudaGraphNode_t* pDependencies, size_t numDependencies,
                          cudaGraphNodeType type, const std::function<cudaError_t()>& call,
                          const cudaKernelNodeParams* kernel_params = nullptr);
cudaError_t add_work_node(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                          const cudaGraphNode_t* pDependencies, size_t numDependencies,
                          cudaGraphNodeType type, device_work work, const char* category,
                          const char* trace_name);
// The work of a memset node and of a 3D memcpy node, checked as the Add
// calls check them (cudaErrorInvalidValue and the like when refused).
cudaError_t make_memset_work(const cudaMemsetParams* p, device_work* work);
cudaError_t make_memcpy3d_work(const cudaMemcpy3DParms* p, device_work* work);
// graph_nodes.cpp: the cudaMemcpy3DParms that describe a 1D copy.
cudaMemcpy3DParms memcpy_1d_params(void* dst, const void* src, size_t count, cudaMemcpyKind kind);

// graph_memory.cpp (callers hold graph_mutex): before a launch of `exec`,
// checks its memory nodes against what earlier launches left allocated
// (cudaErrorInvalidValue, with a line, when CUDA would refuse it) and marks
// what this launch allocates and frees. *auto_free receives allocations
// still allocated that the launch frees first (cudaGraphInstantiateFlagAutoFreeOnLaunch).
cudaError_t graph_memory_before_launch_locked(cudaGraphExec_t exec,
                                              std::vector<device_work>* auto_free);
// The rules of a graph with memory nodes, each refusal with a line naming the
// call: true when `graph` may be changed so (cudaGraphDestroyNode,
// cudaGraphRemoveDependencies, cudaGraphClone, a child graph node).
bool graph_memory_allows_locked(cudaGraph_t graph, const char* call);

// graph_exec.cpp: cudaGraphInstantiate, with the reason for a refusal
// (cudaGraphInstantiateWithParams's result_out and errNode_out).
cudaError_t instantiate_checked(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags,
                                cudaGraphInstantiateResult* result, cudaGraphNode_t* error_node);

// graph_conditional.cpp. add_conditional_node: cudaGraphAddNode of a
// conditional node (makes its bodies, fills p->phGraph_out).
cudaError_t add_conditional_node(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                 size_t count, cudaConditionalNodeParams* p);
// Whether the graph (or a graph in it) holds conditional nodes.
bool has_conditional_nodes_locked(cudaGraph_t graph);
// Before instantiation (graph_mutex held): every handle made for the graph is
// used by a conditional node in it, and bodies hold only the node types CUDA
// allows there. cudaSuccess, or the refusal with *result and *error_node.
cudaError_t check_conditionals_locked(cudaGraph_t graph, cudaGraphInstantiateResult* result,
                                      cudaGraphNode_t* error_node);
// The step of a conditional node: its work, queued at launch, picks and runs
// the bodies' steps in place on the device's thread.
device_work conditional_work(const CUgraphExec_st::step& step);
// The handles of `graph` (and the graphs in it) reset at each launch.
void collect_condition_defaults_locked(cudaGraph_t graph, std::vector<conditional_state*>* out);

// graph_user_objects.cpp (callers hold graph_mutex): `into` takes new
// references to the objects `from` (and its child graphs) holds; `refs` are
// given back, each object's destructor run when its last reference goes.
void retain_user_objects_locked(cudaGraph_t from, std::map<CUuserObject_st*, unsigned long long>* into,
                                bool with_children);
void release_user_objects(std::map<CUuserObject_st*, unsigned long long>& refs);

// ---- hooks for the rest of the runtime (graph_capture.cpp) ---------------------------
// Called by enqueue() (queue.cpp) for every piece of stream work: true when
// the work was taken into a graph instead of queued (the stream captures, or
// a graph call is turning one API call into a node on this thread).
bool capture_takes(cudaStream_t stream, device_work& work, work_label& label);
// Runs `call` (one API call that queues one piece of work on stream 0) with
// its work taken for a node: *work and *label receive it (*work stays empty
// when the call queued nothing). The call's error is returned.
cudaError_t record_one_call(const std::function<cudaError_t()>& call, device_work* work,
                            work_label* label);
// Before work is queued on `stream`: the error CUDA gives when the stream's
// capture was invalidated, or when the work would make the legacy stream
// depend on a capturing blocking stream (the capture is invalidated then).
cudaError_t capture_check_stream_work(cudaStream_t stream);
// Before a call waits for or queries `stream` (cudaStreamSynchronize,
// cudaStreamQuery): refused while it captures (the capture is invalidated).
cudaError_t capture_check_stream_wait(cudaStream_t stream);
// Before cudaDeviceSynchronize: refused while any stream captures.
cudaError_t capture_check_device_wait();
// Before a call CUDA counts as potentially unsafe during a capture
// (cudaMalloc): refused where cudaThreadExchangeStreamCaptureMode's rules
// prohibit it (the prohibiting captures are invalidated).
cudaError_t capture_check_unsafe_call();
// Before a synchronous copy or fill on the legacy stream (cudaMemcpy,
// cudaMemset): refused as CUDA refuses it during a capture.
cudaError_t capture_check_synchronous_call();
// cudaEventRecord on a capturing stream: true when the capture took it
// (*error is the call's result); false for an ordinary record (any capture
// state the event had is forgotten).
bool capture_event_record(cudaEvent_t event, cudaStream_t stream, cudaError_t* error);
// cudaStreamWaitEvent: true when capture took it (a fork into or a join
// within a capture sequence, or a refusal), *error being the result.
bool capture_stream_wait_event(cudaStream_t stream, cudaEvent_t event, cudaError_t* error);
// cudaEventSynchronize/cudaEventQuery of an event last recorded in a capture:
// cudaErrorCapturedEvent.
cudaError_t capture_check_event_wait(cudaEvent_t event);
// cudaEventDestroy: the event's capture state goes with it.
void capture_forget_event(cudaEvent_t event);
// cudaMallocAsync/cudaFreeAsync on a capturing stream (graph_memory.cpp
// makes the node): adds a node of `type` with the allocation after the
// stream's frontier, once check_locked (called with the capture's graph,
// under graph_mutex) allows it. cudaErrorStreamCaptureInvalidated when the
// capture was invalidated.
cudaError_t capture_add_memory_node(cudaStream_t stream, cudaGraphNodeType type,
                                    std::shared_ptr<graph_allocation> allocation, device_work work,
                                    work_label label,
                                    const std::function<cudaError_t(cudaGraph_t)>& check_locked);
// cudaStreamDestroy of a stream in a capture: the stream leaves it (its handle
// may be reused); the capture is invalidated unless the stream was forked
// from it and its work is joined back into the origin.
void capture_forget_stream(cudaStream_t stream);

}  // namespace cuemu::detail

#endif
