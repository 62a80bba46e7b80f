// graphs.cpp - CUDA graphs made by hand: cudaGraphCreate, cudaGraphClone,
// the kernel, memcpy, memset, host and empty Add*Node calls, dependencies,
// the queries of nodes and edges, and the destroy calls; executable graphs
// are in graph_exec.cpp. Stream capture, which builds graphs from queued work, is in
// graph_capture.cpp; node parameters, event and child graph nodes in
// graph_nodes.cpp; memory allocation and free nodes in graph_memory.cpp.
//
// A node holds the device work it stands for, made once when the node is
// added: the graph call makes the matching API call (cudaMemcpyAsync,
// cudaLaunchHostFunc, the kernel's launch) with its work taken for the node
// (record_one_call), so the node is checked as that call checks it and runs
// as it runs. Executable graphs are graph_exec.cpp's: the stream runs the
// nodes one after another (a GPU may run independent nodes at the same time:
// any program whose result depends on that has a race).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "cuemu/runtime.h"
#include "cuemu/textures.h"
#include "graph_internal.h"
#include "texture_internal.h"
#include "trace.h"

using namespace cuemu::detail;

namespace {

std::unordered_set<cudaGraph_t> live_graphs;         // guarded by graph_mutex()


// A kernel node's launch, through the registry (cuemu/kernel_registry.h).
cudaError_t launch_kernel_params(const cudaKernelNodeParams& p, const char* file, int line) {
    if (!p.func) return cudaErrorInvalidDeviceFunction;
    if (p.extra) {
        std::fprintf(stderr,
                     "cuemu: %s:%d: cudaKernelNodeParams::extra (the driver's packed arguments) is "
                     "not emulated: pass the arguments in kernelParams\n",
                     file, line);
        return cudaErrorNotSupported;
    }
    cuemu::known_kernel kernel;
    if (!cuemu::find_kernel(p.func, &kernel)) {
        std::fprintf(stderr,
                     "cuemu: %s:%d: the kernel node's func (%p) is no kernel the emulator knows by "
                     "its address: only kernels defined once at namespace scope of a file built "
                     "for the emulator are (template instantiations too; not a name defined twice, "
                     "such as overloads); use stream capture of a <<<...>>> launch instead\n",
                     file, line, p.func);
        return cudaErrorInvalidDeviceFunction;
    }
    cuemu::launch_config config(p.grid_dim_member, p.block_dim_member, p.sharedMemBytes, 0);
    return kernel.launch(cuemu::launch_site{kernel.name, file, line}, config, p.func, p.kernelParams);
}

}  // namespace

cudaError_t cuemu::detail::make_kernel_work(const cudaKernelNodeParams* p, const char* file, int line,
                                            device_work* work, work_label* label) {
    if (!p) return cudaErrorInvalidValue;
    return record_one_call([&] { return launch_kernel_params(*p, file, line); }, work, label);
}

namespace cuemu::detail {

std::mutex& graph_mutex() {
    static std::mutex m;
    return m;
}

bool is_live_graph_locked(cudaGraph_t graph) { return graph && live_graphs.count(graph); }

bool is_live_node_locked(cudaGraphNode_t node) { return node && is_live_graph_locked(node->graph); }

bool node_of_graph_locked(cudaGraphNode_t node, cudaGraph_t graph) {
    return node && is_live_graph_locked(graph) && node->graph == graph;
}

bool dependencies_valid_locked(cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count,
                               std::vector<cudaGraphNode_t>* out) {
    if (count && !deps) return false;
    for (size_t i = 0; i < count; ++i) {
        if (!node_of_graph_locked(deps[i], graph)) return false;
        if (std::find(out->begin(), out->end(), deps[i]) != out->end()) return false;
        out->push_back(deps[i]);
    }
    return true;
}

// Adds a node made from one API call (record_one_call); the call runs
// without the graph lock (it may queue nothing, or wait).
cudaError_t add_call_node(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                          const cudaGraphNode_t* pDependencies, size_t numDependencies,
                          cudaGraphNodeType type, const std::function<cudaError_t()>& call,
                          const cudaKernelNodeParams* kernel_params) {
    if (!pGraphNode) return record(cudaErrorInvalidValue);
    std::vector<cudaGraphNode_t> deps;
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!is_live_graph_locked(graph) ||
            !dependencies_valid_locked(graph, pDependencies, numDependencies, &deps))
            return record(cudaErrorInvalidValue);
    }
    device_work work;
    work_label label;
    if (cudaError_t e = record_one_call(call, &work, &label)) return record(e);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(graph)) return record(cudaErrorInvalidValue);
    *pGraphNode = add_node_locked(graph, type, deps, std::move(work), std::move(label));
    if (kernel_params) {
        (*pGraphNode)->has_kernel_params = true;
        (*pGraphNode)->kernel_params = *kernel_params;
    }
    return cudaSuccess;
}

// A node whose work the graph call made itself (memset and 3D memcpy nodes),
// not taken from an API call.
cudaError_t add_work_node(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                          const cudaGraphNode_t* pDependencies, size_t numDependencies,
                          cudaGraphNodeType type, device_work work, const char* category,
                          const char* trace_name) {
    work_label label;
    label.category = category;
    if (trace_enabled()) label.name = trace_name;
    if (!pGraphNode) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    std::vector<cudaGraphNode_t> deps;
    if (!is_live_graph_locked(graph) || !dependencies_valid_locked(graph, pDependencies, numDependencies, &deps))
        return record(cudaErrorInvalidValue);
    *pGraphNode = add_node_locked(graph, type, deps, std::move(work), std::move(label));
    return cudaSuccess;
}


cudaGraph_t new_graph_locked() {
    cudaGraph_t g = new CUgraph_st;
    live_graphs.insert(g);
    return g;
}

void delete_graph_locked(cudaGraph_t graph) {
    for (auto& n : graph->nodes) {
        if (n->child) delete_graph_locked(n->child);
        for (cudaGraph_t body : n->bodies) delete_graph_locked(body);
    }
    live_graphs.erase(graph);
    release_user_objects(graph->user_objects);
    delete graph;
}

void copy_graph_locked(cudaGraph_t from, cudaGraph_t into) {
    std::unordered_map<cudaGraphNode_t, cudaGraphNode_t> copy_of;
    for (auto& n : from->nodes) {
        std::vector<cudaGraphNode_t> deps;
        for (cudaGraphNode_t d : n->dependencies) deps.push_back(copy_of.at(d));
        cudaGraphNode_t c = add_node_locked(into, n->type, deps, n->work, n->label);
        c->has_kernel_params = n->has_kernel_params;
        c->kernel_params = n->kernel_params;
        c->has_params = n->has_params;
        c->copy_params = n->copy_params;
        c->memset_params = n->memset_params;
        c->host_params = n->host_params;
        c->multidimensional = n->multidimensional;
        c->event = n->event;
        c->allocation = n->allocation;
        c->attributes = n->attributes;
        if (n->child) {
            c->child = new_graph_locked();
            copy_graph_locked(n->child, c->child);
        }
        copy_of[n.get()] = c;
    }
    into->copy_of = std::move(copy_of);
    retain_user_objects_locked(from, &into->user_objects, false);  // children: copied above
}

bool default_edges(const cudaGraphEdgeData* edges, size_t count, const char* call) {
    for (size_t i = 0; edges && i < count; ++i)
        if (edges[i].type != cudaGraphDependencyTypeDefault || edges[i].from_port || edges[i].to_port) {
            std::fprintf(stderr, "cuemu: %s: programmatic edges (edge data other than the default) are "
                                 "not emulated\n", call);
            return false;
        }
    return true;
}

bool graph_standalone_locked(cudaGraph_t graph, const char* call) {
    if (!graph->owner_node) return true;
    std::fprintf(stderr, "cuemu: %s: this graph belongs to a node (a conditional node's body, or a "
                         "child graph moved into its node): it goes with the node\n", call);
    return false;
}

bool has_memory_nodes_locked(cudaGraph_t graph) {
    for (auto& n : graph->nodes)
        if (n->type == cudaGraphNodeTypeMemAlloc || n->type == cudaGraphNodeTypeMemFree ||
            (n->child && has_memory_nodes_locked(n->child)))
            return true;
    return false;
}

cudaGraphNode_t add_node_locked(cudaGraph_t graph, cudaGraphNodeType type,
                                const std::vector<cudaGraphNode_t>& dependencies,
                                device_work work, work_label label) {
    auto node = std::make_unique<CUgraphNode_st>();
    node->graph = graph;
    node->type = type;
    node->dependencies = dependencies;
    node->work = std::move(work);
    node->label = std::move(label);
    graph->nodes.push_back(std::move(node));
    return graph->nodes.back().get();
}

cudaGraphNodeType node_type_of(const work_label& label) {
    if (std::strcmp(label.category, "copy") == 0) return cudaGraphNodeTypeMemcpy;
    if (std::strcmp(label.category, "memset") == 0) return cudaGraphNodeTypeMemset;
    if (std::strcmp(label.category, "host function") == 0) return cudaGraphNodeTypeHost;
    return cudaGraphNodeTypeKernel;
}

}  // namespace cuemu::detail

// ---- graphs ---------------------------------------------------------------------------
cudaError_t cudaGraphCreate(cudaGraph_t* pGraph, unsigned int flags) {
    if (!pGraph || flags != 0) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    *pGraph = new_graph_locked();
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(graph)) return record(cudaErrorInvalidValue);
    if (graph->being_captured) return record(cudaErrorIllegalState);
    if (!graph_standalone_locked(graph, "cudaGraphDestroy")) return record(cudaErrorInvalidValue);
    delete_graph_locked(graph);  // executable graphs made from it keep their own copies
    return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t* pGraphClone, cudaGraph_t originalGraph) {
    if (!pGraphClone) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(originalGraph)) return record(cudaErrorInvalidValue);
    if (!graph_memory_allows_locked(originalGraph, "cudaGraphClone")) return record(cudaErrorNotSupported);
    if (has_conditional_nodes_locked(originalGraph)) {
        std::fprintf(stderr, "cuemu: cudaGraphClone: a graph with conditional nodes cannot be cloned\n");
        return record(cudaErrorInvalidValue);
    }
    cudaGraph_t clone = new_graph_locked();
    copy_graph_locked(originalGraph, clone);
    *pGraphClone = clone;
    return cudaSuccess;
}

// ---- nodes ----------------------------------------------------------------------------
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                   const cudaKernelNodeParams* pNodeParams, const char* cuemu_file,
                                   int cuemu_line) {
    if (!pNodeParams) return record(cudaErrorInvalidValue);
    const cudaKernelNodeParams params = *pNodeParams;  // the arguments are copied now, as in CUDA
    return add_call_node(
        pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeKernel,
        [&] { return launch_kernel_params(params, cuemu_file, cuemu_line); }, &params);
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* pNodeParams) {
    if (!pNodeParams) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!node || !is_live_graph_locked(node->graph) || node->type != cudaGraphNodeTypeKernel)
        return record(cudaErrorInvalidValue);
    if (!node->has_kernel_params) {
        std::fprintf(stderr,
                     "cuemu: cudaGraphKernelNodeGetParams of a captured launch is not emulated (the "
                     "emulator keeps a captured launch's arguments, not its kernel's address)\n");
        return record(cudaErrorNotSupported);
    }
    *pNodeParams = node->kernel_params;
    return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* pNodeParams,
                                         const char* cuemu_file, int cuemu_line) {
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!node || !is_live_graph_locked(node->graph) || node->type != cudaGraphNodeTypeKernel)
            return record(cudaErrorInvalidValue);
    }
    device_work work;
    work_label label;
    if (cudaError_t e = make_kernel_work(pNodeParams, cuemu_file, cuemu_line, &work, &label))
        return record(e);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(node->graph)) return record(cudaErrorInvalidValue);
    node->work = std::move(work);
    node->label = std::move(label);
    node->has_kernel_params = true;
    node->kernel_params = *pNodeParams;
    return cudaSuccess;
}

// Keeps a node's parameters as given, for the GetParams calls (graph_nodes.cpp).
void keep_params(cudaGraphNode_t node, const std::function<void(CUgraphNode_st&)>& set) {
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (is_live_node_locked(node)) {
        node->has_params = true;
        set(*node);
    }
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                     void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                                     const char* cuemu_file, int cuemu_line) {
    cudaError_t e = add_call_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeMemcpy,
                         [&] { return cudaMemcpyAsync(dst, src, count, kind, 0, cuemu_file, cuemu_line); });
    if (e == cudaSuccess)
        keep_params(*pGraphNode,
                    [&](CUgraphNode_st& n) { keep_copy_params(n, memcpy_1d_params(dst, src, count, kind)); });
    return e;
}

namespace cuemu::detail {

cudaError_t make_memset_work(const cudaMemsetParams* p, device_work* work) {
    if (!p || !p->dst || p->width == 0 || p->height == 0) return cudaErrorInvalidValue;
    const unsigned size = p->elementSize;
    if (size != 1 && size != 2 && size != 4) return cudaErrorInvalidValue;
    const size_t row_bytes = p->width * size;
    if (p->height > 1 && p->pitch < row_bytes) return cudaErrorInvalidValue;
    const size_t pitch = p->height > 1 ? p->pitch : row_bytes;
    char* const dst = static_cast<char*>(p->dst);
    for (size_t row = 0; row < p->height; ++row)
        if (!is_device_range(dst + row * pitch, row_bytes)) return cudaErrorInvalidValue;
    const unsigned value = p->value;
    const size_t height = p->height, width = p->width;
    *work = [dst, pitch, row_bytes, height, width, size, value](std::uint64_t) {
        for (size_t row = 0; row < height; ++row) {
            char* line = dst + row * pitch;
            for (size_t i = 0; i < width; ++i) std::memcpy(line + i * size, &value, size);  // little-endian: the low bytes
            note_device_write(line, row_bytes);
        }
        return cudaSuccess;
    };
    return cudaSuccess;
}

// A memcpy node from a cudaMemcpy3DParms (NVIDIA's simpleCudaGraphs makes its
// copies so), between pitched pointers: `extent` rows of extent.width bytes,
// row y of slice z at ptr + (pos.z + z) * pitch * ysize + (pos.y + y) * pitch
// + pos.x. Checked when added, as the runtime checks it; done by the node's
// own work, row by row. A CUDA array on either side is not emulated here.
cudaError_t make_memcpy3d_work(const cudaMemcpy3DParms* p, device_work* work) {
    if (!p) return cudaErrorInvalidValue;
    if (p->srcArray || p->dstArray) {
        std::fprintf(stderr,
                     "cuemu: a memcpy node with a CUDA array is not emulated (pitched pointers "
                     "are): capture cudaMemcpy3DAsync into the graph instead\n");
        return cudaErrorNotSupported;
    }
    if (p->kind < cudaMemcpyHostToHost || p->kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    const cudaExtent extent = p->extent;
    if (!p->srcPtr.ptr || !p->dstPtr.ptr || extent.width == 0 || extent.height == 0 || extent.depth == 0)
        return cudaErrorInvalidValue;
    // The sides as cudaMemcpy3D reads them (cuda_arrays.cpp); then, since the
    // node's work copies rows itself, each must fit its pitch and slice and,
    // on the device, lie in device memory.
    auto side_of = [&](const cudaPitchedPtr& ptr, const cudaPos& pos, bool is_source, copy_side* out) {
        if (pos.x + extent.width > ptr.pitch) return false;
        if (extent.depth > 1 && pos.y + extent.height > ptr.ysize) return false;
        if (!describe_side(nullptr, pos, ptr, extent, 1, p->kind, is_source, out)) return false;
        if (!out->on_device) return true;
        for (size_t z = 0; z < extent.depth; ++z)
            for (size_t y = 0; y < extent.height; ++y)
                if (!is_device_range(out->first + z * out->slice_pitch + y * out->row_pitch, extent.width))
                    return false;
        return true;
    };
    copy_side src{}, dst{};
    if (!side_of(p->srcPtr, p->srcPos, true, &src) || !side_of(p->dstPtr, p->dstPos, false, &dst))
        return cudaErrorInvalidValue;
    *work = [src, dst, extent](std::uint64_t) {
        for (size_t z = 0; z < extent.depth; ++z)
            for (size_t y = 0; y < extent.height; ++y) {
                unsigned char* to = dst.first + z * dst.slice_pitch + y * dst.row_pitch;
                std::memcpy(to, src.first + z * src.slice_pitch + y * src.row_pitch, extent.width);
                if (dst.on_device) note_device_write(to, extent.width);
            }
        return cudaSuccess;
    };
    return cudaSuccess;
}

}  // namespace cuemu::detail

namespace {
// A memset or 3D memcpy node: its work as made, its parameters kept.
cudaError_t add_made_node(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                          size_t numDependencies, cudaGraphNodeType type, cudaError_t made, device_work work,
                          const std::function<void(CUgraphNode_st&)>& keep) {
    if (made != cudaSuccess) return record(made);
    const bool copy = type == cudaGraphNodeTypeMemcpy;
    const cudaError_t e = add_work_node(pGraphNode, graph, pDependencies, numDependencies, type, std::move(work),
                                        copy ? "copy" : "memset", copy ? "memcpy node" : "memset node");
    if (e == cudaSuccess) keep_params(*pGraphNode, keep);
    return e;
}
}  // namespace

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                   const cudaMemsetParams* p) {
    device_work work;
    const cudaError_t made = make_memset_work(p, &work);
    return add_made_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeMemset, made,
                         std::move(work), [&](CUgraphNode_st& n) { keep_fill_params(n, *p); });
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                   const cudaMemcpy3DParms* p) {
    device_work work;
    const cudaError_t made = make_memcpy3d_work(p, &work);
    return add_made_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeMemcpy, made,
                         std::move(work), [&](CUgraphNode_st& n) { keep_copy_params(n, *p); });
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                 const cudaHostNodeParams* pNodeParams) {
    if (!pNodeParams || !pNodeParams->fn) return record(cudaErrorInvalidValue);
    const cudaHostNodeParams p = *pNodeParams;
    cudaError_t e = add_call_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeHost,
                                  [&] { return cudaLaunchHostFunc(0, p.fn, p.userData); });
    if (e == cudaSuccess) keep_params(*pGraphNode, [&](CUgraphNode_st& n) { n.host_params = p; });
    return e;
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t* pDependencies, size_t numDependencies) {
    return add_call_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeEmpty,
                         [] { return cudaSuccess; });
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, const cudaGraphEdgeData* edgeData,
                                     size_t numDependencies) {
    if (numDependencies && (!from || !to)) return record(cudaErrorInvalidValue);
    if (!default_edges(edgeData, numDependencies, "cudaGraphAddDependencies"))
        return record(cudaErrorNotSupported);
    std::lock_guard<std::mutex> lock(graph_mutex());
    for (size_t i = 0; i < numDependencies; ++i) {
        if (!node_of_graph_locked(from[i], graph) || !node_of_graph_locked(to[i], graph) ||
            from[i] == to[i])
            return record(cudaErrorInvalidValue);
        auto& deps = to[i]->dependencies;
        if (std::find(deps.begin(), deps.end(), from[i]) != deps.end())
            return record(cudaErrorInvalidValue);  // the edge exists already
        // An edge that closes a cycle is taken, as CUDA takes it (measured on
        // an H200, CUDA 13.0); cudaGraphInstantiate refuses the graph.
    }
    for (size_t i = 0; i < numDependencies; ++i) to[i]->dependencies.push_back(from[i]);
    return cudaSuccess;
}

// nodes null: the count only; otherwise up to *numNodes of them, and the
// true count in *numNodes when it is smaller.
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
    if (!numNodes) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(graph)) return record(cudaErrorInvalidValue);
    const size_t total = graph->nodes.size();
    if (nodes) {
        for (size_t i = 0; i < std::min(total, *numNodes); ++i) nodes[i] = graph->nodes[i].get();
        for (size_t i = total; i < *numNodes; ++i) nodes[i] = nullptr;
        if (*numNodes > total) *numNodes = total;
    } else {
        *numNodes = total;
    }
    return cudaSuccess;
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* pRootNodes, size_t* pNumRootNodes) {
    if (!pNumRootNodes) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(graph)) return record(cudaErrorInvalidValue);
    std::vector<cudaGraphNode_t> roots;
    for (auto& n : graph->nodes)
        if (n->dependencies.empty()) roots.push_back(n.get());
    if (pRootNodes) {
        for (size_t i = 0; i < std::min(roots.size(), *pNumRootNodes); ++i) pRootNodes[i] = roots[i];
        for (size_t i = roots.size(); i < *pNumRootNodes; ++i) pRootNodes[i] = nullptr;
        if (*pNumRootNodes > roots.size()) *pNumRootNodes = roots.size();
    } else {
        *pNumRootNodes = roots.size();
    }
    return cudaSuccess;
}

namespace {
// CUDA's protocol for a list asked for: a null array asks for the count.
cudaError_t give_nodes(const std::vector<cudaGraphNode_t>& list, cudaGraphNode_t* out,
                       cudaGraphEdgeData* edge_data, size_t* count) {
    if (!out) {
        *count = list.size();
        return cudaSuccess;
    }
    for (size_t i = 0; i < *count; ++i) {
        out[i] = i < list.size() ? list[i] : nullptr;
        if (edge_data) edge_data[i] = cudaGraphEdgeData{};
    }
    if (*count > list.size()) *count = list.size();
    return cudaSuccess;
}
}  // namespace

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                              cudaGraphEdgeData* edgeData, size_t* numEdges) {
    if (!numEdges || (from == nullptr) != (to == nullptr)) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(graph)) return record(cudaErrorInvalidValue);
    std::vector<cudaGraphNode_t> tails, heads;
    for (auto& n : graph->nodes)
        for (cudaGraphNode_t d : n->dependencies) tails.push_back(d), heads.push_back(n.get());
    size_t count = *numEdges;
    give_nodes(tails, from, edgeData, &count);
    give_nodes(heads, to, nullptr, numEdges);
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* pDependencies,
                                         cudaGraphEdgeData* edgeData, size_t* pNumDependencies) {
    if (!pNumDependencies) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!node || !is_live_graph_locked(node->graph)) return record(cudaErrorInvalidValue);
    return give_nodes(node->dependencies, pDependencies, edgeData, pNumDependencies);
}

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* pDependentNodes,
                                           cudaGraphEdgeData* edgeData, size_t* pNumDependentNodes) {
    if (!pNumDependentNodes) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!node || !is_live_graph_locked(node->graph)) return record(cudaErrorInvalidValue);
    std::vector<cudaGraphNode_t> dependents;
    for (auto& n : node->graph->nodes)
        if (std::find(n->dependencies.begin(), n->dependencies.end(), node) != n->dependencies.end())
            dependents.push_back(n.get());
    return give_nodes(dependents, pDependentNodes, edgeData, pNumDependentNodes);
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!node || !is_live_graph_locked(node->graph)) return record(cudaErrorInvalidValue);
    cudaGraph_t graph = node->graph;
    if (!graph_memory_allows_locked(graph, "cudaGraphDestroyNode")) return record(cudaErrorNotSupported);
    if (node->child) delete_graph_locked(node->child);
    for (cudaGraph_t body : node->bodies) delete_graph_locked(body);
    for (auto& n : graph->nodes)
        n->dependencies.erase(std::remove(n->dependencies.begin(), n->dependencies.end(), node),
                              n->dependencies.end());
    for (auto it = graph->copy_of.begin(); it != graph->copy_of.end();)
        it = it->second == node ? graph->copy_of.erase(it) : std::next(it);
    graph->nodes.erase(std::find_if(graph->nodes.begin(), graph->nodes.end(),
                                    [node](const auto& n) { return n.get() == node; }));
    return cudaSuccess;
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* pNode, cudaGraphNode_t originalNode,
                                     cudaGraph_t clonedGraph) {
    if (!pNode || !originalNode) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(clonedGraph)) return record(cudaErrorInvalidValue);
    auto it = clonedGraph->copy_of.find(originalNode);
    if (it == clonedGraph->copy_of.end()) return record(cudaErrorInvalidValue);
    *pNode = it->second;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* pType) {
    if (!pType) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!node || !is_live_graph_locked(node->graph)) return record(cudaErrorInvalidValue);
    *pType = node->type;
    return cudaSuccess;
}
