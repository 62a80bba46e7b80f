// graph_user_objects.cpp - user objects: cudaUserObjectCreate, Retain and
// Release, cudaGraphRetainUserObject and cudaGraphReleaseUserObject, and the
// references graphs and executable graphs own (graphs.cpp and graph_exec.cpp
// call retain_user_objects_locked and release_user_objects).
//
// A user object is a reference count and a destructor. The destructor runs
// once, on the thread that gives back the last reference (CUDA runs it on an
// internal thread; cudaUserObjectNoDestructorSync, the only flag, says no
// CUDA call waits for it either way). An executable graph's references are
// given back by a piece of host work queued after its last launch, so the
// destructor runs once that launch's work is done, as in CUDA.
#include <climits>
#include <cstdio>
#include <mutex>
#include <unordered_set>

#include "cuemu/runtime.h"
#include "graph_internal.h"

struct CUuserObject_st {
    void* ptr;
    cudaHostFn_t destroy;
    unsigned long long references;  // guarded by objects_mutex()
};

using namespace cuemu::detail;

namespace {

std::mutex& objects_mutex() {
    static std::mutex m;
    return m;
}
std::unordered_set<cudaUserObject_t>& live_objects() {  // guarded by objects_mutex()
    static auto& s = *new std::unordered_set<cudaUserObject_t>;
    return s;
}

bool count_valid(unsigned int count) { return count != 0 && count <= unsigned(INT_MAX); }

bool is_live(cudaUserObject_t object) {
    std::lock_guard<std::mutex> lock(objects_mutex());
    return object && live_objects().count(object);
}

void retain(cudaUserObject_t object, unsigned long long count) {
    std::lock_guard<std::mutex> lock(objects_mutex());
    object->references += count;
}

// Gives back count references; the destructor runs (outside the lock) when
// they were the last. False when the object has fewer.
bool release(cudaUserObject_t object, unsigned long long count) {
    {
        std::lock_guard<std::mutex> lock(objects_mutex());
        if (!live_objects().count(object) || object->references < count) return false;
        object->references -= count;
        if (object->references != 0) return true;
        live_objects().erase(object);
    }
    if (object->destroy) object->destroy(object->ptr);
    delete object;
    return true;
}

}  // namespace

namespace cuemu::detail {

void retain_user_objects_locked(cudaGraph_t from, std::map<CUuserObject_st*, unsigned long long>* into,
                                bool with_children) {
    for (auto& [object, count] : from->user_objects) {
        retain(object, count);
        (*into)[object] += count;
    }
    if (!with_children) return;
    for (auto& n : from->nodes)
        if (n->child) retain_user_objects_locked(n->child, into, true);
}

void release_user_objects(std::map<CUuserObject_st*, unsigned long long>& refs) {
    for (auto& [object, count] : refs) release(object, count);
    refs.clear();
}

}  // namespace cuemu::detail

cudaError_t cudaUserObjectCreate(cudaUserObject_t* object_out, void* ptr, cudaHostFn_t destroy,
                                 unsigned int initialRefcount, unsigned int flags) {
    // cudaUserObjectNoDestructorSync is required (the only flag there is).
    if (!object_out || !destroy || !count_valid(initialRefcount) ||
        flags != cudaUserObjectNoDestructorSync)
        return record(cudaErrorInvalidValue);
    auto* object = new CUuserObject_st{ptr, destroy, initialRefcount};
    {
        std::lock_guard<std::mutex> lock(objects_mutex());
        live_objects().insert(object);
    }
    *object_out = object;
    return cudaSuccess;
}

cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count) {
    if (!count_valid(count) || !is_live(object)) return record(cudaErrorInvalidValue);
    retain(object, count);
    return cudaSuccess;
}

cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count) {
    if (!count_valid(count)) return record(cudaErrorInvalidValue);
    if (!release(object, count)) {
        std::fprintf(stderr, "cuemu: cudaUserObjectRelease: %s\n",
                     is_live(object) ? "more references released than the object has"
                                     : "the user object was destroyed (its last reference went) "
                                       "or never created");
        return record(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count,
                                      unsigned int flags) {
    if (!count_valid(count) || (flags & ~unsigned(cudaGraphUserObjectMove)) || !is_live(object))
        return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(graph)) return record(cudaErrorInvalidValue);
    // With cudaGraphUserObjectMove the caller's references become the graph's.
    if (!(flags & cudaGraphUserObjectMove)) retain(object, count);
    graph->user_objects[object] += count;
    return cudaSuccess;
}

cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count) {
    if (!count_valid(count)) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_live_graph_locked(graph)) return record(cudaErrorInvalidValue);
    auto it = graph->user_objects.find(object);
    if (it == graph->user_objects.end() || it->second < count) {
        std::fprintf(stderr, "cuemu: cudaGraphReleaseUserObject: the graph owns %llu reference(s) to "
                             "this user object, fewer than the %u released\n",
                     it == graph->user_objects.end() ? 0ULL : it->second, count);
        return record(cudaErrorInvalidValue);
    }
    if ((it->second -= count) == 0) graph->user_objects.erase(it);
    release(object, count);
    return cudaSuccess;
}
