// cluster_refused.cu - thread block clusters are not emulated
// (emu.clusters.refused): cg::this_cluster() and its group stop the build at
// one error naming clusters, without a cascade of unknown names after it.
// (__cluster_dims__ on a kernel is refused by cuemu-rewrite, tested among the
// rewriter's cases.) nvcc builds this for compute capability 9.0.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void swap_with_neighbour(int* out) {
    __shared__ int mine;
    cg::cluster_group cluster = cg::this_cluster();
    mine = static_cast<int>(cluster.block_rank());
    cluster.sync();
    const int* theirs = cluster.map_shared_rank(&mine, (cluster.block_rank() + 1) % cluster.num_blocks());
    out[blockIdx.x] = *theirs;
    cluster.sync();
}

int main() { return 0; }
