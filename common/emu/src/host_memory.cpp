// host_memory.cpp - host memory the device may use (cudaHostRegister and
// the flags of cudaHostAlloc), what a pointer is (cudaPointerGetAttributes),
// and pitched 2D memory (cudaMallocPitch, cudaMemcpy2D, cudaMemset2D).
//
// Host and "device" share one memory here, so a mapped host pointer's device
// address is the host address itself, as with unified addressing on a GPU.
// Registered memory is remembered so that a kernel may be given a pointer
// into it (launch.h screens every other host pointer).
#include <cstdio>
#include <iterator>
#include <map>
#include <mutex>

#include "cuemu/runtime.h"
#include "cuemu/runtime_extra.h"
#include "cuemu/textures.h"
#include "dynamic_parallelism.h"
#include "internal.h"

namespace cuemu::detail {
namespace {

struct host_range {
    std::size_t size;
    unsigned int flags;
};
std::mutex host_mutex;
auto& registered = *new std::map<const char*, host_range>;   // cudaHostRegister: begin -> range
auto& host_alloc_flags = *new std::map<const void*, unsigned int>;  // cudaHostAlloc's flags

// The registered range holding p, or registered.end().
std::map<const char*, host_range>::iterator registered_range(const void* p) {
    const char* c = static_cast<const char*>(p);
    auto it = registered.upper_bound(c);
    if (it == registered.begin()) return registered.end();
    --it;
    return c < it->first + it->second.size ? it : registered.end();
}

bool overlaps_registered(const char* begin, std::size_t size) {
    auto it = registered.lower_bound(begin);
    if (it != registered.end() && it->first < begin + size) return true;
    return registered_range(begin) != registered.end();
}

}  // namespace

bool is_registered_host_memory(const void* p) {
    std::lock_guard<std::mutex> lock(host_mutex);
    return registered_range(p) != registered.end();
}

void note_host_alloc_flags(const void* p, unsigned int flags) {
    std::lock_guard<std::mutex> lock(host_mutex);
    if (flags == cudaHostAllocDefault)
        host_alloc_flags.erase(p);
    else
        host_alloc_flags[p] = flags;
}

}  // namespace cuemu::detail

using namespace cuemu::detail;

// ---- registration -----------------------------------------------------------------------
cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags, const char*, int) {
    constexpr unsigned int known = cudaHostRegisterPortable | cudaHostRegisterMapped |
                                   cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;
    if (!ptr || size == 0 || (flags & ~known) != 0) return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    if (is_device_pointer(ptr)) return record(cudaErrorInvalidValue);  // not host memory
    if (is_pinned_host_memory(ptr, nullptr)) return record(cudaErrorHostMemoryAlreadyRegistered);
    std::lock_guard<std::mutex> lock(host_mutex);
    const char* begin = static_cast<const char*>(ptr);
    if (overlaps_registered(begin, size)) return record(cudaErrorHostMemoryAlreadyRegistered);
    registered[begin] = host_range{size, flags};
    return cudaSuccess;
}

// Like cudaFreeHost, it waits for the device: queued work may still use the memory.
cudaError_t cudaHostUnregister(void* ptr) {
    if (!ptr) return record(cudaErrorInvalidValue);
    if (cudaError_t e = synchronize_device("cudaHostUnregister")) return e;
    std::lock_guard<std::mutex> lock(host_mutex);
    auto it = registered.find(static_cast<const char*>(ptr));
    if (it == registered.end()) return record(cudaErrorHostMemoryNotRegistered);
    registered.erase(it);
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags) {
    if (!device_ptr || !host_ptr || flags != 0) return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    if (!is_pinned_host_memory(host_ptr, nullptr) && !is_registered_host_memory(host_ptr))
        return record(cudaErrorInvalidValue);  // pageable memory has no device address
    *device_ptr = host_ptr;
    return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned int* flags, void* host_ptr) {
    if (!flags || !host_ptr) return record(cudaErrorInvalidValue);
    const void* base = nullptr;
    if (!is_pinned_host_memory(host_ptr, &base)) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(host_mutex);
    auto it = host_alloc_flags.find(base);
    *flags = it == host_alloc_flags.end() ? cudaHostAllocDefault : it->second;
    return cudaSuccess;
}

// ---- what a pointer is ----------------------------------------------------------------------
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
    if (!attributes) return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    *attributes = cudaPointerAttributes{};
    void* p = const_cast<void*>(ptr);
    allocation_info info;
    if (ptr && is_device_pointer(ptr) && find_allocation(ptr, &info) && !info.freed) {
        const bool managed = is_managed_range(ptr, 1);
        attributes->type = managed ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
        attributes->device = info.device;  // the device it was allocated on
        attributes->devicePointer = p;
        attributes->hostPointer = managed ? p : nullptr;
    } else if (ptr && (is_pinned_host_memory(ptr, nullptr) || is_registered_host_memory(ptr))) {
        attributes->type = cudaMemoryTypeHost;
        attributes->device = 0;
        attributes->devicePointer = p;
        attributes->hostPointer = p;
    } else {
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = cudaInvalidDeviceId;
    }
    return cudaSuccess;
}

// ---- pitched memory ----------------------------------------------------------------------------
namespace {

constexpr std::size_t pitch_alignment = 512;  // cudaDevAttrTextureAlignment

// Which sides of a copy are device memory, for cudaMemcpyDefault as for the others.
bool src_on_device(const void* src, cudaMemcpyKind kind) {
    return kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
           (kind == cudaMemcpyDefault && is_device_pointer(src));
}
bool dst_on_device(const void* dst, cudaMemcpyKind kind) {
    return kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
           (kind == cudaMemcpyDefault && is_device_pointer(dst));
}

// The whole rectangle of a device side must lie in one live allocation; one
// line says why not, as for cudaMemcpy.
bool rectangle_fits(const void* p, std::size_t pitch, std::size_t width, std::size_t height,
                    const char* call, const char* role, const char* file, int line) {
    const std::size_t span = pitch * (height - 1) + width;
    if (is_device_range(p, span)) return true;
    std::fprintf(stderr,
                 "cuemu: %s at %s:%d refused: the %s rectangle (%zu rows of %zu bytes, pitch %zu: "
                 "%zu bytes from %p) is not inside one live device allocation\n",
                 call, file, line, role, height, width, pitch, span, p);
    return false;
}

cudaError_t copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                    size_t height, cudaMemcpyKind kind, cudaStream_t stream, const char* call,
                    const char* file, int line) {
    if (cudaError_t e = context_status()) return e;
    if (width > dpitch || width > spitch) return record(cudaErrorInvalidPitchValue);
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    if (width == 0 || height == 0) return cudaSuccess;
    if (!dst || !src) return record(cudaErrorInvalidValue);
    if ((dst_on_device(dst, kind) &&
         !rectangle_fits(dst, dpitch, width, height, call, "destination", file, line)) ||
        (src_on_device(src, kind) &&
         !rectangle_fits(src, spitch, width, height, call, "source", file, line)))
        return record(cudaErrorInvalidValue);
    // One piece of work for all the rows, as on a GPU (memory.cpp): one
    // queued copy per row, each waited for from pageable memory, took
    // minutes for cublasSetVector of 500,000 floats (n one-element rows).
    return copy_rows(dst, dpitch, src, spitch, width, height, kind, stream, call, file, line);
}

cudaError_t set_2d(void* dev_ptr, size_t pitch, int value, size_t width, size_t height,
                   cudaStream_t stream, const char* call, const char* file, int line) {
    if (cudaError_t e = context_status()) return e;
    if (width > pitch) return record(cudaErrorInvalidPitchValue);
    if (width == 0 || height == 0) return cudaSuccess;
    if (!dev_ptr || !rectangle_fits(dev_ptr, pitch, width, height, call, "destination", file, line))
        return record(cudaErrorInvalidValue);
    return fill_rows(dev_ptr, pitch, value, width, height, stream, call, file, line);  // memory.cpp
}

}  // namespace

// Rows start at multiples of 512 bytes, as textureAlignment says; a GPU's
// pitch may differ, which is why programs must use the pitch they get back.
cudaError_t cudaMallocPitch(void** dev_ptr, size_t* pitch, size_t width, size_t height,
                            const char* file, int line) {
    if (!dev_ptr || !pitch) return record(cudaErrorInvalidValue);
    const size_t rounded = (width + pitch_alignment - 1) / pitch_alignment * pitch_alignment;
    if (cudaError_t e = cudaMalloc(dev_ptr, rounded * height, file, line)) return e;
    *pitch = rounded;
    return cudaSuccess;
}

// 3D: depth slices of height rows, one cudaMallocPitch allocation of
// height * depth rows; a slice starts every pitch * height bytes.
cudaError_t cudaMalloc3D(cudaPitchedPtr* pitched, cudaExtent extent, const char* file, int line) {
    if (!pitched) return record(cudaErrorInvalidValue);
    void* p = nullptr;
    size_t pitch = 0;
    if (cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width, extent.height * extent.depth, file, line))
        return e;
    *pitched = make_cudaPitchedPtr(p, pitch, extent.width, extent.height);
    return cudaSuccess;
}

namespace {
// Each slice is a 2D fill of extent.height rows (pitched.ysize rows apart).
cudaError_t set_3d(cudaPitchedPtr pitched, int value, cudaExtent extent, cudaStream_t stream,
                   const char* call, const char* file, int line) {
    if (extent.width == 0 || extent.height == 0 || extent.depth == 0) return cudaSuccess;
    if (extent.depth > 1 && extent.height > pitched.ysize) return record(cudaErrorInvalidValue);
    const size_t slice = pitched.pitch * pitched.ysize;
    for (size_t z = 0; z < extent.depth; ++z)
        if (cudaError_t e = set_2d(static_cast<char*>(pitched.ptr) + z * slice, pitched.pitch, value,
                                   extent.width, extent.height, stream, call, file, line))
            return e;
    return cudaSuccess;
}
}  // namespace

cudaError_t cudaMemset3D(cudaPitchedPtr pitched, int value, cudaExtent extent, const char* file,
                         int line) {
    return set_3d(pitched, value, extent, 0, "cudaMemset3D", file, line);
}
cudaError_t cudaMemset3DAsync(cudaPitchedPtr pitched, int value, cudaExtent extent,
                              cudaStream_t stream, const char* file, int line) {
    if (inside_kernel()) return refuse_in_kernel("cudaMemset3DAsync");  // dynamic_parallelism.cpp
    return set_3d(pitched, value, extent, stream, "cudaMemset3DAsync", file, line);
}

// Waits for the copy and for the work before it, as cudaMemcpy does.
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind, const char* file, int line) {
    if (cudaError_t e = copy_2d(dst, dpitch, src, spitch, width, height, kind, 0, "cudaMemcpy2D",
                                file, line))
        return e;
    return synchronize_device("cudaMemcpy2D");
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream, const char* file, int line) {
    if (inside_kernel()) return refuse_in_kernel("cudaMemcpy2DAsync");
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, "cudaMemcpy2DAsync",
                   file, line);
}

cudaError_t cudaMemset2D(void* dev_ptr, size_t pitch, int value, size_t width, size_t height,
                         const char* file, int line) {
    return set_2d(dev_ptr, pitch, value, width, height, 0, "cudaMemset2D", file, line);
}

cudaError_t cudaMemset2DAsync(void* dev_ptr, size_t pitch, int value, size_t width,
                              size_t height, cudaStream_t stream, const char* file, int line) {
    if (inside_kernel()) return refuse_in_kernel("cudaMemset2DAsync");
    return set_2d(dev_ptr, pitch, value, width, height, stream, "cudaMemset2DAsync", file, line);
}
