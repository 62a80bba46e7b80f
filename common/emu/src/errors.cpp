// errors.cpp - error names and strings (the real runtime's table), the
// per-host-thread "last error" slot, each device's sticky error, and whether
// a host thread has made a device's context current yet.
//
// A sticky error corrupts the context of the device whose work faulted, as
// in CUDA where each device has its own (primary) context: calls made while
// that device is current fail with it; another device's context stays usable.
// As on an H200 (CUDA 13.0, measured 2026-11-30): every call that returns the
// sticky error also sets the thread's last-error slot, and cudaGetLastError
// resets the slot, so a second read right after the first is cudaSuccess.
#include <atomic>

#include "cuemu/runtime.h"
#include "internal.h"

namespace cuemu::detail {
namespace {
thread_local cudaError_t last_error = cudaSuccess;
// Whether this host thread's slot has been given the device's sticky error
// (by a call that returned it, or by the first read of the slot after it).
thread_local bool sticky_delivered[max_devices];
// Whether this host thread has made the device's context current: a call
// that checks the context does (as the runtime binds its primary context to
// a thread at the thread's first call that needs it).
thread_local bool context_made_current[max_devices];
std::atomic<int> sticky[max_devices];  // zero: cudaSuccess

struct error_entry {
    int code;
    const char* name;
    const char* text;
};
constexpr error_entry error_table[] = {
#define CUEMU_ERROR(code, name, text) {code, #name, text},
#include "error_table.inc"
#undef CUEMU_ERROR
};

const error_entry* lookup(cudaError_t e) {
    for (const auto& entry : error_table)
        if (entry.code == static_cast<int>(e)) return &entry;
    return nullptr;
}
}  // namespace

cudaError_t record(cudaError_t e) {
    if (e != cudaSuccess) last_error = e;
    return e;
}

void make_sticky(cudaError_t e, int device) {
    int expected = cudaSuccess;
    sticky[device].compare_exchange_strong(expected, e);  // the first sticky error stays
    record(static_cast<cudaError_t>(sticky[device].load()));
    sticky_delivered[device] = true;
}

cudaError_t device_status() {
    if (in_forked_child()) return forked_child_error();
    const int device = current_device();
    int s = sticky[device].load();
    if (s == cudaSuccess) return cudaSuccess;
    sticky_delivered[device] = true;
    return record(static_cast<cudaError_t>(s));
}

cudaError_t context_status() {
    if (!in_forked_child()) context_made_current[current_device()] = true;
    return device_status();
}

bool context_is_current() { return context_made_current[current_device()]; }

namespace {
// A sticky error this host thread has not heard of yet (the fault was seen by
// another thread's wait) goes into its slot at its first read of the slot.
void deliver_sticky() {
    const int device = current_device();
    int s = sticky[device].load();
    if (s == cudaSuccess || sticky_delivered[device]) return;
    last_error = static_cast<cudaError_t>(s);
    sticky_delivered[device] = true;
}
}  // namespace

}  // namespace cuemu::detail

using namespace cuemu::detail;

// Reads and resets the slot. After a sticky error the next call that fails
// with it sets the slot again.
cudaError_t cudaGetLastError() {
    last_error_was_read();
    deliver_sticky();
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

// The same slot, left in place, so it agrees with the next cudaGetLastError
// (after a sticky error this was not measured on a GPU).
cudaError_t cudaPeekAtLastError() {
    last_error_was_read();
    deliver_sticky();
    return last_error;
}

// Unknown codes get the real runtime's answers for them.
const char* cudaGetErrorName(cudaError_t e) {
    const error_entry* entry = lookup(e);
    return entry ? entry->name : "unrecognized error code";
}

const char* cudaGetErrorString(cudaError_t e) {
    const error_entry* entry = lookup(e);
    return entry ? entry->text : "unrecognized error code";
}
