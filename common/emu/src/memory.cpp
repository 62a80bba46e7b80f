// memory.cpp - device memory: cudaMalloc/cudaMallocManaged/cudaFree,
// cudaMemcpy/cudaMemset (done by the device queue, queue.cpp), pinned host
// memory, managed-memory hints, __device__/__constant__ symbol copies, and the
// allocation registry the diagnostics use.
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
#include <dlfcn.h>
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

// Never destroyed: a program's static object may call cudaFree from its
// destructor, after this file's statics would be gone.
std::mutex registry_mutex;
auto& by_base = *new std::map<const char*, mapping>;   // every mapping, live or quarantined
auto& live = *new std::map<const char*, const char*>;  // buffer begin -> mapping base
auto& quarantine = *new std::deque<const char*>;       // mapping bases, oldest first
std::size_t quarantined_bytes = 0;
auto& symbols = *new std::map<const char*, std::size_t>;  // __device__/__constant__ variables: begin -> size

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

// True when [p, p + n) lies inside one registered __device__/__constant__ variable.
bool in_symbol(const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    auto it = symbols.upper_bound(c);
    if (it == symbols.begin()) return false;
    --it;
    return c < it->first + it->second && static_cast<std::size_t>(it->first + it->second - c) >= n;
}

// Frees the live buffer at `it` (caller holds registry_mutex): the mapping
// stays, without access, in quarantine.
void release_locked(std::map<const char*, const char*>::iterator it, const char* freed_by) {
    mapping& m = by_base[it->second];
    live.erase(it);
    m.info.freed = true;
    m.info.freed_by = freed_by;
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
    if (!info) return in_symbol(p, n);
    return static_cast<std::size_t>(info->begin + info->size - static_cast<const char*>(p)) >= n;
}

bool is_device_pointer(const void* p) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    return live_buffer_at(p) != nullptr || in_symbol(p, 1);
}

bool is_managed_range(const void* p, std::size_t n) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    const allocation_info* info = live_buffer_at(p);
    return info && std::strcmp(info->how, "cudaMallocManaged") == 0 &&
           static_cast<std::size_t>(info->begin + info->size - static_cast<const char*>(p)) >= n;
}

void register_symbol(const void* begin, std::size_t size) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    symbols[static_cast<const char*>(begin)] = size;
}

void free_all_allocations() {
    std::lock_guard<std::mutex> lock(registry_mutex);
    while (!live.empty()) release_locked(live.begin(), "cudaDeviceReset");
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

// cudaFree waits for the device first, as on a GPU: a kernel still queued
// may use the buffer.
cudaError_t cudaFree(void* dev_ptr) {
    if (cudaError_t e = synchronize_device()) return e;
    if (!dev_ptr) return cudaSuccess;
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = live.find(static_cast<const char*>(dev_ptr));
    if (it == live.end()) return record(cudaErrorInvalidValue);  // not ours, or freed twice
    release_locked(it, "cudaFree");
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
    if (cudaError_t e = synchronize_device()) return e;  // like cudaFree
    std::free(ptr);
    return cudaSuccess;
}

namespace {
// The checks the real runtime makes: a valid direction, and device-side
// ranges that lie inside one live allocation (cudaErrorInvalidValue
// otherwise, for example for a null or a host pointer where a device one
// belongs, or more bytes than the buffer holds).
cudaError_t check_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
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
    return cudaSuccess;
}

// Copies and fills are done by the device thread, in stream order (queue.cpp).
std::uint64_t queue_copy(void* dst, const void* src, size_t count, cudaStream_t stream) {
    return enqueue(stream, [dst, src, count](std::uint64_t) {
        std::memmove(dst, src, count);
        return cudaSuccess;
    });
}
}  // namespace

// Waits for the work before it and for the copy itself, so a fault in an
// earlier kernel is returned here (a GPU returns it from cudaMemcpy too).
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
    if (cudaError_t e = context_status()) return e;
    if (cudaError_t e = check_copy(dst, src, count, kind)) return e;
    if (count == 0) return cudaSuccess;
    return wait_for(queue_copy(dst, src, count, 0));
}

// Returns at once; the host memory must stay valid until the copy has run.
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream) {
    if (cudaError_t e = context_status()) return e;
    if (cudaError_t e = check_copy(dst, src, count, kind)) return e;
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    if (count) queue_copy(dst, src, count, stream);
    return cudaSuccess;
}

// cudaMemset is asynchronous on a GPU too (for device memory): it is queued on
// the default stream and the call returns.
cudaError_t cudaMemsetAsync(void* dev_ptr, int value, size_t count, cudaStream_t stream) {
    if (cudaError_t e = context_status()) return e;
    if (count == 0) return cudaSuccess;
    if (!is_device_range(dev_ptr, count)) return record(cudaErrorInvalidValue);
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    enqueue(stream, [dev_ptr, value, count](std::uint64_t) {
        std::memset(dev_ptr, value, count);
        return cudaSuccess;
    });
    return cudaSuccess;
}

cudaError_t cudaMemset(void* dev_ptr, int value, size_t count) {
    return cudaMemsetAsync(dev_ptr, value, count, 0);
}

// ---- managed memory hints ------------------------------------------------------------
namespace {
// Host and device locations for prefetch and advice: the device is number 0.
cudaError_t check_location(cudaMemLocation location) {
    switch (location.type) {
        case cudaMemLocationTypeDevice:
            return location.id == 0 ? cudaSuccess : record(cudaErrorInvalidDevice);
        case cudaMemLocationTypeHost:
        case cudaMemLocationTypeHostNuma:
        case cudaMemLocationTypeHostNumaCurrent:
            return cudaSuccess;
        default:
            return record(cudaErrorInvalidValue);
    }
}
}  // namespace

// Host and device share one memory, so there is nothing to move; the prefetch
// is still checked and queued, so it keeps its place in the stream. As on a
// GPU without pageable memory access, the range must be managed memory.
cudaError_t cudaMemPrefetchAsync(const void* dev_ptr, size_t count, cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream) {
    if (cudaError_t e = context_status()) return e;
    if (!dev_ptr || count == 0 || flags != 0) return record(cudaErrorInvalidValue);
    if (!is_managed_range(dev_ptr, count)) return record(cudaErrorInvalidValue);
    if (cudaError_t e = check_location(location)) return e;
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    enqueue(stream, [](std::uint64_t) { return cudaSuccess; });
    return cudaSuccess;
}

// Checked, then nothing to do (one memory).
cudaError_t cudaMemAdvise(const void* dev_ptr, size_t count, cudaMemoryAdvise advice,
                          cudaMemLocation location) {
    if (cudaError_t e = context_status()) return e;
    if (!dev_ptr || count == 0) return record(cudaErrorInvalidValue);
    if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
        return record(cudaErrorInvalidValue);
    if (!is_managed_range(dev_ptr, count)) return record(cudaErrorInvalidValue);
    // Read-mostly advice ignores the location; the others name one.
    if (advice != cudaMemAdviseSetReadMostly && advice != cudaMemAdviseUnsetReadMostly)
        if (cudaError_t e = check_location(location)) return e;
    return cudaSuccess;
}

// ---- __constant__ and __device__ variables -----------------------------------------
namespace {
// A symbol is a global variable: its address lies in the program or a shared
// library it loaded. A local or heap object is not one (cudaErrorInvalidSymbol).
bool is_global_variable(const void* p) {
    Dl_info info{};
    return dladdr(p, &info) != 0 && info.dli_fname != nullptr;
}
}  // namespace

cudaError_t cuemu::symbol_address(void** address, std::size_t* size, const void* symbol,
                                  std::size_t symbol_size) {
    if (cudaError_t e = context_status()) return e;
    if ((address == nullptr) == (size == nullptr)) return record(cudaErrorInvalidValue);
    if (!is_global_variable(symbol)) return record(cudaErrorInvalidSymbol);
    register_symbol(symbol, symbol_size);
    if (address) *address = const_cast<void*>(symbol);
    if (size) *size = symbol_size;
    return cudaSuccess;
}

cudaError_t cuemu::symbol_copy(void* symbol, std::size_t symbol_size, std::size_t offset,
                               void* other, std::size_t count, cudaMemcpyKind kind,
                               bool to_symbol, bool async, cudaStream_t stream) {
    if (cudaError_t e = context_status()) return e;
    if (!is_global_variable(symbol)) return record(cudaErrorInvalidSymbol);
    if (offset > symbol_size || count > symbol_size - offset) return record(cudaErrorInvalidValue);
    // To a symbol: from the host or from device memory; from a symbol: to either.
    const bool direction_ok =
        kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault ||
        kind == (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    if (!direction_ok) return record(cudaErrorInvalidMemcpyDirection);
    register_symbol(symbol, symbol_size);
    char* at = static_cast<char*>(symbol) + offset;
    void* dst = to_symbol ? at : other;
    const void* src = to_symbol ? other : at;
    return async ? cudaMemcpyAsync(dst, src, count, kind, stream)
                 : cudaMemcpy(dst, src, count, kind);
}

// Placeholders until device memory is protected between kernels (see internal.h).
namespace cuemu::detail {
void device_memory_open() {}
void device_memory_close() {}
}  // namespace cuemu::detail
