// graphs.cpp - CUDA graphs made by hand and executable graphs: cudaGraphCreate,
// the Add*Node calls, dependencies, cudaGraphInstantiate, cudaGraphLaunch,
// cudaGraphExecKernelNodeSetParams, cudaGraphExecUpdate and the destroy
// calls. Stream capture, which builds graphs from queued work, is in
// graph_capture.cpp.
//
// A node holds the device work it stands for, made once when the node is
// added: the graph call makes the matching API call (cudaMemcpyAsync,
// cudaLaunchHostFunc, the kernel's launch) with its work taken for the node
// (record_one_call), so the node is checked as that call checks it and runs
// as it runs. An executable graph is the nodes in an order that respects
// every dependency; cudaGraphLaunch queues their work on the stream in that
// order. The stream runs them one after another (a GPU may run independent
// nodes at the same time: any program whose result depends on that has a race).
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

// The executable graph: the work of each node, in launch order.
struct CUgraphExec_st {
    struct step {
        cudaGraphNode_t node;  // the node of the graph it was made from (a key only)
        cudaGraphNodeType type;
        device_work work;
        work_label label;
        const void* kernel = nullptr;  // a kernel node's func, when known
        std::vector<size_t> after;     // the steps it depends on, by position
        cudaGraphNode_t updated_from = nullptr;  // the node cudaGraphExecUpdate paired it with
    };
    std::vector<step> steps;
    // Launches of one executable graph run one after another, as in CUDA:
    // a launch on another stream than the previous one waits for it.
    cudaStream_t last_stream = nullptr;
    cudaEvent_t finished = nullptr;
};

namespace {

std::unordered_set<cudaGraph_t> live_graphs;         // guarded by graph_mutex()
std::unordered_set<cudaGraphExec_t> live_execs;      // guarded by graph_mutex()

bool node_of_graph_locked(cudaGraphNode_t node, cudaGraph_t graph) {
    return node && is_live_graph_locked(graph) && node->graph == graph;
}

// The dependencies as given: nodes of this graph, none twice.
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
                          const cudaKernelNodeParams* kernel_params = nullptr) {
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
                     "its address: only kernels defined once, not as templates, at namespace scope "
                     "of a file built for the emulator are (a template kernel's instantiation is "
                     "not); use stream capture of a <<<...>>> launch instead\n",
                     file, line, p.func);
        return cudaErrorInvalidDeviceFunction;
    }
    cuemu::launch_config config(p.grid_dim_member, p.block_dim_member, p.sharedMemBytes, 0);
    return kernel.launch(cuemu::launch_site{kernel.name, file, line}, config, p.func, p.kernelParams);
}

cudaError_t make_kernel_work(const cudaKernelNodeParams* p, const char* file, int line,
                             device_work* work, work_label* label) {
    if (!p) return cudaErrorInvalidValue;
    return record_one_call([&] { return launch_kernel_params(*p, file, line); }, work, label);
}

// Kahn's order, ties in the order nodes were added; false for a cycle.
bool launch_order_locked(cudaGraph_t graph, std::vector<cudaGraphNode_t>* order) {
    std::unordered_map<cudaGraphNode_t, size_t> waiting;
    std::unordered_map<cudaGraphNode_t, std::vector<cudaGraphNode_t>> after;
    for (auto& n : graph->nodes) {
        waiting[n.get()] = n->dependencies.size();
        for (cudaGraphNode_t d : n->dependencies) after[d].push_back(n.get());
    }
    std::vector<cudaGraphNode_t> ready;
    for (auto& n : graph->nodes)
        if (n->dependencies.empty()) ready.push_back(n.get());
    while (!ready.empty()) {
        cudaGraphNode_t n = ready.front();
        ready.erase(ready.begin());
        order->push_back(n);
        for (cudaGraphNode_t next : after[n])
            if (--waiting[next] == 0) ready.push_back(next);
    }
    return order->size() == graph->nodes.size();
}

// For each node of a launch order, the positions of the nodes it depends on.
std::vector<std::vector<size_t>> dependency_positions(const std::vector<cudaGraphNode_t>& order) {
    std::unordered_map<cudaGraphNode_t, size_t> place;
    for (size_t i = 0; i < order.size(); ++i) place[order[i]] = i;
    std::vector<std::vector<size_t>> after(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        for (cudaGraphNode_t d : order[i]->dependencies) after[i].push_back(place.at(d));
        std::sort(after[i].begin(), after[i].end());
    }
    return after;
}

bool reaches_locked(cudaGraphNode_t from, cudaGraphNode_t target) {
    std::vector<cudaGraphNode_t> todo{from};
    std::unordered_set<cudaGraphNode_t> seen;
    while (!todo.empty()) {
        cudaGraphNode_t n = todo.back();
        todo.pop_back();
        if (n == target) return true;
        if (!seen.insert(n).second) continue;
        todo.insert(todo.end(), n->dependencies.begin(), n->dependencies.end());
    }
    return false;
}

}  // namespace

namespace cuemu::detail {

std::mutex& graph_mutex() {
    static std::mutex m;
    return m;
}

bool is_live_graph_locked(cudaGraph_t graph) { return graph && live_graphs.count(graph); }

cudaGraph_t new_graph_locked() {
    cudaGraph_t g = new CUgraph_st;
    live_graphs.insert(g);
    return g;
}

void delete_graph_locked(cudaGraph_t graph) {
    live_graphs.erase(graph);
    delete graph;
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
    delete_graph_locked(graph);  // executable graphs made from it keep their own copies
    return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t* pGraphClone, cudaGraph_t originalGraph) {
    if (!pGraphClone) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(originalGraph)) return record(cudaErrorInvalidValue);
    cudaGraph_t clone = new_graph_locked();
    std::unordered_map<cudaGraphNode_t, cudaGraphNode_t> copy_of;
    for (auto& n : originalGraph->nodes) {
        std::vector<cudaGraphNode_t> deps;
        for (cudaGraphNode_t d : n->dependencies) deps.push_back(copy_of.at(d));
        cudaGraphNode_t c = add_node_locked(clone, n->type, deps, n->work, n->label);
        c->has_kernel_params = n->has_kernel_params;
        c->kernel_params = n->kernel_params;
        copy_of[n.get()] = c;
    }
    clone->copy_of = std::move(copy_of);
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

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                     void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                                     const char* cuemu_file, int cuemu_line) {
    return add_call_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeMemcpy,
                         [&] { return cudaMemcpyAsync(dst, src, count, kind, 0, cuemu_file, cuemu_line); });
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                   const cudaMemsetParams* p) {
    if (!p || !p->dst || p->width == 0 || p->height == 0) return record(cudaErrorInvalidValue);
    const unsigned size = p->elementSize;
    if (size != 1 && size != 2 && size != 4) return record(cudaErrorInvalidValue);
    const size_t row_bytes = p->width * size;
    if (p->height > 1 && p->pitch < row_bytes) return record(cudaErrorInvalidValue);
    const size_t pitch = p->height > 1 ? p->pitch : row_bytes;
    char* const dst = static_cast<char*>(p->dst);
    for (size_t row = 0; row < p->height; ++row)
        if (!is_device_range(dst + row * pitch, row_bytes)) return record(cudaErrorInvalidValue);
    const unsigned value = p->value;
    const size_t height = p->height, width = p->width;
    device_work work = [dst, pitch, row_bytes, height, width, size, value](std::uint64_t) {
        for (size_t row = 0; row < height; ++row) {
            char* line = dst + row * pitch;
            for (size_t i = 0; i < width; ++i) std::memcpy(line + i * size, &value, size);  // little-endian: the low bytes
            note_device_write(line, row_bytes);
        }
        return cudaSuccess;
    };
    return add_work_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeMemset,
                         std::move(work), "memset", "memset node");
}

// A memcpy node from a cudaMemcpy3DParms (NVIDIA's simpleCudaGraphs makes its
// copies so), between pitched pointers: `extent` rows of extent.width bytes,
// row y of slice z at ptr + (pos.z + z) * pitch * ysize + (pos.y + y) * pitch
// + pos.x. Checked when added, as the runtime checks it; done by the node's
// own work, row by row. A CUDA array on either side is not emulated here.
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                   const cudaMemcpy3DParms* p) {
    if (!p) return record(cudaErrorInvalidValue);
    if (p->srcArray || p->dstArray) {
        std::fprintf(stderr,
                     "cuemu: cudaGraphAddMemcpyNode with a CUDA array is not emulated (pitched "
                     "pointers are): capture cudaMemcpy3DAsync into the graph instead\n");
        return record(cudaErrorNotSupported);
    }
    if (p->kind < cudaMemcpyHostToHost || p->kind > cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    const cudaExtent extent = p->extent;
    if (!p->srcPtr.ptr || !p->dstPtr.ptr || extent.width == 0 || extent.height == 0 || extent.depth == 0)
        return record(cudaErrorInvalidValue);
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
        return record(cudaErrorInvalidValue);
    device_work work = [src, dst, extent](std::uint64_t) {
        for (size_t z = 0; z < extent.depth; ++z)
            for (size_t y = 0; y < extent.height; ++y) {
                unsigned char* to = dst.first + z * dst.slice_pitch + y * dst.row_pitch;
                std::memcpy(to, src.first + z * src.slice_pitch + y * src.row_pitch, extent.width);
                if (dst.on_device) note_device_write(to, extent.width);
            }
        return cudaSuccess;
    };
    return add_work_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeMemcpy,
                         std::move(work), "copy", "memcpy node");
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                 const cudaHostNodeParams* pNodeParams) {
    if (!pNodeParams || !pNodeParams->fn) return record(cudaErrorInvalidValue);
    const cudaHostNodeParams p = *pNodeParams;
    return add_call_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeHost,
                         [&] { return cudaLaunchHostFunc(0, p.fn, p.userData); });
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
    if (edgeData)
        for (size_t i = 0; i < numDependencies; ++i)
            if (edgeData[i].type != cudaGraphDependencyTypeDefault || edgeData[i].from_port ||
                edgeData[i].to_port)
                return record(cudaErrorNotSupported);  // programmatic edges are not emulated
    std::lock_guard<std::mutex> lock(graph_mutex());
    for (size_t i = 0; i < numDependencies; ++i) {
        if (!node_of_graph_locked(from[i], graph) || !node_of_graph_locked(to[i], graph) ||
            from[i] == to[i])
            return record(cudaErrorInvalidValue);
        auto& deps = to[i]->dependencies;
        if (std::find(deps.begin(), deps.end(), from[i]) != deps.end())
            return record(cudaErrorInvalidValue);  // the edge exists already
        if (reaches_locked(from[i], to[i])) return record(cudaErrorInvalidValue);  // a cycle
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

// ---- executable graphs ------------------------------------------------------------------
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags) {
    if (!pGraphExec) return record(cudaErrorInvalidValue);
    const unsigned long long known = cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                     cudaGraphInstantiateFlagUpload |
                                     cudaGraphInstantiateFlagDeviceLaunch |
                                     cudaGraphInstantiateFlagUseNodePriority;
    if (flags & ~known) return record(cudaErrorInvalidValue);
    if (flags & cudaGraphInstantiateFlagDeviceLaunch) {
        std::fprintf(stderr, "cuemu: cudaGraphInstantiateFlagDeviceLaunch (graphs launched from "
                             "the device) is not emulated\n");
        return record(cudaErrorNotSupported);
    }
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(graph)) return record(cudaErrorInvalidValue);
    std::vector<cudaGraphNode_t> order;
    if (!launch_order_locked(graph, &order)) return record(cudaErrorInvalidValue);
    auto* exec = new CUgraphExec_st;
    const std::vector<std::vector<size_t>> after = dependency_positions(order);
    for (size_t i = 0; i < order.size(); ++i) {
        cudaGraphNode_t n = order[i];
        exec->steps.push_back({n, n->type, n->work, n->label,
                               n->has_kernel_params ? n->kernel_params.func : nullptr, after[i]});
    }
    live_execs.insert(exec);
    *pGraphExec = exec;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags) {
    return cudaGraphInstantiate(pGraphExec, graph, flags);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
    if (cudaError_t e = context_status()) return e;
    std::vector<CUgraphExec_st::step> steps;
    cudaStream_t previous;
    cudaEvent_t finished;
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!graphExec || !live_execs.count(graphExec)) return record(cudaErrorInvalidValue);
        steps = graphExec->steps;
        previous = graphExec->last_stream;
    }
    if (!is_stream_of_current_device(stream)) return record(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = capture_check_stream_work(stream)) return record(e);
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(stream, &capturing);
    if (capturing == cudaStreamCaptureStatusActive) {
        // Launched into a capture, the graph's work becomes nodes of the
        // captured graph, in this order; that graph's launches are what
        // must run one after another.
        for (CUgraphExec_st::step& s : steps)
            if (s.work) enqueue(stream, std::move(s.work), std::move(s.label));
        return cudaSuccess;
    }
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!graphExec->finished) cudaEventCreateWithFlags(&graphExec->finished, cudaEventDisableTiming);
        finished = graphExec->finished;
        graphExec->last_stream = stream;
    }
    if (previous && previous != stream) cudaStreamWaitEvent(stream, finished, 0);
    for (CUgraphExec_st::step& s : steps)
        if (s.work) enqueue(stream, std::move(s.work), std::move(s.label));
    cudaEventRecord(finished, stream);
    return cudaSuccess;
}

// Nothing to upload: the work is ready; the stream and the graph are checked.
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!graphExec || !live_execs.count(graphExec)) return record(cudaErrorInvalidValue);
    }
    if (!is_valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
    cudaEvent_t finished;
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!graphExec || !live_execs.erase(graphExec)) return record(cudaErrorInvalidValue);
        finished = graphExec->finished;
        delete graphExec;  // queued launches hold their own copies of the work
    }
    if (finished) cudaEventDestroy(finished);
    return cudaSuccess;
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams* pNodeParams,
                                             const char* cuemu_file, int cuemu_line) {
    if (!pNodeParams) return record(cudaErrorInvalidValue);
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!hGraphExec || !live_execs.count(hGraphExec)) return record(cudaErrorInvalidValue);
    }
    device_work work;
    work_label label;
    if (cudaError_t e = make_kernel_work(pNodeParams, cuemu_file, cuemu_line, &work, &label))
        return record(e);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!live_execs.count(hGraphExec)) return record(cudaErrorInvalidValue);
    for (CUgraphExec_st::step& s : hGraphExec->steps) {
        if (s.node != node && s.updated_from != node) continue;
        if (s.type != cudaGraphNodeTypeKernel) return record(cudaErrorInvalidValue);
        // CUDA does not let the update change the kernel of a node made by hand.
        if (s.kernel && s.kernel != pNodeParams->func) return record(cudaErrorInvalidValue);
        s.work = std::move(work);
        s.label = std::move(label);
        s.kernel = pNodeParams->func;
        return cudaSuccess;
    }
    return record(cudaErrorInvalidValue);  // not a node of the graph it was made from
}

// Takes every node's work from hGraph, which must have the same shape: in
// launch order (Kahn's, ties in the order nodes were added) the same node
// types with the same dependencies, kernel nodes keeping their kernel. The
// nodes pair up by that order.
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo* resultInfo) {
    if (!resultInfo) return record(cudaErrorInvalidValue);
    *resultInfo = {cudaGraphExecUpdateError, nullptr, nullptr};
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!hGraphExec || !live_execs.count(hGraphExec) || !is_live_graph_locked(hGraph))
        return record(cudaErrorInvalidValue);
    std::vector<cudaGraphNode_t> order;
    if (!launch_order_locked(hGraph, &order)) return record(cudaErrorInvalidValue);
    auto fail = [&](cudaGraphExecUpdateResult why, cudaGraphNode_t node) {
        *resultInfo = {why, node, nullptr};
        return record(cudaErrorGraphExecUpdateFailure);
    };
    auto& steps = hGraphExec->steps;
    if (order.size() != steps.size()) return fail(cudaGraphExecUpdateErrorTopologyChanged, nullptr);
    const std::vector<std::vector<size_t>> after = dependency_positions(order);
    for (size_t i = 0; i < order.size(); ++i) {
        cudaGraphNode_t n = order[i];
        const CUgraphExec_st::step& s = steps[i];
        if (after[i] != s.after) return fail(cudaGraphExecUpdateErrorTopologyChanged, n);
        if (n->type != s.type) return fail(cudaGraphExecUpdateErrorNodeTypeChanged, n);
        const void* kernel = n->has_kernel_params ? n->kernel_params.func : nullptr;
        if (s.type == cudaGraphNodeTypeKernel && s.kernel && kernel && s.kernel != kernel)
            return fail(cudaGraphExecUpdateErrorFunctionChanged, n);
    }
    for (size_t i = 0; i < order.size(); ++i) {
        cudaGraphNode_t n = order[i];
        steps[i].work = n->work;
        steps[i].label = n->label;
        steps[i].updated_from = n;
        if (n->has_kernel_params) steps[i].kernel = n->kernel_params.func;
    }
    *resultInfo = {cudaGraphExecUpdateSuccess, nullptr, nullptr};
    return cudaSuccess;
}
