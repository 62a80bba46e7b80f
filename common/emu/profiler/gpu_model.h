// gpu_model.h - the GPUs the profiler's estimate knows (gpus.csv, embedded at
// build time) and the estimate itself: theoretical occupancy, waves of blocks
// over the SMs, and the time a launch may take on that GPU.
#ifndef CUEMU_GPU_MODEL_H
#define CUEMU_GPU_MODEL_H

#include <cstdint>
#include <string>
#include <vector>

namespace cuemu::detail {

struct gpu_model {
    std::string name, full_name, cc;
    double sms = 0, boost_mhz = 0, max_threads_per_sm = 0, max_blocks_per_sm = 0,
           registers_per_sm = 0, shared_per_sm = 0, shared_per_block_optin = 0, l2_bytes = 0,
           dram_gbs = 0, l2_gbs = 0, shared_gbs = 0, fp32_gflops = 0, fp64_gflops = 0,
           tensor_fp16_gflops = 0, launch_us = 0;
};

// Every row of gpus.csv, in the file's order.
const std::vector<gpu_model>& known_gpus();
// The row named `name` (case-insensitive), or nullptr.
const gpu_model* find_gpu(const std::string& name);
// "T4, A100, H100, H200, RTX4090"
std::string known_gpu_names();

// What one launch did, as the estimate needs it.
struct launch_work {
    std::uint64_t blocks = 0;
    unsigned threads_per_block = 0;
    std::uint64_t shared_bytes_per_block = 0;  // static + dynamic
    unsigned registers_per_thread = 32;
    double dram_bytes = 0, l2_sectors = 0, shared_wavefronts = 0, flops_sp = 0, flops_dp = 0;
};

struct launch_estimate {
    double occupancy_pct = 0;   // theoretical: resident warps per SM / the SM's maximum
    double blocks_per_sm = 0;   // resident at once
    double waves = 0;           // blocks / (SMs x blocks_per_sm)
    double time_us = 0;
    const char* limiter = "launch";  // dram, l2, shared, fp32, fp64 or launch
};

launch_estimate estimate_launch(const gpu_model& gpu, const launch_work& work);

}  // namespace cuemu::detail

#endif
