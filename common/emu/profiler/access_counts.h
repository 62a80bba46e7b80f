// access_counts.h - what a profiled launch counted, as access_counts.cpp
// (the workers' side) hands it to profile_output.cpp (the launch's side).
#ifndef CUEMU_ACCESS_COUNTS_H
#define CUEMU_ACCESS_COUNTS_H

#include <cstdint>
#include <map>
#include <vector>

#include "profiler.h"

namespace cuemu::detail {

enum memory_space : unsigned char { space_global = 0, space_shared = 1 };

// One warp-level execution of one instruction: the active lanes and the
// address each touched.
struct memory_request {
    std::uint32_t mask = 0;
    std::uint32_t size = 0;  // bytes per lane
    std::uintptr_t address[32];
};

struct launch_counters {
    // [op]: load, store, atomic (profile_op)
    std::uint64_t global_requests[3] = {}, global_sectors[3] = {};
    std::uint64_t shared_requests[3] = {}, shared_wavefronts[3] = {}, shared_ideal_wavefronts[3] = {};
    std::uint64_t active_lanes = 0, memory_requests = 0;
    std::uint64_t flops[6] = {};  // fadd fmul ffma dadd dmul dfma
    void add(const launch_counters& o);
};

// One instruction of the kernel (a hook's call site) and what it cost.
struct site_totals {
    memory_space space = space_global;
    profile_op op = profile_op::load;
    std::uint64_t requests = 0, units = 0;  // units: sectors (global) or wavefronts (shared)
    memory_request sample{};                  // the request that cost the most units
    std::uint64_t sample_units = 0;
    void add(const site_totals& o);
};
using site_map = std::map<const void*, site_totals>;

// Wavefronts of one shared-memory request and the ideal number (one per group of lanes the hardware
// serves together: 32 lanes for 4-byte accesses, 16 for 8, 8 for 16).
void wavefronts_of(const memory_request& r, unsigned* wavefronts, unsigned* ideal);

// ---- the launch's side (profile_output.cpp) ---------------------------------------
// Called by each worker as it goes idle, under no lock: adds its counts,
// sites and static shared bytes to the launch's.
void merge_worker_counts(const launch_counters& c, const site_map& sites,
                         const std::vector<std::pair<std::uintptr_t, std::uintptr_t>>& shared_variables_touched);
// The global sectors block `block` touched, in the order its warps met them
// (sector << 1 | is_write). The L2 model takes blocks in launch order,
// whichever worker ran them, so its figures do not depend on the timing of
// the workers; a block that comes early waits in a queue (and is moved from).
void feed_l2(std::uint64_t block, std::vector<std::uint64_t>& sectors);

}  // namespace cuemu::detail

#endif
