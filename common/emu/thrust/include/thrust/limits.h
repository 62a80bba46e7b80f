// Removed in CUDA 13's Thrust, which has no such header (nvcc 13 stops here too).
#error "<thrust/limits.h> (thrust::numeric_limits) was removed in CUDA 13's Thrust: use cuda::std::numeric_limits from <cuda/std/limits>"
