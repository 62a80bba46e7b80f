// memory_registry.h - the registry of device allocations, which memory.cpp
// keeps and the files beside it read: memory_protection.cpp (device memory
// closed to the host, CUEMU_CHECK=uninit), kernel_pointers.cpp (pointers
// passed to kernels) and symbols.cpp (__device__ and __constant__ variables).
// Everything in it is guarded by registry_mutex.
#ifndef CUEMU_MEMORY_REGISTRY_H
#define CUEMU_MEMORY_REGISTRY_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "internal.h"

namespace cuemu::detail {

// What cudaMemAdvise and cudaMemPrefetchAsync said of one page of a managed
// allocation (managed_memory_hints.cpp); nothing said: the defaults.
struct managed_page_hints {
    bool read_mostly = false;
    cudaMemLocation preferred{cudaMemLocationTypeInvalid, 0};
    std::uint32_t accessed_by = 0;  // bit d: device d; bit 31: the host
    cudaMemLocation last_prefetch{cudaMemLocationTypeInvalid, 0};
};

struct mapping {
    char* base;            // the whole mapping: [base, base + length)
    std::size_t length;
    char* body;            // the pages that hold the buffer; the guard page follows
    std::size_t body_length;
    allocation_info info;
    // CUEMU_CHECK=uninit, cudaMalloc buffers only: one entry per byte, 1 once
    // a copy, a memset or a kernel wrote it; and which pages are open while a
    // kernel runs (pages no byte of which was written stay closed, to catch reads).
    std::vector<unsigned char> written;
    std::vector<unsigned char> page_open;
    // Managed memory: one entry per page counted from info.begin, once a hint
    // was given (empty until then).
    std::vector<managed_page_hints> hints;
};

// memory.cpp
extern std::mutex registry_mutex;
extern std::map<const char*, mapping>& by_base;    // every mapping, live or quarantined
extern std::map<const char*, const char*>& live;   // buffer begin -> mapping base
extern std::map<const char*, std::size_t>& pinned;  // cudaMallocHost buffers: begin -> size
std::size_t page_size();
// The mapping that contains addr (buffer or guard page), or nullptr.
mapping* mapping_at(const void* addr);
// The live buffer containing p.
mapping* live_mapping_at(const void* p);

// memory_protection.cpp
bool check_uninit();  // CUEMU_CHECK=uninit
inline bool tracks_writes(const mapping& m) { return !m.written.empty(); }
// Applies the access rule to one live cudaMalloc buffer.
void protect(mapping& m);
// A queued copy or fill wrote [p, p + n) (CUEMU_CHECK=uninit bookkeeping).
void mark_written(const void* p, std::size_t n);

// symbols.cpp: true when [p, p + n) lies inside one registered
// __device__/__constant__ variable.
bool in_symbol(const void* p, std::size_t n);

}  // namespace cuemu::detail

#endif
