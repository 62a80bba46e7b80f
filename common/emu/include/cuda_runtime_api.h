// <cuda_runtime_api.h> for emulator builds: the emulator is the runtime.
#include "cuemu/cuemu.h"
