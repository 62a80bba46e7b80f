// kernel_pointers.cpp - screening the pointers a launch passes to a kernel
// (screen_pointer_argument, launch.h), and the addresses it passes for
// reference parameters (screen_reference_argument). Device and managed memory, pinned and
// registered host memory and the program's static data pass; any other host
// pointer, and a pointer into another device's memory without peer access,
// is swapped for an address in an inaccessible window, so that a kernel that
// dereferences it faults and the report (diagnostics.cpp, find_host_alias)
// can name the argument and the launch.
#include <link.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "dynamic_parallelism.h"
#include "internal.h"
#include "memory_registry.h"

namespace cuemu::detail {
namespace {

// ---- static data (for screening kernel arguments) -------------------------------------
// True when p lies in a loaded segment of the program or a library: a global,
// a __device__ or __constant__ variable (ordinary globals here), a string literal.
bool is_static_data(const void* p) {
    struct query {
        std::uintptr_t address;
        bool found;
    } q{reinterpret_cast<std::uintptr_t>(p), false};
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            auto* q = static_cast<query*>(data);
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const auto& ph = info->dlpi_phdr[i];
                if (ph.p_type != PT_LOAD) continue;
                std::uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
                if (q->address >= lo && q->address < lo + ph.p_memsz) {
                    q->found = true;
                    return 1;
                }
            }
            return 0;
        },
        &q);
    return q.found;
}

// ---- host pointers passed to kernels ---------------------------------------------------
// Each window is a reserved, inaccessible range; the pointer a kernel gets is
// its middle plus the host address's offset within a page (so alignment is
// kept), leaving 8 GiB either side for indexing. A window is reused only
// once no launch holds it: launches are queued, and one that faults later
// must find its own argument in its window, not that of a launch made while
// it waited (with several devices, many launches wait). So the windows grow
// with the launches in flight, up to alias_window_limit; past that the
// oldest is shared, and a report in it says it cannot tell which launch.
constexpr std::size_t alias_window_size = std::size_t(16) << 30;
constexpr std::size_t alias_window_limit = 256;  // 4 TiB of reserved addresses
struct alias_window {
    char* start = nullptr;
    host_alias_info info;
    const char* alias = nullptr;  // the pointer the kernel received
    int holders = 0;              // launches queued or running with this alias
};
// Never destroyed: a launch may end, and let go of its windows, during exit.
std::vector<alias_window>& alias_windows = *new std::vector<alias_window>;  // guarded by registry_mutex
std::size_t next_alias_window = 0;        // where the search for a free one starts
// Windows given out on this host thread since it last queued a launch: the
// next launch it queues holds them (hold_pointer_aliases, queue.cpp).
thread_local std::vector<std::size_t> unheld_alias_windows;

// A pointer the kernel must not use, swapped for the middle of a window no
// launch holds (caller holds registry_mutex). memory_device: the device whose
// memory p is (-1 for host memory), launch_device: the launch's device.
void* alias_locked(void* p, int argument, const launch_site& site, int memory_device,
                   int launch_device, bool reference, const char* parent_memory = nullptr) {
    std::size_t chosen = alias_windows.size();
    for (std::size_t k = 0; k < alias_windows.size(); ++k) {
        const std::size_t i = (next_alias_window + k) % alias_windows.size();
        if (alias_windows[i].holders == 0) {
            chosen = i;
            break;
        }
    }
    if (chosen == alias_windows.size()) {
        void* window = alias_windows.size() < alias_window_limit
                           ? mmap(nullptr, alias_window_size, PROT_NONE,
                                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                           : MAP_FAILED;
        if (window != MAP_FAILED) {
            alias_windows.emplace_back();
            alias_windows.back().start = static_cast<char*>(window);
        } else if (alias_windows.empty()) {
            return p;  // no address space: leave it unchecked
        } else {
            chosen = next_alias_window % alias_windows.size();  // shared: see the top
        }
    }
    next_alias_window = (chosen + 1) % alias_windows.size();
    alias_window& w = alias_windows[chosen];
    const std::uintptr_t within_page = reinterpret_cast<std::uintptr_t>(p) % page_size();
    w.alias = w.start + alias_window_size / 2 + within_page;
    w.info.host_pointer = p;
    w.info.argument = argument;
    w.info.reference = reference;
    w.info.site = site;
    w.info.memory_device = memory_device;
    w.info.launch_device = launch_device;
    w.info.parent_memory = parent_memory;
    w.info.shared = w.holders > 0;
    ++w.holders;
    unheld_alias_windows.push_back(chosen);
    return const_cast<char*>(w.alias);
}

}  // namespace

std::shared_ptr<void> hold_pointer_aliases() {
    if (unheld_alias_windows.empty()) return nullptr;
    auto* held = new std::vector<std::size_t>(std::move(unheld_alias_windows));
    unheld_alias_windows.clear();
    return std::shared_ptr<void>(held, [](void* p) {
        auto* windows = static_cast<std::vector<std::size_t>*>(p);
        {
            std::lock_guard<std::mutex> lock(registry_mutex);
            for (std::size_t i : *windows) --alias_windows[i].holders;
        }
        delete windows;
    });
}

bool find_host_alias(const void* addr, host_alias_info* out) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    const char* a = static_cast<const char*>(addr);
    for (const alias_window& w : alias_windows) {
        if (!w.start || a < w.start || a >= w.start + alias_window_size) continue;
        *out = w.info;
        out->offset = static_cast<long long>(a - w.alias);
        return true;
    }
    return false;
}

}  // namespace cuemu::detail

using namespace cuemu::detail;

namespace cuemu {

namespace {
void* screen_argument_address(void* p, int argument, const launch_site& site, bool reference) {
    if (!p) return p;  // a null pointer is reported as one if it is used
    if (inside_kernel()) {
        // A launch from a kernel: global memory of every kind is the child's
        // too (in-kernel malloc included); the launching thread's shared and
        // local memory are not.
        const char* kind = launching_thread_memory(p);
        if (!kind) return p;
        std::lock_guard<std::mutex> lock(registry_mutex);
        return alias_locked(p, argument, site, -1, -1, reference, kind);
    }
    {
        std::lock_guard<std::mutex> lock(registry_mutex);
        // Device or managed memory, live or freed: anything in the device
        // range, except another device's cudaMalloc buffer that the current
        // device has no peer access to (it is screened like a host pointer).
        if (in_device_address_range(p)) {
            const mapping* m = live_mapping_at(p);
            const int launch_device = current_device();
            if (!m || !is_device_only_kind(m->info.how) ||
                peer_access_enabled(launch_device, m->info.device))
                return p;
            return alias_locked(p, argument, site, m->info.device, launch_device, reference);
        }
        auto it = pinned.upper_bound(static_cast<const char*>(p));
        if (it != pinned.begin()) {
            --it;  // cudaMallocHost memory is mapped into the device, as on a GPU
            if (static_cast<const char*>(p) < it->first + it->second) return p;
        }
    }
    if (is_registered_host_memory(p)) return p;  // cudaHostRegister (host_memory.cpp)
    if (is_static_data(p)) return p;
    std::lock_guard<std::mutex> lock(registry_mutex);
    return alias_locked(p, argument, site, -1, -1, reference);
}
}  // namespace

void* screen_pointer_argument(void* p, int argument, const launch_site& site) {
    return screen_argument_address(p, argument, site, false);
}

// A reference parameter is passed as its object's address, so the object must
// be where the device reaches, as a pointer's target must.
void* screen_reference_argument(void* p, int argument, const launch_site& site) {
    return screen_argument_address(p, argument, site, true);
}

}  // namespace cuemu
