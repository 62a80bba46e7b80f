// device_work.cpp - the emulator's side of CUB's device-wide algorithms
// (cub/include/cub/device/, cub/include/cub/detail/device_work.cuh): each
// call's pointer operands screened, with a report for one the device cannot
// reach, and its work queued in stream order on the compute engine, where
// device memory is open while it runs.
#include <cstdio>
#include <exception>
#include <string>

#include "../src/diagnostics.h"
#include "../src/internal.h"
#include "include/cub/detail/device_work.cuh"

namespace cub::emu {
namespace {

std::string work_name(const call_site& at, const char* family) {
    return std::string("cub::") + family + "::" + at.call;
}

}  // namespace

bool device_operand(const call_site& at, const char* family, const char* operand, const void* p,
                    std::size_t bytes) {
    using namespace cuemu::detail;
    if (p && (is_device_range(p, bytes) || is_registered_host_memory(p) || is_pinned_host_memory(p, nullptr)))
        return true;
    char what[600];
    allocation_info info;
    if (!p) {
        std::snprintf(what, sizeof what, "is a null pointer");
    } else if (find_allocation(p, &info) && info.freed) {
        std::snprintf(what, sizeof what, "points into a %zu-byte buffer from %s at %s:%d that %s freed at %s:%d",
                      info.size, info.how, info.file, info.line, info.freed_by, info.free_file, info.free_line);
    } else if (find_allocation(p, &info)) {
        const long long offset = static_cast<const char*>(p) - info.begin;
        std::snprintf(what, sizeof what,
                      "needs %zu bytes from byte offset %lld of a %zu-byte buffer from %s at %s:%d, "
                      "%lld bytes past its end",
                      bytes, offset, info.size, info.how, info.file, info.line,
                      offset + static_cast<long long>(bytes) - static_cast<long long>(info.size));
    } else {
        std::snprintf(what, sizeof what, "is %p, host memory the device cannot reach", p);
    }
    std::fprintf(stderr,
                 "cuemu: %s at %s:%d: %s %s\n"
                 "  hint: CUB's device-wide algorithms work on device memory: pass buffers from\n"
                 "        cudaMalloc (inputs copied there with cudaMemcpy), large enough for num_items.\n"
                 "  On a GPU the algorithm's kernels would fault or read and write whatever is there,\n"
                 "  reported by a later call that waits. The emulator does not run it: the call\n"
                 "  returns cudaSuccess, as the launch would, and its work fails with\n"
                 "  cudaErrorIllegalAddress, as every later CUDA call does.\n",
                 work_name(at, family).c_str(), at.file, at.line, operand, what);
    return false;
}

cudaError_t enqueue_work(cudaStream_t stream, const call_site& at, const char* family, std::function<void()> work) {
    using namespace cuemu::detail;
    if (cudaError_t sticky = context_status(); sticky != cudaSuccess) return sticky;
    if (!is_valid_stream(stream)) return cudaErrorInvalidResourceHandle;
    work_label label;
    label.name = work_name(at, family);
    const std::string name = label.name;
    enqueue(
        stream,
        [work = std::move(work), name](std::uint64_t) {
            set_library_work(name.c_str());  // a fault is reported as this call's
            cudaError_t result = cudaSuccess;
            try {
                work();
            } catch (const std::exception& e) {
                std::fprintf(stderr, "cuemu: %s: an operator threw an exception (%s); a GPU cannot throw\n",
                             name.c_str(), e.what());
                result = cudaErrorLaunchFailure;
            }
            set_library_work(nullptr);
            note_unlisted_device_writes();  // for CUEMU_CHECK=uninit
            return result;
        },
        std::move(label));
    return cudaSuccess;
}

cudaError_t enqueue_failure(cudaStream_t stream, const call_site& at, const char* family) {
    using namespace cuemu::detail;
    if (cudaError_t sticky = context_status(); sticky != cudaSuccess) return sticky;
    if (!is_valid_stream(stream)) return cudaErrorInvalidResourceHandle;
    work_label label;
    label.name = work_name(at, family);
    enqueue(stream, [](std::uint64_t) { return cudaErrorIllegalAddress; }, std::move(label));
    return cudaSuccess;
}

}  // namespace cub::emu
