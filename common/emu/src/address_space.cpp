// address_space.cpp - the devices' own address range, and how much memory
// each emulated device has.
//
// Every cudaMalloc and cudaMallocManaged buffer is carved out of one range of
// addresses reserved at the first allocation (PROT_NONE, no memory behind it).
// Only the pages of live buffers are ever accessible, and the range is fenced
// on both sides by a wide band of addresses that are never handed out. So an
// access relative to a device pointer that misses every live buffer (an index
// far out of range, a freed buffer) lands in the device range, faults, and is
// reported; it can never reach host memory, whatever the index (the fences
// cover any 32-bit index of elements up to 8 bytes). And "is this a device
// pointer?" is a range test.
//
// Several devices (CUEMU_DEVICES): the range is cut into one slice per
// device, each device's buffers carved from its own slice, so the address
// tells the device (the owner of a pointer is a division away). Buffers are
// carved from the low end of a slice, so the next device's buffers lie at
// least a slice away (64 GiB or more with the full range).
//
// Memory: new buffers are filled with a pattern, so every page of a buffer is
// touched at once. An allocation the machine cannot back would get the
// process killed by the kernel's OOM killer, so the device's memory is a
// fixed share of the machine's (device_memory_capacity), and an allocation is
// also refused while the machine has too little memory available right now.
// Both refusals are cudaErrorMemoryAllocation, as a GPU that is out of memory.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "diagnostics.h"
#include "internal.h"

namespace cuemu::detail {
namespace {

// The fences: 2^31 elements of 8 bytes either side. Room for buffers: far
// more addresses than memory, so that freed buffers can stay reserved (and be
// reported as freed) for a while. Where the process may not have that much
// address space (ulimit -v), smaller fences and a smaller range are taken.
constexpr std::size_t widest_fence = std::size_t(16) << 30;
constexpr std::size_t largest_heap = std::size_t(1) << 40;  // 1 TiB of addresses
constexpr std::size_t smallest_size = std::size_t(256) << 20;
std::size_t fence_size = 0, heap_size = 0;  // set once, before heap_begin

constexpr std::size_t huge_page = std::size_t(2) << 20;  // x86-64 and AArch64 with 4 KiB pages

std::mutex range_mutex;
// Set once, under range_mutex; read without it (a fault handler asks).
std::atomic<char*> heap_begin{nullptr};
std::size_t slice_size = 0;  // each device's part of the heap; set before heap_begin
// Per device: begin -> length, guarded by range_mutex.
auto* const free_ranges_of = new std::map<char*, std::size_t>[max_devices];

bool reserve_once() {
    if (heap_begin.load()) return true;
    for (std::size_t fence = widest_fence; fence >= smallest_size; fence /= 16) {
        for (std::size_t size = largest_heap; size >= smallest_size; size /= 4) {
            void* base = mmap(nullptr, fence + size + fence, PROT_NONE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (base == MAP_FAILED) continue;
            char* begin = static_cast<char*>(base) + fence;
            fence_size = fence;
            heap_size = size;
            const std::size_t devices = static_cast<std::size_t>(device_count());
            slice_size = size / devices / huge_page * huge_page;
            for (std::size_t d = 0; d < devices; ++d)
                free_ranges_of[d][begin + d * slice_size] = slice_size;
            heap_begin.store(begin);
            return true;
        }
    }
    return false;
}

std::mutex memory_mutex;
std::size_t in_use[max_devices] = {};  // the sizes of the live buffers; guarded by memory_mutex

// A value from /proc/meminfo, in bytes (0 when unknown).
std::size_t meminfo_bytes(const char* key) {
    FILE* f = std::fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    std::size_t kib = 0;
    const std::size_t key_length = std::strlen(key);
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, key, key_length) == 0 && line[key_length] == ':') {
            kib = std::strtoull(line + key_length + 1, nullptr, 10);
            break;
        }
    }
    std::fclose(f);
    return kib * 1024;
}

std::size_t physical_memory() {
    return static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) *
           static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

char* carve_device_range(std::size_t length, int device) {
    std::lock_guard<std::mutex> lock(range_mutex);
    auto& free_ranges = free_ranges_of[device];
    if (!reserve_once()) return nullptr;
    // A buffer of a huge page or more starts on a huge-page boundary and asks
    // for transparent huge pages: the device's memory is opened and closed
    // (mprotect) around every busy period, which costs the kernel one entry
    // per 4 KiB page but one per 2 MiB huge page (about 500 times less for a
    // big buffer). Small buffers stay packed.
    const std::size_t align = length >= huge_page ? huge_page : 1;
    for (auto it = free_ranges.begin(); it != free_ranges.end(); ++it) {
        char* const range = it->first;
        const std::size_t range_length = it->second;
        const std::size_t skip =
            (align - reinterpret_cast<std::uintptr_t>(range) % align) % align;
        if (range_length < skip || range_length - skip < length) continue;
        char* begin = range + skip;
        const std::size_t rest = range_length - skip - length;
        free_ranges.erase(it);
        if (skip) free_ranges[range] = skip;
        if (rest) free_ranges[begin + length] = rest;
        void* mapped = mmap(begin, length, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
        if (mapped != MAP_FAILED && align > 1) madvise(begin, length, MADV_HUGEPAGE);
        if (mapped == MAP_FAILED) return nullptr;
        return begin;
    }
    return nullptr;
}

void release_device_range(char* begin, std::size_t length) {
    std::lock_guard<std::mutex> lock(range_mutex);
    const std::size_t slice = static_cast<std::size_t>(begin - heap_begin.load()) / slice_size;
    auto& free_ranges = free_ranges_of[slice];
    // A fresh PROT_NONE mapping in its place gives the memory back and keeps
    // the addresses reserved.
    mmap(begin, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    auto next = free_ranges.lower_bound(begin);
    if (next != free_ranges.end() && begin + length == next->first) {
        length += next->second;
        next = free_ranges.erase(next);
    }
    if (next != free_ranges.begin()) {
        auto previous = std::prev(next);
        if (previous->first + previous->second == begin) {
            previous->second += length;
            return;
        }
    }
    free_ranges[begin] = length;
}

std::uintptr_t device_heap_base() { return reinterpret_cast<std::uintptr_t>(heap_begin.load()); }

void device_address_bounds(std::uintptr_t* low, std::uintptr_t* high) {
    const char* begin = heap_begin.load();
    *low = begin ? reinterpret_cast<std::uintptr_t>(begin - fence_size) : 0;
    *high = begin ? reinterpret_cast<std::uintptr_t>(begin + heap_size + fence_size) : 0;
}

bool in_device_address_range(const void* p) {
    const char* c = static_cast<const char*>(p);
    const char* begin = heap_begin.load();  // the sizes are set before it
    return begin && c >= begin - fence_size && c < begin + heap_size + fence_size;
}

// Three quarters of the machine's memory, split evenly between the devices:
// what one emulated device may hold in all (cudaGetDeviceProperties'
// totalGlobalMem, cudaMemGetInfo's total).
std::size_t device_memory_capacity() {
    static const std::size_t capacity =
        physical_memory() / 4 * 3 / static_cast<std::size_t>(device_count());
    return capacity;
}

std::size_t machine_memory_available() {
    std::size_t available = meminfo_bytes("MemAvailable");
    return available ? available : physical_memory();
}

cudaError_t take_device_memory(std::size_t size, int device, const char* how, const char* file,
                               int line) {
    constexpr std::size_t checked_from = std::size_t(16) << 20;  // below it, no /proc read
    constexpr std::size_t headroom = std::size_t(256) << 20;     // left to the rest of the machine
    const std::size_t capacity = device_memory_capacity();
    {
        std::lock_guard<std::mutex> lock(memory_mutex);
        std::size_t& used = in_use[device];
        if (size > capacity - std::min(used, capacity)) {
            explain_allocation_refused(how, size, capacity, used, file, line);
            return record(cudaErrorMemoryAllocation);
        }
        used += size;
    }
    if (size >= checked_from) {
        const std::size_t available = machine_memory_available();
        if (size + headroom > available) {
            give_back_device_memory(size, device);
            explain_allocation_refused(how, size, 0, available, file, line);
            return record(cudaErrorMemoryAllocation);
        }
    }
    return cudaSuccess;
}

void give_back_device_memory(std::size_t size, int device) {
    std::lock_guard<std::mutex> lock(memory_mutex);
    in_use[device] -= size;
}

std::size_t device_memory_in_use(int device) {
    std::lock_guard<std::mutex> lock(memory_mutex);
    return in_use[device];
}

}  // namespace cuemu::detail
