// queue.cpp - the device's work queue and the engines that do the work, and
// the queuing of asynchronous launches. This file owns every piece of device
// work between the call that issues it and its completion, and decides when
// the host hears of a fault. The stream and event calls built on the queue
// are in streams.cpp and events.cpp (device_queue.h is what they share).
//
// How it works:
//   - A launch, cudaMemcpyAsync, cudaMemset(Async), cudaEventRecord,
//     cudaStreamWaitEvent, cudaLaunchHostFunc and cudaMemPrefetchAsync check
//     their arguments at once (an error is returned by the call, as on a GPU),
//     then queue a piece of work and return. The host program runs on.
//   - Each piece has a sequence number (its place in issue order) and the
//     numbers it must come after: the previous work of its stream, and the
//     ordering of the legacy default stream (below), or an event's record
//     (cudaStreamWaitEvent). Work of different streams is not ordered.
//   - Like a GPU, the emulated device has engines that work at the same time,
//     each with its own thread taking its work in issue order, skipping work
//     that must still wait: the compute engine (kernels through the worker
//     pool, scheduler.cpp, block_loop.cpp and worker_pool.cpp; memsets; copies within the device), one copy engine
//     per direction between host and device (copy_engines.cpp says which copy
//     goes where, and when cudaMemcpyAsync must wait for pageable memory),
//     and one thread for host functions. So a copy on one stream can run while
//     a kernel of another runs, as on a GPU with copy engines; two kernels
//     never run at the same time here (a GPU may run them concurrently).
//     Bookkeeping (an event record, an event wait) takes no time: it is done
//     under the queue's lock as soon as the work it comes after is done.
//     CUEMU_CHECK=uninit serializes everything on the compute engine: its
//     page watching would take a copy engine's writes for the kernel's.
//   - The legacy default stream (0, cudaStreamLegacy, cudaStreamPerThread)
//     is synchronizing: its work waits for all earlier work of blocking
//     streams, and their later work waits for it. Streams made with
//     cudaStreamNonBlocking are not ordered against it.
//   - Work is done out of issue order now: `done_through_` is the number up
//     to which all work is done, `done_above_` the pieces done beyond it.
//     Synchronizing calls wait: cudaDeviceSynchronize for everything issued,
//     cudaStreamSynchronize(s) for the last work on s (for the default
//     stream, also every blocking stream's work issued before),
//     cudaEventSynchronize(e) for e's latest record. cudaMemcpy and cudaFree
//     wait too, as they do on a GPU. Queries (cudaStreamQuery, cudaEventQuery)
//     answer cudaErrorNotReady while that work is pending.
//   - A fault inside a kernel is reported (printed) on the engine's thread
//     when it happens. Later work is skipped, as a GPU context is dead after
//     a fault. The host learns of it only when it waits for (or queries) work
//     numbered at or after the faulting kernel: then the error becomes sticky
//     and is returned, like the next synchronizing call on a GPU returns it.
//     Until then, calls that do not wait (another launch, cudaMalloc) succeed.
//   - Device memory is opened (internal.h) while any engine works and closed
//     when all are idle and nothing is queued.
//   - CUEMU_TRACE=file.json (trace.cpp): each engine writes the work it did,
//     with its stream, start and end; each synchronizing call the time the
//     host waited in it.
//   - Each emulated device (CUEMU_DEVICES, devices.cpp) has a queue of its
//     own, with its own engines, default stream and fault. A stream or an
//     event belongs to the device that was current when it was made; work
//     goes to the queue of its stream's device.
//   - At the end of the program (exit, or main returning) the queue is
//     finished before the process ends, so no work is half done, and the
//     trace is closed. The queue itself is never destroyed: a static
//     object's destructor may still call cudaFree after that.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "brief_spin.h"
#include "cuemu/runtime.h"
#include "device_queue.h"
#include "dynamic_parallelism.h"
#include "graph_internal.h"
#include "internal.h"
#include "../profiler/profiler.h"
#include "trace.h"

namespace cuemu::detail {
namespace {

thread_local bool is_device_thread = false;
thread_local int this_engine_device = -1;
std::atomic<int> streams_made{0};  // over all devices, so that trace lanes differ

// CUEMU_CHECK=uninit with several devices: the page watching of a running
// kernel covers all device memory (memory_protection.cpp), so another device's copy or
// fill beside it would fault or be taken for the kernel. Kernels, copies and
// fills of all devices take turns; waits, host functions and NCCL parts do
// not hold it (a wait for another device's event would wait for itself, and
// an NCCL part waits for the other ranks' parts, src/nccl/meetings.cpp).
std::mutex one_device_at_a_time;

bool touches_device_memory(const work_label& label) {
    return std::strcmp(label.category, "wait") != 0 &&
           std::strcmp(label.category, "host function") != 0 &&
           std::strcmp(label.category, "nccl") != 0;
}

// Waiting for the device from the device's own work would wait forever.
void refuse_wait_from_device(const char* what) {
    if (!is_device_thread && !inside_kernel()) return;
    std::fflush(stdout);  // the program's own output before the report (abort drops it)
    std::fprintf(stderr,
                 "cuemu: %s called from inside a kernel or a host function queued with "
                 "cudaLaunchHostFunc; it would wait for itself (a GPU does not allow it either)\n",
                 what);
    std::abort();
}

const char* engine_name(engine_kind e) {
    switch (e) {
        case engine_kind::compute: return "compute";
        case engine_kind::copy_to_device: return "copy engine HtoD";
        case engine_kind::copy_to_host: return "copy engine DtoH";
        case engine_kind::host_function: return "host functions";
        default: return "bookkeeping";
    }
}

// One queue per device, made at its first use and never destroyed (see the
// top of the file); the engine threads idle in their waits when the process ends.
std::mutex queues_mutex;
std::atomic<device_queue*> queues[max_devices];

// Launch arguments the device's threads let go of, for the host to destroy
// (cuemu::destroy_on_host).
std::mutex host_destroys_mutex;
std::vector<std::pair<void*, void (*)(void*)>> host_destroys;

// On a host thread: destroys what the device's threads left. A destructor may
// wait for the device itself (cudaFree); what it leaves waits for the next turn.
void destroy_left_for_host() {
    if (is_device_thread || inside_kernel()) return;
    std::vector<std::pair<void*, void (*)(void*)>> mine;
    {
        std::lock_guard<std::mutex> lock(host_destroys_mutex);
        if (host_destroys.empty()) return;
        mine.swap(host_destroys);
    }
    for (auto& [ctx, destroy] : mine) destroy(ctx);
}

// At exit: let every device finish what was queued, then close the trace.
// Not when exit was called by the device's own work (a host function or a
// kernel): it would wait for itself. Nor in a child made with fork(): it has
// no device thread.
void finish_at_exit() {
    if (is_device_thread || inside_kernel() || in_forked_child()) return;
    for (auto& slot : queues)
        if (device_queue* q = slot.load()) q->wait_all(q->last_issued(), "exit (finishing queued work)");
    destroy_left_for_host();
    trace_finish();
    profile_finish();
}

constexpr std::uint64_t ticket(std::uint64_t seq, int device) {
    return seq * max_devices + static_cast<std::uint64_t>(device);
}

}  // namespace

device_queue::device_queue(int device) : device_(device) {
    // Start the worker pool first: statics are destroyed in reverse order
    // of construction, so the pool then outlives this queue at exit.
    worker_count();
    install_fork_guard_once();
    trace_start();
    trace_name_stream(0, false);
    // CUEMU_CHECK=uninit watches each kernel's first touch of every page
    // of device memory; a copy engine writing beside it would be taken
    // for the kernel. Its work is done one piece at a time, in issue order.
    serial_ = check_requested("uninit");
    spin_microseconds();  // a bad CUEMU_SPIN_US stops the program here, not at a later wait
    live_streams_.insert(&default_stream_);
    for (int e = 0; e < engine_count; ++e) {
        if (serial_ && e != int(engine_kind::compute)) continue;
        std::thread([this, e] { serve(engine_kind(e)); }).detach();
    }
}

// Streams: 0, cudaStreamLegacy and cudaStreamPerThread are the default stream.
CUstream_st* device_queue::resolve(cudaStream_t s) {
    if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread)
        return &default_stream_;
    return live_streams_.count(s) ? s : nullptr;
}

// resolve() for callers that do not hold the lock.
CUstream_st* device_queue::find(cudaStream_t s) {
    std::lock_guard<std::mutex> lock(mutex_);
    return resolve(s);
}

int device_queue::next_stream_number() { return ++streams_made; }


// Queues work; while_locked(seq) runs under the queue lock before any
// engine can see the work (for an event's bookkeeping). after_event: the
// record the work must also wait for (cudaStreamWaitEvent), or 0.
std::uint64_t device_queue::push(CUstream_st* stream, device_work work, work_label label,
                                 bool runs_after_fault,
                                 const std::function<void(std::uint64_t)>& while_locked,
                                 std::uint64_t after_event) {
    std::uint64_t seq;
    int engine;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        seq = ++issued_;
        const bool on_default = stream == &default_stream_;
        const bool blocking = on_default || !(stream->flags & cudaStreamNonBlocking);
        queued_work item{seq, std::move(work), runs_after_fault, label.engine,
                         {stream->last_seq, 0, after_event}, on_default, stream->number,
                         std::move(label)};
        if (blocking && !on_default) item.after[1] = default_stream_.last_seq;
        stream->last_seq = seq;
        if (blocking) undone_blocking_.insert(seq);
        if (while_locked) while_locked(seq);
        if (item.engine == engine_kind::bookkeeping) {
            bookkeeping_.push_back(std::move(item));
            do_ready_bookkeeping_locked();
            done_.notify_all();
            return seq;
        }
        if (serial_) item.engine = engine_kind::compute;
        engine = int(item.engine);
        items_[engine].push_back(std::move(item));
        pushes_.fetch_add(1, std::memory_order_release);
    }
    engine_wake_[engine].notify_one();
    return seq;
}

// Waits until `done(lock)` holds; `seq` is the latest work waited for (a
// fault in work up to it is returned).
template <class Done>
cudaError_t device_queue::wait_until(std::uint64_t seq, const char* what,
                                     const std::string& trace_name, Done done) {
    if (in_forked_child()) return forked_child_error();  // no device thread to wait for
    refuse_wait_from_device(what);
    const double begin = trace_now_us();
    std::unique_lock<std::mutex> lock(mutex_);
    const bool waited = !done();  // the trace shows only calls that waited
    // Watch the engines' answers briefly before sleeping: a short kernel is
    // then done without a wake-up of this thread.
    while (!done() && spin_unlocked(lock, completions_)) {
    }
    done_.wait(lock, [&] { return done(); });
    if (busy_ == 0 && issued_ == done_through_) {
        // The engine that finished the last work closes device memory, but
        // only after it woke us: close it here first, so that the host's
        // next read through a device pointer is caught, as it is on a GPU.
        lock.unlock();
        close_device_memory_if_idle();
        lock.lock();
    }
    if (waited && !trace_name.empty()) {
        lock.unlock();
        trace_host_wait(trace_name, begin, trace_now_us());
        lock.lock();
    }
    const cudaError_t result = observe_locked(lock, seq);  // unlocks
    destroy_left_for_host();
    return result;
}

std::string device_queue::traced(const char* what) { return trace_enabled() ? what : ""; }

// Waits for one piece of work (and so for all it comes after).
cudaError_t device_queue::wait(std::uint64_t seq, const char* what) {
    return wait_until(seq, what, traced(what), [&] { return is_done_locked(seq); });
}

// Waits for everything issued up to seq.
cudaError_t device_queue::wait_all(std::uint64_t seq, const char* what) {
    return wait_until(seq, what, traced(what), [&] { return done_through_ >= seq; });
}

// Waits for a stream: its last work; for the legacy default stream, also
// everything issued so far on blocking streams (it waits for them).
cudaError_t device_queue::wait_stream(CUstream_st* s, const char* what) {
    std::string name;
    if (trace_enabled()) name = std::string(what) + "(stream " + std::to_string(s->number) + ")";
    const std::uint64_t seq = last_on(s);
    if (s != &default_stream_)
        return wait_until(seq, what, name, [&] { return is_done_locked(seq); });
    return wait_until(seq, what, name, [&] { return blocking_done_locked(seq); });
}

// cudaSuccess when the work is done (and did not fault), cudaErrorNotReady
// while it is pending.
cudaError_t device_queue::query(std::uint64_t seq) {
    if (in_forked_child()) return forked_child_error();
    std::unique_lock<std::mutex> lock(mutex_);
    if (!is_done_locked(seq)) return cudaErrorNotReady;
    return observe_locked(lock, seq);
}

cudaError_t device_queue::query_stream(CUstream_st* s) {
    if (in_forked_child()) return forked_child_error();
    const std::uint64_t seq = last_on(s);
    std::unique_lock<std::mutex> lock(mutex_);
    if (s == &default_stream_ ? !blocking_done_locked(seq) : !is_done_locked(seq))
        return cudaErrorNotReady;
    return observe_locked(lock, seq);
}

std::uint64_t device_queue::last_issued() {
    std::lock_guard<std::mutex> lock(mutex_);
    return issued_;
}

// The legacy default stream waits for the work of every blocking stream
// issued before, so synchronizing it covers everything issued so far.
std::uint64_t device_queue::last_on(CUstream_st* s) {
    std::lock_guard<std::mutex> lock(mutex_);
    return s == &default_stream_ ? issued_ : s->last_seq;
}

bool device_queue::is_live(cudaEvent_t e) {
    std::lock_guard<std::mutex> lock(mutex_);
    return e && live_events_.count(e) != 0;
}

bool device_queue::ready_locked(const queued_work& w) const {
    for (std::uint64_t a : w.after)
        if (a && !is_done_locked(a)) return false;
    return !w.after_blocking_streams || blocking_done_locked(w.seq - 1);
}

void device_queue::mark_done_locked(std::uint64_t seq) {
    undone_blocking_.erase(seq);
    if (seq != done_through_ + 1) {
        done_above_.insert(seq);
        return;
    }
    ++done_through_;
    while (done_above_.erase(done_through_ + 1)) ++done_through_;
}


// Bookkeeping whose work before it is done is done now, in issue order;
// each may let another through.
void device_queue::do_ready_bookkeeping_locked() {
    for (bool progress = true; progress;) {
        progress = false;
        for (auto it = bookkeeping_.begin(); it != bookkeeping_.end();) {
            if (!ready_locked(*it)) {
                ++it;
                continue;
            }
            queued_work item = std::move(*it);
            it = bookkeeping_.erase(it);
            if (fault_ == cudaSuccess || item.runs_after_fault) item.work(item.seq);
            if (!item.label.name.empty())
                trace_stream_moment(item.stream_number, item.label.name, trace_now_us());
            mark_done_locked(item.seq);
            progress = true;
        }
    }
}


// A fault is this device's sticky error; the caller hears of it even when
// another device is current (cudaEventSynchronize of this device's event).
cudaError_t device_queue::observe_locked(std::unique_lock<std::mutex>& lock,
                                         std::uint64_t seq) {
    if (fault_ != cudaSuccess && fault_seq_ <= seq) {
        cudaError_t e = fault_;
        lock.unlock();
        make_sticky(e, device_);
        if (device_ != current_device()) return record(e);
    } else {
        lock.unlock();
    }
    return context_status();
}

// Waits for everything issued so far; a fault stays this device's.
void device_queue::drain(const char* what) {
    if (in_forked_child()) return;
    refuse_wait_from_device(what);
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint64_t seq = issued_;
    done_.wait(lock, [&] { return done_through_ >= seq; });
}

// The same for one piece of work, from another device's engine
// (cudaStreamWaitEvent across devices).
void device_queue::wait_quietly(std::uint64_t seq) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return is_done_locked(seq); });
}

// The first of an engine's work that may start: its list is in issue
// order, and work of another stream may pass work still waiting.
std::deque<queued_work>::iterator device_queue::first_ready_locked(engine_kind engine) {
    auto& list = items_[int(engine)];
    for (auto it = list.begin(); it != list.end(); ++it)
        if (ready_locked(*it)) return it;
    return list.end();
}

// Device memory is open to the host while any engine works (internal.h),
// and closed when none has work left.
void device_queue::open_device_memory() {
    std::lock_guard<std::mutex> gate(memory_gate_);
    if (memory_open_) return;
    device_memory_open(device_);
    memory_open_ = true;

}
void device_queue::close_device_memory_if_idle() {
    std::lock_guard<std::mutex> gate(memory_gate_);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (busy_ != 0 || issued_ != done_through_) return;
    }
    if (!memory_open_) return;
    device_memory_close(device_);
    memory_open_ = false;
}

// One engine's thread: it takes its first ready work, does it, and marks
// it done, which may let other engines' work start.
void device_queue::serve(engine_kind engine) {
    is_device_thread = true;
    this_engine_device = device_;
    set_current_device(device_);  // a stream callback's status is its device's
    auto& list = items_[int(engine)];
    std::unique_lock<std::mutex> lock(mutex_);
    bool just_worked = false;
    for (;;) {
        auto it = first_ready_locked(engine);
        // After work, watch briefly for the next before sleeping: a host
        // thread that launches and synchronizes in a loop then never waits
        // for this thread to wake.
        while (it == list.end() && just_worked && spin_unlocked(lock, pushes_))
            it = first_ready_locked(engine);
        engine_wake_[int(engine)].wait(lock, [&] { return (it = first_ready_locked(engine)) != list.end(); });
        just_worked = true;
        queued_work item = std::move(*it);
        list.erase(it);
        ++busy_;
        const bool skip = fault_ != cudaSuccess && !item.runs_after_fault;
        lock.unlock();
        std::unique_lock<std::mutex> turn(one_device_at_a_time, std::defer_lock);
        if (serial_ && device_count() > 1 && touches_device_memory(item.label)) turn.lock();
        open_device_memory();
        const double begin = trace_now_us();
        cudaError_t e = skip ? cudaSuccess : item.work(item.seq);
        item.work = nullptr;  // frees a launch's arguments, outside the lock
        if (turn.owns_lock()) turn.unlock();
        if (!skip && !item.label.name.empty()) {
            std::string args = item.label.args;
            args += std::string(args.empty() ? "" : ",") + "\"engine\":\"" + engine_name(engine) + "\"";
            trace_device_work(item.stream_number, item.label.name, item.label.category, args,
                              begin, trace_now_us());
        }
        lock.lock();
        if (e != cudaSuccess && fault_ == cudaSuccess) {
            fault_ = e;
            fault_seq_ = item.seq;
        }
        --busy_;
        mark_done_locked(item.seq);
        do_ready_bookkeeping_locked();
        completions_.fetch_add(1, std::memory_order_release);
        const bool idle = busy_ == 0 && issued_ == done_through_;
        // What this finished may let another engine's waiting work start;
        // an engine with nothing queued stays asleep.
        for (int other = 0; other < engine_count; ++other)
            if (other != int(engine) && !items_[other].empty()) engine_wake_[other].notify_one();
        done_.notify_all();
        if (idle) {
            lock.unlock();
            close_device_memory_if_idle();
            lock.lock();
        }
    }
}

device_queue& queue(int device) {
    if (device_queue* q = queues[device].load()) return *q;
    std::lock_guard<std::mutex> lock(queues_mutex);
    if (!queues[device].load()) {
        queues[device].store(new device_queue(device));
        // Registered after the first queue started the worker pool, so that
        // it runs before the pool's static is destroyed.
        static const bool at_exit = (std::atexit(finish_at_exit), true);
        (void)at_exit;
    }
    return *queues[device].load();
}

device_queue& queue() { return queue(current_device()); }

// The queue that knows this event, or nullptr for one never created or
// destroyed (a handle is never read before it is found here).
device_queue* queue_of_event(cudaEvent_t e) {
    if (!e) return nullptr;
    for (auto& slot : queues)
        if (device_queue* q = slot.load(); q && q->is_live(e)) return q;
    return nullptr;
}

// The queue a stream belongs to (0 and the other default handles: the
// current device's), or nullptr.
device_queue* queue_of_stream(cudaStream_t s) {
    if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) return &queue();
    for (auto& slot : queues)
        if (device_queue* q = slot.load(); q && q->find(s)) return q;
    return nullptr;
}

std::uint64_t enqueue(cudaStream_t stream, device_work work, work_label label) {
    // A capturing stream records the work into its graph (graph_capture.cpp):
    // nothing is queued, so nothing waits for it.
    if (capture_takes(stream, work, label)) return ticket(0, current_device());
    device_queue* q = queue_of_stream(stream);
    if (!q) q = &queue();  // callers check the stream first; never a dangling one
    CUstream_st* s = q->find(stream);
    if (!s) s = q->resolve(nullptr);
    return ticket(q->push(s, std::move(work), std::move(label)), q->device());
}

bool is_valid_stream(cudaStream_t stream) { return queue_of_stream(stream) != nullptr; }

bool is_stream_of_current_device(cudaStream_t stream) { return queue_of_stream(stream) == &queue(); }

int stream_device(cudaStream_t stream) {
    device_queue* q = queue_of_stream(stream);
    return q ? q->device() : -1;
}

bool stream_identity(cudaStream_t stream, int* device, int* number) {
    device_queue* q = queue_of_stream(stream);
    CUstream_st* s = q ? q->find(stream) : nullptr;
    if (!s) return false;
    *device = q->device();
    *number = s->number;
    return true;
}

int engine_device() { return this_engine_device; }

void drain_device(int device, const char* what) { queue(device).drain(what); }

bool on_device_thread() { return is_device_thread; }

cudaError_t wait_for(std::uint64_t ticket, const char* what) {
    return queue(static_cast<int>(ticket % max_devices)).wait(ticket / max_devices, what);
}

cudaError_t synchronize_device(const char* what) {
    device_queue& q = queue();
    return q.wait_all(q.last_issued(), what);
}

}  // namespace cuemu::detail

using namespace cuemu::detail;

// ---- launches ------------------------------------------------------------------------
void cuemu::destroy_on_host(void* ctx, void (*destroy)(void*)) {
    if (!is_device_thread && !inside_kernel()) {
        destroy(ctx);
        return;
    }
    std::lock_guard<std::mutex> lock(host_destroys_mutex);
    host_destroys.emplace_back(ctx, destroy);
}

void cuemu::enqueue_launch(const launch_site& site, const launch_config& config,
                           void (*run_thread)(void*), void* ctx, void (*destroy)(void*)) {
    destroy_left_for_host();
    std::shared_ptr<void> owned(ctx, destroy);  // freed when the work is done or dropped
    // Its screened arguments' windows, held as long as ctx (kernel_pointers.cpp).
    std::shared_ptr<void> aliases = hold_pointer_aliases();
    if (inside_kernel()) {  // a kernel launched from a kernel
        launch_from_device(site, config, run_thread, std::move(owned), std::move(aliases));
        return;
    }
    if (context_status() != cudaSuccess) return;  // a sticky error: nothing runs
    if (cudaError_t e = check_launch(site, config)) {
        record(e);  // reported by the next cudaGetLastError(), not sticky
        return;
    }
    // A stream destroyed, never made, or of another device than the current one.
    if (!is_stream_of_current_device(config.stream)) {
        record(cudaErrorInvalidResourceHandle);
        return;
    }
    if (cudaError_t e = capture_check_stream_work(config.stream)) {
        record(e);  // a capture's rules (graph_capture.cpp)
        return;
    }
    // The site's strings are literals and the configuration is copied, so
    // both outlive the statement that launched.
    work_label label;
    if (trace_enabled()) {
        auto xyz = [](dim3 d) {
            return "\"(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")\"";
        };
        label.name = site.kernel;
        label.args = "\"grid\":" + xyz(config.grid) + ",\"block\":" + xyz(config.block) +
                     ",\"dynamic shared bytes\":" + std::to_string(config.shared_bytes);
    }
    // The devices whose memory this device has peer access to (as it stands
    // at the launch): their memory is open while the kernel runs.
    const int device = current_device();
    unsigned peers = 0;
    for (int d = 0; d < device_count(); ++d)
        if (d != device && peer_access_enabled(device, d)) peers |= 1u << d;
    enqueue(
        config.stream,
        [site, config, run_thread, owned, aliases, peers](std::uint64_t) {
            for (int d = 0; peers >> d; ++d)
                if (peers >> d & 1) device_memory_open(d);
            cudaError_t e = run_launch(site, config, run_thread, owned.get());
            for (int d = 0; peers >> d; ++d)
                if (peers >> d & 1) device_memory_close(d);
            return e;
        },
        std::move(label));
}
