// access_counts.cpp - the workers' half of the profiler: every access of a
// profiled kernel's threads, gathered warp by warp and turned into Nsight
// Compute's counts when the block has finished.
//
// A warp's lanes run one after another here, not in step, so the lanes'
// accesses are paired the way the hardware would have issued them: by
// instruction (the hook's call site, and the memory space) and by how many
// times that lane had executed it before (its dynamic instance). The k-th
// execution of an instruction by every lane that executed it at least k times
// is one request. Lanes that skipped it (a branch, a bounds check, a shorter
// loop) are the inactive lanes of that request, as on a GPU after the branch.
//
// Counts of one request:
//   global: sectors = distinct 32-byte segments its active lanes touched;
//   shared: wavefronts = for each group of lanes the hardware serves together
//           (the whole warp for accesses of up to 4 bytes, half-warps for 8,
//           quarter-warps for 16), the largest number of distinct 4-byte
//           words that fall in one of the 32 banks (lanes reading the same
//           word share it: a broadcast), summed over the groups.
#include "access_counts.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "../src/internal.h"
#include "../src/shared_variables.h"
#include "cuemu/thread_loop.h"

namespace cuemu::detail {

__thread bool tls_profiling = false;
extern __thread std::uint64_t tls_linear_block;  // scheduler.cpp: the block this worker runs

void launch_counters::add(const launch_counters& o) {
    for (int i = 0; i < 3; ++i) {
        global_requests[i] += o.global_requests[i];
        global_sectors[i] += o.global_sectors[i];
        shared_requests[i] += o.shared_requests[i];
        shared_wavefronts[i] += o.shared_wavefronts[i];
        shared_ideal_wavefronts[i] += o.shared_ideal_wavefronts[i];
    }
    active_lanes += o.active_lanes;
    memory_requests += o.memory_requests;
    for (int i = 0; i < 6; ++i) flops[i] += o.flops[i];
}

void site_totals::add(const site_totals& o) {
    requests += o.requests;
    units += o.units;
    if (o.sample_units > sample_units) {
        sample = o.sample;
        sample_units = o.sample_units;
    }
}

namespace {

// The distinct 32-byte sectors (or 4-byte words: shift 2) the active lanes of
// `lanes` touch, sorted, into out; returns how many. Requests of up to 16
// bytes a lane fit the local array; wider ones (a range hook) use `wide`.
// Most requests come with addresses rising lane by lane (consecutive
// elements, or one address for all): those need no sort.
constexpr std::size_t local_units = 32 * 8;
std::size_t distinct_units(const memory_request& r, std::uint32_t lanes, unsigned shift,
                           std::uint64_t* out, std::vector<std::uint64_t>& wide,
                           const std::uint64_t** result) {
    std::size_t n = 0;
    bool overflow = false, rising = true;
    for (std::uint32_t m = r.mask & lanes; m; m &= m - 1) {
        const std::uintptr_t a = r.address[__builtin_ctz(m)];
        std::uint64_t first = a >> shift;
        const std::uint64_t last = (a + std::max<std::uint32_t>(r.size, 1) - 1) >> shift;
        // While the lanes' addresses rise, the units so far are sorted and
        // distinct: a lane's units that the previous lanes already touched
        // are skipped here instead of sorted out at the end.
        if (rising && (overflow || n)) {
            const std::uint64_t newest = overflow ? wide.back() : out[n - 1];
            if (first < newest) rising = false;     // sorted out at the end
            else if (first == newest) ++first;      // the previous lane's last unit
        }
        const std::uint64_t count = first <= last ? last - first + 1 : 0;
        if (!overflow && n + count > local_units) {
            overflow = true;
            wide.assign(out, out + n);
        }
        for (std::uint64_t u = first; u <= last; ++u) {
            if (overflow) wide.push_back(u);
            else out[n++] = u;
        }
    }
    std::uint64_t* begin = overflow ? wide.data() : out;
    std::uint64_t* end = overflow ? wide.data() + wide.size() : out + n;
    *result = begin;
    if (rising) return static_cast<std::size_t>(end - begin);
    std::sort(begin, end);
    return static_cast<std::size_t>(std::unique(begin, end) - begin);
}

}  // namespace

void wavefronts_of(const memory_request& r, unsigned* wavefronts, unsigned* ideal) {
    const unsigned group = r.size <= 4 ? 32 : r.size <= 8 ? 16 : 8;
    *wavefronts = *ideal = 0;
    std::uint64_t local[local_units];
    std::vector<std::uint64_t> wide;
    for (unsigned first = 0; first < 32; first += group) {
        const std::uint32_t lanes = group == 32 ? ~0u : ((1u << group) - 1) << first;
        if (!(r.mask & lanes)) continue;
        const std::uint64_t* words;  // distinct 4-byte words of the group
        const std::size_t n = distinct_units(r, lanes, 2, local, wide, &words);
        unsigned per_bank[32] = {};
        unsigned most = 0;
        for (std::size_t i = 0; i < n; ++i) most = std::max(most, ++per_bank[words[i] & 31]);
        *wavefronts += most;
        *ideal += 1;
    }
}

namespace {

struct site_key_info {
    const void* pc;
    memory_space space;
    profile_op op;
};

constexpr std::size_t site_cache_size = 64;
struct site_cache_entry {
    std::uintptr_t key = 0;
    std::uint32_t id = 0;
};

// What each lane of a warp accessed, in its program order: the lanes are
// paired into requests when the block has finished (pair_lanes_into_requests).
// Appending here is all an access costs; a log per lane is written in order.
struct lane_access {
    std::uintptr_t address;
    std::uint32_t site;
    std::uint32_t size;
};
struct warp_trace {
    std::uint32_t lanes_used = 0;
    std::vector<lane_access> log[32];  // [lane]
};

struct worker_profile {
    std::unordered_map<std::uintptr_t, std::uint32_t> site_ids;  // pc*4 + space
    std::vector<site_key_info> sites;
    site_cache_entry cache[site_cache_size];
    warp_trace warps[32];
    // Pairing lanes that did not all run the same accesses (a branch, a loop
    // whose trip count differs): [site][instance] -> index into divergent.
    std::vector<std::uint32_t> executed;  // [site]: times the lane ran it so far
    std::vector<std::vector<std::uint32_t>> request_index;
    std::vector<memory_request> divergent;
    std::vector<std::uint32_t> divergent_site;
    launch_counters counts;
    std::vector<site_totals> totals;  // [site]
    std::vector<std::uint64_t> l2_sectors;
    // Where the block's shared memory lies (as the race check sees it).
    bool layout_read = false;
    shared_layout layout;
    std::vector<unsigned char> variable_touched;  // [variable]
    std::uintptr_t dynamic_begin = 0, dynamic_end = 0;
    std::uintptr_t device_low = 0, device_high = 0;  // device memory, read at each block's start
    // Addresses inside the __shared__ variables' span that belong to no
    // variable (thread-locals between them): a kernel reads the same few
    // again and again, and each would otherwise cost a search of the variables.
    static constexpr unsigned not_shared_slots = 8;
    std::uintptr_t not_shared[not_shared_slots] = {};
    unsigned next_not_shared = 0;
    bool block_open = false;
    std::uint64_t block = 0;  // the block running, numbered in launch order
};

// Each worker's own, made at its first profiled block and kept until the
// worker's thread ends (the pool's threads end when the program exits): the
// owner's destructor, registered when the profile is made, frees it then.
__thread worker_profile* tls_worker_profile = nullptr;
struct worker_profile_owner {
    ~worker_profile_owner() {
        delete tls_worker_profile;
        tls_worker_profile = nullptr;
    }
};
thread_local worker_profile_owner tls_worker_profile_owner;
__attribute__((noinline)) worker_profile& make_worker_profile() {
    (void)&tls_worker_profile_owner;  // its first use on this thread registers the destructor
    tls_worker_profile = new worker_profile;
    return *tls_worker_profile;
}
inline __attribute__((always_inline)) worker_profile& worker() {
    if (__builtin_expect(!tls_worker_profile, 0)) return make_worker_profile();
    return *tls_worker_profile;
}

// A site seen for the first time on this worker (or missing from the cache).
__attribute__((noinline)) std::uint32_t site_id_slow(worker_profile& w, std::uintptr_t key, const void* pc,
                                                     memory_space space, profile_op op) {
    auto [it, added] = w.site_ids.emplace(key, static_cast<std::uint32_t>(w.sites.size()));
    if (added) {
        w.sites.push_back({pc, space, op});
        site_totals t;
        t.space = space;
        t.op = op;
        w.totals.push_back(t);
    }
    site_cache_entry& cached = w.cache[(key >> 2) % site_cache_size];
    cached.key = key;
    cached.id = it->second;
    return it->second;
}

inline std::uint32_t site_id(worker_profile& w, const void* pc, memory_space space, profile_op op) {
    const std::uintptr_t key = reinterpret_cast<std::uintptr_t>(pc) * 4 + space;
    // A kernel's loop alternates between a few instructions: a small
    // direct-mapped cache in front of the map answers most lookups.
    const site_cache_entry& cached = w.cache[(key >> 2) % site_cache_size];
    if (__builtin_expect(cached.key == key, 1)) return cached.id;
    return site_id_slow(w, key, pc, space, op);
}

void count_request(worker_profile& w, std::uint32_t id, const memory_request& r) {
    const site_key_info& site = w.sites[id];
    const int op = static_cast<int>(site.op);
    site_totals& t = w.totals[id];
    w.counts.active_lanes += static_cast<unsigned>(__builtin_popcount(r.mask));
    ++w.counts.memory_requests;
    unsigned units = 0;
    if (site.space == space_global) {
        std::uint64_t local[local_units];
        std::vector<std::uint64_t> wide;
        const std::uint64_t* sectors;
        const std::size_t n = distinct_units(r, ~0u, 5, local, wide, &sectors);
        units = static_cast<unsigned>(n);
        ++w.counts.global_requests[op];
        w.counts.global_sectors[op] += units;
        // The L2 model sees each sector the request touched, once, numbered
        // from the start of device memory: its sets then do not depend on
        // where the system placed that memory.
        const std::uint64_t first_sector = device_heap_base() >> 5;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t s = sectors[i] - first_sector;
            if (site.op != profile_op::store) w.l2_sectors.push_back(s << 1);  // read (an atomic reads too)
            if (site.op != profile_op::load) w.l2_sectors.push_back(s << 1 | 1);
        }
    } else {
        unsigned ideal = 0;
        wavefronts_of(r, &units, &ideal);
        ++w.counts.shared_requests[op];
        w.counts.shared_wavefronts[op] += units;
        w.counts.shared_ideal_wavefronts[op] += ideal;
    }
    ++t.requests;
    t.units += units;
    if (units > t.sample_units) {
        t.sample = r;
        t.sample_units = units;
    }
}

// One warp's accesses, paired into requests: the k-th execution of a site by
// every lane that executed it at least k times is one request. Requests are
// counted in the order the warp first issued them, as the L2 model should see
// them. When every lane ran the same sequence of sites (the usual case:
// no divergence), the i-th access of each lane belongs to the i-th request.
void pair_lanes_into_requests(worker_profile& w, const warp_trace& warp) {
    const std::uint32_t used = warp.lanes_used;
    const std::vector<lane_access>& first = warp.log[__builtin_ctz(used)];
    bool converged = true;
    for (std::uint32_t m = used & (used - 1); m && converged; m &= m - 1) {
        const std::vector<lane_access>& other = warp.log[__builtin_ctz(m)];
        converged = other.size() == first.size();
        for (std::size_t i = 0; converged && i < first.size(); ++i) converged = other[i].site == first[i].site;
    }
    if (converged) {
        memory_request r;
        r.mask = used;
        for (std::size_t i = 0; i < first.size(); ++i) {
            r.size = 0;
            for (std::uint32_t m = used; m; m &= m - 1) {
                const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
                const lane_access& a = warp.log[lane][i];
                r.address[lane] = a.address;
                r.size = std::max(r.size, a.size);
            }
            count_request(w, first[i].site, r);
        }
        return;
    }
    w.request_index.resize(w.sites.size());
    w.divergent.clear();
    w.divergent_site.clear();
    for (std::uint32_t m = used; m; m &= m - 1) {
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        w.executed.assign(w.sites.size(), 0);
        for (const lane_access& a : warp.log[lane]) {
            std::vector<std::uint32_t>& index = w.request_index[a.site];
            const std::uint32_t instance = w.executed[a.site]++;
            if (index.size() <= instance) index.resize(instance + 1, UINT32_MAX);
            if (index[instance] == UINT32_MAX) {
                index[instance] = static_cast<std::uint32_t>(w.divergent.size());
                w.divergent.emplace_back();
                w.divergent_site.push_back(a.site);
            }
            memory_request& r = w.divergent[index[instance]];
            r.mask |= 1u << lane;
            r.address[lane] = a.address;
            r.size = std::max(r.size, a.size);
        }
    }
    for (std::size_t k = 0; k < w.divergent.size(); ++k) count_request(w, w.divergent_site[k], w.divergent[k]);
    for (std::uint32_t site : w.divergent_site) w.request_index[site].clear();
}

// The block has finished: every warp's requests are complete.
void finish_block(worker_profile& w) {
    if (!w.block_open) return;
    w.block_open = false;
    for (warp_trace& warp : w.warps) {
        if (!warp.lanes_used) continue;
        pair_lanes_into_requests(w, warp);
        for (std::uint32_t m = warp.lanes_used; m; m &= m - 1) warp.log[__builtin_ctz(m)].clear();
        warp.lanes_used = 0;
    }
    feed_l2(w.block, w.l2_sectors);
    w.l2_sectors.clear();
}

}  // namespace

void profile_block_begin(const void* dynamic_shared, std::size_t dynamic_bytes) {
    if (!profiling_requested()) return;  // the usual case: one load and a branch per block
    worker_profile& w = worker();
    finish_block(w);
    tls_profiling = true;
    if (!w.layout_read) {
        w.layout_read = true;
        if (!shared_variable_layout(&w.layout)) w.layout = shared_layout{};
        w.variable_touched.assign(w.layout.variables.size(), 0);
    }
    w.dynamic_begin = reinterpret_cast<std::uintptr_t>(dynamic_shared);
    w.dynamic_end = w.dynamic_begin + dynamic_bytes;
    device_address_bounds(&w.device_low, &w.device_high);
    w.block = tls_linear_block;
    w.block_open = true;
}

void profile_worker_idle() {
    if (!tls_profiling) return;
    worker_profile& w = worker();
    finish_block(w);
    tls_profiling = false;
    for (int i = 0; i < 6; ++i) {
        extern __thread std::uint64_t tls_flop_counts[6];
        w.counts.flops[i] += tls_flop_counts[i];
        tls_flop_counts[i] = 0;
    }
    site_map sites;
    for (std::uint32_t id = 0; id < w.sites.size(); ++id)
        if (w.totals[id].requests) {
            site_totals& t = sites[w.sites[id].pc];
            t.space = w.sites[id].space;
            t.op = w.sites[id].op;
            t.add(w.totals[id]);
        }
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> touched;
    for (std::size_t v = 0; v < w.variable_touched.size(); ++v)
        if (w.variable_touched[v]) touched.emplace_back(w.layout.variables[v].begin, w.layout.variables[v].end);
    merge_worker_counts(w.counts, sites, touched);
    // Ready for the next launch (the sites' addresses stay valid, their totals not).
    w.l2_sectors.clear();
    w.counts = launch_counters{};
    for (std::uint32_t id = 0; id < w.totals.size(); ++id) {
        w.totals[id] = site_totals{};
        w.totals[id].space = w.sites[id].space;
        w.totals[id].op = w.sites[id].op;
    }
    std::fill(w.variable_touched.begin(), w.variable_touched.end(), 0);
}

namespace {
// The access appended to its lane's log. Out of line, so that the accesses
// profile_access turns away (a kernel's parameters, its stack) cost only a
// few comparisons and no saved registers.
__attribute__((noinline)) void log_access(worker_profile& w, std::uintptr_t a, std::size_t size,
                                          memory_space space, profile_op op, const void* pc) {
    const uint3 idx = tls_thread_idx;
    const dim3 dim = tls_thread_cursor.dim;
    const unsigned thread = idx.x + dim.x * (idx.y + dim.y * idx.z);
    warp_trace& warp = w.warps[(thread >> 5) & 31];
    const unsigned lane = thread & 31;
    warp.lanes_used |= 1u << lane;
    warp.log[lane].push_back({a, site_id(w, pc, space, op), static_cast<std::uint32_t>(size)});
}

// Whether an address inside the __shared__ variables' section belongs to a
// variable (the gaps hold other thread-locals, such as threadIdx itself);
// marks the variable touched. Out of line: most accesses never come here.
__attribute__((noinline)) bool in_shared_variable(worker_profile& w, std::uintptr_t a) {
    for (std::uintptr_t known : w.not_shared)
        if (known == a) return false;
    const auto& vars = w.layout.variables;
    auto it = std::upper_bound(vars.begin(), vars.end(), a,
                               [](std::uintptr_t x, const shared_layout::range& r) { return x < r.begin; });
    if (it == vars.begin() || a >= std::prev(it)->end) {
        w.not_shared[w.next_not_shared++ % worker_profile::not_shared_slots] = a;
        return false;
    }
    w.variable_touched[static_cast<std::size_t>(std::prev(it) - vars.begin())] = 1;
    return true;
}
}  // namespace

// Called for every load and store of a profiled kernel: kept short, the rest
// of the work waits for the block's end (finish_block).
void profile_access(const void* p, std::size_t size, profile_op op, const void* pc) {
    // No profile yet on this worker: it has not begun a profiled block.
    worker_profile* wp = tls_worker_profile;
    if (!wp || !wp->block_open) return;
    worker_profile& w = *wp;
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    memory_space space;
    if (a >= w.device_low && a < w.device_high) {
        space = space_global;
    } else if (a >= w.dynamic_begin && a < w.dynamic_end) {
        space = space_shared;
    } else if (a >= w.layout.begin && a < w.layout.end) {
        if (!in_shared_variable(w, a)) return;
        space = space_shared;
    } else {
        return;  // the thread's own stack, a host or constant variable
    }
    log_access(w, a, size, space, op, pc);
}

}  // namespace cuemu::detail

// An atomic function of builtins.h, called by a profiled kernel: one atomic
// instruction at the kernel's line that called it.
namespace cuemu {
__attribute__((noinline)) void profile_atomic(const void* address, std::size_t size) {
    detail::profile_access(address, size, detail::profile_op::atomic, __builtin_return_address(0));
}
}  // namespace cuemu
