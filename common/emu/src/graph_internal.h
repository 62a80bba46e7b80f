// graph_internal.h - what the graph files share (graphs.cpp: graphs, nodes,
// executable graphs; graph_capture.cpp: stream capture) and the hooks the
// rest of the runtime calls so that work queued on a capturing stream
// becomes a node instead of running (queue.cpp's enqueue, and the checks in
// the stream, event, copy and launch calls).
#ifndef CUEMU_GRAPH_INTERNAL_H
#define CUEMU_GRAPH_INTERNAL_H

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "cuemu/graphs.h"
#include "internal.h"

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
};
struct CUgraph_st {
    std::vector<std::unique_ptr<CUgraphNode_st>> nodes;  // in the order they were added
    bool being_captured = false;  // a capture sequence still adds to it
    // A cudaGraphClone copy: each original node's copy (cudaGraphNodeFindInClone).
    std::unordered_map<CUgraphNode_st*, CUgraphNode_st*> copy_of;
};

namespace cuemu::detail {

// Guards every graph, node, executable graph and capture sequence.
std::mutex& graph_mutex();

// graphs.cpp (callers hold graph_mutex).
bool is_live_graph_locked(cudaGraph_t graph);
cudaGraph_t new_graph_locked();
void delete_graph_locked(cudaGraph_t graph);
cudaGraphNode_t add_node_locked(cudaGraph_t graph, cudaGraphNodeType type,
                                const std::vector<cudaGraphNode_t>& dependencies,
                                device_work work, work_label label);
// The node type of captured work, from the queue's label.
cudaGraphNodeType node_type_of(const work_label& label);

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
// cudaStreamDestroy of a stream in a capture: the stream leaves it (its handle
// may be reused) and the capture is invalidated.
void capture_forget_stream(cudaStream_t stream);

}  // namespace cuemu::detail

#endif
