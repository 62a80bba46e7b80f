// memory.cpp - device memory: cudaMalloc/cudaMallocManaged/cudaFree,
// cudaMemcpy/cudaMemset, pinned host memory, and the allocation registry the
// diagnostics use.
//
// Each device allocation is its own mapping, placed so that the buffer ends
// exactly where a PROT_NONE guard page begins. Reading or writing even one
// element past the end then faults at once, and the fault handler can name
// the buffer. Because the end is page-aligned, the start is aligned to the
// largest power of two dividing the size (capped at 256): a float array of
// any length is 4-byte aligned, as its elements need.
//
// Freed buffers stay mapped without access for a while (a quarantine), so a
// use after cudaFree faults and is reported instead of reading stale data.
// New buffers are filled with 0xFF bytes (NaN as float, -1 as int): real GPU
// memory starts with arbitrary contents, and a visible pattern makes "I never
// wrote this element" obvious.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>

#include "cuemu/runtime.h"
#include "internal.h"

namespace cuemu::detail {
namespace {

constexpr std::size_t quarantine_limit = std::size_t(256) << 20;

struct mapping {
    char* base;
    std::size_t length;
    allocation_info info;
};

std::mutex registry_mutex;
std::map<const char*, mapping> by_base;    // every mapping, live or quarantined
std::map<const char*, const char*> live;   // buffer begin -> mapping base
std::deque<const char*> quarantine;        // mapping bases, oldest first
std::size_t quarantined_bytes = 0;

std::size_t page_size() {
    static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return size;
}

// The mapping that contains addr (buffer or guard page), or nullptr.
const mapping* mapping_at(const void* addr) {
    const char* a = static_cast<const char*>(addr);
    auto it = by_base.upper_bound(a);
    if (it == by_base.begin()) return nullptr;
    --it;
    return a < it->second.base + it->second.length ? &it->second : nullptr;
}

// The live buffer containing p (p may be one past the end only if n == 0).
const allocation_info* live_buffer_at(const void* p) {
    const mapping* m = mapping_at(p);
    if (!m || m->info.freed) return nullptr;
    const char* c = static_cast<const char*>(p);
    if (c < m->info.begin || c >= m->info.begin + m->info.size) return nullptr;
    return &m->info;
}

cudaError_t allocate(void** out, std::size_t size, const char* how, const char* file,
                     int line) {
    if (!out) return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    if (size == 0) {  // the real runtime succeeds and hands back no memory
        *out = nullptr;
        return cudaSuccess;
    }
    const std::size_t page = page_size();
    const std::size_t body = (size + page - 1) / page * page;
    if (body < size) return record(cudaErrorMemoryAllocation);
    const std::size_t length = body + page;
    void* base = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) return record(cudaErrorMemoryAllocation);
    char* b = static_cast<char*>(base);
    mprotect(b + body, page, PROT_NONE);
    char* begin = b + body - size;
    std::memset(begin, 0xFF, size);

    mapping m{b, length, allocation_info{}};
    m.info.begin = begin;
    m.info.size = size;
    m.info.file = file ? file : "";
    m.info.line = line;
    m.info.how = how;
    std::lock_guard<std::mutex> lock(registry_mutex);
    by_base[b] = m;
    live[begin] = b;
    *out = begin;
    return cudaSuccess;
}

}  // namespace

bool find_allocation(const void* addr, allocation_info* out) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    const mapping* m = mapping_at(addr);
    if (!m) return false;
    *out = m->info;
    return true;
}

bool is_device_range(const void* p, std::size_t n) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    const allocation_info* info = live_buffer_at(p);
    return info && static_cast<std::size_t>(info->begin + info->size -
                                            static_cast<const char*>(p)) >= n;
}

bool is_device_pointer(const void* p) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    return live_buffer_at(p) != nullptr;
}

}  // namespace cuemu::detail

using namespace cuemu::detail;

cudaError_t cudaMalloc(void** dev_ptr, size_t size, const char* file, int line) {
    return allocate(dev_ptr, size, "cudaMalloc", file, line);
}

cudaError_t cudaMallocManaged(void** dev_ptr, size_t size, unsigned int flags,
                              const char* file, int line) {
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
        return record(cudaErrorInvalidValue);
    return allocate(dev_ptr, size, "cudaMallocManaged", file, line);
}

cudaError_t cudaFree(void* dev_ptr) {
    if (cudaError_t e = context_status()) return e;
    if (!dev_ptr) return cudaSuccess;
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = live.find(static_cast<const char*>(dev_ptr));
    if (it == live.end()) return record(cudaErrorInvalidValue);  // not ours, or freed twice
    mapping& m = by_base[it->second];
    live.erase(it);
    m.info.freed = true;
    mprotect(m.base, m.length, PROT_NONE);
    quarantine.push_back(m.base);
    quarantined_bytes += m.length;
    while (quarantined_bytes > quarantine_limit && !quarantine.empty()) {
        auto old = by_base.find(quarantine.front());
        quarantine.pop_front();
        quarantined_bytes -= old->second.length;
        munmap(old->second.base, old->second.length);
        by_base.erase(old);
    }
    return cudaSuccess;
}

// Pinned host memory is ordinary host memory here.
cudaError_t cudaMallocHost(void** ptr, size_t size, const char*, int) {
    if (!ptr) return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    *ptr = size ? std::aligned_alloc(256, (size + 255) / 256 * 256) : nullptr;
    return size && !*ptr ? record(cudaErrorMemoryAllocation) : cudaSuccess;
}

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int, const char* file, int line) {
    return cudaMallocHost(ptr, size, file, line);
}

cudaError_t cudaFreeHost(void* ptr) {
    if (cudaError_t e = context_status()) return e;
    std::free(ptr);
    return cudaSuccess;
}

// The checks the real runtime makes: a valid direction, and device-side
// ranges that lie inside one live allocation (cudaErrorInvalidValue
// otherwise, for example for a null or a host pointer where a device one
// belongs, or more bytes than the buffer holds).
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
    if (cudaError_t e = context_status()) return e;
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    if (count == 0) return cudaSuccess;
    if (!dst || !src) return record(cudaErrorInvalidValue);
    const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (dst_device && !is_device_range(dst, count)) return record(cudaErrorInvalidValue);
    if (src_device && !is_device_range(src, count)) return record(cudaErrorInvalidValue);
    if (kind == cudaMemcpyDefault) {
        // With unified addressing the runtime works out the direction; a
        // device-side range must still fit its buffer.
        if (is_device_pointer(dst) && !is_device_range(dst, count)) return record(cudaErrorInvalidValue);
        if (is_device_pointer(src) && !is_device_range(src, count)) return record(cudaErrorInvalidValue);
    }
    std::memmove(dst, src, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t) {
    return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemset(void* dev_ptr, int value, size_t count) {
    if (cudaError_t e = context_status()) return e;
    if (count == 0) return cudaSuccess;
    if (!is_device_range(dev_ptr, count)) return record(cudaErrorInvalidValue);
    std::memset(dev_ptr, value, count);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* dev_ptr, int value, size_t count, cudaStream_t) {
    return cudaMemset(dev_ptr, value, count);
}

// Placeholders until device memory is protected between kernels (see internal.h).
namespace cuemu::detail {
void device_memory_open() {}
void device_memory_close() {}
}  // namespace cuemu::detail
