// <thrust/system/cuda/execution_policy.h> on the emulator: this folder comes
// before the system's Thrust, whose CUDA backend cannot be built for a CPU.
// thrust::cuda::par, par_nosync and .on(stream) are the emulator's device
// system's policies (thrust/system/cuemu/detail/par.h).
#pragma once

#include <thrust/execution_policy.h>
