// <host_defines.h> for emulator builds: __host__, __device__, __align__ and the
// other qualifiers are defined by the emulator (cuemu/cuemu.h).
// nvcc 13 warns when a program includes it directly (an internal header of
// the toolkit); so does the emulator.
#warning "host_defines.h is an internal header of CUDA (nvcc 13 warns about it too): include cuda_runtime.h instead"
#include "cuemu/cuemu.h"
