// kernel_registry.cpp - the kernels known by address (cuemu/kernel_registry.h):
// filled at static initialization by the rewritten program's
// CUEMU_KNOWN_KERNEL lines, read when a graph's kernel node names a kernel
// by its void* address.
#include <mutex>
#include <unordered_map>

#include "cuemu/kernel_registry.h"

namespace cuemu {
namespace {

std::mutex& registry_lock() {
    static std::mutex m;
    return m;
}
// Filled during static initialization of other files: made on first use.
std::unordered_map<const void*, known_kernel>& known_kernels() {
    static auto* kernels = new std::unordered_map<const void*, known_kernel>;
    return *kernels;
}

}  // namespace

void register_kernel(const void* address, const char* name, registered_launcher launch) {
    std::lock_guard<std::mutex> lock(registry_lock());
    known_kernels()[address] = known_kernel{name, launch};
}

bool find_kernel(const void* address, known_kernel* out) {
    std::lock_guard<std::mutex> lock(registry_lock());
    auto it = known_kernels().find(address);
    if (it == known_kernels().end()) return false;
    *out = it->second;
    return true;
}

}  // namespace cuemu
