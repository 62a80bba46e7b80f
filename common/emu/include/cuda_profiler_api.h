// <cuda_profiler_api.h> for emulator builds: cudaProfilerStart/Stop are
// declared in cuemu/runtime_extra.h (no profiler is attached: both succeed).
#include "cuemu/cuemu.h"
