// profile_output.cpp - the launch's half of the profiler: CUEMU_PROFILE and
// CUEMU_GPU, the launch being profiled (what the workers merge into it, the
// L2 model they feed), and the files: FILE.csv, one row per launch with
// Nsight Compute's metric names, and FILE.csv.lanes.json, the lanes of each
// launch's worst global and worst shared instruction (for the pictures of
// ./tutorial profile). docs/profiler.md describes both.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unistd.h>

#include "access_counts.h"
#include "gpu_model.h"
#include "l2_model.h"
#include "../src/diagnostics.h"
#include "../src/internal.h"
#include "../src/race_detector.h"
#include "cuemu/launch.h"

namespace cuemu::detail {
namespace {

struct profile_state {
    bool requested = false;
    std::string path;
    const gpu_model* gpu = nullptr;
    std::FILE* csv = nullptr;
    std::FILE* lanes = nullptr;
    bool first_lanes_entry = true;
    std::uint64_t launches = 0;
    std::map<const void*, std::string> site_names;  // addr2line is slow: once per instruction
    std::map<const void*, std::string> kernel_names;  // ... and once per kernel
};

profile_state& state() {
    static profile_state s;
    return s;
}

[[noreturn]] void refuse(const std::string& why) {
    std::fflush(stdout);
    std::fprintf(stderr, "cuemu: %s\n", why.c_str());
    std::_Exit(2);
}

// Reads the environment once, on the first question.
void read_settings() {
    static std::once_flag once;
    std::call_once(once, [] {
        profile_state& s = state();
        const char* path = std::getenv("CUEMU_PROFILE");
        if (!path || !*path) return;
        s.requested = true;
        s.path = path;
        const char* gpu = std::getenv("CUEMU_GPU");
        const std::string name = gpu && *gpu ? gpu : "H100";
        s.gpu = find_gpu(name);
        if (!s.gpu)
            refuse("CUEMU_GPU=" + name + " is not a GPU the profiler knows; known: " + known_gpu_names());
    });
}

// The launch now profiled (one at a time: launches run one after another).
struct launch_record {
    const launch_site* site = nullptr;
    const launch_config* config = nullptr;
    std::mutex mutex;  // the workers merge into it
    launch_counters counts;
    site_map sites;
    std::map<std::uintptr_t, std::uintptr_t> static_shared;  // variables touched: begin -> end
    l2_model l2;
    // The L2 model's next block in launch order, and the blocks that finished before it.
    std::uint64_t next_l2_block = 0;
    std::map<std::uint64_t, std::vector<std::uint64_t>> early_blocks;
};
launch_record current;

// Feeds the queued blocks that are next in order (all of them at the end of
// a launch, when a block that stopped early will never come).
void drain_early_blocks(bool all) {
    while (!current.early_blocks.empty()) {
        auto first = current.early_blocks.begin();
        if (!all && first->first != current.next_l2_block) return;
        for (std::uint64_t s : first->second) current.l2.access(s >> 1, s & 1);
        current.next_l2_block = first->first + 1;
        current.early_blocks.erase(first);
    }
}

void open_files() {
    profile_state& s = state();
    if (s.csv) return;
    s.csv = std::fopen(s.path.c_str(), "w");
    if (!s.csv) refuse("CUEMU_PROFILE=" + s.path + ": cannot write the file (" + std::strerror(errno) + ")");
    const std::string lanes_path = s.path + ".lanes.json";
    s.lanes = std::fopen(lanes_path.c_str(), "w");
    if (!s.lanes) refuse("CUEMU_PROFILE: cannot write " + lanes_path + " (" + std::strerror(errno) + ")");
    if (!race_instrumented())
        std::fprintf(stderr,
                     "cuemu: CUEMU_PROFILE: this program was built without the emulator's instrumentation "
                     "(the sanitizer build, or no kernel source was instrumented): every counter will be 0\n");
    std::fprintf(s.csv,
                 "# cuemu profile: counters exact (Nsight Compute's names and rules, docs/profiler.md); "
                 "dram__* and lts__* modelled; time estimated for %s (%s), not measured\n",
                 s.gpu->name.c_str(), s.gpu->full_name.c_str());
    std::fputs("launch,kernel,grid,block,dynamic_shared_bytes,static_shared_bytes,launch_site,gpu,"
               "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
               "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,"
               "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum,"
               "smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,"
               "smsp__inst_executed_op_shared_atom.sum,"
               "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"
               "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,"
               "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,"
               "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,"
               "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,"
               "flop_count_sp,flop_count_dp,cuemu__active_lanes_per_request,launch__registers_per_thread,"
               "sm__maximum_warps_per_active_cycle_pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,"
               "cuemu__estimated_time_us,cuemu__limiter,cuemu__waves,cuemu__worst_global_site,"
               "cuemu__worst_global_sectors_per_request,cuemu__worst_shared_site,"
               "cuemu__worst_shared_wavefronts_per_request\n",
               s.csv);
    std::fprintf(s.lanes, "{\"gpu\": \"%s\", \"launches\": [", s.gpu->name.c_str());
    std::fflush(s.csv);
}

// "file.cu:57" for an instruction (the hook's return address).
const std::string& site_name(const void* pc) {
    profile_state& s = state();
    auto it = s.site_names.find(pc);
    if (it != s.site_names.end()) return it->second;
    std::string where = source_line_of(static_cast<const char*>(pc) - 1);
    const std::size_t in = where.find(" in ");
    if (in != std::string::npos) where.erase(in);
    const std::size_t slash = where.rfind('/');
    if (slash != std::string::npos) where.erase(0, slash + 1);
    return s.site_names.emplace(pc, where).first->second;
}

std::string csv_quoted(const std::string& text) {
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}
std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) out += c;
    }
    return out + "\"";
}
std::string dims_text(dim3 d) { return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z); }

// The instruction of `space` with the most units per request (ties: the most units).
const std::pair<const void* const, site_totals>* worst_site(const site_map& sites, memory_space space) {
    const std::pair<const void* const, site_totals>* worst = nullptr;
    for (const auto& entry : sites) {
        const site_totals& t = entry.second;
        if (t.space != space || !t.requests) continue;
        if (!worst) {
            worst = &entry;
            continue;
        }
        const site_totals& w = worst->second;
        // a/b > c/d without division
        const unsigned __int128 lhs = (unsigned __int128)t.units * w.requests, rhs = (unsigned __int128)w.units * t.requests;
        if (lhs > rhs || (lhs == rhs && t.units > w.units)) worst = &entry;
    }
    return worst;
}

// The kernel's name as the launch wrote it ("tiled<kPlain>"), unless the launch
// went through a pointer or a parameter ("kernel<<<...>>>" in a helper that
// takes the kernel): then the name of the function it called.
std::string kernel_name(const launch_site& site, const launch_config& config) {
    char written[512];
    copy_kernel_function_name(site.kernel, written, sizeof written);
    if (!config.kernel) return written;
    profile_state& s = state();
    auto it = s.kernel_names.find(config.kernel);
    if (it == s.kernel_names.end())
        it = s.kernel_names.emplace(config.kernel, function_name_of(config.kernel)).first;
    char called[512];
    copy_kernel_function_name(it->second.c_str(), called, sizeof called);
    const std::string written_base = std::string(written).substr(0, std::string(written).find('<'));
    const std::string called_base = std::string(called).substr(0, std::string(called).find('<'));
    return called_base.empty() || called_base == written_base ? written : called;
}

const char* op_name(profile_op op) { return op == profile_op::load ? "ld" : op == profile_op::store ? "st" : "atom"; }

std::string lanes_json(const std::pair<const void* const, site_totals>* worst) {
    if (!worst) return "null";
    const site_totals& t = worst->second;
    const memory_request& r = t.sample;
    std::uintptr_t lowest = ~std::uintptr_t{0};
    for (std::uint32_t m = r.mask; m; m &= m - 1) lowest = std::min(lowest, r.address[__builtin_ctz(m)]);
    char head[256];
    std::snprintf(head, sizeof head,
                  "{\"site\": %s, \"op\": \"%s\", \"bytes_per_lane\": %u, \"requests\": %" PRIu64
                  ", \"%s\": %.4f, \"sample_%s\": %" PRIu64 ", \"lanes\": [",
                  json_string(site_name(worst->first)).c_str(), op_name(t.op), r.size, t.requests,
                  t.space == space_global ? "sectors_per_request" : "wavefronts_per_request",
                  double(t.units) / double(t.requests), t.space == space_global ? "sectors" : "wavefronts",
                  t.sample_units);
    std::string out = head;
    bool first = true;
    for (unsigned lane = 0; lane < 32; ++lane) {
        if (!(r.mask >> lane & 1u)) continue;
        const std::uintptr_t a = r.address[lane];
        char entry[160];
        if (t.space == space_global)
            std::snprintf(entry, sizeof entry, "%s{\"lane\": %u, \"offset\": %" PRIuPTR ", \"sector\": %" PRIuPTR "}",
                          first ? "" : ", ", lane, a - lowest, (a >> 5) - (lowest >> 5));
        else
            std::snprintf(entry, sizeof entry, "%s{\"lane\": %u, \"word\": %" PRIuPTR ", \"bank\": %u}",
                          first ? "" : ", ", lane, (a >> 2) - (lowest >> 2), unsigned((a >> 2) & 31));
        out += entry;
        first = false;
    }
    return out + "]}";
}

}  // namespace

bool profiling_requested() {
    read_settings();
    return state().requested;
}

void profile_launch_begin(const launch_site& site, const launch_config& config) {
    if (!profiling_requested()) return;
    open_files();
    current.site = &site;
    current.config = &config;
    current.counts = launch_counters{};
    current.sites.clear();
    current.static_shared.clear();
    current.l2.reset(state().gpu->l2_bytes);
    current.next_l2_block = 0;
    current.early_blocks.clear();
}

void merge_worker_counts(const launch_counters& c, const site_map& sites,
                         const std::vector<std::pair<std::uintptr_t, std::uintptr_t>>& shared_variables_touched) {
    std::lock_guard<std::mutex> lock(current.mutex);
    current.counts.add(c);
    for (const auto& [pc, totals] : sites) {
        site_totals& t = current.sites[pc];
        t.space = totals.space;
        t.op = totals.op;
        t.add(totals);
    }
    for (const auto& [begin, end] : shared_variables_touched) current.static_shared[begin] = end;
}

void feed_l2(std::uint64_t block, std::vector<std::uint64_t>& sectors) {
    std::lock_guard<std::mutex> lock(current.mutex);
    if (block != current.next_l2_block) {
        current.early_blocks[block] = std::move(sectors);
        return;
    }
    for (std::uint64_t s : sectors) current.l2.access(s >> 1, s & 1);
    ++current.next_l2_block;
    drain_early_blocks(false);
}

void profile_launch_end() {
    if (!profiling_requested() || !current.site) return;
    profile_state& s = state();
    const launch_config& config = *current.config;
    const launch_counters& c = current.counts;
    drain_early_blocks(true);
    current.l2.flush();
    std::uint64_t static_shared = 0;
    for (const auto& [begin, end] : current.static_shared) static_shared += end - begin;
    const std::uint64_t global_sectors = c.global_sectors[0] + c.global_sectors[1] + c.global_sectors[2];
    launch_work work;
    work.blocks = std::uint64_t(config.grid.x) * config.grid.y * config.grid.z;
    work.threads_per_block = config.block.x * config.block.y * config.block.z;
    work.shared_bytes_per_block = static_shared + config.shared_bytes;
    work.registers_per_thread = 32;  // assumed: the emulator does not compile for a GPU
    work.dram_bytes = double(current.l2.dram_read_bytes() + current.l2.dram_write_bytes());
    work.l2_sectors = double(global_sectors);
    work.shared_wavefronts = double(c.shared_wavefronts[0] + c.shared_wavefronts[1] + c.shared_wavefronts[2]);
    const std::uint64_t flop_sp = c.flops[0] + c.flops[1] + 2 * c.flops[2];
    const std::uint64_t flop_dp = c.flops[3] + c.flops[4] + 2 * c.flops[5];
    work.flops_sp = double(flop_sp);
    work.flops_dp = double(flop_dp);
    const launch_estimate e = estimate_launch(*s.gpu, work);
    const auto* worst_global = worst_site(current.sites, space_global);
    const auto* worst_shared = worst_site(current.sites, space_shared);
    auto per_request = [](const std::pair<const void* const, site_totals>* w) {
        return w ? double(w->second.units) / double(w->second.requests) : 0.0;
    };
    const std::string kernel = kernel_name(*current.site, config);
    ++s.launches;
    std::fprintf(
        s.csv,
        "%" PRIu64 ",%s,%s,%s,%zu,%" PRIu64 ",%s,%s"
        ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64  // global
        ",%" PRIu64 ",%" PRIu64 ",%" PRIu64                                      // shared instructions
        ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64                          // wavefronts, conflicts
        ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64  // flops by kind
        ",%" PRIu64 ",%" PRIu64 ",%.3f,%u,%.2f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
        ",%.3f,%s,%.3f,%s,%.3f,%s,%.3f\n",
        s.launches, csv_quoted(kernel).c_str(), csv_quoted(dims_text(config.grid)).c_str(),
        csv_quoted(dims_text(config.block)).c_str(), config.shared_bytes, static_shared,
        csv_quoted(std::string(current.site->file) + ":" + std::to_string(current.site->line)).c_str(),
        s.gpu->name.c_str(), c.global_requests[0], c.global_sectors[0], c.global_requests[1],
        c.global_sectors[1], c.global_requests[2], c.global_sectors[2], c.shared_requests[0],
        c.shared_requests[1], c.shared_requests[2], c.shared_wavefronts[0], c.shared_wavefronts[1],
        c.shared_wavefronts[0] - c.shared_ideal_wavefronts[0], c.shared_wavefronts[1] - c.shared_ideal_wavefronts[1],
        c.flops[0], c.flops[1], c.flops[2], c.flops[3], c.flops[4], c.flops[5], flop_sp, flop_dp,
        c.memory_requests ? double(c.active_lanes) / double(c.memory_requests) : 0.0, work.registers_per_thread,
        e.occupancy_pct, current.l2.dram_read_bytes(), current.l2.dram_write_bytes(), global_sectors, e.time_us,
        e.limiter, e.waves, csv_quoted(worst_global ? site_name(worst_global->first) : "").c_str(),
        per_request(worst_global), csv_quoted(worst_shared ? site_name(worst_shared->first) : "").c_str(),
        per_request(worst_shared));
    std::fflush(s.csv);
    std::fprintf(s.lanes, "%s\n  {\"launch\": %" PRIu64 ", \"kernel\": %s, \"worst_global\": %s, \"worst_shared\": %s}",
                 s.first_lanes_entry ? "" : ",", s.launches, json_string(kernel).c_str(),
                 lanes_json(worst_global).c_str(), lanes_json(worst_shared).c_str());
    s.first_lanes_entry = false;
    current.site = nullptr;
}

void profile_finish() {
    profile_state& s = state();
    if (!s.lanes) return;
    std::fputs("\n]}\n", s.lanes);
    std::fclose(s.lanes);
    s.lanes = nullptr;
    if (s.csv) std::fclose(s.csv);
    s.csv = nullptr;
}

}  // namespace cuemu::detail
