// Removed in CUDA 13's CUB, which has no such header (nvcc 13 stops here too).
#error "<cub/iterator/transform_input_iterator.cuh> (cub::TransformInputIterator) was removed in CUDA 13's CUB: use thrust::transform_iterator from <thrust/iterator/transform_iterator.h>"
