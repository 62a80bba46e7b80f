// gpu_model.cpp - the GPU table (gpus.csv, embedded as gpus_table.inc by
// CMake) and the estimate of a launch's time on one of its GPUs. The model is
// docs/profiler.md's: every figure here comes from the table.
#include "gpu_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace cuemu::detail {
namespace {

constexpr const char* gpu_table_text =
#include "gpus_table.inc"
    ;

std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (char c : line) {
        if (c == '"') quoted = !quoted;
        else if (c == ',' && !quoted) {
            fields.push_back(field);
            field.clear();
        } else if (c != '\r') field += c;
    }
    fields.push_back(field);
    return fields;
}

std::vector<gpu_model> parse_table() {
    std::vector<gpu_model> gpus;
    std::istringstream in(gpu_table_text);
    std::string line;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> fields = split_csv_line(line);
        if (header.empty()) {
            header = fields;
            continue;
        }
        gpu_model g;
        for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) {
            const std::string& key = header[i];
            const std::string& value = fields[i];
            const double number = std::strtod(value.c_str(), nullptr);
            if (key == "name") g.name = value;
            else if (key == "full_name") g.full_name = value;
            else if (key == "cc") g.cc = value;
            else if (key == "sms") g.sms = number;
            else if (key == "boost_mhz") g.boost_mhz = number;
            else if (key == "max_threads_per_sm") g.max_threads_per_sm = number;
            else if (key == "max_blocks_per_sm") g.max_blocks_per_sm = number;
            else if (key == "registers_per_sm") g.registers_per_sm = number;
            else if (key == "shared_per_sm") g.shared_per_sm = number;
            else if (key == "shared_per_block_optin") g.shared_per_block_optin = number;
            else if (key == "l2_bytes") g.l2_bytes = number;
            else if (key == "dram_gbs") g.dram_gbs = number;
            else if (key == "l2_gbs") g.l2_gbs = number;
            else if (key == "shared_gbs") g.shared_gbs = number;
            else if (key == "fp32_gflops") g.fp32_gflops = number;
            else if (key == "fp64_gflops") g.fp64_gflops = number;
            else if (key == "tensor_fp16_gflops") g.tensor_fp16_gflops = number;
            else if (key == "launch_us") g.launch_us = number;
        }
        gpus.push_back(g);
    }
    return gpus;
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

const std::vector<gpu_model>& known_gpus() {
    static const std::vector<gpu_model> gpus = parse_table();
    return gpus;
}

const gpu_model* find_gpu(const std::string& name) {
    for (const gpu_model& g : known_gpus())
        if (lower(g.name) == lower(name)) return &g;
    return nullptr;
}

std::string known_gpu_names() {
    std::string names;
    for (const gpu_model& g : known_gpus()) names += (names.empty() ? "" : ", ") + g.name;
    return names;
}

launch_estimate estimate_launch(const gpu_model& gpu, const launch_work& work) {
    launch_estimate e;
    // Theoretical occupancy: how many blocks one SM holds at once, limited by
    // its block slots, threads (whole warps), registers and shared memory.
    const double warps_per_block = std::ceil(work.threads_per_block / 32.0);
    double blocks = gpu.max_blocks_per_sm;
    if (warps_per_block > 0)
        blocks = std::min(blocks, std::floor(gpu.max_threads_per_sm / 32.0 / warps_per_block));
    const double registers_per_block = warps_per_block * 32.0 * work.registers_per_thread;
    if (registers_per_block > 0) blocks = std::min(blocks, std::floor(gpu.registers_per_sm / registers_per_block));
    if (work.shared_bytes_per_block > 0)
        blocks = std::min(blocks, std::floor(gpu.shared_per_sm / double(work.shared_bytes_per_block)));
    blocks = std::max(blocks, 0.0);
    e.blocks_per_sm = blocks;
    e.occupancy_pct = 100.0 * blocks * warps_per_block / (gpu.max_threads_per_sm / 32.0);
    const double slots = gpu.sms * std::max(blocks, 1.0);
    e.waves = double(work.blocks) / slots;
    // The share of the GPU that works on average: an under-filled GPU (fewer
    // blocks than SMs) and the last, partial wave leave SMs idle.
    double busy = 1;
    if (work.blocks == 0) busy = 1;
    else if (e.waves <= 1) busy = std::min(1.0, double(work.blocks) / gpu.sms);
    else busy = e.waves / std::ceil(e.waves);
    // Each resource's time at its peak rate (GB/s = 1e3 bytes/us, GFLOP/s = 1e3 flop/us).
    struct candidate {
        const char* name;
        double us;
    } candidates[] = {
        {"dram", work.dram_bytes / (gpu.dram_gbs * 1e3)},
        {"l2", work.l2_sectors * 32.0 / (gpu.l2_gbs * 1e3)},
        {"shared", work.shared_wavefronts * 128.0 / (gpu.shared_gbs * 1e3)},
        {"fp32", work.flops_sp / (gpu.fp32_gflops * 1e3)},
        {"fp64", work.flops_dp / (gpu.fp64_gflops * 1e3)},
    };
    double body = 0;
    for (const candidate& c : candidates)
        if (c.us / busy > body) {
            body = c.us / busy;
            e.limiter = c.name;
        }
    if (body < gpu.launch_us) e.limiter = "launch";
    e.time_us = gpu.launch_us + body;
    return e;
}

}  // namespace cuemu::detail
