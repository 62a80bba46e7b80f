// streams.cpp - the stream calls: cudaStreamCreate(WithFlags),
// cudaStreamDestroy, cudaStreamSynchronize, cudaStreamQuery,
// cudaStreamWaitEvent, cudaStreamGetFlags and cudaLaunchHostFunc. Streams
// are the device queue's (queue.cpp says how they are ordered);
// streams_extra.cpp has the smaller stream calls built on these.
#include <cstdint>
#include <mutex>

#include "cuemu/runtime.h"
#include "device_queue.h"
#include "dynamic_parallelism.h"
#include "graph_internal.h"
#include "internal.h"
#include "trace.h"

using namespace cuemu::detail;

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
    if (inside_kernel()) return create_device_stream(stream, flags);  // the device runtime's
    if (!stream) return record(cudaErrorInvalidValue);
    if (flags != cudaStreamDefault && flags != cudaStreamNonBlocking)
        return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    device_queue& q = queue();
    std::lock_guard<std::mutex> lock(q.mutex_);
    *stream = new CUstream_st{flags, 0, q.next_stream_number(), q.device()};
    q.live_streams_.insert(*stream);
    trace_name_stream((*stream)->number, flags == cudaStreamNonBlocking);
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
    return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

// As on a GPU, destroying a stream with work pending returns at once; the
// work still runs (it does not refer to the stream object).
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    if (inside_kernel()) return destroy_device_stream(stream);
    if (in_forked_child()) return forked_child_error();
    device_queue* found = queue_of_stream(stream);
    if (!found) return record(cudaErrorInvalidResourceHandle);
    capture_forget_stream(stream);  // graph_capture.cpp
    device_queue& q = *found;
    {
        std::lock_guard<std::mutex> lock(q.mutex_);
        if (q.resolve(stream) == nullptr || q.is_default(stream))
            return record(cudaErrorInvalidResourceHandle);
        q.live_streams_.erase(stream);
        delete stream;
    }
    return context_status();
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    if (cudaError_t e = context_status()) return e;
    device_queue* q = queue_of_stream(stream);  // any device's, as in CUDA
    CUstream_st* s = q ? q->find(stream) : nullptr;
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = capture_check_stream_wait(stream)) return record(e);  // graph_capture.cpp
    const cudaError_t e = q->wait_stream(s, "cudaStreamSynchronize");
    release_pool_memory();  // memory_pools.cpp
    return e;
}

// cudaErrorNotReady is not an error, only an answer: it is returned but not
// recorded for cudaGetLastError.
cudaError_t cudaStreamQuery(cudaStream_t stream) {
    if (cudaError_t e = context_status()) return e;
    device_queue* q = queue_of_stream(stream);  // any device's, as in CUDA
    CUstream_st* s = q ? q->find(stream) : nullptr;
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = capture_check_stream_wait(stream)) return record(e);  // graph_capture.cpp
    return q->query_stream(s);
}

// Work queued on the stream after this call waits for the event's latest
// record (as it stands now): a piece of bookkeeping in the stream that is
// done when both the stream's earlier work and that record are.
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    if (flags > 1) return record(cudaErrorInvalidValue);  // cudaEventWaitDefault, ...External
    if (cudaError_t e = context_status()) return e;
    device_queue* event_queue = queue_of_event(event);
    if (!event_queue) return record(cudaErrorInvalidResourceHandle);
    device_queue* q = queue_of_stream(stream);
    CUstream_st* s = q ? q->find(stream) : nullptr;
    if (!s) return record(cudaErrorInvalidResourceHandle);
    // A fork into or a join within a capture is the capture's (graph_capture.cpp).
    if (cudaError_t e; capture_stream_wait_event(stream, event, &e)) return e ? record(e) : e;
    std::uint64_t record_seq;
    {
        std::lock_guard<std::mutex> lock(event_queue->mutex_);
        record_seq = event->recorded ? event->seq : 0;
    }
    if (record_seq == 0) return cudaSuccess;  // never recorded: nothing to wait for, as in CUDA
    work_label label;
    if (event_queue == q) {
        label.engine = engine_kind::bookkeeping;
        if (trace_enabled()) label.name = "cudaStreamWaitEvent: the event's record is reached";
        q->push(s, [](std::uint64_t) { return cudaSuccess; }, std::move(label), false, {}, record_seq);
        return cudaSuccess;
    }
    // An event of another device (allowed, as in CUDA: this is how devices
    // wait for each other). The queues number their work apart, so the wait
    // is a piece of work of the stream, on the host-function engine, that
    // returns when the other device has reached the record.
    label.engine = engine_kind::host_function;
    label.category = "wait";
    if (trace_enabled()) label.name = "cudaStreamWaitEvent (another device's event)";
    q->push(s,
            [event_queue, record_seq](std::uint64_t) {
                event_queue->wait_quietly(record_seq);
                return cudaSuccess;
            },
            std::move(label));
    return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
    if (!flags) return record(cudaErrorInvalidValue);
    device_queue* found = queue_of_stream(stream);
    if (!found) return record(cudaErrorInvalidResourceHandle);
    device_queue& q = *found;
    std::lock_guard<std::mutex> lock(q.mutex_);
    CUstream_st* s = q.resolve(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    *flags = s->flags;
    return cudaSuccess;
}

// The function runs on the host-function engine's thread, in stream order. Like on a GPU it
// must not call CUDA functions that wait (the emulator stops with a message).
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
    if (!fn) return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = capture_check_stream_work(stream)) return record(e);  // graph_capture.cpp
    work_label label;
    label.engine = engine_kind::host_function;
    label.category = "host function";
    if (trace_enabled()) label.name = "host function";
    enqueue(
        stream,
        [fn, user_data](std::uint64_t) {
            fn(user_data);
            return cudaSuccess;
        },
        std::move(label));
    return cudaSuccess;
}
