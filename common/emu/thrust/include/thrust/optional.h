// Removed in CUDA 13's Thrust, which has no such header (nvcc 13 stops here too).
#error "<thrust/optional.h> (thrust::optional) was removed in CUDA 13's Thrust: use cuda::std::optional from <cuda/std/optional>"
