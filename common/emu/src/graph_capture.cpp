// graph_capture.cpp - stream capture: cudaStreamBeginCapture (and
// cudaStreamBeginCaptureToGraph, into a graph of the caller's) ... EndCapture,
// cudaStreamIsCapturing, cudaStreamGetCaptureInfo,
// cudaStreamUpdateCaptureDependencies,
// cudaThreadExchangeStreamCaptureMode, and the hooks (graph_internal.h) by
// which the rest of the runtime records work instead of queuing it.
//
// How it works: a capture sequence owns the graph being built. Each stream
// in it (the origin, and every stream that joined by waiting for an event
// recorded in the sequence) has a frontier: the nodes its next work comes
// after. Work queued on such a stream becomes a node depending on the
// frontier and is the new frontier. An event recorded on a capturing stream
// remembers the frontier instead of being queued; a wait for it joins the
// waiting stream (fork) or adds to its frontier (join). The sequence ends at
// cudaStreamEndCapture on the origin, which checks that every stream's work
// was joined back into the origin.
//
// Calls CUDA forbids during a capture return its errors and, as in CUDA,
// invalidate the capture: the sequence goes on (later work on its streams is
// refused with cudaErrorStreamCaptureInvalidated) until EndCapture returns
// no graph. Captures are per device in CUDA; here one set of sequences
// serves every emulated device (graphs are one device's work in practice).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "cuemu/runtime.h"
#include "graph_internal.h"

using namespace cuemu::detail;

namespace {

struct capture_sequence {
    unsigned long long id;
    cudaGraph_t graph;
    cudaStreamCaptureMode mode;
    std::thread::id thread;  // the one that began it
    cudaStream_t origin;
    bool invalidated = false;
    // cudaStreamBeginCaptureToGraph: the caller's graph, kept when the capture fails.
    bool callers_graph = false;
};

struct stream_capture {
    std::shared_ptr<capture_sequence> sequence;
    bool blocking;  // not cudaStreamNonBlocking: the legacy stream would wait for it
    std::vector<cudaGraphNode_t> frontier;
    // What cudaStreamGetCaptureInfo handed out (valid until the next call on the stream).
    std::vector<cudaGraphNode_t> reported;
    std::vector<cudaGraphEdgeData> reported_edges;
};

struct captured_event {
    std::shared_ptr<capture_sequence> sequence;
    std::vector<cudaGraphNode_t> frontier;
};

// All guarded by graph_mutex().
std::unordered_map<cudaStream_t, stream_capture> capturing;
std::unordered_map<cudaEvent_t, captured_event> captured_events;
// Events whose last record was in a capture that has ended: cudaEventQuery
// and cudaEventSynchronize refuse them until they are recorded again.
std::unordered_set<cudaEvent_t> events_of_ended_captures;
std::atomic<int> ended_capture_events{0};  // its size, read without the lock
unsigned long long last_capture_id = 0;
// How many streams capture: enqueue() looks no further while it is 0.
std::atomic<int> capturing_count{0};

// The node being made by a graph call on this thread (record_one_call).
struct node_sink {
    bool taken = false;
    device_work work;
    work_label label;
};
thread_local node_sink* active_sink = nullptr;

thread_local cudaStreamCaptureMode thread_capture_mode = cudaStreamCaptureModeGlobal;

bool is_legacy(cudaStream_t s) {
    return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

stream_capture* capture_of_locked(cudaStream_t s) {
    if (is_legacy(s)) return nullptr;
    auto it = capturing.find(s);
    return it == capturing.end() ? nullptr : &it->second;
}

void invalidate_locked(capture_sequence& sequence) { sequence.invalidated = true; }

// The legacy stream waits for every blocking stream: using it while one
// captures would tie the capture to uncaptured work. Invalidates those captures.
bool legacy_use_conflicts_locked() {
    bool conflict = false;
    for (auto& [stream, capture] : capturing)
        if (capture.blocking) {
            invalidate_locked(*capture.sequence);
            conflict = true;
        }
    return conflict;
}

// A "potentially unsafe" call (cudaThreadExchangeStreamCaptureMode's rules):
// prohibited while this thread has a capture not begun in relaxed mode, or,
// in global mode, while any thread has a global-mode capture. Invalidates
// the captures that prohibit it.
bool unsafe_call_prohibited_locked() {
    if (thread_capture_mode == cudaStreamCaptureModeRelaxed) return false;
    bool prohibited = false;
    for (auto& [stream, capture] : capturing) {
        capture_sequence& s = *capture.sequence;
        const bool own = s.thread == std::this_thread::get_id() && s.mode != cudaStreamCaptureModeRelaxed;
        const bool global = s.mode == cudaStreamCaptureModeGlobal &&
                            thread_capture_mode == cudaStreamCaptureModeGlobal;
        if (own || global) {
            invalidate_locked(s);
            prohibited = true;
        }
    }
    return prohibited;
}

void end_capture_locked(const std::shared_ptr<capture_sequence>& sequence) {
    for (auto it = capturing.begin(); it != capturing.end();) {
        if (it->second.sequence == sequence) {
            it = capturing.erase(it);
            --capturing_count;
        } else {
            ++it;
        }
    }
    for (auto it = captured_events.begin(); it != captured_events.end();) {
        if (it->second.sequence != sequence) {
            ++it;
            continue;
        }
        events_of_ended_captures.insert(it->first);
        it = captured_events.erase(it);
    }
    ended_capture_events.store(static_cast<int>(events_of_ended_captures.size()), std::memory_order_release);
    sequence->graph->being_captured = false;
}

// Whether a stream's last work is joined into the origin's frontier: each
// node on its frontier is the origin's frontier or before it.
bool joined_locked(const stream_capture& stream, const stream_capture& origin) {
    std::unordered_set<cudaGraphNode_t> before_origin;
    std::vector<cudaGraphNode_t> todo(origin.frontier.begin(), origin.frontier.end());
    while (!todo.empty()) {
        cudaGraphNode_t n = todo.back();
        todo.pop_back();
        if (!before_origin.insert(n).second) continue;
        todo.insert(todo.end(), n->dependencies.begin(), n->dependencies.end());
    }
    for (cudaGraphNode_t n : stream.frontier)
        if (!before_origin.count(n)) return false;
    return true;
}

// Whether every stream of the sequence is joined into the origin.
bool all_joined_locked(const capture_sequence& sequence, const stream_capture& origin) {
    for (auto& [stream, capture] : capturing)
        if (capture.sequence.get() == &sequence && !joined_locked(capture, origin)) return false;
    return true;
}

void add_to_frontier(std::vector<cudaGraphNode_t>& frontier, const std::vector<cudaGraphNode_t>& more) {
    for (cudaGraphNode_t n : more)
        if (std::find(frontier.begin(), frontier.end(), n) == frontier.end()) frontier.push_back(n);
}

}  // namespace

// ---- hooks -------------------------------------------------------------------------
namespace cuemu::detail {

bool capture_takes(cudaStream_t stream, device_work& work, work_label& label) {
    if (active_sink) {
        active_sink->taken = true;
        active_sink->work = std::move(work);
        active_sink->label = std::move(label);
        return true;
    }
    if (capturing_count.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard<std::mutex> lock(graph_mutex());
    stream_capture* capture = capture_of_locked(stream);
    if (!capture) return false;
    // The call checked the capture first (capture_check_stream_work); one
    // invalidated since by another thread records nothing more.
    if (capture->sequence->invalidated) return true;
    const cudaGraphNodeType type = node_type_of(label);
    cudaGraphNode_t node = add_node_locked(capture->sequence->graph, type, capture->frontier,
                                           std::move(work), std::move(label));
    capture->frontier.assign(1, node);
    return true;
}

cudaError_t record_one_call(const std::function<cudaError_t()>& call, device_work* work,
                            work_label* label) {
    node_sink sink;
    node_sink* outer = active_sink;
    active_sink = &sink;
    cudaError_t e = call();
    active_sink = outer;
    if (e != cudaSuccess) return e;
    if (sink.taken) {
        *work = std::move(sink.work);
        *label = std::move(sink.label);
    }
    return cudaSuccess;
}

cudaError_t capture_check_stream_work(cudaStream_t stream) {
    if (active_sink || capturing_count.load(std::memory_order_acquire) == 0) return cudaSuccess;
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (is_legacy(stream))
        return legacy_use_conflicts_locked() ? cudaErrorStreamCaptureImplicit : cudaSuccess;
    stream_capture* capture = capture_of_locked(stream);
    if (capture && capture->sequence->invalidated) return cudaErrorStreamCaptureInvalidated;
    return cudaSuccess;
}

cudaError_t capture_check_stream_wait(cudaStream_t stream) {
    if (capturing_count.load(std::memory_order_acquire) == 0) return cudaSuccess;
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (is_legacy(stream))
        return legacy_use_conflicts_locked() ? cudaErrorStreamCaptureImplicit : cudaSuccess;
    stream_capture* capture = capture_of_locked(stream);
    if (!capture) return cudaSuccess;
    invalidate_locked(*capture->sequence);
    return cudaErrorStreamCaptureUnsupported;
}

cudaError_t capture_check_device_wait() {
    if (capturing_count.load(std::memory_order_acquire) == 0) return cudaSuccess;
    std::lock_guard<std::mutex> lock(graph_mutex());
    for (auto& [stream, capture] : capturing) invalidate_locked(*capture.sequence);
    return capturing.empty() ? cudaSuccess : cudaErrorStreamCaptureUnsupported;
}

cudaError_t capture_check_unsafe_call() {
    if (capturing_count.load(std::memory_order_acquire) == 0) return cudaSuccess;
    std::lock_guard<std::mutex> lock(graph_mutex());
    return unsafe_call_prohibited_locked() ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

// cudaMemcpy is work on the legacy stream, and no more: while only
// non-blocking streams capture it runs, in every capture mode and from every
// thread, and the captures go on (measured on an H200, CUDA 13.0).
cudaError_t capture_check_synchronous_call() {
    if (capturing_count.load(std::memory_order_acquire) == 0) return cudaSuccess;
    std::lock_guard<std::mutex> lock(graph_mutex());
    return legacy_use_conflicts_locked() ? cudaErrorStreamCaptureImplicit : cudaSuccess;
}

// Every captured event is forgotten when its capture ends: with no capture
// going on, none is left.
bool no_capture() { return capturing_count.load(std::memory_order_acquire) == 0; }

// An event recorded again (or destroyed) is no longer one of an ended capture.
void forget_ended_capture_event_locked(cudaEvent_t event) {
    if (events_of_ended_captures.erase(event))
        ended_capture_events.store(static_cast<int>(events_of_ended_captures.size()), std::memory_order_release);
}

bool capture_event_record(cudaEvent_t event, cudaStream_t stream, cudaError_t* error) {
    if (no_capture() && ended_capture_events.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard<std::mutex> lock(graph_mutex());
    forget_ended_capture_event_locked(event);
    stream_capture* capture = capture_of_locked(stream);
    if (!capture) {
        captured_events.erase(event);
        return false;
    }
    *error = capture->sequence->invalidated ? cudaErrorStreamCaptureInvalidated : cudaSuccess;
    if (*error == cudaSuccess) captured_events[event] = captured_event{capture->sequence, capture->frontier};
    return true;
}

bool capture_stream_wait_event(cudaStream_t stream, cudaEvent_t event, cudaError_t* error) {
    if (no_capture()) return false;
    unsigned int flags = 0;  // asked before the graph lock, which is never held while the queue's is taken
    if (!is_legacy(stream)) cudaStreamGetFlags(stream, &flags);
    std::lock_guard<std::mutex> lock(graph_mutex());
    stream_capture* capture = capture_of_locked(stream);
    auto recorded = captured_events.find(event);
    if (recorded == captured_events.end()) {
        if (!capture) return false;  // an ordinary wait
        // A dependency on work outside the capture.
        invalidate_locked(*capture->sequence);
        *error = cudaErrorStreamCaptureIsolation;
        return true;
    }
    const captured_event& e = recorded->second;
    if (is_legacy(stream)) {
        invalidate_locked(*e.sequence);
        *error = cudaErrorStreamCaptureImplicit;
        return true;
    }
    if (capture && capture->sequence != e.sequence) {
        invalidate_locked(*capture->sequence);
        invalidate_locked(*e.sequence);
        *error = cudaErrorStreamCaptureMerge;
        return true;
    }
    if (e.sequence->invalidated) {
        *error = cudaErrorStreamCaptureInvalidated;
        return true;
    }
    if (capture) {
        add_to_frontier(capture->frontier, e.frontier);  // a join
    } else {
        capturing[stream] = stream_capture{e.sequence, !(flags & cudaStreamNonBlocking), e.frontier, {}, {}};
        ++capturing_count;  // a fork: the stream joins the capture
    }
    *error = cudaSuccess;
    return true;
}

cudaError_t capture_check_event_wait(cudaEvent_t event) {
    if (no_capture() && ended_capture_events.load(std::memory_order_acquire) == 0) return cudaSuccess;
    std::lock_guard<std::mutex> lock(graph_mutex());
    // Recorded in a capture that has ended: not an event of any work (measured
    // on an H200, CUDA 13.0: cudaEventSynchronize gives cudaErrorInvalidValue).
    if (events_of_ended_captures.count(event)) return cudaErrorInvalidValue;
    auto recorded = captured_events.find(event);
    if (recorded == captured_events.end()) return cudaSuccess;
    invalidate_locked(*recorded->second.sequence);
    return cudaErrorCapturedEvent;
}

cudaError_t capture_add_memory_node(cudaStream_t stream, cudaGraphNodeType type,
                                    std::shared_ptr<graph_allocation> allocation, device_work work,
                                    work_label label,
                                    const std::function<cudaError_t(cudaGraph_t)>& check_locked) {
    std::lock_guard<std::mutex> lock(graph_mutex());
    stream_capture* capture = capture_of_locked(stream);
    if (!capture) return cudaErrorIllegalState;
    if (capture->sequence->invalidated) return cudaErrorStreamCaptureInvalidated;
    if (cudaError_t e = check_locked(capture->sequence->graph)) return e;
    cudaGraphNode_t node = add_node_locked(capture->sequence->graph, type, capture->frontier,
                                           std::move(work), std::move(label));
    node->allocation = std::move(allocation);
    capture->frontier.assign(1, node);
    return cudaSuccess;
}

void capture_forget_stream(cudaStream_t stream) {
    if (no_capture()) return;
    std::lock_guard<std::mutex> lock(graph_mutex());
    auto it = capturing.find(stream);
    if (it == capturing.end()) return;
    capture_sequence& sequence = *it->second.sequence;
    // A forked stream whose work the origin has joined leaves quietly (NVIDIA's
    // graphMemoryNodes sample destroys one so); otherwise the capture is lost.
    if (sequence.origin != stream) {
        auto origin = capturing.find(sequence.origin);
        if (origin != capturing.end() && joined_locked(it->second, origin->second)) {
            capturing.erase(it);
            --capturing_count;
            return;
        }
    }
    invalidate_locked(sequence);
    if (sequence.origin == stream) {  // nothing can end it now: the graph goes too
        std::shared_ptr<capture_sequence> keep = it->second.sequence;
        end_capture_locked(keep);
        if (!keep->callers_graph) delete_graph_locked(keep->graph);
        return;
    }
    capturing.erase(it);
    --capturing_count;
}

void capture_forget_event(cudaEvent_t event) {
    if (no_capture() && ended_capture_events.load(std::memory_order_acquire) == 0) return;
    std::lock_guard<std::mutex> lock(graph_mutex());
    forget_ended_capture_event_locked(event);
    captured_events.erase(event);
}

}  // namespace cuemu::detail

// ---- the capture calls ----------------------------------------------------------------
namespace {
// Begins a capture into a new graph (graph null) or into `graph`, its first
// work after `deps` (cudaStreamBeginCaptureToGraph).
cudaError_t begin_capture(cudaStream_t stream, cudaStreamCaptureMode mode, cudaGraph_t graph,
                          const cudaGraphNode_t* deps, size_t num_deps, const char* call) {
    if (cudaError_t e = context_status()) return e;
    if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
        mode != cudaStreamCaptureModeRelaxed)
        return record(cudaErrorInvalidValue);
    if (stream == cudaStreamPerThread) {
        // CUDA captures the per-thread default stream; here it is the legacy
        // stream itself, which cannot capture.
        std::fprintf(stderr,
                     "cuemu: %s(cudaStreamPerThread) is not emulated (the "
                     "emulator's per-thread stream is the legacy stream): capture a stream made "
                     "with cudaStreamCreate\n",
                     call);
        return record(cudaErrorStreamCaptureUnsupported);
    }
    if (is_legacy(stream)) return record(cudaErrorStreamCaptureUnsupported);
    unsigned int flags = 0;
    if (cudaStreamGetFlags(stream, &flags) != cudaSuccess) return record(cudaErrorInvalidResourceHandle);
    std::lock_guard<std::mutex> lock(graph_mutex());
    std::vector<cudaGraphNode_t> frontier;
    if (graph && (!is_live_graph_locked(graph) || graph->being_captured ||
                  !dependencies_valid_locked(graph, deps, num_deps, &frontier)))
        return record(cudaErrorInvalidValue);
    if (capture_of_locked(stream)) return record(cudaErrorIllegalState);
    auto sequence = std::make_shared<capture_sequence>();
    sequence->id = ++last_capture_id;
    sequence->graph = graph ? graph : new_graph_locked();
    sequence->callers_graph = graph != nullptr;
    sequence->graph->being_captured = true;
    sequence->mode = mode;
    sequence->thread = std::this_thread::get_id();
    sequence->origin = stream;
    capturing[stream] = stream_capture{sequence, !(flags & cudaStreamNonBlocking), frontier, {}, {}};
    ++capturing_count;
    return cudaSuccess;
}
}  // namespace

namespace {
// A handle that names no stream (asked before the graph lock, which is never
// held while the queue's is taken).
bool unknown_stream(cudaStream_t stream) {
    unsigned int flags;
    return !is_legacy(stream) && cudaStreamGetFlags(stream, &flags) != cudaSuccess;
}
}  // namespace

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
    return begin_capture(stream, mode, nullptr, nullptr, 0, "cudaStreamBeginCapture");
}

// The captured work joins `graph` after `dependencies`; cudaStreamEndCapture
// hands back that graph (and leaves it, with what was added, when the capture
// failed).
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t* dependencies,
                                          const cudaGraphEdgeData* dependencyData, size_t numDependencies,
                                          cudaStreamCaptureMode mode) {
    if (!graph) return record(cudaErrorInvalidValue);
    if (!default_edges(dependencyData, numDependencies, "cudaStreamBeginCaptureToGraph"))
        return record(cudaErrorNotSupported);
    return begin_capture(stream, mode, graph, dependencies, numDependencies, "cudaStreamBeginCaptureToGraph");
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
    if (!pGraph) return record(cudaErrorInvalidValue);
    if (is_legacy(stream)) return record(cudaErrorIllegalState);
    std::lock_guard<std::mutex> lock(graph_mutex());
    stream_capture* capture = capture_of_locked(stream);
    if (!capture) return record(cudaErrorIllegalState);
    std::shared_ptr<capture_sequence> sequence = capture->sequence;
    if (sequence->origin != stream) {
        invalidate_locked(*sequence);
        return record(cudaErrorStreamCaptureUnmatched);
    }
    cudaError_t result = cudaSuccess;
    // An invalidated capture says so first, from any thread (measured on an
    // H200, CUDA 13.0). From another thread than the one that began it (not
    // relaxed mode): refused, and the capture ends with no graph all the same
    // (on the H200 a second cudaStreamEndCapture gave cudaErrorIllegalState).
    if (sequence->invalidated)
        result = cudaErrorStreamCaptureInvalidated;
    else if (sequence->mode != cudaStreamCaptureModeRelaxed && sequence->thread != std::this_thread::get_id())
        result = cudaErrorStreamCaptureWrongThread;
    else if (!all_joined_locked(*sequence, *capture))
        result = cudaErrorStreamCaptureUnjoined;
    end_capture_locked(sequence);
    if (result != cudaSuccess) {
        if (!sequence->callers_graph) delete_graph_locked(sequence->graph);
        *pGraph = nullptr;
        return record(result);
    }
    *pGraph = sequence->graph;
    return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* captureStatus_out,
                                     unsigned long long* id_out, cudaGraph_t* graph_out,
                                     const cudaGraphNode_t** dependencies_out,
                                     const cudaGraphEdgeData** edgeData_out,
                                     size_t* numDependencies_out) {
    if (!captureStatus_out) return record(cudaErrorInvalidValue);
    if (edgeData_out && !dependencies_out) return record(cudaErrorInvalidValue);
    if (unknown_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (is_legacy(stream)) {
        for (auto& [s, capture] : capturing)
            if (capture.blocking) return record(cudaErrorStreamCaptureImplicit);
        *captureStatus_out = cudaStreamCaptureStatusNone;
        return cudaSuccess;
    }
    stream_capture* capture = capture_of_locked(stream);
    if (!capture) {
        *captureStatus_out = cudaStreamCaptureStatusNone;
        return cudaSuccess;
    }
    const capture_sequence& s = *capture->sequence;
    *captureStatus_out = s.invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
    if (s.invalidated) return cudaSuccess;  // the other outputs are valid only while active
    if (id_out) *id_out = s.id;
    if (graph_out) *graph_out = s.graph;
    capture->reported = capture->frontier;
    capture->reported_edges.assign(capture->reported.size(), cudaGraphEdgeData{});
    if (dependencies_out) *dependencies_out = capture->reported.data();
    if (edgeData_out) *edgeData_out = capture->reported_edges.data();
    if (numDependencies_out) *numDependencies_out = capture->reported.size();
    return cudaSuccess;
}

// The stream's frontier (the nodes its next work comes after) takes, or
// gains, nodes of the capture's graph: typically nodes the program added to
// that graph by hand (cudaStreamGetCaptureInfo gave it) while capturing.
// Nodes dropped so are not checked for joining at cudaStreamEndCapture, as
// CUDA documents, because only frontiers are.
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                const cudaGraphEdgeData* dependencyData,
                                                size_t numDependencies, unsigned int flags) {
    if (cudaError_t e = context_status()) return e;
    if (flags != cudaStreamAddCaptureDependencies && flags != cudaStreamSetCaptureDependencies)
        return record(cudaErrorInvalidValue);
    if (numDependencies && !dependencies) return record(cudaErrorInvalidValue);
    if (unknown_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    std::lock_guard<std::mutex> lock(graph_mutex());
    stream_capture* capture = capture_of_locked(stream);
    if (!capture) return record(cudaErrorIllegalState);
    if (capture->sequence->invalidated) return record(cudaErrorStreamCaptureInvalidated);
    if (!default_edges(dependencyData, numDependencies, "cudaStreamUpdateCaptureDependencies"))
        return record(cudaErrorNotSupported);
    // A copy first: `dependencies` may be the very array GetCaptureInfo handed out.
    std::vector<cudaGraphNode_t> given(dependencies, dependencies + numDependencies);
    for (cudaGraphNode_t node : given)
        if (!node_of_graph_locked(node, capture->sequence->graph)) return record(cudaErrorInvalidValue);
    if (flags == cudaStreamSetCaptureDependencies) capture->frontier.clear();
    add_to_frontier(capture->frontier, given);
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* pCaptureStatus) {
    return cudaStreamGetCaptureInfo(stream, pCaptureStatus);
}

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
    if (!mode || (*mode != cudaStreamCaptureModeGlobal && *mode != cudaStreamCaptureModeThreadLocal &&
                  *mode != cudaStreamCaptureModeRelaxed))
        return record(cudaErrorInvalidValue);
    std::swap(*mode, thread_capture_mode);
    return cudaSuccess;
}
