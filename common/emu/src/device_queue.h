// device_queue.h - a device's work queue (queue.cpp) and the stream and
// event objects it keeps, for the files that implement the stream and event
// calls on it (streams.cpp, events.cpp). Everything else reaches the queue
// through internal.h (enqueue, wait_for, ...).
#ifndef CUEMU_DEVICE_QUEUE_H
#define CUEMU_DEVICE_QUEUE_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <unordered_set>

#include "internal.h"

struct CUstream_st {
    unsigned int flags;
    std::uint64_t last_seq;  // the last work queued on this stream (0: none yet)
    int number;              // 0 for the default streams, then 1, 2, ... in creation order
    int device;
};
struct CUevent_st {
    int device;  // its record's number is a place in this device's queue
    unsigned int flags;
    bool recorded;       // cudaEventRecord was called at least once
    std::uint64_t seq;   // the latest record's place in the queue
    double time_ms;      // when the device reached that record
    bool destroyed;      // cudaEventDestroy came while the record was pending
};

namespace cuemu::detail {

constexpr int engine_count = 4;  // the engines with a thread: all but bookkeeping

struct queued_work {
    std::uint64_t seq;
    device_work work;
    bool runs_after_fault;  // event records: bookkeeping that must still happen
    engine_kind engine;
    // The work it must come after (0: none): the stream's previous work, the
    // legacy default stream's last work (for a blocking stream), an event.
    std::uint64_t after[3];
    // On the legacy default stream: it also waits for all earlier work of
    // every blocking stream.
    bool after_blocking_streams;
    int stream_number;
    work_label label;
};

// What each member does is said where queue.cpp defines it.
class device_queue {
public:
    explicit device_queue(int device);

    // Streams: 0, cudaStreamLegacy and cudaStreamPerThread are the default stream.
    CUstream_st* resolve(cudaStream_t s);  // the caller holds mutex_
    bool is_default(cudaStream_t s) { return resolve(s) == &default_stream_; }
    CUstream_st* find(cudaStream_t s);  // takes mutex_
    int next_stream_number();
    int device() const { return device_; }

    std::uint64_t push(CUstream_st* stream, device_work work, work_label label,
                       bool runs_after_fault = false,
                       const std::function<void(std::uint64_t)>& while_locked = {},
                       std::uint64_t after_event = 0);

    template <class Done>
    cudaError_t wait_until(std::uint64_t seq, const char* what, const std::string& trace_name,
                           Done done);
    std::string traced(const char* what);
    cudaError_t wait(std::uint64_t seq, const char* what);
    cudaError_t wait_all(std::uint64_t seq, const char* what);
    cudaError_t wait_stream(CUstream_st* s, const char* what);
    cudaError_t query(std::uint64_t seq);
    cudaError_t query_stream(CUstream_st* s);
    std::uint64_t last_issued();
    std::uint64_t last_on(CUstream_st* s);

    std::mutex mutex_;  // also guards streams and events
    std::unordered_set<CUstream_st*> live_streams_;
    // Events created and not yet destroyed: a handle is checked against this
    // set before it is used, so a destroyed (or made-up) event is refused
    // instead of read after it was freed.
    std::unordered_set<CUevent_st*> live_events_;
    bool is_live(cudaEvent_t e);
    // Work is done in no single order any more: `done_through_` is the number
    // up to which everything is done, `done_above_` what is done beyond it.
    bool is_done_locked(std::uint64_t seq) const {
        return seq <= done_through_ || done_above_.count(seq) != 0;
    }

private:
    bool blocking_done_locked(std::uint64_t seq) const {
        return undone_blocking_.empty() || *undone_blocking_.begin() > seq;
    }
    bool ready_locked(const queued_work& w) const;
    void mark_done_locked(std::uint64_t seq);
    void do_ready_bookkeeping_locked();
    cudaError_t observe_locked(std::unique_lock<std::mutex>& lock, std::uint64_t seq);

public:
    void drain(const char* what);
    void wait_quietly(std::uint64_t seq);

private:
    std::deque<queued_work>::iterator first_ready_locked(engine_kind engine);
    void open_device_memory();
    void close_device_memory_if_idle();
    void serve(engine_kind engine);

    int device_;
    CUstream_st default_stream_{cudaStreamDefault, 0, 0, device_};
    bool serial_ = false;
    // Each engine's thread sleeps on its own: work for one engine wakes only
    // that engine, not all four.
    std::condition_variable engine_wake_[engine_count];
    std::condition_variable done_;
    // Counted for the short spins before a sleep (brief_spin.h): work pushed,
    // and work done, by any engine.
    std::atomic<std::uint64_t> pushes_{0}, completions_{0};
    std::deque<queued_work> items_[engine_count];
    std::deque<queued_work> bookkeeping_;
    std::uint64_t issued_ = 0;
    std::uint64_t done_through_ = 0;
    std::set<std::uint64_t> done_above_;
    std::set<std::uint64_t> undone_blocking_;  // of the default and blocking streams
    int busy_ = 0;                              // engines doing work now
    std::mutex memory_gate_;                    // taken before mutex_, never after
    bool memory_open_ = false;
    cudaError_t fault_ = cudaSuccess;  // the first fault, and where it happened
    std::uint64_t fault_seq_ = 0;
};

// queue.cpp: one queue per device, made at its first use and never destroyed.
device_queue& queue(int device);
device_queue& queue();  // the current device's
// The queue that knows this event, or nullptr for one never created or
// destroyed (a handle is never read before it is found here).
device_queue* queue_of_event(cudaEvent_t e);
// The queue a stream belongs to (0 and the other default handles: the
// current device's), or nullptr.
device_queue* queue_of_stream(cudaStream_t s);

}  // namespace cuemu::detail

#endif
