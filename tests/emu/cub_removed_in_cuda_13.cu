// cub_removed_in_cuda_13.cu - CUB names that CUDA 13's CUB removed, each used
// once: nvcc 13 refuses every one of these lines, so the emulator must stop
// the build too, with a message naming the name and its replacement
// (common/emu/cub/include/cub/detail/removed_in_cuda_13.cuh; test
// emu.cub.removed-in-cuda-13 checks each message is there).
#include <cub/cub.cuh>
#include <cub/iterator/counting_input_iterator.cuh>
#include <cub/iterator/transform_input_iterator.cuh>

struct negate {
    __host__ __device__ int operator()(int x) const { return -x; }
};

__global__ void uses_removed_names(int* data) {
    cub::CTA_SYNC();
    data[0] = cub::CTA_SYNC_AND(data[1] > 0) + cub::CTA_SYNC_OR(data[2] > 0);
    cub::WARP_SYNC(0xffffffffu);
    data[3] = static_cast<int>(cub::LaneId() + cub::WarpId());
    data[4] = CUB_MAX(data[5], data[6]) + CUB_MIN(data[5], data[6]);
    data[7] = CUB_QUOTIENT_CEILING(data[8], 32) + CUB_ROUND_UP_NEAREST(data[8], 32);
}

int main() {
    int* data = nullptr;
    cudaMalloc(&data, 16 * sizeof(int));
    void* temp = nullptr;
    size_t bytes = 0;
    cub::DeviceReduce::Reduce(temp, bytes, data, data + 9, 8, cub::Sum(), 0);
    cub::DeviceReduce::Reduce(temp, bytes, data, data + 9, 8, cub::Max(), 0);
    cub::DeviceReduce::Reduce(temp, bytes, data, data + 9, 8, cub::Min(), 0);
    cub::Equality equal;
    cub::Inequality unequal;
    (void)equal;
    (void)unequal;
    cub::CountingInputIterator<int> counting(0);
    cub::TransformInputIterator<int, negate, int*> negated(data, negate());
    (void)counting;
    (void)negated;
    uses_removed_names<<<1, 32>>>(data);
    return 0;
}
