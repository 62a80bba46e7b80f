// cg_scan_refused.cu - what <cooperative_groups/scan.h> refuses, as nvcc 13
// refuses it too (emu.cg-scan.refused): a scan over a whole block (CUDA scans
// tiles and coalesced groups only) and an operator that returns another type.
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

struct to_double {
    __device__ double operator()(int a, int b) const { return a + b; }
};

__global__ void block_scan(int* out) {
    out[threadIdx.x] = cg::inclusive_scan(cg::this_thread_block(), 1);
}

__global__ void scan_to_another_type(double* out) {
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    out[threadIdx.x] = cg::exclusive_scan(warp, 1, to_double());
}

int main() { return 0; }
