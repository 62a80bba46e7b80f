// streams_extra.cpp - stream callbacks, priorities and the smaller stream and
// event calls, built on streams.cpp's cudaLaunchHostFunc and
// cudaStreamCreateWithFlags and events.cpp's cudaEventRecord.
//
// Priorities: every stream is served by the one device queue, in issue order,
// so a priority could change nothing. The device says so, as a GPU without
// priorities does: cudaDevAttrStreamPrioritiesSupported is 0 and the range is
// [0, 0], to which any requested priority is clamped (as CUDA documents).
#include <memory>

#include "cuemu/runtime.h"
#include "cuemu/runtime_extra.h"
#include "internal.h"

using namespace cuemu::detail;

namespace {

struct stream_callback {
    cudaStream_t stream;
    cudaStreamCallback_t callback;
    void* user_data;
};

// On the device thread, in stream order. The status is that of the device:
// cudaSuccess, or the sticky error of a fault in earlier work.
void run_stream_callback(void* p) {
    std::unique_ptr<stream_callback> cb(static_cast<stream_callback*>(p));
    cb->callback(cb->stream, context_status(), cb->user_data);
}

}  // namespace

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void* user_data, unsigned int flags) {
    if (!callback || flags != 0) return record(cudaErrorInvalidValue);
    auto* cb = new stream_callback{stream, callback, user_data};
    cudaError_t e = cudaLaunchHostFunc(stream, run_stream_callback, cb);
    if (e != cudaSuccess) delete cb;
    return e;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least_priority, int* greatest_priority) {
    if (least_priority) *least_priority = 0;
    if (greatest_priority) *greatest_priority = 0;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int) {
    return cudaStreamCreateWithFlags(stream, flags);  // clamped to the range [0, 0]
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
    if (!priority) return record(cudaErrorInvalidValue);
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    *priority = 0;
    return cudaSuccess;
}

cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) {
    if (!device) return record(cudaErrorInvalidValue);
    const int owner = stream_device(stream);  // the device current when it was made
    if (owner < 0) return record(cudaErrorInvalidResourceHandle);
    *device = owner;
    return cudaSuccess;
}

cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* stream_id) {
    if (!stream_id) return record(cudaErrorInvalidValue);
    int device = 0, number = 0;
    if (!stream_identity(stream, &device, &number)) return record(cudaErrorInvalidResourceHandle);
    *stream_id = static_cast<unsigned long long>(number) * max_devices + device + 1;
    return cudaSuccess;
}

// cudaEventRecordExternal matters only while capturing a graph, which the
// emulator does not do.
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
    if (flags != cudaEventRecordDefault) return record(cudaErrorInvalidValue);
    return cudaEventRecord(event, stream);
}
