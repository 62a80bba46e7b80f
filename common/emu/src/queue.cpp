// queue.cpp - the device's work queue and the one thread that does the work,
// and what is built on them: asynchronous launches, streams, events and host
// functions. This file owns every piece of device work between the call that
// issues it and its completion, and decides when the host hears of a fault.
//
// How it works:
//   - A launch, cudaMemcpyAsync, cudaMemset(Async), cudaEventRecord,
//     cudaLaunchHostFunc and cudaMemPrefetchAsync check their arguments at
//     once (an error is returned by the call, as on a GPU), then append a piece
//     of work to one FIFO queue and return. The host program runs on.
//   - The device thread takes the work in order and does it: a kernel through
//     the worker pool (scheduler.cpp), a copy with memmove, an event record by
//     reading the clock. Each piece has a sequence number; `completed_` is the
//     number of the last piece done.
//   - Every stream is served by this one queue, so work runs in the order it
//     was issued. CUDA guarantees only the order within a stream; a single
//     order is one of the orders a GPU may choose (streams never overlap here).
//   - Synchronizing calls wait for a sequence number: cudaDeviceSynchronize
//     for the last one issued, cudaStreamSynchronize(s) for the last one on s,
//     cudaEventSynchronize(e) for e's latest record. cudaMemcpy and cudaFree
//     wait too, as they do on a GPU. Queries (cudaStreamQuery, cudaEventQuery)
//     answer cudaErrorNotReady while that work is pending.
//   - A fault inside a kernel is reported (printed) on the device thread when
//     it happens. Later work is skipped, as a GPU context is dead after a
//     fault. The host learns of it only when it waits for (or queries) work at
//     or after the faulting kernel: then the error becomes sticky and is
//     returned, like the next synchronizing call on a GPU returns it. Until
//     then, calls that do not wait (another launch, cudaMalloc) succeed, so
//     where the error surfaces does not depend on timing.
//   - Device memory is opened (internal.h) before the device thread starts
//     work and closed when the queue runs dry.
//   - At the end of the program (exit, or main returning) the queue is
//     finished before the process ends, so no work is half done. The queue
//     itself is never destroyed: a static object's destructor may still call
//     cudaFree after that.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "cuemu/runtime.h"
#include "internal.h"

struct CUstream_st {
    unsigned int flags;
    std::uint64_t last_seq;  // the last work queued on this stream (0: none yet)
};
struct CUevent_st {
    unsigned int flags;
    bool recorded;       // cudaEventRecord was called at least once
    std::uint64_t seq;   // the latest record's place in the queue
    double time_ms;      // when the device thread reached that record
    bool destroyed;      // cudaEventDestroy came while the record was pending
};

namespace cuemu::detail {
namespace {

double now_ms() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

thread_local bool is_device_thread = false;

// Waiting for the device from the device's own work would wait forever.
void refuse_wait_from_device(const char* what) {
    if (!is_device_thread && !inside_kernel()) return;
    std::fprintf(stderr,
                 "cuemu: %s called from inside a kernel or a host function queued with "
                 "cudaLaunchHostFunc; it would wait for itself (a GPU does not allow it either)\n",
                 what);
    std::abort();
}

struct queued_work {
    std::uint64_t seq;
    device_work work;
    bool runs_after_fault;  // event records: bookkeeping that must still happen
};

class device_queue {
public:
    device_queue() {
        // Start the worker pool first: statics are destroyed in reverse order
        // of construction, so the pool then outlives this queue at exit.
        worker_count();
        install_fork_guard_once();
        live_streams_.insert(&default_stream_);
        std::thread([this] { serve(); }).detach();
    }

    // Streams: 0, cudaStreamLegacy and cudaStreamPerThread are the default stream.
    CUstream_st* resolve(cudaStream_t s) {
        if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread)
            return &default_stream_;
        return live_streams_.count(s) ? s : nullptr;
    }
    bool is_default(cudaStream_t s) { return resolve(s) == &default_stream_; }
    // resolve() for callers that do not hold the lock.
    CUstream_st* find(cudaStream_t s) {
        std::lock_guard<std::mutex> lock(mutex_);
        return resolve(s);
    }

    // Queues work; while_locked(seq) runs under the queue lock before the
    // device thread can see the work (for an event's bookkeeping).
    std::uint64_t push(CUstream_st* stream, device_work work, bool runs_after_fault = false,
                       const std::function<void(std::uint64_t)>& while_locked = {}) {
        std::uint64_t seq;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            seq = ++issued_;
            stream->last_seq = seq;
            if (while_locked) while_locked(seq);
            items_.push_back(queued_work{seq, std::move(work), runs_after_fault});
        }
        wake_.notify_one();
        return seq;
    }

    cudaError_t wait(std::uint64_t seq, const char* what) {
        if (in_forked_child()) return forked_child_error();  // no device thread to wait for
        refuse_wait_from_device(what);
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return completed_ >= seq; });
        return observe_locked(lock, seq);
    }

    // cudaSuccess when the work up to seq is done (and did not fault),
    // cudaErrorNotReady while it is pending.
    cudaError_t query(std::uint64_t seq) {
        if (in_forked_child()) return forked_child_error();
        std::unique_lock<std::mutex> lock(mutex_);
        if (completed_ < seq) return cudaErrorNotReady;
        return observe_locked(lock, seq);
    }

    // The sequence numbers to wait for.
    std::uint64_t last_issued() {
        std::lock_guard<std::mutex> lock(mutex_);
        return issued_;
    }
    std::uint64_t last_on(CUstream_st* s) {
        std::lock_guard<std::mutex> lock(mutex_);
        // Legacy default stream: it waits for the work of every (blocking)
        // stream issued before, so synchronizing it waits for everything.
        return s == &default_stream_ ? issued_ : s->last_seq;
    }

    std::mutex mutex_;  // also guards streams and events
    std::unordered_set<CUstream_st*> live_streams_;
    // Events created and not yet destroyed: a handle is checked against this
    // set before it is used, so a destroyed (or made-up) event is refused
    // instead of read after it was freed.
    std::unordered_set<CUevent_st*> live_events_;
    bool is_live(cudaEvent_t e) {
        std::lock_guard<std::mutex> lock(mutex_);
        return e && live_events_.count(e) != 0;
    }
    std::uint64_t completed_ = 0;

private:
    cudaError_t observe_locked(std::unique_lock<std::mutex>& lock, std::uint64_t seq) {
        if (fault_ != cudaSuccess && fault_seq_ <= seq) {
            cudaError_t e = fault_;
            lock.unlock();
            make_sticky(e);
        } else {
            lock.unlock();
        }
        return context_status();
    }

    void serve() {
        is_device_thread = true;
        bool memory_open = false;
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return !items_.empty(); });
            queued_work item = std::move(items_.front());
            items_.pop_front();
            const bool skip = fault_ != cudaSuccess && !item.runs_after_fault;
            lock.unlock();
            if (!memory_open) {
                device_memory_open();
                memory_open = true;
            }
            cudaError_t e = skip ? cudaSuccess : item.work(item.seq);
            item.work = nullptr;  // frees a launch's arguments, outside the lock
            lock.lock();
            if (e != cudaSuccess && fault_ == cudaSuccess) {
                fault_ = e;
                fault_seq_ = item.seq;
            }
            if (items_.empty()) {
                lock.unlock();
                device_memory_close();
                memory_open = false;
                lock.lock();
            }
            completed_ = item.seq;
            done_.notify_all();
        }
    }

    CUstream_st default_stream_{cudaStreamDefault, 0};
    std::condition_variable wake_, done_;
    std::deque<queued_work> items_;
    std::uint64_t issued_ = 0;
    cudaError_t fault_ = cudaSuccess;  // the first fault, and where it happened
    std::uint64_t fault_seq_ = 0;
};

device_queue& queue();

// At exit: let the device finish what was queued. Not when exit was called
// by the device's own work (a host function or a kernel): it would wait for
// itself. Nor in a child made with fork(): it has no device thread.
void finish_at_exit() {
    if (is_device_thread || inside_kernel() || in_forked_child()) return;
    device_queue& q = queue();
    q.wait(q.last_issued(), "exit");
}

device_queue& queue() {
    // Never destroyed (see the top of the file); the device thread idles in
    // its wait when the process ends.
    static device_queue* instance = [] {
        auto* q = new device_queue;
        std::atexit(finish_at_exit);
        return q;
    }();
    return *instance;
}

}  // namespace

std::uint64_t enqueue(cudaStream_t stream, device_work work) {
    device_queue& q = queue();
    CUstream_st* s = q.find(stream);
    if (!s) s = q.resolve(nullptr);  // callers check the stream first; never a dangling one
    return q.push(s, std::move(work));
}

bool is_valid_stream(cudaStream_t stream) { return queue().find(stream) != nullptr; }

bool on_device_thread() { return is_device_thread; }

cudaError_t wait_for(std::uint64_t seq) { return queue().wait(seq, "a CUDA call that waits"); }

cudaError_t synchronize_device() {
    device_queue& q = queue();
    return q.wait(q.last_issued(), "cudaDeviceSynchronize (or a call that waits like it)");
}

}  // namespace cuemu::detail

using namespace cuemu::detail;

// ---- launches ------------------------------------------------------------------------
void cuemu::enqueue_launch(const launch_site& site, const launch_config& config,
                           void (*run_thread)(void*), void* ctx, void (*destroy)(void*)) {
    std::shared_ptr<void> owned(ctx, destroy);  // freed when the work is done or dropped
    if (context_status() != cudaSuccess) return;  // a sticky error: nothing runs
    if (cudaError_t e = check_launch(site, config)) {
        record(e);  // reported by the next cudaGetLastError(), not sticky
        return;
    }
    if (!is_valid_stream(config.stream)) {
        record(cudaErrorInvalidResourceHandle);
        return;
    }
    // The site's strings are literals and the configuration is copied, so
    // both outlive the statement that launched.
    enqueue(config.stream, [site, config, run_thread, owned](std::uint64_t) {
        return run_launch(site, config, run_thread, owned.get());
    });
}

// ---- streams -----------------------------------------------------------------------
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
    if (!stream) return record(cudaErrorInvalidValue);
    if (flags != cudaStreamDefault && flags != cudaStreamNonBlocking)
        return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    device_queue& q = queue();
    std::lock_guard<std::mutex> lock(q.mutex_);
    *stream = new CUstream_st{flags, 0};
    q.live_streams_.insert(*stream);
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
    return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

// As on a GPU, destroying a stream with work pending returns at once; the
// work still runs (it does not refer to the stream object).
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    if (in_forked_child()) return forked_child_error();
    device_queue& q = queue();
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
    device_queue& q = queue();
    CUstream_st* s = q.find(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    return q.wait(q.last_on(s), "cudaStreamSynchronize");
}

// cudaErrorNotReady is not an error, only an answer: it is returned but not
// recorded for cudaGetLastError.
cudaError_t cudaStreamQuery(cudaStream_t stream) {
    if (cudaError_t e = context_status()) return e;
    device_queue& q = queue();
    CUstream_st* s = q.find(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    return q.query(q.last_on(s));
}

// Work runs in issue order, so whatever the event recorded has finished
// before anything queued after this call starts: nothing is left to do.
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    if (flags > 1) return record(cudaErrorInvalidValue);  // cudaEventWaitDefault, ...External
    if (cudaError_t e = context_status()) return e;
    if (!queue().is_live(event)) return record(cudaErrorInvalidResourceHandle);
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
    if (!flags) return record(cudaErrorInvalidValue);
    device_queue& q = queue();
    std::lock_guard<std::mutex> lock(q.mutex_);
    CUstream_st* s = q.resolve(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    *flags = s->flags;
    return cudaSuccess;
}

// The function runs on the device thread, in stream order. Like on a GPU it
// must not call CUDA functions that wait (the emulator stops with a message).
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
    if (!fn) return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    enqueue(stream, [fn, user_data](std::uint64_t) {
        fn(user_data);
        return cudaSuccess;
    });
    return cudaSuccess;
}

// ---- events ------------------------------------------------------------------------
// The device thread reads the host clock when it reaches a record, so the
// time between two events is the CPU time of the emulated work between them.
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
    if (!event) return record(cudaErrorInvalidValue);
    if (flags & ~unsigned(cudaEventBlockingSync | cudaEventDisableTiming | 0x04))
        return record(cudaErrorInvalidValue);  // 0x04: cudaEventInterprocess
    if (cudaError_t e = context_status()) return e;
    device_queue& q = queue();
    std::lock_guard<std::mutex> lock(q.mutex_);
    *event = new CUevent_st{flags, false, 0, 0.0, false};
    q.live_events_.insert(*event);
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    if (cudaError_t e = context_status()) return e;
    device_queue& q = queue();
    if (!q.is_live(event)) return record(cudaErrorInvalidResourceHandle);
    CUstream_st* s = q.find(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    q.push(
        s,
        [event, &q](std::uint64_t seq) {
            std::lock_guard<std::mutex> lock(q.mutex_);
            if (event->seq == seq) {  // an older record of a re-recorded event stamps nothing
                event->time_ms = now_ms();
                if (event->destroyed) delete event;
            }
            return cudaSuccess;
        },
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
    device_queue& q = queue();
    if (!q.is_live(event)) return record(cudaErrorInvalidResourceHandle);
    return q.wait(record_seq(q, event), "cudaEventSynchronize");
}

// cudaErrorNotReady is returned, not recorded (see cudaStreamQuery).
cudaError_t cudaEventQuery(cudaEvent_t event) {
    if (cudaError_t e = context_status()) return e;
    device_queue& q = queue();
    if (!q.is_live(event)) return record(cudaErrorInvalidResourceHandle);
    return q.query(record_seq(q, event));
}

// The real rules: an event never recorded, or made with
// cudaEventDisableTiming, gives cudaErrorInvalidResourceHandle; one recorded
// but not yet reached gives cudaErrorNotReady (returned, not recorded).
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    if (!ms) return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    device_queue& q = queue();
    if (!q.is_live(start) || !q.is_live(end)) return record(cudaErrorInvalidResourceHandle);
    std::lock_guard<std::mutex> lock(q.mutex_);
    if ((start->flags | end->flags) & cudaEventDisableTiming)
        return record(cudaErrorInvalidResourceHandle);
    if (!start->recorded || !end->recorded) return record(cudaErrorInvalidResourceHandle);
    if (q.completed_ < start->seq || q.completed_ < end->seq) return cudaErrorNotReady;
    *ms = static_cast<float>(end->time_ms - start->time_ms);
    return cudaSuccess;
}

// As on a GPU, an event may be destroyed while its record is pending: the
// device thread frees it when it gets there. Destroying it a second time (or
// an event never created) is refused with cudaErrorInvalidResourceHandle.
cudaError_t cudaEventDestroy(cudaEvent_t event) {
    if (in_forked_child()) return forked_child_error();
    device_queue& q = queue();
    std::lock_guard<std::mutex> lock(q.mutex_);
    if (!event || !q.live_events_.erase(event)) return record(cudaErrorInvalidResourceHandle);
    if (event->recorded && q.completed_ < event->seq)
        event->destroyed = true;
    else
        delete event;
    return cudaSuccess;
}
