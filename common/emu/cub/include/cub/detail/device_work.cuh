// device_work.cuh - what the emulator's device-wide CUB algorithms
// (cub/device/*.cuh) share: the two-call temporary-storage protocol, the
// screening of their pointer operands, and their work queued in stream order
// on the compute engine (common/emu/cub/device_work.cpp). As on a GPU, where
// CUB launches kernels and returns, a call returns once its work is queued;
// the program synchronizes to see the results (or copies them back, which
// waits). The work runs sequentially on the engine thread, left to right.
#pragma once

#include <cstddef>
#include <functional>
#include <iterator>
#include <type_traits>

#include <cuda_runtime.h>

#include <cub/detail/emu_common.cuh>

// Every device-wide call takes the caller's file and line as two trailing
// defaulted parameters, for its reports.
#define CUB_EMU_CALLER const char *cub_emu_file = __builtin_FILE(), int cub_emu_line = __builtin_LINE()
#define CUB_EMU_SITE ::cub::emu::call_site{__func__, cub_emu_file, cub_emu_line}

namespace cub::emu {

struct call_site {
    const char* call;  // DeviceReduce's "Sum" ...
    const char* file;
    int line;
};

// True when [p, p + bytes) is memory the device reaches (cudaMalloc,
// cudaMallocManaged, pinned or registered host memory); otherwise prints a
// report naming the call, the operand and what p is, and returns false.
bool device_operand(const call_site& at, const char* family, const char* operand, const void* p,
                    std::size_t bytes);
// Queues work on stream as one piece of compute work named "cub::<family>::<call>".
// cudaErrorInvalidResourceHandle for a stream that is not live; a sticky
// error from an earlier fault; cudaSuccess otherwise.
cudaError_t enqueue_work(cudaStream_t stream, const call_site& at, const char* family, std::function<void()> work);
// After a report: the call's work fails as a kernel touching that address
// would, with cudaErrorIllegalAddress (sticky), seen at the next wait.
cudaError_t enqueue_failure(cudaStream_t stream, const call_site& at, const char* family);

// An iterator's operand check: a raw pointer must reach `count` elements of
// device memory; other iterators (Thrust's fancy iterators, user-made ones)
// are not checked.
template <typename It>
bool operand(const call_site& at, const char* family, const char* name, const It& it, long long count) {
    if constexpr (std::is_pointer<It>::value) {
        using element = std::remove_cv_t<std::remove_pointer_t<It>>;
        const std::size_t size = std::is_void<element>::value ? 1 : sizeof(std::conditional_t<std::is_void<element>::value, char, element>);
        return device_operand(at, family, name, static_cast<const void*>(it),
                              count > 0 ? static_cast<std::size_t>(count) * size : 1);
    } else {
        return true;
    }
}

// The value type an iterator gives (for outputs: what it was written with).
template <typename It>
using value_of = std::remove_cv_t<typename std::iterator_traits<It>::value_type>;

// The first call (d_temp_storage null) sets temp_storage_bytes; the second
// must pass at least that much, in device memory. Returns false when the
// call is over (and *result says how).
inline bool temp_storage_ready(const call_site& at, const char* family, void* d_temp_storage,
                               std::size_t& temp_storage_bytes, std::size_t needed, cudaError_t* result,
                               bool* operands_ok) {
    if (!d_temp_storage) {
        temp_storage_bytes = needed;
        *result = cudaSuccess;
        return false;
    }
    if (temp_storage_bytes < needed) {
        *result = cudaErrorInvalidValue;  // CUB's answer to a temporary allocation too small
        return false;
    }
    *operands_ok = device_operand(at, family, "d_temp_storage", d_temp_storage, needed);
    return true;
}

}  // namespace cub::emu

namespace cub::emu {

// The second call's end: the work queued, or (after an operand's report) its failure.
template <typename Work>
cudaError_t queue(cudaStream_t stream, const call_site& at, const char* family, bool operands_ok, Work&& work) {
    if (!operands_ok) return enqueue_failure(stream, at, family);
    return enqueue_work(stream, at, family, std::function<void()>(std::forward<Work>(work)));
}

// What the device algorithms ask of d_temp_storage when they need no
// scratch of their own: CUB always asks for some, so programs allocate it.
constexpr std::size_t small_temp_bytes = 256;

// An output iterator's value type is void for some (a discard iterator); then
// the input's is used, as CUB does.
template <typename Output, typename Fallback>
using output_value_t = std::conditional_t<std::is_void<value_of<Output>>::value, Fallback, value_of<Output>>;

}  // namespace cub::emu

namespace cub::emu {

// Calls run(begin, end) for each run of equal neighbours among keys[0, n), in order.
template <typename Keys, typename Run>
void for_each_run(Keys keys, long long n, Run run) {
    long long begin = 0;
    for (long long i = 1; i <= n; ++i)
        if (i == n || !(keys[i] == keys[begin])) {
            run(begin, i);
            begin = i;
        }
}

}  // namespace cub::emu
