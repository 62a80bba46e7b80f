// kernel_facts.cpp - what the emulator knows of each kernel, by its address,
// in one place: what the rewritten program registers at static
// initialization (its __launch_bounds__ and static __shared__ bytes,
// kernel_registry.h) and what cudaFuncSetAttribute sets (the dynamic shared
// memory it opts in to, the carveout). cudaFuncGetAttributes answers from it,
// and every launch reads it once (launch_limits_of, for launch_checks.cpp):
// one lock and one lookup a launch.
#include <map>
#include <mutex>

#include "cuemu/kernel_registry.h"
#include "cuemu/runtime.h"
#include "internal.h"

namespace cuemu::detail {
namespace {

struct kernel_facts {
    int max_threads = 1024;  // __launch_bounds__
    std::map<int, std::size_t> static_shared_parts;  // by declaration number (a twin repeats them)
    std::size_t static_bytes = 0;                    // their sum
    int opted_in = -1;  // cudaFuncAttributeMaxDynamicSharedMemorySize; -1: not set
    int carveout = cudaSharedmemCarveoutDefault;

    // Without an opt-in, a GPU lets dynamic shared memory fill what the
    // static bytes leave of the 48 KiB a block may have.
    std::size_t dynamic_limit() const {
        if (opted_in >= 0) return static_cast<std::size_t>(opted_in);
        return static_bytes < shared_per_block ? shared_per_block - static_bytes : 0;
    }
};

// Function-local: static initializers of other files register into it
// before main.
std::mutex& facts_mutex() {
    static std::mutex m;
    return m;
}
std::map<const void*, kernel_facts>& facts() {
    static std::map<const void*, kernel_facts> known;
    return known;
}
// The kernel's facts, or the defaults for one nothing was said of. The
// caller holds facts_mutex().
const kernel_facts& facts_of_locked(const void* kernel) {
    static const kernel_facts defaults;
    auto it = facts().find(kernel);
    return it == facts().end() ? defaults : it->second;
}

}  // namespace

launch_limits launch_limits_of(const void* kernel) {
    std::lock_guard<std::mutex> lock(facts_mutex());
    const kernel_facts& f = facts_of_locked(kernel);
    return launch_limits{f.max_threads, f.static_bytes, f.dynamic_limit(), f.opted_in >= 0};
}

}  // namespace cuemu::detail

using namespace cuemu::detail;

bool cuemu::note_launch_bounds(const void* kernel, long long max_threads) {
    if (!kernel || max_threads < 1 || max_threads > 1024) return false;  // a GPU's compiler refuses those
    std::lock_guard<std::mutex> lock(facts_mutex());
    facts()[kernel].max_threads = static_cast<int>(max_threads);
    return true;
}

bool cuemu::note_static_shared(const void* kernel, int part, unsigned long long bytes) {
    if (!kernel) return false;  // a name the resolver could not pin to one kernel
    std::lock_guard<std::mutex> lock(facts_mutex());
    kernel_facts& f = facts()[kernel];
    f.static_shared_parts[part] = static_cast<std::size_t>(bytes);
    f.static_bytes = 0;
    for (const auto& p : f.static_shared_parts) f.static_bytes += p.second;
    return true;
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, const void* func) {
    if (!attributes) return record(cudaErrorInvalidValue);
    if (!func) return record(cudaErrorInvalidDeviceFunction);
    std::lock_guard<std::mutex> lock(facts_mutex());
    const kernel_facts& f = facts_of_locked(func);
    cudaFuncAttributes a{};
    a.maxThreadsPerBlock = f.max_threads;
    a.ptxVersion = 75;
    a.binaryVersion = 75;
    a.sharedSizeBytes = f.static_bytes;
    a.maxDynamicSharedSizeBytes = static_cast<int>(f.dynamic_limit());
    a.preferredShmemCarveout = f.carveout;
    *attributes = a;
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attribute, int value) {
    if (!func) return record(cudaErrorInvalidDeviceFunction);
    std::lock_guard<std::mutex> lock(facts_mutex());
    switch (attribute) {
        case cudaFuncAttributeMaxDynamicSharedMemorySize: {
            // With the static bytes, up to the device's sharedMemPerBlockOptin
            // (as CUDA documents it); launches check against it.
            const std::size_t static_bytes = facts_of_locked(func).static_bytes;
            if (value < 0 || static_cast<std::size_t>(value) + static_bytes > shared_per_block_optin)
                return record(cudaErrorInvalidValue);
            facts()[func].opted_in = value;
            return cudaSuccess;
        }
        case cudaFuncAttributePreferredSharedMemoryCarveout:
            if (value < cudaSharedmemCarveoutDefault || value > cudaSharedmemCarveoutMaxShared)
                return record(cudaErrorInvalidValue);
            facts()[func].carveout = value;
            return cudaSuccess;
        default:
            // The cluster attributes need compute capability 9.0; the device reports 7.5.
            return record(cudaErrorInvalidValue);
    }
}
