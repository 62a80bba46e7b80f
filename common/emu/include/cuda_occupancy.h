// <cuda_occupancy.h> for emulator builds: the header-only occupancy calculator
// (cudaOcc*) is not emulated; the build stops here, naming it. The runtime's
// own cudaOccupancyMaxActiveBlocksPerMultiprocessor and
// cudaOccupancyMaxPotentialBlockSize are (cuda_runtime.h).
#define __cuda_occupancy_h__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#error "cuemu does not emulate the occupancy calculator of <cuda_occupancy.h>; use cudaOccupancyMaxActiveBlocksPerMultiprocessor from <cuda_runtime.h>, or build this program with nvcc for a GPU"
