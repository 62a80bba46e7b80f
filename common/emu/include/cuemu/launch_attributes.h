// cuemu/launch_attributes.h - cudaLaunchKernelEx and cudaLaunchKernelExC: a
// launch configured by a cudaLaunchConfig_t with a list of attributes, and
// the device side of programmatic dependent launch. Which attributes do what
// here is in src/launch_attributes.cpp and common/emu/README.md ("Launches
// with attributes").
#ifndef CUEMU_LAUNCH_ATTRIBUTES_H
#define CUEMU_LAUNCH_ATTRIBUTES_H

#include <cstddef>
#include <utility>

#include "runtime.h"  // first: graphs.h and runtime_extra.h build on it
#include "graphs.h"
#include "launch.h"
#include "runtime_extra.h"
#include "types.h"

typedef struct cudaLaunchAttribute_st {
    cudaLaunchAttributeID id;
    char pad[8 - sizeof(cudaLaunchAttributeID)];
    cudaLaunchAttributeValue val;
} cudaLaunchAttribute;

// CUDA's layout. gridDim and blockDim are macros in a program built for the
// emulator (builtins.h): config.gridDim becomes config.__cuemu_grid_dim(),
// which these member functions answer with the members, as for
// graphs.h's kernel node parameters.
typedef struct cudaLaunchConfig_st {
    dim3 grid_dim_member;   // gridDim
    dim3 block_dim_member;  // blockDim
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute* attrs;  // may be null when numAttrs is 0
    unsigned int numAttrs;

    dim3& __cuemu_grid_dim() { return grid_dim_member; }
    const dim3& __cuemu_grid_dim() const { return grid_dim_member; }
    dim3& __cuemu_block_dim() { return block_dim_member; }
    const dim3& __cuemu_block_dim() const { return block_dim_member; }
} cudaLaunchConfig_t;

namespace cuemu {
// The launch the configuration asks for, into *out: cudaSuccess, or the error
// for an attribute that is unknown, bad, or not emulated (with a line).
cudaError_t launch_config_with_attributes(const cudaLaunchConfig_t* config, launch_config* out,
                                          const char* file, int line);
// After the launch: the events its attributes ask to be recorded
// (cudaLaunchAttributeProgrammaticEvent, ...LaunchCompletionEvent).
cudaError_t record_attribute_events(const cudaLaunchConfig_t* config);
}  // namespace cuemu

#define CUEMU_CALLER const char *cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()

// The C API: the kernel by its address, found among those cuemu-rewrite
// registered, as for cudaLaunchKernel((void*)kernel, ...).
template <class T, class = std::enable_if_t<std::is_void_v<T>>>
inline cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const T* func,
                                       void** args, CUEMU_CALLER) {
    ::cuemu::launch_config launch{dim3(), dim3()};
    if (cudaError_t e = ::cuemu::launch_config_with_attributes(config, &launch, cuemu_file, cuemu_line))
        return e;
    if (cudaError_t e = ::cuemu::launch_by_address("cudaLaunchKernelExC", func, launch, args,
                                                   cuemu_file, cuemu_line))
        return e;
    return ::cuemu::record_attribute_events(config);
}

namespace cuemu {
// The configuration with the caller's file and line: the argument packs of
// cudaLaunchKernelEx leave no room for defaulted parameters after them, so
// the conversion from the program's pointer takes them.
struct launch_config_at {
    const cudaLaunchConfig_t* config;
    const char* file;
    int line;
    launch_config_at(const cudaLaunchConfig_t* c, const char* f = __builtin_FILE(),
                     int l = __builtin_LINE())
        : config(c), file(f), line(l) {}
};
}  // namespace cuemu

// The C++ form: the arguments converted to the kernel's parameter types
// first, as CUDA's own template does.
template <class... Params, class... Args>
inline cudaError_t cudaLaunchKernelEx(::cuemu::launch_config_at at, void (*kernel)(Params...),
                                      Args&&... args) {
    ::cuemu::launch_config launch{dim3(), dim3()};
    if (cudaError_t e = ::cuemu::launch_config_with_attributes(at.config, &launch, at.file, at.line))
        return e;
    const cudaError_t e = [&](Params... coerced) {
        void* pointers[] = {static_cast<void*>(&coerced)..., nullptr};
        return ::cuemu::launch_kernel_pointer(
            ::cuemu::launch_site{"(a kernel launched with cudaLaunchKernelEx)", at.file, at.line},
            launch, kernel, pointers);
    }(std::forward<Args>(args)...);
    if (e != cudaSuccess) return e;
    return ::cuemu::record_attribute_events(at.config);
}

// Programmatic dependent launch, in the kernel: a launch here starts only
// once the work before it on its stream is done, so what
// cudaGridDependencySynchronize waits for has always happened, and
// cudaTriggerProgrammaticLaunchCompletion has nothing to let start early.
inline void cudaGridDependencySynchronize() {}
inline void cudaTriggerProgrammaticLaunchCompletion() {}

#undef CUEMU_CALLER
#endif
