// cg_reduce_refused.cu - what <cooperative_groups/reduce.h> refuses, as nvcc 13
// refuses it too (emu.cg-reduce.refused): a reduction over a whole block (nvcc:
// "This group does not exclusively represent a tile"), in one error, without
// the errors of the body that a tile would have run.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void block_sum(int* out) {
    cg::thread_block block = cg::this_thread_block();
    const int total = cg::reduce(block, static_cast<int>(threadIdx.x), cg::plus<int>());
    if (block.thread_rank() == 0) *out = total;
}

int main() { return 0; }
