// memory.cpp - device memory: cudaMalloc/cudaMallocManaged/cudaFree,
// cudaMemcpy/cudaMemset (checked at the call, done by the device queue,
// queue.cpp), pinned host memory, and the allocation
// registry (memory_registry.h) that the diagnostics and the files beside
// this one use: memory_protection.cpp (device memory closed to the host,
// CUEMU_CHECK=uninit), kernel_pointers.cpp (pointers passed to kernels),
// symbols.cpp (__device__/__constant__ variables).
//
// Each device allocation is its own mapping inside the device's address range
// (address_space.cpp), placed so that the buffer ends
// exactly where a PROT_NONE guard page begins. Reading or writing even one
// element past the end then faults at once, and the fault handler can name
// the buffer. Because the end is page-aligned, the start is aligned to the
// largest power of two dividing the size (capped at 256): a float array of
// any length is 4-byte aligned, as its elements need. (In the sanitizer build
// the layout differs: see "AddressSanitizer" below.)
//
// The traps:
//   - freed buffers stay mapped without access for a while (a quarantine), so a
//     use after cudaFree faults and is reported instead of reading stale data;
//   - cudaMalloc buffers are PROT_NONE whenever the device is idle (the device
//     queue opens them while it works, queue.cpp; memory_protection.cpp), so
//     host code that dereferences a device pointer faults and is named;
//   - a kernel argument pointing into host memory is swapped for an address in
//     an inaccessible window, so a kernel that dereferences it faults
//     (kernel_pointers.cpp);
//   - new buffers are filled with 0xFF bytes (NaN as float, -1 as int): real GPU
//     memory starts with arbitrary contents, and a visible pattern makes "I
//     never wrote this element" obvious. CUEMU_CHECK=uninit goes further and
//     reports reads of memory nothing wrote (memory_protection.cpp).
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <string>

#include "cuemu/runtime.h"
#include "diagnostics.h"
#include "dynamic_parallelism.h"
#include "graph_internal.h"
#include "internal.h"
#include "memory_registry.h"
#include "trace.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define CUEMU_ASAN 1
#endif

namespace cuemu::detail {

// Never destroyed: a program's static object may call cudaFree from its
// destructor, after this file's statics would be gone.
std::mutex registry_mutex;
std::map<const char*, mapping>& by_base = *new std::map<const char*, mapping>;
std::map<const char*, const char*>& live = *new std::map<const char*, const char*>;
std::map<const char*, std::size_t>& pinned = *new std::map<const char*, std::size_t>;

std::size_t page_size() {
    static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return size;
}

// The mapping that contains addr (buffer or guard page), or nullptr.
mapping* mapping_at(const void* addr) {
    if (!in_device_address_range(addr)) return nullptr;
    const char* a = static_cast<const char*>(addr);
    auto it = by_base.upper_bound(a);
    if (it == by_base.begin()) return nullptr;
    --it;
    return a < it->second.base + it->second.length ? &it->second : nullptr;
}

// The live buffer containing p (p may be one past the end only if n == 0).
mapping* live_mapping_at(const void* p) {
    mapping* m = mapping_at(p);
    if (!m || m->info.freed) return nullptr;
    const char* c = static_cast<const char*>(p);
    if (c < m->info.begin || c >= m->info.begin + m->info.size) return nullptr;
    return m;
}

// ---- allocation ----------------------------------------------------------------------
namespace {

constexpr std::size_t quarantine_limit = std::size_t(256) << 20;
auto& quarantine = *new std::deque<const char*>;  // mapping bases, oldest first (never destroyed either)
std::size_t quarantined_bytes = 0;

// Frees the live buffer at `it` (caller holds registry_mutex): the mapping
// stays, without access, in quarantine. file and line: where cudaFree was
// called (none for cudaDeviceReset).
void release_locked(std::map<const char*, const char*>::iterator it, const char* freed_by,
                    const char* file, int line) {
    mapping& m = by_base[it->second];
    live.erase(it);
    m.info.freed = true;
    m.info.freed_by = freed_by;
    m.info.free_file = file ? file : "";
    m.info.free_line = line;
    give_back_device_memory(m.info.size, m.info.device);
    m.written.clear();
    m.page_open.clear();
    mprotect(m.base, m.length, PROT_NONE);
    madvise(m.base, m.length, MADV_DONTNEED);  // the memory goes back now; the addresses stay
#ifdef CUEMU_ASAN
    ASAN_UNPOISON_MEMORY_REGION(m.base, m.length);  // the page fault reports it now
#endif
    quarantine.push_back(m.base);
    quarantined_bytes += m.length;
    while (quarantined_bytes > quarantine_limit && !quarantine.empty()) {
        auto old = by_base.find(quarantine.front());
        quarantine.pop_front();
        quarantined_bytes -= old->second.length;
        release_device_range(old->second.base, old->second.length);
        by_base.erase(old);
    }
}

cudaError_t allocate(void** out, std::size_t size, const char* how, const char* file,
                     int line) {
    if (!out) return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    install_fault_handler_once();
    if (size == 0) {  // the real runtime succeeds and hands back no memory
        *out = nullptr;
        return cudaSuccess;
    }
    const std::size_t page = page_size();
#ifdef CUEMU_ASAN
    // AddressSanitizer build: a poisoned page (and the slack) in front of the
    // buffer, so that a[-1] is reported; the start 16-byte aligned, so that
    // the bytes just before it can be poisoned on their own (ASan tracks
    // memory in 8-byte granules); the few bytes between the end and the guard
    // page poisoned too.
    const std::size_t rounded = (size + 15) / 16 * 16;
    const std::size_t lead = page;
#else
    const std::size_t rounded = size;
    const std::size_t lead = 0;
#endif
    const std::size_t body = (rounded + page - 1) / page * page;
    if (body < size) return record(cudaErrorMemoryAllocation);
    const std::size_t length = lead + body + page;
    if (length < body) return record(cudaErrorMemoryAllocation);
    const int device = current_device();
    if (cudaError_t e = take_device_memory(size, device, how, file, line)) return e;
    char* b = carve_device_range(length, device);
    if (!b) {
        give_back_device_memory(size, device);
        explain_allocation_refused(how, size, 0, 0, file, line);
        return record(cudaErrorMemoryAllocation);
    }
    char* guard = b + lead + body;
    mprotect(guard, page, PROT_NONE);
    char* begin = guard - rounded;
    std::memset(begin, 0xFF, size);
#ifdef CUEMU_ASAN
    ASAN_POISON_MEMORY_REGION(b, static_cast<std::size_t>(begin - b));
    ASAN_POISON_MEMORY_REGION(begin + size, rounded - size);
#endif

    mapping m{b, length, b + lead, body, allocation_info{}, {}, {}, {}};
    m.info.begin = begin;
    m.info.size = size;
    m.info.file = file ? file : "";
    m.info.line = line;
    m.info.how = how;
    m.info.device = device;
    if (check_uninit() && is_device_only_kind(how)) {
        m.written.assign(size, 0);
        m.page_open.assign(body / page, 0);
    }
    std::lock_guard<std::mutex> lock(registry_mutex);
    mapping& stored = by_base[b] = std::move(m);
    live[begin] = b;
    protect(stored);
    *out = begin;
    return cudaSuccess;
}

// For reports: the mapping holding addr or, for an address of the device
// range between mappings, the nearest one below it (an index past the end of
// that buffer), else the nearest above.
const mapping* mapping_for_report(const void* addr) {
    if (const mapping* m = mapping_at(addr)) return m;
    if (!in_device_address_range(addr) || by_base.empty()) return nullptr;
    auto it = by_base.upper_bound(static_cast<const char*>(addr));
    if (it != by_base.begin()) --it;
    return &it->second;
}

}  // namespace

bool is_stream_ordered_kind(const char* how) {
    return std::strcmp(how, "cudaMallocAsync") == 0 || std::strcmp(how, "cudaMallocFromPoolAsync") == 0;
}
bool is_graph_memory_kind(const char* how) {
    return std::strcmp(how, "cudaGraphAddMemAllocNode") == 0 ||
           std::strcmp(how, "cudaMallocAsync in a stream capture") == 0;
}
bool is_device_only_kind(const char* how) {
    return std::strcmp(how, "cudaMalloc") == 0 || std::strcmp(how, "cudaMalloc in a kernel") == 0 ||
           is_stream_ordered_kind(how) || is_graph_memory_kind(how);
}

// The stream-ordered allocator's (memory_pools.cpp): an allocation of its
// kind, and a free when the stream reaches it, on whichever thread runs it.
cudaError_t allocate_device_memory(void** out, std::size_t size, const char* how, const char* file,
                                   int line) {
    return allocate(out, size, how, file, line);
}
bool release_device_memory(void* p, const char* freed_by, const char* file, int line) {
    std::unique_lock<std::mutex> lock(registry_mutex);
    auto it = live.find(static_cast<const char*>(p));
    if (it == live.end()) return false;
    release_locked(it, freed_by, file, line);
    return true;
}
std::size_t live_allocation_size(const void* p) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = live.find(static_cast<const char*>(p));
    return it == live.end() ? 0 : by_base[it->second].info.size;
}

bool find_allocation(const void* addr, allocation_info* out) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    const mapping* m = mapping_for_report(addr);
    if (!m) return false;
    *out = m->info;
    return true;
}

bool find_allocation_in_signal(const void* addr, allocation_info* out) {
    // Another thread (the host opening buffers for the next launch, an engine
    // closing them) holds the lock only briefly: try for up to half a second,
    // so that a fault report does not lose its buffer to that thread's timing.
    // Should the faulting thread hold it itself, the wait ends and the report
    // goes on without the buffer.
    std::unique_lock<std::mutex> lock(registry_mutex, std::try_to_lock);
    for (int tries = 0; !lock.owns_lock() && tries < 500; ++tries) {
        const timespec one_millisecond{0, 1000000};
        nanosleep(&one_millisecond, nullptr);  // async-signal-safe, unlike sleep_for
        lock.try_lock();
    }
    if (!lock.owns_lock()) return false;
    const mapping* m = mapping_for_report(addr);
    if (!m) return false;
    *out = m->info;
    return true;
}

bool is_device_range(const void* p, std::size_t n) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    const mapping* m = live_mapping_at(p);
    if (!m) return in_symbol(p, n);
    return static_cast<std::size_t>(m->info.begin + m->info.size - static_cast<const char*>(p)) >= n;
}

bool is_device_pointer(const void* p) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    return live_mapping_at(p) != nullptr || in_symbol(p, 1);
}

int device_of_pointer(const void* p) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    const mapping* m = live_mapping_at(p);
    return m ? m->info.device : -1;
}

bool is_managed_range(const void* p, std::size_t n) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    const mapping* m = live_mapping_at(p);
    return m && std::strcmp(m->info.how, "cudaMallocManaged") == 0 &&
           static_cast<std::size_t>(m->info.begin + m->info.size - static_cast<const char*>(p)) >= n;
}

void free_all_allocations(int device) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    for (auto it = live.begin(); it != live.end();) {
        auto next = std::next(it);
        // Stream-ordered allocations outlive a reset, as CUDA documents.
        const allocation_info& info = by_base[it->second].info;
        if (info.device == device && !is_stream_ordered_kind(info.how) && !is_graph_memory_kind(info.how))
            release_locked(it, "cudaDeviceReset", nullptr, 0);
        it = next;
    }
}

}  // namespace cuemu::detail

using namespace cuemu::detail;

// In a kernel, the device runtime's cudaMalloc and cudaFree, which CUDA maps
// to the device heap's malloc and free: no wait for the device, and memory
// only the device frees (the host's cudaFree of it, or the kernel's of the
// host's, is an error, as CUDA says). Here a buffer like cudaMalloc's, of its
// own kind, so that every check applies to it.
namespace {
constexpr const char* kernel_malloc_kind = "cudaMalloc in a kernel";

bool from_kernel_malloc(const allocation_info& info) { return std::strcmp(info.how, kernel_malloc_kind) == 0; }

void wrong_heap(const char* call, const allocation_info& info, const char* file, int line, const char* rule) {
    std::fflush(stdout);  // the program's own output first
    std::fprintf(stderr,
                 "cuemu: %s at %s:%d was given the %zu-byte buffer from %s at %s:%d; %s, and CUDA calls "
                 "this an error; it returns cudaErrorInvalidValue\n",
                 call, file, line, info.size, info.how, info.file, info.line, rule);
}

cudaError_t free_in_kernel(void* dev_ptr, const char* file, int line) {
    if (!dev_ptr) return cudaSuccess;
    std::unique_lock<std::mutex> lock(registry_mutex);
    auto it = live.find(static_cast<const char*>(dev_ptr));
    if (it != live.end() && from_kernel_malloc(by_base[it->second].info)) {
        release_locked(it, "cudaFree in a kernel", file, line);
        return cudaSuccess;
    }
    const mapping* m = mapping_at(dev_ptr);
    allocation_info info;
    if (m) info = m->info;
    lock.unlock();
    if (m && !info.freed && info.begin == dev_ptr) {
        wrong_heap("cudaFree in a kernel", info, file, line,
                   "in a kernel, cudaFree frees only what a kernel got with cudaMalloc (the device heap)");
    } else {
        explain_bad_free(dev_ptr, m ? &info : nullptr, file, line, "cudaFree in a kernel");
    }
    return record(cudaErrorInvalidValue);
}
}  // namespace

cudaError_t cudaMalloc(void** dev_ptr, size_t size, const char* file, int line) {
    if (inside_kernel()) return allocate(dev_ptr, size, kernel_malloc_kind, file, line);
    // A "potentially unsafe" call during a capture (graph_capture.cpp).
    if (cudaError_t e = capture_check_unsafe_call()) return record(e);
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
cudaError_t cudaFree(void* dev_ptr, const char* file, int line) {
    if (inside_kernel()) return free_in_kernel(dev_ptr, file, line);
    if (cudaError_t e = synchronize_device("cudaFree")) return e;
    if (!dev_ptr) return cudaSuccess;
    if (cudaError_t e; free_graph_allocation(dev_ptr, nullptr, false, "cudaFree", file, line, &e)) return e;
    const int owner = device_of_pointer(dev_ptr);  // another device's buffer: its work too
    if (owner >= 0 && owner != current_device()) drain_device(owner, "cudaFree");
    std::unique_lock<std::mutex> lock(registry_mutex);
    auto it = live.find(static_cast<const char*>(dev_ptr));
    if (it == live.end()) {  // freed twice, not from cudaMalloc, or not its start
        const mapping* m = mapping_at(dev_ptr);
        allocation_info info;
        if (m) info = m->info;
        lock.unlock();
        explain_bad_free(dev_ptr, m ? &info : nullptr, file, line);
        return record(cudaErrorInvalidValue);
    }
    if (from_kernel_malloc(by_base[it->second].info)) {
        const allocation_info info = by_base[it->second].info;
        lock.unlock();
        wrong_heap("cudaFree", info, file, line,
                   "memory a kernel got with cudaMalloc is the device heap's, which only device code frees");
        return record(cudaErrorInvalidValue);
    }
    const bool stream_ordered = is_stream_ordered_kind(by_base[it->second].info.how);
    release_locked(it, "cudaFree", file, line);
    lock.unlock();
    if (stream_ordered) forget_stream_ordered_allocation(dev_ptr);  // its pool's count
    return cudaSuccess;
}

// Pinned host memory is ordinary host memory here. It is remembered, because
// a kernel may use it (it is mapped into the device's address space).
cudaError_t cudaMallocHost(void** ptr, size_t size, const char*, int) {
    if (!ptr) return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    *ptr = size ? std::aligned_alloc(256, (size + 255) / 256 * 256) : nullptr;
    if (size && !*ptr) return record(cudaErrorMemoryAllocation);
    if (*ptr) {
        std::lock_guard<std::mutex> lock(registry_mutex);
        pinned[static_cast<const char*>(*ptr)] = size;
    }
    return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags, const char* file, int line) {
    if (flags & ~static_cast<unsigned int>(cudaHostAllocPortable | cudaHostAllocMapped |
                                           cudaHostAllocWriteCombined))
        return record(cudaErrorInvalidValue);
    cudaError_t e = cudaMallocHost(ptr, size, file, line);
    if (e == cudaSuccess && *ptr) note_host_alloc_flags(*ptr, flags);
    return e;
}

bool cuemu::detail::is_pinned_host_memory(const void* p, const void** base) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = pinned.upper_bound(static_cast<const char*>(p));
    if (it == pinned.begin()) return false;
    --it;
    if (static_cast<const char*>(p) >= it->first + it->second) return false;
    if (base) *base = it->first;
    return true;
}

// Only the start of a live cudaMallocHost buffer may be freed here; anything
// else (a second free, malloc or device memory) is refused with
// cudaErrorInvalidValue, as the real runtime refuses it, instead of reaching free().
cudaError_t cudaFreeHost(void* ptr, const char* file, int line) {
    if (cudaError_t e = synchronize_device("cudaFreeHost")) return e;  // like cudaFree
    if (!ptr) return cudaSuccess;
    {
        std::lock_guard<std::mutex> lock(registry_mutex);
        if (pinned.erase(static_cast<const char*>(ptr)) == 0) {
            std::fprintf(stderr,
                         "cuemu: cudaFreeHost at %s:%d was given %p, which is not the start of a "
                         "live buffer\n"
                         "  from cudaMallocHost or cudaHostAlloc (freed already, or memory from "
                         "malloc, new or cudaMalloc);\n"
                         "  cudaFreeHost returns cudaErrorInvalidValue\n",
                         file, line, ptr);
            return record(cudaErrorInvalidValue);
        }
    }
    note_host_alloc_flags(ptr, cudaHostAllocDefault);
    std::free(ptr);
    return cudaSuccess;
}

namespace {

// Why a device-side range of a copy is refused, for the message: false when it
// is fine.
bool bad_device_range(const void* p, std::size_t count, const char* call, const char* role,
                      const char* kind_name, const char* file, int line) {
    if (is_device_range(p, count)) return false;
    allocation_info info;
    bool known = find_allocation(p, &info);
    explain_bad_copy(call, role, kind_name, p, count, known ? &info : nullptr, file, line);
    return true;
}

const char* copy_kind_name(cudaMemcpyKind kind) {
    switch (kind) {
        case cudaMemcpyHostToHost: return "cudaMemcpyHostToHost";
        case cudaMemcpyHostToDevice: return "cudaMemcpyHostToDevice";
        case cudaMemcpyDeviceToHost: return "cudaMemcpyDeviceToHost";
        case cudaMemcpyDeviceToDevice: return "cudaMemcpyDeviceToDevice";
        default: return "cudaMemcpyDefault";
    }
}

// CUEMU_CHECK=uninit: a copy out of device memory that carries bytes nothing
// wrote is worth a warning (a GPU would copy whatever the memory held). Runs
// on the device thread, when the copy's turn comes: the kernels queued before
// it have run and their writes are counted.
void check_copied_bytes(const void* src, std::size_t count, const char* call, const char* file,
                        int line) {
    if (!check_uninit()) return;
    allocation_info info;
    std::size_t unwritten = 0, first = 0;
    {
        std::lock_guard<std::mutex> lock(registry_mutex);
        mapping* m = live_mapping_at(src);
        if (!m || !tracks_writes(*m)) return;
        info = m->info;
        const std::size_t start = static_cast<std::size_t>(static_cast<const char*>(src) - m->info.begin);
        for (std::size_t i = start; i < start + count; ++i) {
            if (m->written[i]) continue;
            if (unwritten++ == 0) first = i;
        }
    }
    if (unwritten) explain_unwritten_copy(call, count, unwritten, first, info, file, line);
}

// The checks the real runtime makes: a valid direction, and device-side
// ranges that lie inside one live allocation (cudaErrorInvalidValue
// otherwise, for example for a null or a host pointer where a device one
// belongs, or more bytes than the buffer holds).
cudaError_t check_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                       const char* call, const char* file, int line) {
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    if (count == 0) return cudaSuccess;
    const char* kind_name = copy_kind_name(kind);
    if (!dst || !src) {
        explain_bad_copy(call, dst ? "source" : "destination", kind_name, nullptr, count,
                         nullptr, file, line);
        return record(cudaErrorInvalidValue);
    }
    bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (kind == cudaMemcpyDefault) {
        // With unified addressing the runtime works out the direction; a
        // device-side range must still fit its buffer.
        dst_device = is_device_pointer(dst);
        src_device = is_device_pointer(src);
    }
    if (dst_device && bad_device_range(dst, count, call, "destination", kind_name, file, line))
        return record(cudaErrorInvalidValue);
    if (src_device && bad_device_range(src, count, call, "source", kind_name, file, line))
        return record(cudaErrorInvalidValue);
    return cudaSuccess;
}

// The copy the device thread is doing, for the fault handler's report: a
// host buffer smaller than the copy faults inside the memmove.
thread_local copy_in_progress device_copy;
thread_local bool device_copy_running = false;

// Copies and fills are done by the device thread, in stream order (queue.cpp),
// while device memory is open. Under CUEMU_CHECK=uninit the copy first checks
// the bytes it carries out of device memory, and notes the bytes it writes.

// Device memory is open while its own device's queue works; a copy that
// reaches into another device's memory (a peer copy, cudaMemcpyDefault) opens
// that memory for as long as it runs.
struct devices_opened {
    int a, b;
    devices_opened(int a_, int b_) : a(a_), b(b_) {
        if (a >= 0) device_memory_open(a);
        if (b >= 0) device_memory_open(b);
    }
    ~devices_opened() {
        if (a >= 0) device_memory_close(a);
        if (b >= 0) device_memory_close(b);
    }
};

std::uint64_t queue_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                         cudaStream_t stream, const char* call, const char* file, int line) {
    const char* kind_name = copy_kind_name(kind);
    const int dst_device = device_of_pointer(dst), src_device = device_of_pointer(src);
    return enqueue(
        stream,
        [=](std::uint64_t) {
            devices_opened open(dst_device, src_device);
            check_copied_bytes(src, count, call, file, line);
            device_copy = copy_in_progress{call, file, line, kind_name, dst, src, count};
            device_copy_running = true;
            // The fault handler reads these: the compiler must not drop the
            // stores around a memmove it knows touches only dst and src.
            std::atomic_signal_fence(std::memory_order_seq_cst);
            std::memmove(dst, src, count);
            std::atomic_signal_fence(std::memory_order_seq_cst);
            device_copy_running = false;
            mark_written(dst, count);
            return cudaSuccess;
        },
        copy_label(call, kind, dst, src, count));
}

// cudaMemset is asynchronous on a GPU too (for device memory): it is queued
// and the call returns.
cudaError_t queue_fill(void* dev_ptr, int value, size_t count, cudaStream_t stream,
                       const char* call, const char* file, int line) {
    if (cudaError_t e = context_status()) return e;
    if (count == 0) return cudaSuccess;
    if (bad_device_range(dev_ptr, count, call, "destination", nullptr, file, line))
        return record(cudaErrorInvalidValue);
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = capture_check_stream_work(stream)) return record(e);  // graph_capture.cpp
    work_label label;
    label.category = "memset";
    if (trace_enabled()) {
        label.name = call;
        label.args = "\"bytes\":" + std::to_string(count);
    }
    const int device = device_of_pointer(dev_ptr);
    enqueue(
        stream,
        [dev_ptr, value, count, device](std::uint64_t) {
            devices_opened open(device, -1);
            std::memset(dev_ptr, value, count);
            mark_written(dev_ptr, count);
            return cudaSuccess;
        },
        std::move(label));
    return cudaSuccess;
}
}  // namespace

// cudaMemcpy2D and cudaMemcpy2DAsync (host_memory.cpp, which checked the
// rectangles): height rows of width bytes, one queued piece of work as on a
// GPU, so a captured 2D copy is one node and a pageable host side is waited
// for once, not once per row. Each row is checked, and under
// CUEMU_CHECK=uninit watched, as cudaMemcpyAsync checks one.
cudaError_t cuemu::detail::copy_rows(void* dst, size_t dpitch, const void* src, size_t spitch,
                                     size_t width, size_t height, cudaMemcpyKind kind,
                                     cudaStream_t stream, const char* call, const char* file, int line) {
    if (inside_kernel()) return refuse_in_kernel(call);  // dynamic_parallelism.cpp
    if (cudaError_t e = context_status()) return e;
    if (dpitch == width && spitch == width) {  // rows that follow one another: one row
        width *= height;
        dpitch = spitch = width;
        height = 1;
    }
    for (size_t row = 0; row < height; ++row)
        if (cudaError_t e = check_copy(static_cast<char*>(dst) + row * dpitch,
                                       static_cast<const char*>(src) + row * spitch, width, kind, call,
                                       file, line))
            return e;
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = capture_check_stream_work(stream)) return record(e);  // graph_capture.cpp
    if (width == 0 || height == 0) return cudaSuccess;
    const char* kind_name = copy_kind_name(kind);
    const int dst_device = device_of_pointer(dst), src_device = device_of_pointer(src);
    const size_t dst_span = dpitch * (height - 1) + width, src_span = spitch * (height - 1) + width;
    const std::uint64_t seq = enqueue(
        stream,
        [=](std::uint64_t) {
            devices_opened open(dst_device, src_device);
            for (size_t row = 0; row < height; ++row) {
                char* to = static_cast<char*>(dst) + row * dpitch;
                const char* from = static_cast<const char*>(src) + row * spitch;
                check_copied_bytes(from, width, call, file, line);
                device_copy = copy_in_progress{call, file, line, kind_name, to, from, width};
                device_copy_running = true;
                std::atomic_signal_fence(std::memory_order_seq_cst);  // as in queue_copy
                std::memmove(to, from, width);
                std::atomic_signal_fence(std::memory_order_seq_cst);
                device_copy_running = false;
                mark_written(to, width);
            }
            return cudaSuccess;
        },
        copy_label(call, kind, dst, src, width * height));
    if (copy_waits_for_host(kind, dst, src, kind == cudaMemcpyDeviceToHost ? dst_span : src_span))
        return wait_for(seq, call);
    return cudaSuccess;
}

// cudaMemset2D and cudaMemset2DAsync (host_memory.cpp, which checked the
// rectangle): height rows of width bytes, pitch apart, one queued fill.
cudaError_t cuemu::detail::fill_rows(void* dev_ptr, size_t pitch, int value, size_t width, size_t height,
                                     cudaStream_t stream, const char* call, const char* file, int line) {
    if (inside_kernel()) return refuse_in_kernel(call);
    if (cudaError_t e = context_status()) return e;
    if (width == 0 || height == 0) return cudaSuccess;
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = capture_check_stream_work(stream)) return record(e);  // graph_capture.cpp
    work_label label;
    label.category = "memset";
    if (trace_enabled()) {
        label.name = call;
        label.args = "\"bytes\":" + std::to_string(width * height);
    }
    const int device = device_of_pointer(dev_ptr);
    enqueue(
        stream,
        [=](std::uint64_t) {
            devices_opened open(device, -1);
            for (size_t row = 0; row < height; ++row) {
                char* start = static_cast<char*>(dev_ptr) + row * pitch;
                std::memset(start, value, width);
                mark_written(start, width);
            }
            return cudaSuccess;
        },
        std::move(label));
    return cudaSuccess;
}

bool cuemu::detail::current_device_copy(copy_in_progress* out) {
    if (!device_copy_running) return false;
    *out = device_copy;
    return true;
}

// Waits for the work before it and for the copy itself, so a fault in an
// earlier kernel is returned here (a GPU returns it from cudaMemcpy too). A
// refused copy is explained and refused here, before anything is queued.
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                       const char* file, int line) {
    if (cudaError_t e = context_status()) return e;
    if (cudaError_t e = check_copy(dst, src, count, kind, "cudaMemcpy", file, line)) return e;
    if (cudaError_t e = capture_check_synchronous_call()) return record(e);  // graph_capture.cpp
    if (count == 0) return cudaSuccess;
    // Between devices it is serialized with the other devices' work too, as
    // cudaMemcpyPeer is (peer_access.cpp).
    for (int d : {device_of_pointer(dst), device_of_pointer(src)})
        if (d >= 0 && d != current_device()) drain_device(d, "cudaMemcpy");
    return wait_for(queue_copy(dst, src, count, kind, 0, "cudaMemcpy", file, line), "cudaMemcpy");
}

// Returns at once when the host side is pinned (the host memory must then stay
// valid until the copy has run); with pageable host memory it returns when the
// copy is done (copy_engines.cpp).
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream, const char* file, int line) {
    if (inside_kernel()) return refuse_in_kernel("cudaMemcpyAsync");  // dynamic_parallelism.cpp
    if (cudaError_t e = context_status()) return e;
    if (cudaError_t e = check_copy(dst, src, count, kind, "cudaMemcpyAsync", file, line))
        return e;
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = capture_check_stream_work(stream)) return record(e);  // graph_capture.cpp
    if (count == 0) return cudaSuccess;
    std::uint64_t seq = queue_copy(dst, src, count, kind, stream, "cudaMemcpyAsync", file, line);
    if (copy_waits_for_host(kind, dst, src, count))
        return wait_for(seq, "cudaMemcpyAsync (pageable host memory)");
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* dev_ptr, int value, size_t count, cudaStream_t stream,
                            const char* file, int line) {
    if (inside_kernel()) return refuse_in_kernel("cudaMemsetAsync");
    return queue_fill(dev_ptr, value, count, stream, "cudaMemsetAsync", file, line);
}

cudaError_t cudaMemset(void* dev_ptr, int value, size_t count, const char* file, int line) {
    return queue_fill(dev_ptr, value, count, 0, "cudaMemset", file, line);
}
