// <nvtx3/nvToolsExtCudaRt.h> for emulator builds: NVTX's names for the
// runtime's devices, streams and events. Like the rest of NVTX here
// (nvToolsExt.h), they do nothing: no NVTX tool attaches to the emulator.
#ifndef CUEMU_NVTOOLSEXTCUDART_H
#define CUEMU_NVTOOLSEXTCUDART_H
#define NVTOOLSEXT_CUDART_V3  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include <cuda_runtime.h>

#include "nvToolsExt.h"

inline void nvtxNameCudaDeviceA(int, const char*) {}
inline void nvtxNameCudaDeviceW(int, const wchar_t*) {}
inline void nvtxNameCudaStreamA(cudaStream_t, const char*) {}
inline void nvtxNameCudaStreamW(cudaStream_t, const wchar_t*) {}
inline void nvtxNameCudaEventA(cudaEvent_t, const char*) {}
inline void nvtxNameCudaEventW(cudaEvent_t, const wchar_t*) {}

#endif
