// <crt/host_defines.h> for emulator builds: the qualifiers are the emulator's
// (cuemu/cuemu.h).
// nvcc 13 warns when a program includes it directly (an internal header of
// the toolkit); so does the emulator.
#warning "crt/host_defines.h is an internal header of CUDA (nvcc 13 warns about it too): include cuda_runtime.h instead"
#include "cuemu/cuemu.h"
