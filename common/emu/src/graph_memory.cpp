// graph_memory.cpp - graph memory nodes: cudaGraphAddMemAllocNode,
// cudaGraphAddMemFreeNode and their GetParams calls, cudaMallocAsync and
// cudaFreeAsync captured as such nodes, frees of graph memory outside a
// graph (cudaFree, cudaFreeAsync, a free node of another graph,
// cudaGraphInstantiateFlagAutoFreeOnLaunch), and the device's graph memory
// counts (cudaDeviceGetGraphMemAttribute, cudaDeviceSetGraphMemAttribute,
// cudaDeviceGraphMemTrim).
//
// How it works: an allocation node gets its memory when it is made, from the
// emulator's own allocator (allocate_device_memory, as cudaMalloc: guard
// page, bounds and use-after-free checks), so its address is fixed for every
// launch, as CUDA promises. Its pages are open only between the alloc node
// and the free in stream order (set_graph_memory_mapped, as the device
// reaches each), so an access outside that is reported as a use after free. The memory belongs to a graph_allocation shared
// by the nodes that name it, the executable graphs made from them and, while
// a launch left it allocated, a table of unfreed allocations; it is given
// back when the last of these lets go (then a later access is reported as a
// use after free). Two views of each allocation are kept: the host's (has a
// launch allocated it, and has a free been asked for since: the checks
// cudaGraphLaunch and the frees make, in API order) and the device's (the
// alloc node ran, the free ran: the counts, in stream order).
//
// Not emulated: freed memory is not handed to another allocation (CUDA may
// give a later allocation node the same physical memory), so its contents
// survive until the next launch's alloc node (CUDA does not promise that).
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "cuemu/runtime.h"
#include "cuemu/runtime_extra.h"
#include "graph_internal.h"
#include "trace.h"

using namespace cuemu::detail;


namespace {

// The device's graph memory, as CUDA counts it (measured on an H200, CUDA
// 13.0): physical memory in 32 MiB steps, which an allocation keeps from
// the first time its alloc node runs (its free node does not give it back:
// the graph holds it for the next launch) until cudaDeviceGraphMemTrim finds
// it free; an allocation gone (graphs and executable graphs destroyed) still
// holds it until then. Used is what allocations hold, rounded up to the step;
// reserved is what the device keeps for graphs, used or not, until a trim.
constexpr std::uint64_t graph_memory_step = std::uint64_t(32) << 20;

struct graph_memory_counts {
    std::uint64_t held = 0;  // bytes of the allocations that hold memory (resident)
    std::uint64_t orphaned = 0;  // of those, allocations gone: the next trim frees them
    std::uint64_t used = 0, used_high = 0, reserved = 0, reserved_high = 0;
    // After `held` changed: used follows it; reserved grows with it, and
    // shrinks only at a trim.
    void update(bool trimmed) {
        used = (held + graph_memory_step - 1) / graph_memory_step * graph_memory_step;
        reserved = trimmed ? used : std::max(reserved, used);
        used_high = std::max(used_high, used);
        reserved_high = std::max(reserved_high, reserved);
    }
};

// Never destroyed: an allocation may outlive static destruction's order.
std::mutex& stats_mutex = *new std::mutex;
auto& counts = *new std::map<int, graph_memory_counts>;  // by device
std::mutex& registry_lock = *new std::mutex;
auto& allocations = *new std::map<const void*, std::weak_ptr<graph_allocation>>;
// Allocations a launch left allocated: kept until freed (graph_mutex).
auto& unfreed = *new std::map<const void*, std::shared_ptr<graph_allocation>>;

std::shared_ptr<graph_allocation> find_graph_allocation(const void* p) {
    std::lock_guard<std::mutex> lock(registry_lock);
    auto it = allocations.find(p);
    return it == allocations.end() ? nullptr : it->second.lock();
}

// What freed an allocation, for the report of a later access.
struct free_site {
    const char* by;
    const char* file;
    int line;
};
constexpr free_site free_node{"a graph's free node", nullptr, 0};

// The device's view changes as the stream reaches an alloc or a free: the
// counts, and whether the pages are open.
void set_mapped(graph_allocation& a, bool mapped, free_site site = {}) {
    {
        std::lock_guard<std::mutex> lock(stats_mutex);
        if (a.mapped == mapped) return;
        a.mapped = mapped;
        if (mapped && !a.resident) {
            a.resident = true;
            graph_memory_counts& c = counts[a.device];
            c.held += a.size;
            c.update(false);
        }
    }
    set_graph_memory_mapped(a.ptr, mapped, site.by, site.file, site.line);
}

device_work alloc_work(const std::shared_ptr<graph_allocation>& a) {
    return [a](std::uint64_t) {
        set_mapped(*a, true);
        return cudaSuccess;
    };
}

device_work free_work(const std::shared_ptr<graph_allocation>& a, free_site site) {
    return [a, site](std::uint64_t) {
        set_mapped(*a, false, site);
        return cudaSuccess;
    };
}

work_label memory_label(bool alloc) {
    work_label label;
    label.category = alloc ? "alloc" : "free";
    if (trace_enabled()) label.name = alloc ? "graph memory alloc node" : "graph memory free node";
    return label;
}

// Device memory for an allocation node, on the device the pool properties name.
cudaError_t make_allocation(const cudaMemPoolProps& props, size_t size, const char* how, const char* file,
                            int line, std::shared_ptr<graph_allocation>* out) {
    if (props.allocType != cudaMemAllocationTypePinned || props.location.type != cudaMemLocationTypeDevice)
        return cudaErrorInvalidValue;
    if (!is_valid_device(props.location.id)) return cudaErrorInvalidDevice;
    if (props.handleTypes != cudaMemHandleTypeNone) {
        std::fprintf(stderr, "cuemu: %s:%d: graph memory shared between processes (handleTypes %d) is "
                             "not emulated; use cudaMemHandleTypeNone\n",
                     file, line, static_cast<int>(props.handleTypes));
        return cudaErrorNotSupported;
    }
    if (size == 0) return cudaErrorInvalidValue;
    void* p = nullptr;
    const int saved = current_device();
    set_current_device(props.location.id);
    const cudaError_t e = allocate_device_memory(&p, size, how, file, line);
    set_current_device(saved);
    if (e != cudaSuccess) return e;
    // Not the program's until the stream reaches its alloc node.
    set_graph_memory_mapped(p, false, "", nullptr, 0);
    auto a = std::make_shared<graph_allocation>();
    a->ptr = p;
    a->size = size;
    a->device = props.location.id;
    a->params.poolProps = props;
    a->params.bytesize = size;
    a->params.dptr = p;
    {
        std::lock_guard<std::mutex> lock(registry_lock);
        allocations[p] = a;
    }
    *out = std::move(a);
    return cudaSuccess;
}

bool frees_locked(cudaGraph_t graph, const graph_allocation* a) {
    for (auto& n : graph->nodes)
        if (n->type == cudaGraphNodeTypeMemFree && n->allocation.get() == a) return true;
    return false;
}

// CUDA's rules for a free node of `a` in `graph`: once per graph, and either
// in the graph that allocates it or in others, never both.
cudaError_t free_node_allowed_locked(cudaGraph_t graph, graph_allocation& a) {
    const char* why = nullptr;
    if (frees_locked(graph, &a))
        why = "this graph frees it already";
    else if (graph == a.owner && a.freed_in_other_graph)
        why = "a free node of another graph frees it, so the graph that allocates it may not";
    else if (graph != a.owner && is_live_graph_locked(a.owner) && frees_locked(a.owner, &a))
        why = "the graph that allocates it frees it, so no other graph may";
    if (why) {
        std::fprintf(stderr, "cuemu: a free node for graph memory %p refused: %s\n", a.ptr, why);
        return cudaErrorInvalidValue;
    }
    if (graph != a.owner) a.freed_in_other_graph = true;
    return cudaSuccess;
}

bool graph_and_dependencies_valid_locked(cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count) {
    std::vector<cudaGraphNode_t> checked;
    return is_live_graph_locked(graph) && dependencies_valid_locked(graph, deps, count, &checked);
}

void explain_not_graph_memory(const void* p, const char* call) {
    std::fprintf(stderr,
                 "cuemu: %s: %p is not the address an allocation node (cudaGraphAddMemAllocNode, or "
                 "cudaMallocAsync in a stream capture) returned: a free node frees graph memory only\n",
                 call, p);
}

}  // namespace

cuemu::detail::graph_allocation::~graph_allocation() {
    {
        std::lock_guard<std::mutex> lock(registry_lock);
        auto it = allocations.find(ptr);
        if (it != allocations.end() && it->second.expired()) allocations.erase(it);
    }
    {
        std::lock_guard<std::mutex> lock(stats_mutex);
        if (resident) counts[device].orphaned += size;  // held until a trim
    }
    release_device_memory(ptr, "the end of its graph (every graph, node and executable graph that "
                               "named it destroyed, and freed)", nullptr, 0);
}

namespace cuemu::detail {

bool graph_memory_allows_locked(cudaGraph_t graph, const char* call) {
    if (!has_memory_nodes_locked(graph)) return true;
    std::fprintf(stderr, "cuemu: %s refused: the graph has memory allocation or free nodes (CUDA lets "
                         "such a graph be neither cloned, nor a child graph, nor have nodes or edges "
                         "removed)\n",
                 call);
    return false;
}

cudaError_t graph_memory_before_launch_locked(cudaGraphExec_t exec, std::vector<device_work>* auto_free) {
    std::vector<graph_allocation*> allocated, freed;
    for (const CUgraphExec_st::step& s : exec->steps) {
        if (s.type == cudaGraphNodeTypeMemAlloc) allocated.push_back(s.allocation.get());
        if (s.type == cudaGraphNodeTypeMemFree) freed.push_back(s.allocation.get());
    }
    if (allocated.empty() && freed.empty()) return cudaSuccess;
    auto contains = [](const std::vector<graph_allocation*>& list, graph_allocation* a) {
        return std::find(list.begin(), list.end(), a) != list.end();
    };
    const bool auto_free_on_launch = exec->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch;
    for (graph_allocation* a : allocated)
        if (!contains(freed, a) && a->unfreed && !auto_free_on_launch) {
            std::fprintf(stderr,
                         "cuemu: cudaGraphLaunch refused: graph memory %p (%zu bytes) from an earlier "
                         "launch of this executable graph is not freed yet (cudaFree, cudaFreeAsync, "
                         "a free node of another graph, or instantiate with "
                         "cudaGraphInstantiateFlagAutoFreeOnLaunch)\n",
                         a->ptr, a->size);
            return cudaErrorInvalidValue;
        }
    for (graph_allocation* a : freed)
        if (!contains(allocated, a) && !a->unfreed) {
            std::fprintf(stderr,
                         "cuemu: cudaGraphLaunch refused: its free node frees graph memory %p that is "
                         "not allocated now (the graph that allocates it was not launched since it "
                         "was last freed)\n",
                         a->ptr);
            return cudaErrorInvalidValue;
        }
    for (const CUgraphExec_st::step& s : exec->steps) {
        graph_allocation* a = s.allocation.get();
        if (s.type == cudaGraphNodeTypeMemAlloc && !contains(freed, a)) {
            if (a->unfreed)
                auto_free->push_back(free_work(s.allocation, {"the next launch (cudaGraphInstantiateFlagAutoFreeOnLaunch)", nullptr, 0}));
            a->unfreed = true;
            unfreed[a->ptr] = s.allocation;
        } else if (s.type == cudaGraphNodeTypeMemFree && !contains(allocated, a)) {
            a->unfreed = false;
            unfreed.erase(a->ptr);  // the step's work holds it until the free has run
        }
    }
    return cudaSuccess;
}

bool is_graph_allocation(const void* p) { return find_graph_allocation(p) != nullptr; }

bool free_graph_allocation(void* p, cudaStream_t stream, bool queued, const char* call, const char* file,
                           int line, cudaError_t* result) {
    std::shared_ptr<graph_allocation> a = find_graph_allocation(p);
    if (!a) return false;
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!a->unfreed) {
            std::fprintf(stderr,
                         "cuemu: %s:%d: %s of graph memory %p that is not allocated now: no launch "
                         "allocated it since it was last freed, or its own graph frees it (then only "
                         "that graph may)\n",
                         file, line, call, p);
            *result = record(cudaErrorInvalidValue);
            return true;
        }
        a->unfreed = false;
        unfreed.erase(p);
    }
    if (queued) {
        work_label label = memory_label(false);
        enqueue(stream, free_work(a, {call, file, line}), std::move(label));
    } else {
        set_mapped(*a, false, {call, file, line});
    }
    *result = cudaSuccess;
    return true;
}

cudaError_t capture_graph_malloc(cudaStream_t stream, const cudaMemPoolProps& props, size_t size, void** out,
                                 const char* file, int line) {
    std::shared_ptr<graph_allocation> a;
    if (cudaError_t e = make_allocation(props, size, "cudaMallocAsync in a stream capture", file, line, &a))
        return record(e);
    const cudaError_t e = capture_add_memory_node(stream, cudaGraphNodeTypeMemAlloc, a, alloc_work(a),
                                                  memory_label(true), [&](cudaGraph_t graph) {
                                                      a->owner = graph;
                                                      return cudaSuccess;
                                                  });
    if (e != cudaSuccess) return record(e);  // the memory goes with `a`
    *out = a->ptr;
    return cudaSuccess;
}

cudaError_t capture_graph_free(cudaStream_t stream, void* p, const char* file, int line) {
    std::shared_ptr<graph_allocation> a = find_graph_allocation(p);
    if (!a) {
        std::fprintf(stderr,
                     "cuemu: %s:%d: cudaFreeAsync during a stream capture of memory not allocated in "
                     "a graph is not emulated (the emulator's free nodes free graph memory only): "
                     "free it after the capture\n",
                     file, line);
        return record(cudaErrorStreamCaptureUnsupported);
    }
    const cudaError_t e = capture_add_memory_node(stream, cudaGraphNodeTypeMemFree, a,
                                                  free_work(a, {"cudaFreeAsync captured in a graph", file, line}),
                                                  memory_label(false), [&](cudaGraph_t graph) {
                                                      return free_node_allowed_locked(graph, *a);
                                                  });
    return e ? record(e) : e;
}

}  // namespace cuemu::detail

// ---- the graph calls --------------------------------------------------------------------
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                     cudaMemAllocNodeParams* nodeParams, const char* cuemu_file,
                                     int cuemu_line) {
    if (!pGraphNode || !nodeParams) return record(cudaErrorInvalidValue);
    if (nodeParams->accessDescCount && !nodeParams->accessDescs) return record(cudaErrorInvalidValue);
    for (size_t i = 0; i < nodeParams->accessDescCount; ++i) {
        const cudaMemAccessDesc& d = nodeParams->accessDescs[i];
        if (d.location.type != cudaMemLocationTypeDevice || !is_valid_device(d.location.id))
            return record(cudaErrorInvalidValue);
    }
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!graph_and_dependencies_valid_locked(graph, pDependencies, numDependencies))
            return record(cudaErrorInvalidValue);
    }
    std::shared_ptr<graph_allocation> a;
    if (cudaError_t e = make_allocation(nodeParams->poolProps, nodeParams->bytesize, "cudaGraphAddMemAllocNode",
                                        cuemu_file, cuemu_line, &a))
        return record(e);
    a->params.accessDescs = nodeParams->accessDescs;  // as CUDA gives them back: the caller's
    a->params.accessDescCount = nodeParams->accessDescCount;
    const cudaError_t e = add_work_node(pGraphNode, graph, pDependencies, numDependencies,
                                        cudaGraphNodeTypeMemAlloc, alloc_work(a), "alloc",
                                        "graph memory alloc node");
    if (e != cudaSuccess) return e;
    std::lock_guard<std::mutex> lock(graph_mutex());
    a->owner = graph;
    (*pGraphNode)->allocation = a;
    nodeParams->dptr = a->ptr;
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t* pDependencies, size_t numDependencies, void* dptr) {
    if (!pGraphNode) return record(cudaErrorInvalidValue);
    std::shared_ptr<graph_allocation> a = find_graph_allocation(dptr);
    if (!a) {
        explain_not_graph_memory(dptr, "cudaGraphAddMemFreeNode");
        return record(cudaErrorInvalidValue);
    }
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!graph_and_dependencies_valid_locked(graph, pDependencies, numDependencies))
            return record(cudaErrorInvalidValue);
        if (cudaError_t e = free_node_allowed_locked(graph, *a)) return record(e);
    }
    const cudaError_t e = add_work_node(pGraphNode, graph, pDependencies, numDependencies,
                                        cudaGraphNodeTypeMemFree, free_work(a, free_node), "free",
                                        "graph memory free node");
    if (e != cudaSuccess) return e;
    std::lock_guard<std::mutex> lock(graph_mutex());
    (*pGraphNode)->allocation = a;
    return cudaSuccess;
}

namespace {
// The allocation a memory node of `type` names, to `give` (under the lock).
cudaError_t read_memory_node(cudaGraphNode_t node, cudaGraphNodeType type, const void* out,
                             const std::function<void(const graph_allocation&)>& give) {
    if (!out) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_node_locked(node) || node->type != type) return record(cudaErrorInvalidValue);
    give(*node->allocation);
    return cudaSuccess;
}
}  // namespace

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* params_out) {
    return read_memory_node(node, cudaGraphNodeTypeMemAlloc, params_out,
                            [&](const graph_allocation& a) { *params_out = a.params; });
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr_out) {
    return read_memory_node(node, cudaGraphNodeTypeMemFree, dptr_out,
                            [&](const graph_allocation& a) { *static_cast<void**>(dptr_out) = a.ptr; });
}

// The graphs' reserve gives back what no allocation needs now: memory of
// allocations not between their alloc node and their free.
cudaError_t cudaDeviceGraphMemTrim(int device) {
    if (!is_valid_device(device)) return record(cudaErrorInvalidDevice);
    std::vector<std::shared_ptr<graph_allocation>> all;
    {
        std::lock_guard<std::mutex> lock(registry_lock);
        for (auto& [p, weak] : allocations)
            if (auto a = weak.lock()) all.push_back(std::move(a));
    }
    {
        std::lock_guard<std::mutex> lock(stats_mutex);
        graph_memory_counts& c = counts[device];
        c.held -= c.orphaned;
        c.orphaned = 0;
        for (auto& a : all)
            if (a->device == device && a->resident && !a->mapped) {
                a->resident = false;
                c.held -= a->size;
            }
        c.update(true);
    }
    return cudaSuccess;  // `all` lets go outside the locks
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void* value) {
    if (!is_valid_device(device)) return record(cudaErrorInvalidDevice);
    if (!value) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(stats_mutex);
    const graph_memory_counts& c = counts[device];
    std::uint64_t v;
    switch (attr) {
        case cudaGraphMemAttrUsedMemCurrent: v = c.used; break;
        case cudaGraphMemAttrUsedMemHigh: v = c.used_high; break;
        case cudaGraphMemAttrReservedMemCurrent: v = c.reserved; break;
        case cudaGraphMemAttrReservedMemHigh: v = c.reserved_high; break;
        default: return record(cudaErrorInvalidValue);
    }
    *static_cast<std::uint64_t*>(value) = v;
    return cudaSuccess;
}

// Only the high marks may be set, and only to 0: each becomes the current amount.
cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void* value) {
    if (!is_valid_device(device)) return record(cudaErrorInvalidDevice);
    if (!value || *static_cast<std::uint64_t*>(value) != 0) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(stats_mutex);
    graph_memory_counts& c = counts[device];
    switch (attr) {
        case cudaGraphMemAttrUsedMemHigh: c.used_high = c.used; return cudaSuccess;
        case cudaGraphMemAttrReservedMemHigh: c.reserved_high = c.reserved; return cudaSuccess;
        default: return record(cudaErrorInvalidValue);
    }
}
