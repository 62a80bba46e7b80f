// symbols.cpp - __constant__ and __device__ variables ("symbols"): the
// symbol API (cudaMemcpyToSymbol, cudaMemcpyFromSymbol, their Async forms,
// cudaGetSymbolAddress, cudaGetSymbolSize; templates in runtime.h that call
// symbol_copy and symbol_address), and the variables used through it, which
// count as device memory from then on (memory.cpp asks in_symbol).
#include <dlfcn.h>

#include <cstddef>
#include <map>
#include <mutex>

#include "cuemu/runtime.h"
#include "cuemu/graphs.h"
#include "internal.h"
#include "memory_registry.h"

namespace cuemu::detail {
namespace {

// Guarded by registry_mutex; never destroyed, as the registry (memory.cpp).
auto& symbols = *new std::map<const char*, std::size_t>;  // __device__/__constant__ variables: begin -> size

}  // namespace

// True when [p, p + n) lies inside one registered __device__/__constant__ variable.
bool in_symbol(const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    auto it = symbols.upper_bound(c);
    if (it == symbols.begin()) return false;
    --it;
    return c < it->first + it->second && static_cast<std::size_t>(it->first + it->second - c) >= n;
}

void register_symbol(const void* begin, std::size_t size) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    symbols[static_cast<const char*>(begin)] = size;
}

}  // namespace cuemu::detail

using namespace cuemu::detail;

namespace {
// A symbol is a global variable: its address lies in the program or a shared
// library it loaded. A local or heap object is not one (cudaErrorInvalidSymbol).
bool is_global_variable(const void* p) {
    Dl_info info{};
    return dladdr(p, &info) != 0 && info.dli_fname != nullptr;
}
}  // namespace

cudaError_t cuemu::symbol_address(void** address, std::size_t* size, const void* symbol,
                                  std::size_t symbol_size) {
    if (cudaError_t e = context_status()) return e;
    if ((address == nullptr) == (size == nullptr)) return record(cudaErrorInvalidValue);
    if (!is_global_variable(symbol)) return record(cudaErrorInvalidSymbol);
    register_symbol(symbol, symbol_size);
    if (address) *address = const_cast<void*>(symbol);
    if (size) *size = symbol_size;
    return cudaSuccess;
}

cudaError_t cuemu::symbol_copy_ends(void* symbol, std::size_t symbol_size, std::size_t offset,
                                    void* other, std::size_t count, cudaMemcpyKind kind,
                                    bool to_symbol, void** dst, const void** src) {
    if (cudaError_t e = context_status()) return e;
    if (!is_global_variable(symbol)) return record(cudaErrorInvalidSymbol);
    if (offset > symbol_size || count > symbol_size - offset) return record(cudaErrorInvalidValue);
    // To a symbol: from the host or from device memory; from a symbol: to either.
    const bool direction_ok =
        kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault ||
        kind == (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    if (!direction_ok) return record(cudaErrorInvalidMemcpyDirection);
    register_symbol(symbol, symbol_size);
    char* at = static_cast<char*>(symbol) + offset;
    *dst = to_symbol ? at : other;
    *src = to_symbol ? static_cast<const void*>(other) : at;
    return cudaSuccess;
}

cudaError_t cuemu::symbol_copy(void* symbol, std::size_t symbol_size, std::size_t offset,
                               void* other, std::size_t count, cudaMemcpyKind kind,
                               bool to_symbol, bool async, cudaStream_t stream) {
    void* dst;
    const void* src;
    if (cudaError_t e = symbol_copy_ends(symbol, symbol_size, offset, other, count, kind, to_symbol,
                                         &dst, &src))
        return e;
    return async ? cudaMemcpyAsync(dst, src, count, kind, stream)
                 : cudaMemcpy(dst, src, count, kind);
}
