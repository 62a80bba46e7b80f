// errors.cpp - error names and strings (the real runtime's table), the
// per-host-thread "last error" and each device's sticky error.
//
// A sticky error corrupts the context of the device whose work faulted, as
// in CUDA where each device has its own (primary) context: calls made while
// that device is current return it; another device's context stays usable.
#include <atomic>

#include "cuemu/runtime.h"
#include "internal.h"

namespace cuemu::detail {
namespace {
thread_local cudaError_t last_error = cudaSuccess;
std::atomic<int> sticky[max_devices];  // zero: cudaSuccess

int sticky_of_current() { return sticky[current_device()].load(); }

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
}

cudaError_t context_status() {
    if (in_forked_child()) return forked_child_error();
    int s = sticky_of_current();
    return s == cudaSuccess ? cudaSuccess : record(static_cast<cudaError_t>(s));
}

}  // namespace cuemu::detail

using namespace cuemu::detail;

cudaError_t cudaGetLastError() {
    last_error_was_read();
    int s = sticky_of_current();
    if (s != cudaSuccess) return static_cast<cudaError_t>(s);
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError() {
    last_error_was_read();
    int s = sticky_of_current();
    return s != cudaSuccess ? static_cast<cudaError_t>(s) : last_error;
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
