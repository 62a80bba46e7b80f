// <cuda_occupancy.h> for emulator builds: the header-only occupancy calculator
// (cudaOcc*) is not emulated; the build stops here, naming it. The runtime's
// own cudaOccupancyMaxActiveBlocksPerMultiprocessor and
// cudaOccupancyMaxPotentialBlockSize are (cuda_runtime.h).
#error "cuemu does not emulate the occupancy calculator of <cuda_occupancy.h>; use cudaOccupancyMaxActiveBlocksPerMultiprocessor from <cuda_runtime.h>, or build this program with nvcc for a GPU"
