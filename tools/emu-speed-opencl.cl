// emu-speed-opencl.cl - the kernels of tools/emu-speed.cu in OpenCL C, for
// tools/emu-speed-opencl.cpp to run on PoCL, the CPU OpenCL implementation that
// compiles kernels with LLVM and splits them at their barriers: the emulator's
// nearest peer. Each kernel does what its CUDA twin does, with the same block
// (work-group) shapes; only the sum differs, where noted.

__kernel void vector_add(__global const float* a, __global const float* b, __global float* c,
                         int n) {
    int i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}

__kernel void empty_kernel(void) {}

#define TILE 16

// Work-groups of TILE x TILE; n a multiple of TILE, so no bounds checks.
__kernel void tiled_matmul(__global const float* a, __global const float* b, __global float* c,
                           int n) {
    __local float ta[TILE][TILE], tb[TILE][TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * TILE + ty, col = get_group_id(0) * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        ta[ty][tx] = a[row * n + t * TILE + tx];
        tb[ty][tx] = b[(t * TILE + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);  // the tile is loaded
        for (int k = 0; k < TILE; ++k) sum += ta[ty][k] * tb[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone is done with it before the next load
    }
    c[row * n + col] = sum;
}

#define BLOCK 256

// A tree in local memory, halving the active work-items at each barrier, then
// one atomic_add per work-group: the portable OpenCL 1.2 reduction. The CUDA
// twin's warp shuffles would be sub-group functions here (cl_khr_subgroups),
// which PoCL 3.1's CPU device does not offer (the extension is not among its
// extensions, and it reports CL_DEVICE_MAX_NUM_SUB_GROUPS = 0), so this kernel
// trades the shuffles for log2(BLOCK) = 8 more barriers.
// Work-groups of BLOCK work-items.
__kernel void sum_reduction(__global const int* x, int n, __global int* total) {
    __local int partial[BLOCK];
    int i = get_global_id(0), lid = get_local_id(0);
    partial[lid] = i < n ? x[i] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int active = BLOCK / 2; active > 0; active /= 2) {
        if (lid < active) partial[lid] += partial[lid + active];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) atomic_add(total, partial[0]);
}

#define BINS 256

// Work-groups of BINS work-items: each clears and publishes its own bin.
__kernel void histogram(__global const uchar* x, int n, __global uint* counts) {
    __local uint block_counts[BINS];
    int lid = get_local_id(0);
    block_counts[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);  // the bins are cleared
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) atomic_inc(&block_counts[x[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);  // the group's bytes are counted
    atomic_add(&counts[lid], block_counts[lid]);
}
