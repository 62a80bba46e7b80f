// copy_engines.cpp - which engine does a copy, and when the host must wait for
// an "asynchronous" one, as on a GPU.
//
// A GPU has copy engines beside its multiprocessors: a copy between host and
// device memory can run while a kernel of another stream runs. The emulator
// has one copy engine per direction (queue.cpp). A copy between two buffers
// of one device is done by the compute engine here (a GPU may use either); a
// copy between two devices (cudaMemcpyPeer and the like) by the copy engine
// that copies out of the device, so it may overlap the device's kernels, as a
// peer copy on a GPU does.
//
// A copy engine reads and writes host memory directly only when that memory
// is pinned (cudaMallocHost, cudaHostAlloc, cudaHostRegister). Pageable memory
// (malloc, new, std::vector, the stack) must be staged, and CUDA documents
// that cudaMemcpyAsync may then be synchronous with respect to the host; a
// copy between two host buffers is always synchronous. The emulator takes the
// synchronous side of that "may": cudaMemcpyAsync with a pageable host buffer
// returns only when the copy is done, so the host cannot queue anything behind
// it meanwhile, and no overlap with it is possible. The trace shows the host
// waiting in it. (CUDA documents more for some versions: a copy from pageable
// memory to the device may return once the data is staged, before the copy
// itself has run; one to pageable memory returns when it is done.)
#include "cuemu/runtime.h"
#include "internal.h"
#include "trace.h"

namespace cuemu::detail {
namespace {

// Memory a copy engine can reach without staging: pinned or registered host
// memory, and device, managed or symbol memory.
bool reachable_by_copy_engine(const void* p, std::size_t count) {
    const char* last = static_cast<const char*>(p) + (count ? count - 1 : 0);
    auto pinned = [](const void* q) {
        return is_pinned_host_memory(q, nullptr) || is_registered_host_memory(q) ||
               is_device_pointer(q);
    };
    return pinned(p) && pinned(last);
}

struct copy_sides {
    bool dst_device, src_device;
};

copy_sides sides_of(cudaMemcpyKind kind, const void* dst, const void* src) {
    switch (kind) {
        case cudaMemcpyHostToHost: return {false, false};
        case cudaMemcpyHostToDevice: return {true, false};
        case cudaMemcpyDeviceToHost: return {false, true};
        case cudaMemcpyDeviceToDevice: return {true, true};
        default: return {is_device_pointer(dst), is_device_pointer(src)};  // unified addressing
    }
}

const char* direction_name(copy_sides s) {
    if (s.dst_device && s.src_device) return "DtoD";  // between devices too: a peer copy
    if (s.dst_device) return "HtoD";
    if (s.src_device) return "DtoH";
    return "HtoH";
}

}  // namespace

work_label copy_label(const char* call, cudaMemcpyKind kind, const void* dst, const void* src,
                      std::size_t count) {
    const copy_sides s = sides_of(kind, dst, src);
    work_label label;
    label.category = "copy";
    const int dst_owner = s.dst_device ? device_of_pointer(dst) : -1;
    const int src_owner = s.src_device ? device_of_pointer(src) : -1;
    const bool between_devices = dst_owner >= 0 && src_owner >= 0 && dst_owner != src_owner;
    label.engine = between_devices               ? engine_kind::copy_to_host
                   : s.dst_device && s.src_device ? engine_kind::compute
                   : s.src_device                 ? engine_kind::copy_to_host
                                                  : engine_kind::copy_to_device;
    if (!trace_enabled()) return label;
    label.name = std::string(call) + " " + direction_name(s);
    const void* host_side = s.src_device ? dst : src;
    const bool host_involved = !(s.dst_device && s.src_device);
    label.args = "\"bytes\":" + std::to_string(count);
    if (host_involved)
        label.args += std::string(",\"host memory\":\"") +
                      (reachable_by_copy_engine(host_side, count) ? "pinned" : "pageable") + "\"";
    return label;
}

bool copy_waits_for_host(cudaMemcpyKind kind, const void* dst, const void* src, std::size_t count) {
    const copy_sides s = sides_of(kind, dst, src);
    if (s.dst_device && s.src_device) return false;
    if (!s.dst_device && !s.src_device) return true;
    return !reachable_by_copy_engine(s.src_device ? dst : src, count);
}

}  // namespace cuemu::detail
