// Removed in CUDA 13's CUB, which has no such header (nvcc 13 stops here too).
#error "<cub/iterator/counting_input_iterator.cuh> (cub::CountingInputIterator) was removed in CUDA 13's CUB: use thrust::counting_iterator from <thrust/iterator/counting_iterator.h>"
