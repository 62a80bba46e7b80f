// kernel_registry.cpp - the kernels known by address (cuemu/kernel_registry.h):
// filled at static initialization by the rewritten program's
// CUEMU_KNOWN_KERNEL and CUEMU_KNOWN_TEMPLATE_KERNEL lines, read when a kernel is named by its void* address
// (a graph's kernel node, cudaLaunchKernel((void*)kernel, ...)).
#include <cstdio>
#include <mutex>
#include <unordered_map>

#include "cuemu/kernel_registry.h"
#include "cuemu/runtime.h"
#include "cuemu/runtime_extra.h"
#include "internal.h"

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

// cudaLaunchKernel((void*)kernel, ...) and the cooperative form. An address
// that is no kernel (a host function's) is cudaErrorInvalidResourceHandle, as
// an H200 answers (CUDA 13.0).
cudaError_t launch_by_address(const char* api, const void* func, const launch_config& config,
                              void** args, const char* file, int line) {
    known_kernel kernel;
    if (!func || !find_kernel(func, &kernel)) {
        std::fprintf(stderr,
                     "cuemu: %s:%d: %s: %p is no kernel the emulator knows by its address: a host "
                     "function's, or a kernel the emulator could not register (kernels defined "
                     "once at namespace scope of a file built for the emulator are, template "
                     "instantiations too); pass the kernel itself (%s(kernel, ...)), whose type "
                     "says its parameters\n",
                     file, line, api, func, api);
        return detail::record(cudaErrorInvalidResourceHandle);
    }
    return kernel.launch(launch_site{kernel.name, file, line}, config, func, args);
}

}  // namespace cuemu
