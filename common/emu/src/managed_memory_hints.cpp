// managed_memory_hints.cpp - what a program tells the runtime about managed
// memory and asks back: cudaMemPrefetchAsync, cudaMemAdvise,
// cudaStreamAttachMemAsync, cudaMemRangeGetAttribute(s).
//
// Host and "device" share one memory here, so no hint moves data or changes
// what an access costs. The hints are still checked as the real runtime
// checks them, queued where they take a place in a stream, and remembered
// page by page (memory_registry.h: managed_page_hints, pages counted from the
// allocation's start, as a GPU's allocation starts on a page), so that a
// range query answers what the program asked for, as the CUDA documentation
// describes: a value when every page of the range agrees, "none" otherwise.
#include <cstring>
#include <mutex>

#include "cuemu/runtime.h"
#include "internal.h"
#include "memory_registry.h"

using namespace cuemu::detail;

namespace {
// Host and device locations for prefetch and advice: devices are numbered
// from 0 (CUEMU_DEVICES).
cudaError_t check_location(cudaMemLocation location) {
    switch (location.type) {
        case cudaMemLocationTypeDevice:
            return is_valid_device(location.id) ? cudaSuccess : record(cudaErrorInvalidDevice);
        case cudaMemLocationTypeHost:
        case cudaMemLocationTypeHostNuma:
        case cudaMemLocationTypeHostNumaCurrent:
            return cudaSuccess;
        default:
            return record(cudaErrorInvalidValue);
    }
}

constexpr std::uint32_t host_bit = 1u << 31;

// The first and last page of the allocation that [dev_ptr, dev_ptr + count)
// touches, counted from its start; the range is checked.
struct page_span {
    std::size_t first, last;
};
page_span pages_of(const mapping& m, const void* dev_ptr, std::size_t count) {
    const std::size_t page = page_size();
    const std::size_t start = static_cast<std::size_t>(static_cast<const char*>(dev_ptr) - m.info.begin);
    return {start / page, (start + count - 1) / page};
}

// The hint records of the pages [dev_ptr, dev_ptr + count) touches, made on
// first use; the caller holds registry_mutex and has checked the range.
template <class Change>
void change_pages(const void* dev_ptr, std::size_t count, Change change) {
    mapping* m = live_mapping_at(dev_ptr);
    if (m->hints.empty()) m->hints.resize((m->info.size + page_size() - 1) / page_size());
    const page_span span = pages_of(*m, dev_ptr, count);
    for (std::size_t p = span.first; p <= span.last; ++p) change(m->hints[p]);
}

// The pages of a checked range, the defaults where no hint was given.
template <class Visit>
void visit_pages(const void* dev_ptr, std::size_t count, Visit visit) {
    const mapping* m = live_mapping_at(dev_ptr);
    const page_span span = pages_of(*m, dev_ptr, count);
    const managed_page_hints none;
    for (std::size_t p = span.first; p <= span.last; ++p) visit(m->hints.empty() ? none : m->hints[p]);
}

bool same_location(cudaMemLocation a, cudaMemLocation b) {
    if (a.type != b.type) return false;
    return a.type == cudaMemLocationTypeDevice || a.type == cudaMemLocationTypeHostNuma ? a.id == b.id : true;
}

// One location for the whole range (the pages all agree), or Invalid.
template <class Field>
cudaMemLocation common_location(const void* dev_ptr, std::size_t count, Field field) {
    bool first = true;
    cudaMemLocation common{cudaMemLocationTypeInvalid, 0};
    visit_pages(dev_ptr, count, [&](const managed_page_hints& h) {
        const cudaMemLocation here = field(h);
        if (first) common = here;
        else if (!same_location(common, here)) common = {cudaMemLocationTypeInvalid, 0};
        first = false;
    });
    return common;
}

// The older int form of a location: a device number, cudaCpuDeviceId for the
// host (any NUMA node of it), cudaInvalidDeviceId for none.
int device_number(cudaMemLocation location) {
    switch (location.type) {
        case cudaMemLocationTypeDevice: return location.id;
        case cudaMemLocationTypeInvalid: return cudaInvalidDeviceId;
        default: return cudaCpuDeviceId;
    }
}

// One attribute of a range already checked to be managed memory; the caller
// holds registry_mutex.
cudaError_t range_attribute_locked(void* data, std::size_t data_size, cudaMemRangeAttribute attribute,
                                   const void* dev_ptr, std::size_t count) {
    if (!data) return cudaErrorInvalidValue;
    auto preferred = [](const managed_page_hints& h) { return h.preferred; };
    auto prefetched = [](const managed_page_hints& h) { return h.last_prefetch; };
    int value = 0;
    switch (attribute) {
        case cudaMemRangeAttributeReadMostly: {
            bool all = true;
            visit_pages(dev_ptr, count, [&](const managed_page_hints& h) { all = all && h.read_mostly; });
            value = all ? 1 : 0;
            break;
        }
        case cudaMemRangeAttributePreferredLocation:
            value = device_number(common_location(dev_ptr, count, preferred));
            break;
        case cudaMemRangeAttributeLastPrefetchLocation:
            value = device_number(common_location(dev_ptr, count, prefetched));
            break;
        case cudaMemRangeAttributePreferredLocationType:
            value = common_location(dev_ptr, count, preferred).type;
            break;
        case cudaMemRangeAttributeLastPrefetchLocationType:
            value = common_location(dev_ptr, count, prefetched).type;
            break;
        case cudaMemRangeAttributePreferredLocationId:
        case cudaMemRangeAttributeLastPrefetchLocationId: {
            // Meaningful for a device or a NUMA node only; the documentation
            // says to ignore it otherwise.
            const cudaMemLocation where = attribute == cudaMemRangeAttributePreferredLocationId
                                              ? common_location(dev_ptr, count, preferred)
                                              : common_location(dev_ptr, count, prefetched);
            value = where.type == cudaMemLocationTypeInvalid ? cudaInvalidDeviceId : where.id;
            break;
        }
        case cudaMemRangeAttributeAccessedBy: {
            if (data_size == 0 || data_size % 4 != 0) return cudaErrorInvalidValue;
            std::uint32_t all = ~0u;
            visit_pages(dev_ptr, count, [&](const managed_page_hints& h) { all &= h.accessed_by; });
            // The devices first, in order, then the host; cudaInvalidDeviceId
            // in the slots left over, as documented.
            int* out = static_cast<int*>(data);
            const std::size_t slots = data_size / 4;
            std::size_t used = 0;
            for (int d = 0; d < max_devices && used < slots; ++d)
                if (all & (1u << d)) out[used++] = d;
            if ((all & host_bit) && used < slots) out[used++] = cudaCpuDeviceId;
            while (used < slots) out[used++] = cudaInvalidDeviceId;
            return cudaSuccess;
        }
        default:
            return cudaErrorInvalidValue;
    }
    if (data_size != 4) return cudaErrorInvalidValue;  // an int or a cudaMemLocationType
    std::memcpy(data, &value, 4);
    return cudaSuccess;
}

// The checks both query calls make of the range.
cudaError_t check_range(const void* dev_ptr, std::size_t count) {
    if (cudaError_t e = context_status()) return e;
    if (!dev_ptr || count == 0 || !is_managed_range(dev_ptr, count)) return record(cudaErrorInvalidValue);
    return cudaSuccess;
}
}  // namespace

// Host and device share one memory, so there is nothing to move; the prefetch
// is still checked and queued, so it keeps its place in the stream. As on a
// GPU without pageable memory access, the range must be managed memory. The
// location is remembered at once: the documentation says a query answers the
// last location asked for, whether or not the prefetch has happened.
cudaError_t cudaMemPrefetchAsync(const void* dev_ptr, size_t count, cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream) {
    if (cudaError_t e = context_status()) return e;
    if (!dev_ptr || count == 0 || flags != 0) return record(cudaErrorInvalidValue);
    if (!is_managed_range(dev_ptr, count)) return record(cudaErrorInvalidValue);
    if (cudaError_t e = check_location(location)) return e;
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    {
        std::lock_guard<std::mutex> lock(registry_mutex);
        if (live_mapping_at(dev_ptr))  // not freed by another thread meanwhile
            change_pages(dev_ptr, count, [&](managed_page_hints& h) { h.last_prefetch = location; });
    }
    enqueue(stream, [](std::uint64_t) { return cudaSuccess; });
    return cudaSuccess;
}

// Checked as the runtime checks it (the whole of one managed allocation; not
// singly to the NULL stream, which is no one stream), then queued so that it
// keeps its place in the stream; nothing to do (one memory, every stream may
// touch it).
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* dev_ptr, size_t length,
                                     unsigned int flags) {
    if (cudaError_t e = context_status()) return e;
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle)
        return record(cudaErrorInvalidValue);
    if (!dev_ptr || !is_managed_range(dev_ptr, length ? length : 1)) return record(cudaErrorInvalidValue);
    if (length != 0 && length != live_allocation_size(dev_ptr)) return record(cudaErrorInvalidValue);
    const bool null_stream = stream == nullptr || stream == cudaStreamLegacy;
    if (flags == cudaMemAttachSingle && null_stream) return record(cudaErrorInvalidValue);
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    enqueue(stream, [](std::uint64_t) { return cudaSuccess; });
    return cudaSuccess;
}

// Checked, then remembered for the range queries (one memory: nothing moves).
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
    const std::uint32_t who = location.type == cudaMemLocationTypeDevice ? 1u << location.id : host_bit;
    std::lock_guard<std::mutex> lock(registry_mutex);
    if (!live_mapping_at(dev_ptr)) return cudaSuccess;  // freed by another thread meanwhile
    change_pages(dev_ptr, count, [&](managed_page_hints& h) {
        switch (advice) {
            case cudaMemAdviseSetReadMostly: h.read_mostly = true; break;
            case cudaMemAdviseUnsetReadMostly: h.read_mostly = false; break;
            case cudaMemAdviseSetPreferredLocation: h.preferred = location; break;
            case cudaMemAdviseUnsetPreferredLocation: h.preferred = {cudaMemLocationTypeInvalid, 0}; break;
            case cudaMemAdviseSetAccessedBy: h.accessed_by |= who; break;
            case cudaMemAdviseUnsetAccessedBy: h.accessed_by &= ~who; break;
        }
    });
    return cudaSuccess;
}

cudaError_t cudaMemRangeGetAttribute(void* data, size_t data_size, cudaMemRangeAttribute attribute,
                                     const void* dev_ptr, size_t count) {
    if (cudaError_t e = check_range(dev_ptr, count)) return e;
    std::lock_guard<std::mutex> lock(registry_mutex);
    if (!live_mapping_at(dev_ptr)) return record(cudaErrorInvalidValue);
    if (cudaError_t e = range_attribute_locked(data, data_size, attribute, dev_ptr, count)) return record(e);
    return cudaSuccess;
}

cudaError_t cudaMemRangeGetAttributes(void** data, size_t* data_sizes, cudaMemRangeAttribute* attributes,
                                      size_t num_attributes, const void* dev_ptr, size_t count) {
    if (cudaError_t e = check_range(dev_ptr, count)) return e;
    if (!data || !data_sizes || !attributes || num_attributes == 0) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(registry_mutex);
    if (!live_mapping_at(dev_ptr)) return record(cudaErrorInvalidValue);
    for (size_t i = 0; i < num_attributes; ++i)
        if (cudaError_t e = range_attribute_locked(data[i], data_sizes[i], attributes[i], dev_ptr, count))
            return record(e);
    return cudaSuccess;
}
