// clangd_cuda.h - for editors only: lets clangd (VS Code's clangd extension,
// configured in .clangd) read a .cu file in CUDA mode against the emulator's
// headers, with or without a CUDA toolkit installed. Never part of a build.
//
// clangd's CUDA mode checks which side (host or device) may call what. The
// emulator runs everything on the host, so from here to the end of the file
// being edited every function without a CUDA keyword counts as both host and
// device (the bugs that rule would catch, the emulator build reports). The
// CUDA keywords become clang's own attributes again (the emulator defines
// them away) so that kernel launches <<<...>>> parse. clang's <new> wrapper
// needs malloc and free on both sides and __device__ defined before it is
// first included.
#pragma clang force_cuda_host_device begin
#include <stdlib.h>
#pragma clang force_cuda_host_device end
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#include <new>
#undef __device__
#undef __host__

#pragma clang force_cuda_host_device begin
#include "cuemu/cuemu.h"

#undef __global__
#undef __device__
#undef __host__
#undef __shared__
#undef __constant__
#undef __managed__
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
// Memory spaces mean nothing to an editor (and __shared__ arrays inside
// __device__ functions, which the rule above makes host too, would be refused).
#define __shared__
#define __constant__
#define __managed__

// What clang calls for each kernel<<<grid, block, shared, stream>>>(...).
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_bytes = 0,
                                                void* stream = nullptr);
