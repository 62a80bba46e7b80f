// memory_pools.cpp - the stream-ordered allocator: cudaMallocAsync,
// cudaMallocFromPoolAsync, cudaFreeAsync, and the memory pools they draw from
// (each device's default pool, pools of the program's own, their attributes
// and access settings).
//
// An allocation is made at the call, as cudaMalloc makes one (memory.cpp,
// with all its checks; reports name cudaMallocAsync): work queued after it on
// the stream may use it, as CUDA promises, and so may anything else, which
// CUDA does not promise. A free is queued on the stream and done when the
// stream reaches it; work after it that touches the buffer is reported as a
// use after free. A pool counts the bytes allocated from it (used) and, as
// an H200 does (CUDA 13.0), reserves memory for them in 32 MiB steps: one
// allocation of 4000 bytes reserves 32 MiB. Freed memory stays reserved until
// a synchronization (cudaStreamSynchronize, cudaEventSynchronize,
// cudaDeviceSynchronize) gives back what is above the release threshold, or
// cudaMemPoolTrimTo does; the counts are all that is kept: the memory itself
// goes back at each free (nothing is reused), and the reuse settings are kept
// and given back without effect. cudaFree of stream-ordered memory frees it
// but leaves the pool's used count as it was, as on an H200 (CUDA 13.0).
//
// In a stream capture both become graph memory nodes (graph_memory.cpp),
// as does cudaFreeAsync of graph memory anywhere. Not here: pools of host or
// managed memory, and sharing a pool between processes (cudaMemHandleType* other
// than none).
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>

#include "cuemu/runtime.h"
#include "cuemu/runtime_extra.h"
#include "cuemu/graphs.h"
#include "diagnostics.h"
#include "internal.h"

struct CUmemPoolHandle_st {
    int device = 0;
    bool is_default = false;
    bool destroyed = false;  // by cudaMemPoolDestroy: gone once nothing is allocated from it
    cudaMemPoolProps props{};
    std::uint64_t release_threshold = 0;
    int reuse[3] = {1, 1, 1};  // FollowEventDependencies, AllowOpportunistic, AllowInternalDependencies
    std::uint64_t used = 0, used_high = 0, reserved = 0, reserved_high = 0;
    std::map<const void*, std::size_t> live;     // allocations made from the pool
    cudaMemAccessFlags access[cuemu::detail::max_devices] = {};  // by other devices
};

using namespace cuemu::detail;

namespace {

constexpr std::uint64_t pool_step = std::uint64_t(32) << 20;  // what a pool reserves at a time

// Bytes rounded up to whole steps (the last whole step for a count that large).
std::uint64_t whole_steps(std::uint64_t bytes) {
    if (bytes > UINT64_MAX - pool_step) return UINT64_MAX / pool_step * pool_step;
    return (bytes + pool_step - 1) / pool_step * pool_step;
}

// After an allocation: enough reserved for what is used.
void reserve_for_use(cudaMemPool_t pool) {
    pool->used_high = std::max(pool->used_high, pool->used);
    pool->reserved = std::max(pool->reserved, whole_steps(pool->used));
    pool->reserved_high = std::max(pool->reserved_high, pool->reserved);
}

// Gives back reserved memory no allocation uses, keeping at most `keep` bytes of it.
void release_reserved(cudaMemPool_t pool, std::uint64_t keep) {
    pool->reserved = std::max(whole_steps(pool->used), std::min(pool->reserved, keep));
}

std::mutex pools_mutex;
// Never destroyed: a static object's destructor may still free memory.
auto& default_pools = *new std::map<int, cudaMemPool_t>;
auto& current_pools = *new std::map<int, cudaMemPool_t>;
auto& created_pools = *new std::set<cudaMemPool_t>;           // live or awaiting their last free
auto& pool_of = *new std::map<const void*, cudaMemPool_t>;     // an allocation's pool
auto& free_pending = *new std::set<const void*>;               // cudaFreeAsync queued, not yet run

cudaMemPool_t default_pool_locked(int device) {
    cudaMemPool_t& pool = default_pools[device];
    if (!pool) {
        pool = new CUmemPoolHandle_st;
        pool->device = device;
        pool->is_default = true;
        pool->props.allocType = cudaMemAllocationTypePinned;
        pool->props.location = {cudaMemLocationTypeDevice, device};
        created_pools.insert(pool);
    }
    return pool;
}

cudaMemPool_t current_pool_locked(int device) {
    auto it = current_pools.find(device);
    return it != current_pools.end() ? it->second : default_pool_locked(device);
}

bool is_live_pool_locked(cudaMemPool_t pool) { return pool && created_pools.count(pool) && !pool->destroyed; }

// A destroyed pool's resources go once its last allocation is freed.
void drop_if_finished_locked(cudaMemPool_t pool) {
    if (pool->destroyed && pool->live.empty()) {
        created_pools.erase(pool);
        delete pool;
    }
}

void forget_allocation_locked(const void* p) {
    auto it = pool_of.find(p);
    if (it == pool_of.end()) return;
    cudaMemPool_t pool = it->second;
    pool_of.erase(it);
    auto entry = pool->live.find(p);
    if (entry != pool->live.end()) {
        pool->used -= entry->second;
        pool->live.erase(entry);
    }
    drop_if_finished_locked(pool);
}

bool is_capturing(cudaStream_t stream) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    return cudaStreamIsCapturing(stream, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone;
}

cudaError_t allocate_from(cudaMemPool_t pool, void** dev_ptr, size_t size, cudaStream_t stream,
                          const char* call, const char* file, int line) {
    if (!dev_ptr) return record(cudaErrorInvalidValue);
    if (cudaError_t e = context_status()) return e;
    if (stream_device(stream) < 0) return record(cudaErrorInvalidResourceHandle);
    cudaMemPoolProps props;
    {
        std::lock_guard<std::mutex> lock(pools_mutex);
        if (!pool) pool = current_pool_locked(stream_device(stream));
        if (!is_live_pool_locked(pool)) return record(cudaErrorInvalidValue);
        props = pool->props;
    }
    // In a stream capture: an allocation node, its memory the graph's (graph_memory.cpp).
    if (is_capturing(stream)) return capture_graph_malloc(stream, props, size, dev_ptr, file, line);
    // The pool's device holds the memory, whichever device is current.
    const int saved = current_device();
    set_current_device(pool->device);
    const cudaError_t e = allocate_device_memory(dev_ptr, size, call, file, line);
    set_current_device(saved);
    if (e != cudaSuccess || !*dev_ptr) return e;
    std::lock_guard<std::mutex> lock(pools_mutex);
    pool->live[*dev_ptr] = size;
    pool->used += size;
    reserve_for_use(pool);
    pool_of[*dev_ptr] = pool;
    return cudaSuccess;
}

}  // namespace

namespace cuemu::detail {
// cudaFree of a stream-ordered allocation (memory.cpp): its pool forgets it,
// and its bytes stay in the pool's used count (measured on an H200, CUDA
// 13.0: 256 bytes freed so stayed counted to the end of the process).
void forget_stream_ordered_allocation(const void* p) {
    std::lock_guard<std::mutex> lock(pools_mutex);
    auto it = pool_of.find(p);
    if (it == pool_of.end()) return;
    cudaMemPool_t pool = it->second;
    pool_of.erase(it);
    pool->live.erase(p);
    drop_if_finished_locked(pool);
}

// At a synchronization each pool gives back the reserved memory above its
// release threshold that no allocation uses.
void release_pool_memory() {
    std::lock_guard<std::mutex> lock(pools_mutex);
    for (cudaMemPool_t pool : created_pools)
        if (pool->reserved > pool->release_threshold)
            release_reserved(pool, pool->release_threshold / pool_step * pool_step);
}
}  // namespace cuemu::detail

cudaError_t cudaMallocAsync(void** dev_ptr, size_t size, cudaStream_t stream, const char* file,
                            int line) {
    return allocate_from(nullptr, dev_ptr, size, stream, "cudaMallocAsync", file, line);
}

cudaError_t cudaMallocFromPoolAsync(void** dev_ptr, size_t size, cudaMemPool_t pool,
                                    cudaStream_t stream, const char* file, int line) {
    if (!pool) return record(cudaErrorInvalidValue);
    return allocate_from(pool, dev_ptr, size, stream, "cudaMallocFromPoolAsync", file, line);
}

cudaError_t cudaFreeAsync(void* dev_ptr, cudaStream_t stream, const char* file, int line) {
    if (cudaError_t e = context_status()) return e;
    if (!dev_ptr) return cudaSuccess;  // as cudaFree
    if (stream_device(stream) < 0) return record(cudaErrorInvalidResourceHandle);
    if (is_capturing(stream)) return capture_graph_free(stream, dev_ptr, file, line);  // a free node
    if (cudaError_t e; free_graph_allocation(dev_ptr, stream, true, "cudaFreeAsync", file, line, &e)) return e;
    {
        std::lock_guard<std::mutex> lock(pools_mutex);
        if (live_allocation_size(dev_ptr) == 0 || free_pending.count(dev_ptr)) {
            // Not the start of a live buffer, or its free is already queued.
            allocation_info info;
            const bool known = find_allocation(dev_ptr, &info);
            if (known && free_pending.count(dev_ptr)) {
                info.freed = true;
                info.freed_by = "cudaFreeAsync (queued, not yet reached by its stream)";
            }
            explain_bad_free(dev_ptr, known ? &info : nullptr, file, line, "cudaFreeAsync");
            return record(cudaErrorInvalidValue);
        }
        free_pending.insert(dev_ptr);
    }
    work_label label;
    label.category = "free";
    label.name = "cudaFreeAsync";
    enqueue(stream, [dev_ptr, file, line](std::uint64_t) {
        {
            std::lock_guard<std::mutex> lock(pools_mutex);
            free_pending.erase(dev_ptr);
            forget_allocation_locked(dev_ptr);
        }
        release_device_memory(dev_ptr, "cudaFreeAsync", file, line);
        return cudaSuccess;
    }, label);
    return cudaSuccess;
}

// ---- pools ---------------------------------------------------------------------------
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
    if (!pool) return record(cudaErrorInvalidValue);
    if (!is_valid_device(device)) return record(cudaErrorInvalidDevice);
    std::lock_guard<std::mutex> lock(pools_mutex);
    *pool = default_pool_locked(device);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
    if (!pool) return record(cudaErrorInvalidValue);
    if (!is_valid_device(device)) return record(cudaErrorInvalidDevice);
    std::lock_guard<std::mutex> lock(pools_mutex);
    *pool = current_pool_locked(device);
    return cudaSuccess;
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
    if (!is_valid_device(device)) return record(cudaErrorInvalidDevice);
    std::lock_guard<std::mutex> lock(pools_mutex);
    if (!is_live_pool_locked(pool) || pool->device != device) return record(cudaErrorInvalidValue);
    current_pools[device] = pool;
    return cudaSuccess;
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props) {
    if (!pool || !props) return record(cudaErrorInvalidValue);
    if (props->allocType == cudaMemAllocationTypePinned &&
        (props->location.type == cudaMemLocationTypeHost || props->location.type == cudaMemLocationTypeHostNuma ||
         props->location.type == cudaMemLocationTypeHostNumaCurrent)) {
        // CUDA 13 makes them (an H200 did); the emulator's pools are of device memory.
        std::fprintf(stderr, "cuemu: cudaMemPoolCreate: pools of host memory (location type %d) are not "
                             "emulated; use cudaMallocHost, or a pool of device memory\n",
                     static_cast<int>(props->location.type));
        return record(cudaErrorNotSupported);
    }
    if (props->allocType != cudaMemAllocationTypePinned ||
        props->location.type != cudaMemLocationTypeDevice || !is_valid_device(props->location.id))
        return record(cudaErrorInvalidValue);
    if (props->handleTypes != cudaMemHandleTypeNone) {
        std::fprintf(stderr,
                     "cuemu: cudaMemPoolCreate: pools shared between processes (handleTypes %d) "
                     "are not emulated; use cudaMemHandleTypeNone\n",
                     static_cast<int>(props->handleTypes));
        return record(cudaErrorNotSupported);
    }
    auto* made = new CUmemPoolHandle_st;
    made->device = props->location.id;
    made->props = *props;
    std::lock_guard<std::mutex> lock(pools_mutex);
    created_pools.insert(made);
    *pool = made;
    return cudaSuccess;
}

// A device's current pool, destroyed, gives way to its default pool. Memory
// still allocated from the pool stays valid until it is freed.
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
    std::lock_guard<std::mutex> lock(pools_mutex);
    if (!is_live_pool_locked(pool) || pool->is_default) return record(cudaErrorInvalidValue);
    for (auto it = current_pools.begin(); it != current_pools.end();)
        it = it->second == pool ? current_pools.erase(it) : std::next(it);
    pool->destroyed = true;
    drop_if_finished_locked(pool);
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
    if (!value) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(pools_mutex);
    if (!is_live_pool_locked(pool)) return record(cudaErrorInvalidValue);
    switch (attr) {
        case cudaMemPoolReuseFollowEventDependencies:
        case cudaMemPoolReuseAllowOpportunistic:
        case cudaMemPoolReuseAllowInternalDependencies:
            pool->reuse[attr - cudaMemPoolReuseFollowEventDependencies] = *static_cast<int*>(value) != 0;
            return cudaSuccess;
        case cudaMemPoolAttrReleaseThreshold:
            pool->release_threshold = *static_cast<std::uint64_t*>(value);
            return cudaSuccess;
        case cudaMemPoolAttrReservedMemHigh:
        case cudaMemPoolAttrUsedMemHigh:  // may only be reset, to 0: the high mark becomes the current amount
            if (*static_cast<std::uint64_t*>(value) != 0) return record(cudaErrorInvalidValue);
            if (attr == cudaMemPoolAttrUsedMemHigh)
                pool->used_high = pool->used;
            else
                pool->reserved_high = pool->reserved;
            return cudaSuccess;
        default:
            return record(cudaErrorInvalidValue);  // the current amounts are read-only
    }
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
    if (!value) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(pools_mutex);
    if (!is_live_pool_locked(pool)) return record(cudaErrorInvalidValue);
    switch (attr) {
        case cudaMemPoolReuseFollowEventDependencies:
        case cudaMemPoolReuseAllowOpportunistic:
        case cudaMemPoolReuseAllowInternalDependencies:
            *static_cast<int*>(value) = pool->reuse[attr - cudaMemPoolReuseFollowEventDependencies];
            return cudaSuccess;
        case cudaMemPoolAttrReleaseThreshold:
            *static_cast<std::uint64_t*>(value) = pool->release_threshold;
            return cudaSuccess;
        case cudaMemPoolAttrReservedMemCurrent:
            *static_cast<std::uint64_t*>(value) = pool->reserved;
            return cudaSuccess;
        case cudaMemPoolAttrUsedMemCurrent:
            *static_cast<std::uint64_t*>(value) = pool->used;
            return cudaSuccess;
        case cudaMemPoolAttrReservedMemHigh:
            *static_cast<std::uint64_t*>(value) = pool->reserved_high;
            return cudaSuccess;
        case cudaMemPoolAttrUsedMemHigh:
            *static_cast<std::uint64_t*>(value) = pool->used_high;
            return cudaSuccess;
    }
    return record(cudaErrorInvalidValue);
}

// Keeps at least minBytesToKeep reserved (in whole steps), and what is used.
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t minBytesToKeep) {
    std::lock_guard<std::mutex> lock(pools_mutex);
    if (!is_live_pool_locked(pool)) return record(cudaErrorInvalidValue);
    release_reserved(pool, whole_steps(minBytesToKeep));
    return cudaSuccess;
}

// The pool's own device always reads and writes its memory; other devices as set.
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc* desc_list, size_t count) {
    if (count && !desc_list) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(pools_mutex);
    if (!is_live_pool_locked(pool)) return record(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; ++i) {
        const cudaMemAccessDesc& d = desc_list[i];
        if (d.location.type != cudaMemLocationTypeDevice || !is_valid_device(d.location.id))
            return record(cudaErrorInvalidValue);
        if (d.location.id == pool->device && d.flags != cudaMemAccessFlagsProtReadWrite)
            return record(cudaErrorInvalidValue);
        if (d.flags != cudaMemAccessFlagsProtNone && d.flags != cudaMemAccessFlagsProtRead &&
            d.flags != cudaMemAccessFlagsProtReadWrite)
            return record(cudaErrorInvalidValue);
    }
    for (size_t i = 0; i < count; ++i) pool->access[desc_list[i].location.id] = desc_list[i].flags;
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags* flags, cudaMemPool_t pool, cudaMemLocation* location) {
    if (!flags || !location || location->type != cudaMemLocationTypeDevice || !is_valid_device(location->id))
        return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(pools_mutex);
    if (!is_live_pool_locked(pool)) return record(cudaErrorInvalidValue);
    *flags = location->id == pool->device ? cudaMemAccessFlagsProtReadWrite : pool->access[location->id];
    return cudaSuccess;
}
