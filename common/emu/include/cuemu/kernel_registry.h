// cuemu/kernel_registry.h - a kernel found from its address (src/kernel_registry.cpp).
//
// CUDA's C API names a kernel by a void* (cudaKernelNodeParams::func =
// (void*)kernel). The emulator must know the kernel's parameter types to read
// its arguments, and a void* has lost them. So cuemu-rewrite follows each
// plain kernel definition (defined once at namespace scope: the kernels that
// get a twin, launch.h) with CUEMU_KNOWN_KERNEL(name), which registers the
// address with a launcher that knows the types; a template kernel's body
// starts with CUEMU_KNOWN_TEMPLATE_KERNEL(name, its template arguments),
// which registers each instantiation the program makes. A kernel the
// registry does not know (a name defined twice, a kernel in a library not
// rewritten) is refused where it is used, with a line saying why.
#ifndef CUEMU_KERNEL_REGISTRY_H
#define CUEMU_KERNEL_REGISTRY_H

#include <type_traits>

#include "launch.h"

namespace cuemu {

// Queues a launch of the kernel at `address`, its arguments read from args
// as cudaLaunchKernel reads them; returns the launch's own error.
using registered_launcher = cudaError_t (*)(const launch_site& site, const launch_config& config,
                                            const void* address, void** args);
struct known_kernel {
    const char* name = nullptr;  // as the definition spells it
    registered_launcher launch = nullptr;
};

void register_kernel(const void* address, const char* name, registered_launcher launch);
// False for an address no rewritten definition registered.
bool find_kernel(const void* address, known_kernel* out);

template <class... P>
cudaError_t launch_registered(const launch_site& site, const launch_config& config,
                              const void* address, void** args) {
    auto kernel = reinterpret_cast<void (*)(P...)>(const_cast<void*>(address));
    return launch_kernel_pointer(site, config, kernel, args);
}

// A kernel with a reference parameter has no parameter memory to copy into
// (its launches go through the kernel itself): it is not registered.
template <class... P>
bool register_kernel_pointer(void (*kernel)(P...), const char* name) {
    if constexpr ((!std::is_reference_v<P> && ...))
        register_kernel(reinterpret_cast<const void*>(kernel), name, &launch_registered<P...>);
    return true;
}

// The address of a kernel named by an overload set of one function; a name
// with several overloads does not deduce, and is then not registered (the
// request type only makes the call depend on the resolver's parameter).
template <class Request, class F>
F* kernel_address_of(F* kernel) {
    return kernel;
}
template <class Resolver>
bool note_kernel_address(Resolver resolve, const char* name) {
    if constexpr (std::is_invocable_v<Resolver, int>) register_kernel_pointer(resolve(0), name);
    return true;
}

// Instantiated for a class local to a template kernel's body
// (CUEMU_KNOWN_TEMPLATE_KERNEL), once per instantiation of the kernel: its
// initialization, at static initialization, registers that instantiation.
template <class Probe>
struct known_instantiation {
    static const bool noted;
};
template <class Probe>
const bool known_instantiation<Probe>::noted = note_kernel_address(Probe::resolver(), Probe::spelling());

// A kernel's __launch_bounds__(max_threads, ...): a launch of more threads a
// block is refused, as on a GPU, and cudaFuncGetAttributes reports it as the
// kernel's maxThreadsPerBlock (kernel_facts.cpp).
bool note_launch_bounds(const void* kernel, long long max_threads);

// A kernel's static __shared__ bytes, noted in parts: one per declaration,
// numbered within the kernel, so that a part noted twice (a kernel's twin
// repeats its body) counts once. Launches add them to their dynamic shared
// memory, and cudaFuncGetAttributes reports them as sharedSizeBytes.
bool note_static_shared(const void* kernel, int part, unsigned long long bytes);

template <class Resolver>
const void* resolved_kernel_address(Resolver resolve) {
    if constexpr (std::is_invocable_v<Resolver, int>) return reinterpret_cast<const void*>(resolve(0));
    return nullptr;
}

// Instantiated for a class local to the kernel's body (CUEMU_STATIC_SHARED),
// which alone can name the body's variables; a template's static member is
// initialized at static initialization, before main launches anything.
template <class Probe, int Part>
struct static_shared_part {
    static const bool noted;
};
template <class Probe, int Part>
const bool static_shared_part<Probe, Part>::noted =
    note_static_shared(resolved_kernel_address(Probe::kernel()), Part, Probe::bytes());

}  // namespace cuemu

// A generic lambda giving the address of the kernel `name` names, callable
// only where the name is one function (an overload set does not deduce).
#define CUEMU_KERNEL_RESOLVER(name)                                                        \
    [](auto cuemu_request_) -> decltype(::cuemu::kernel_address_of<decltype(cuemu_request_)>(name)) { \
        return ::cuemu::kernel_address_of<decltype(cuemu_request_)>(name);                 \
    }

// After a kernel's definition (cuemu-rewrite emits it; a hand-written program
// may too): registers the kernel's address at static initialization.
#define CUEMU_KNOWN_KERNEL(name)                                                           \
    static const bool __cuemu_known_kernel_##name __attribute__((unused)) =                \
        ::cuemu::note_kernel_address(CUEMU_KERNEL_RESOLVER(name), #name);

// At the start of the body of the template kernel `name` (cuemu-rewrite emits
// it, with the template's own parameters as the arguments: `T, N, Ts...`):
// each instantiation of the kernel, however the program makes it (its
// address taken, a launch), is registered, as CUEMU_KNOWN_KERNEL registers a
// plain kernel. Naming `noted` in a function nobody calls instantiates it, as
// for CUEMU_STATIC_SHARED below.
#define CUEMU_KNOWN_TEMPLATE_KERNEL(name, ...)                                             \
    struct __cuemu_known_template_kernel {                                                 \
        static const char* spelling() { return #name; }                                    \
        static auto resolver() {                                                           \
            return [](auto cuemu_request_)                                                 \
                       -> decltype(::cuemu::kernel_address_of<decltype(cuemu_request_)>(   \
                           name<__VA_ARGS__>)) {                                           \
                return ::cuemu::kernel_address_of<decltype(cuemu_request_)>(name<__VA_ARGS__>); \
            };                                                                             \
        }                                                                                  \
        static bool noted() {                                                              \
            return ::cuemu::known_instantiation<__cuemu_known_template_kernel>::noted;     \
        }                                                                                  \
    };

// Right after a __shared__ declaration in the body of the kernel `name`
// (cuemu-rewrite emits it, on the declaration's line): `byte_count` is sizeof of
// the variables it declares, computed where their names and types are seen.
// Naming `noted` in a function nobody calls is enough for the compiler to
// instantiate and initialize it, and the kernel itself reads nothing more
// (the memory counters see no extra load).
#define CUEMU_STATIC_SHARED(name, part, byte_count)                                        \
    struct __cuemu_static_shared_##part {                                                  \
        static unsigned long long bytes() { return (byte_count); }                         \
        static auto kernel() { return CUEMU_KERNEL_RESOLVER(name); }                       \
        static bool noted() {                                                              \
            return ::cuemu::static_shared_part<__cuemu_static_shared_##part, part>::noted; \
        }                                                                                  \
    };

// After the definition of a kernel whose head names __launch_bounds__ (the
// first argument, as written; cuemu-rewrite emits it for a non-template kernel
// defined once in the file).
#define CUEMU_LAUNCH_BOUNDS(name, max_threads)                                             \
    static const bool __cuemu_launch_bounds_##name __attribute__((unused)) =               \
        ::cuemu::note_launch_bounds(reinterpret_cast<const void*>(&name),                  \
                                    static_cast<long long>(max_threads));

#endif
