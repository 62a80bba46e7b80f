// events.cpp - the event calls: cudaEventCreate(WithFlags), cudaEventRecord,
// cudaEventSynchronize, cudaEventQuery, cudaEventElapsedTime and
// cudaEventDestroy. An event's record is bookkeeping in the device queue
// (queue.cpp); cudaStreamWaitEvent is in streams.cpp.
#include <chrono>
#include <cstdint>
#include <mutex>

#include "cuemu/runtime.h"
#include "device_queue.h"
#include "graph_internal.h"
#include "internal.h"
#include "trace.h"

using namespace cuemu::detail;

namespace {

double now_ms() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

}  // namespace

// The queue reads the host clock when it reaches a record, so the
// time between two events is the wall-clock time the emulated device took
// between them (the CPU time of its work, and any overlap of its engines).
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
    if (!event) return record(cudaErrorInvalidValue);
    if (flags & ~unsigned(cudaEventBlockingSync | cudaEventDisableTiming | 0x04))
        return record(cudaErrorInvalidValue);  // 0x04: cudaEventInterprocess
    if (cudaError_t e = context_status()) return e;
    device_queue& q = queue();
    std::lock_guard<std::mutex> lock(q.mutex_);
    *event = new CUevent_st{q.device(), flags, false, 0, 0.0, false};
    q.live_events_.insert(*event);
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

// The event and the stream must belong to the same device
// (cudaErrorInvalidResourceHandle otherwise, as in CUDA).
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    if (cudaError_t e = context_status()) return e;
    device_queue* found = queue_of_event(event);
    if (!found || found != queue_of_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    device_queue& q = *found;
    CUstream_st* s = q.find(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    // On a capturing stream the record marks a place in the graph (graph_capture.cpp).
    if (cudaError_t e; capture_event_record(event, stream, &e)) return e ? record(e) : e;
    if (cudaError_t e = capture_check_stream_work(stream)) return record(e);
    work_label label;
    label.engine = engine_kind::bookkeeping;  // done under the queue's lock
    if (trace_enabled()) label.name = "cudaEventRecord";
    q.push(
        s,
        [event](std::uint64_t seq) {
            if (event->seq == seq) {  // an older record of a re-recorded event stamps nothing
                event->time_ms = now_ms();
                if (event->destroyed) delete event;
            }
            return cudaSuccess;
        },
        std::move(label),
        /*runs_after_fault=*/true,
        [event](std::uint64_t seq) {
            event->recorded = true;
            event->seq = seq;
        });
    return cudaSuccess;
}

namespace {
// The latest record's number, or 0 for an event never recorded (which counts
// as complete, as in CUDA).
std::uint64_t record_seq(device_queue& q, cudaEvent_t event) {
    std::lock_guard<std::mutex> lock(q.mutex_);
    return event->recorded ? event->seq : 0;
}
}  // namespace

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    if (cudaError_t e = context_status()) return e;
    device_queue* found = queue_of_event(event);  // any device's, as in CUDA
    if (!found) return record(cudaErrorInvalidResourceHandle);
    device_queue& q = *found;
    if (cudaError_t e = capture_check_event_wait(event)) return record(e);  // graph_capture.cpp
    const cudaError_t e = q.wait(record_seq(q, event), "cudaEventSynchronize");
    release_pool_memory();  // memory_pools.cpp
    return e;
}

// cudaErrorNotReady is returned, not recorded (see cudaStreamQuery).
cudaError_t cudaEventQuery(cudaEvent_t event) {
    if (cudaError_t e = context_status()) return e;
    device_queue* found = queue_of_event(event);  // any device's, as in CUDA
    if (!found) return record(cudaErrorInvalidResourceHandle);
    device_queue& q = *found;
    if (cudaError_t e = capture_check_event_wait(event)) return record(e);  // graph_capture.cpp
    return q.query(record_seq(q, event));
}

// The real rules: an event never recorded, or made with
// cudaEventDisableTiming, gives cudaErrorInvalidResourceHandle; one recorded
// but not yet reached gives cudaErrorNotReady (returned, not recorded).
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    if (!ms) return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    // Both events of one device (cudaErrorInvalidResourceHandle otherwise, as in CUDA).
    device_queue* found = queue_of_event(start);
    if (!found || found != queue_of_event(end)) return record(cudaErrorInvalidResourceHandle);
    device_queue& q = *found;
    std::lock_guard<std::mutex> lock(q.mutex_);
    if ((start->flags | end->flags) & cudaEventDisableTiming)
        return record(cudaErrorInvalidResourceHandle);
    if (!start->recorded || !end->recorded) return record(cudaErrorInvalidResourceHandle);
    if (!q.is_done_locked(start->seq) || !q.is_done_locked(end->seq)) return cudaErrorNotReady;
    *ms = static_cast<float>(end->time_ms - start->time_ms);
    return cudaSuccess;
}

// As on a GPU, an event may be destroyed while its record is pending: the
// queue frees it when it gets there. Destroying it a second time (or
// an event never created) is refused with cudaErrorInvalidResourceHandle.
cudaError_t cudaEventDestroy(cudaEvent_t event) {
    if (in_forked_child()) return forked_child_error();
    device_queue* found = queue_of_event(event);
    if (!found) return record(cudaErrorInvalidResourceHandle);
    capture_forget_event(event);  // before the queue's lock: the graph lock is taken first elsewhere
    device_queue& q = *found;
    std::lock_guard<std::mutex> lock(q.mutex_);
    if (!event || !q.live_events_.erase(event)) return record(cudaErrorInvalidResourceHandle);
    if (event->recorded && !q.is_done_locked(event->seq))
        event->destroyed = true;
    else
        delete event;
    return cudaSuccess;
}
