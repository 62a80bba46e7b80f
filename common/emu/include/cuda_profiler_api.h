// <cuda_profiler_api.h> for emulator builds: cudaProfilerStart/Stop are
// declared in cuemu/runtime_extra.h (no profiler is attached: both succeed).
#define __CUDA_PROFILER_API_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#include "cuemu/cuemu.h"
