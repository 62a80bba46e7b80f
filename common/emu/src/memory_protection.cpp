// memory_protection.cpp - when device memory is open to the host, and
// CUEMU_CHECK=uninit: which bytes of each cudaMalloc buffer something wrote,
// which pages a kernel may touch without being watched, and the first read of
// memory nothing wrote, reported when the kernel ends. The buffers themselves
// are memory.cpp's (memory_registry.h).
//
// cudaMalloc buffers are PROT_NONE whenever their device is idle: the device
// queue opens them while it works (queue.cpp), so host code that dereferences
// a device pointer faults and is named. Managed memory is always open.
// Opening a device opens only the buffers its last busy period touched (but
// under CUEMU_CHECK=uninit, all of them): any other buffer is opened when
// something first touches it while its device is open (the fault handler
// calls open_device_memory_on_touch), and closing closes only those opened.
// So a busy period, such as one launch and its synchronize, costs nothing
// for the buffers its work does not use, however many are live; and a loop
// of launches that use the same buffers takes no fault to open them. A
// buffer opened in advance cannot tell whether the period used it, so it is
// carried to the next period at most `carried_periods` times after a touch
// that faulted: then it waits for a touch again (one fault in that many
// periods for a buffer every launch uses), and small launches that use other
// buffers stop paying to open and close it (an mprotect of every page, each
// way: 40 us a launch for three 16 MiB buffers, measured).
//
// Graph memory is closed to the device as well outside its lifetime in
// stream order, before its alloc node runs and after its free
// (set_graph_memory_mapped), so that an access there is reported as a use
// after free, while the host's checks still see a live buffer: its address
// is the graph's for good, and work queued for after the next launch's alloc
// node may name it already.
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <vector>

#include "diagnostics.h"
#include "internal.h"
#include "memory_registry.h"

namespace cuemu::detail {

// ---- CUEMU_CHECK -------------------------------------------------------------------
bool check_uninit() {
    static const bool on = check_requested("uninit");
    return on;
}

namespace {

// Device memory access (all guarded by registry_mutex). opened[d] > 0: device
// d's queue is working, or a copy of another device's reaches into d's
// memory (device_memory_open/close), and every cudaMalloc buffer of d is
// open. kernel_view: a kernel runs under CUEMU_CHECK=uninit
// (device_memory_kernel_begin/end), and only the pages something wrote are open.
int opened[max_devices] = {};
bool kernel_view = false;
// The buffers of each device open in its current open period (their
// mappings' bases), to be closed when it ends; and those of its last one,
// to be opened when the next begins.
struct touched_buffer {
    const char* base;   // the mapping's base
    int carried;        // periods it was opened in advance since its last faulting touch
};
constexpr int carried_periods = 8;
std::vector<touched_buffer> touched[max_devices];
std::vector<touched_buffer> touched_before[max_devices];

// Whether device's current open period opened every buffer at its start:
// under CUEMU_CHECK=uninit, which opens and closes them page by page around
// each kernel, and when the program has put a SIGSEGV handler of its own in
// place of the emulator's, which would never hear of a first touch.
bool opened_all[max_devices] = {};
bool opens_on_first_touch(int device) { return !check_uninit() && !opened_all[device]; }

// The live cudaMalloc buffer of `device` whose mapping starts at base, or nullptr.
mapping* live_buffer_of(int device, const char* base) {
    auto it = by_base.find(base);
    if (it == by_base.end()) return nullptr;  // freed, and out of quarantine
    mapping& m = it->second;
    return !m.info.freed && !m.info.graph_unmapped && m.info.device == device && is_device_only_kind(m.info.how)
               ? &m
               : nullptr;
}

void open_touched_before(int device) {
    for (const touched_buffer& t : touched_before[device]) {
        if (t.carried >= carried_periods) continue;
        if (mapping* m = live_buffer_of(device, t.base)) {
            mprotect(m->body, m->body_length, PROT_READ | PROT_WRITE);
            touched[device].push_back({t.base, t.carried + 1});
        }
    }
    touched_before[device].clear();
}

void close_touched(int device) {
    std::vector<touched_buffer>& list = touched[device];
    // Two threads may have opened one buffer: keep its freshest entry.
    std::sort(list.begin(), list.end(), [](const touched_buffer& a, const touched_buffer& b) {
        return a.base != b.base ? a.base < b.base : a.carried < b.carried;
    });
    list.erase(std::unique(list.begin(), list.end(),
                           [](const touched_buffer& a, const touched_buffer& b) { return a.base == b.base; }),
               list.end());
    for (const touched_buffer& t : list)
        if (mapping* m = live_buffer_of(device, t.base)) mprotect(m->body, m->body_length, PROT_NONE);
    touched_before[device].swap(list);
    list.clear();
}

}  // namespace

// ---- protection ----------------------------------------------------------------------
// Applies the access rule to one live cudaMalloc buffer. Managed memory is
// always open: the host may use it, as on a GPU system.
void protect(mapping& m) {
    if (m.info.freed || !is_device_only_kind(m.info.how)) return;
    if (m.info.graph_unmapped) {  // closed to the device too, until its alloc node runs
        mprotect(m.body, m.body_length, PROT_NONE);
        return;
    }
    const bool device_open = opened[m.info.device] > 0;
    if (opens_on_first_touch(m.info.device)) {
        // Called for a new buffer: one made while its device works is
        // open at once, like the buffers touched so far.
        mprotect(m.body, m.body_length, device_open ? PROT_READ | PROT_WRITE : PROT_NONE);
        if (device_open) touched[m.info.device].push_back({m.base, 0});
        return;
    }
    if (!device_open || !kernel_view || !tracks_writes(m)) {
        mprotect(m.body, m.body_length, device_open ? PROT_READ | PROT_WRITE : PROT_NONE);
        return;
    }
    // A kernel runs under CUEMU_CHECK=uninit: pages with any written byte are
    // open, the others stay closed so that the first access is seen.
    const std::size_t page = page_size();
    const char* begin = m.info.begin;
    for (std::size_t p = 0; p < m.page_open.size(); ++p) {
        char* page_start = m.body + p * page;
        const char* lo = std::max<const char*>(page_start, begin);
        const char* hi = std::min<const char*>(page_start + page, begin + m.info.size);
        // A page the running kernel already opened stays open, should the
        // protections be recomputed while it runs.
        bool open = m.page_open[p] != 0;
        for (const char* c = lo; c < hi && !open; ++c) open = m.written[c - begin];
        m.page_open[p] = open;
        mprotect(page_start, page, open ? PROT_READ | PROT_WRITE : PROT_NONE);
    }
}

namespace {

void protect_all() {
    for (auto& [begin, base] : live) protect(by_base[base]);
}

void protect_device(int device) {
    for (auto& [begin, base] : live) {
        mapping& m = by_base[base];
        if (m.info.device == device) protect(m);
    }
}

// After a kernel under CUEMU_CHECK=uninit: memory nothing had written holds
// 0xFF bytes; a 4-byte word of the buffer (counted from its start) that holds
// anything else now was written by the kernel, all four bytes of it. Words,
// not bytes: a float the kernel wrote has a 0xFF byte about once in 90 values,
// but is all 0xFF only as one particular NaN. What this misses: a kernel that
// writes the pattern itself (an int -1), and single bytes of char arrays
// (see README, "Reading memory nothing wrote").
void collect_kernel_writes() {
    const std::size_t page = page_size();
    for (auto& [begin_key, base] : live) {
        mapping& m = by_base[base];
        // A device whose memory closed while the kernel ran (its own work
        // ended; several devices) was not the kernel's to write.
        if (!tracks_writes(m) || m.info.graph_unmapped || opened[m.info.device] == 0) continue;
        const unsigned char* begin = reinterpret_cast<const unsigned char*>(m.info.begin);
        for (std::size_t word = 0; word < m.info.size; word += 4) {
            const std::size_t end = std::min(word + 4, m.info.size);
            std::size_t p = static_cast<std::size_t>(m.info.begin + word - m.body) / page;
            std::size_t p_last = static_cast<std::size_t>(m.info.begin + end - 1 - m.body) / page;
            if (!m.page_open[p] && !m.page_open[p_last]) continue;  // untouched by the kernel
            bool changed = false, all_written = true;
            for (std::size_t i = word; i < end; ++i) {
                changed |= begin[i] != 0xFF && !m.written[i];
                all_written &= m.written[i] != 0;
            }
            if (changed && !all_written) std::memset(m.written.data() + word, 1, end - word);
        }
    }
}

// ---- the uninitialized read a kernel made, reported when the kernel ends ------------------
struct uninit_read {
    bool seen = false;
    kernel_position where;
    const void* address = nullptr;
    allocation_info alloc;
};
uninit_read pending_uninit;  // guarded by registry_mutex

}  // namespace

void set_graph_memory_mapped(const void* p, bool mapped, const char* freed_by, const char* file, int line) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    mapping* m = live_mapping_at(p);
    if (!m) return;
    m->info.graph_unmapped = !mapped;
    if (!mapped) {
        m->info.freed_by = freed_by;
        m->info.free_file = file ? file : "";
        m->info.free_line = line;
    }
    protect(*m);
}

// A queued copy or fill wrote [p, p + n) (CUEMU_CHECK=uninit bookkeeping).
void mark_written(const void* p, std::size_t n) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    mapping* m = live_mapping_at(p);
    if (!m || !tracks_writes(*m)) return;
    std::size_t offset = static_cast<std::size_t>(static_cast<const char*>(p) - m->info.begin);
    std::memset(m->written.data() + offset, 1, n);
}

void device_memory_open(int device) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    if (opened[device]++ != 0) return;
    if (check_uninit()) put_fault_handler_back();
    opened_all[device] = check_uninit() || !fault_handler_in_place();
    if (opened_all[device]) {
        touched_before[device].clear();
        protect_device(device);
    } else {
        open_touched_before(device);
    }
}

void device_memory_close(int device) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    if (opened[device] == 0 || --opened[device] != 0) return;
    bool all_closed = true;
    for (int d = 0; d < max_devices; ++d) all_closed &= opened[d] == 0;
    if (all_closed) kernel_view = false;
    if (opens_on_first_touch(device))
        close_touched(device);
    else
        protect_device(device);
}

bool open_device_memory_on_touch(const void* addr) {
    if (check_uninit() || !in_device_address_range(addr)) return false;
    std::lock_guard<std::mutex> lock(registry_mutex);
    mapping* m = mapping_at(addr);
    if (!m || m->info.freed || m->info.graph_unmapped || !is_device_only_kind(m->info.how)) return false;
    const char* a = static_cast<const char*>(addr);
    if (a < m->body || a >= m->body + m->body_length) return false;  // its guard page
    const int device = m->info.device;
    // Idle: a host mistake, reported as such.
    if (opened[device] == 0 || !opens_on_first_touch(device)) return false;
    mprotect(m->body, m->body_length, PROT_READ | PROT_WRITE);
    touched[device].push_back({m->base, 0});
    return true;
}

void device_memory_kernel_begin() {
    if (!check_uninit()) return;
    std::lock_guard<std::mutex> lock(registry_mutex);
    kernel_view = true;
    pending_uninit.seen = false;
    for (auto& [begin, base] : live) {  // the kernel's view starts from what was written
        mapping& m = by_base[base];
        std::fill(m.page_open.begin(), m.page_open.end(), 0);
    }
    protect_all();
}

void device_memory_kernel_end() {
    if (!check_uninit()) return;
    uninit_read report;
    {
        std::lock_guard<std::mutex> lock(registry_mutex);
        if (!kernel_view) return;
        collect_kernel_writes();
        kernel_view = false;
        protect_all();
        report = pending_uninit;
        pending_uninit.seen = false;
    }
    if (report.seen) report_uninit_read(report.where, report.address, report.alloc);
}

bool handle_uninit_fault(const void* addr, int is_write) {
    if (!check_uninit() || is_write < 0) return false;
    std::lock_guard<std::mutex> lock(registry_mutex);
    if (!kernel_view) return false;
    mapping* m = live_mapping_at(addr);
    // A closed device's memory (another device's, without peer access) is
    // not the kernel's view: the fault is reported as an access to it.
    if (!m || m->info.graph_unmapped || !tracks_writes(*m) || opened[m->info.device] == 0) return false;
    const std::size_t page = page_size();
    const std::size_t p = static_cast<std::size_t>(static_cast<const char*>(addr) - m->body) / page;
    if (m->page_open[p]) return true;  // another worker opened it a moment ago
    // Nothing in this page was written before the kernel, and the kernel has
    // not touched it yet: a write is fine, a read reads the fill.
    m->page_open[p] = 1;
    mprotect(m->body + p * page, page, PROT_READ | PROT_WRITE);
    if (is_write == 0 && !pending_uninit.seen) {
        pending_uninit.seen = true;
        pending_uninit.address = addr;
        pending_uninit.alloc = m->info;
        current_kernel_position(&pending_uninit.where);
    }
    return true;
}

void note_device_write(const void* p, std::size_t n) { mark_written(p, n); }

void note_unlisted_device_writes() {
    if (!check_uninit()) return;
    std::lock_guard<std::mutex> lock(registry_mutex);
    for (auto& [begin, base] : live) {  // every page may have been written
        mapping& m = by_base[base];
        std::fill(m.page_open.begin(), m.page_open.end(), 1);
    }
    collect_kernel_writes();
}

}  // namespace cuemu::detail
