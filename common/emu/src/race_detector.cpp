// race_detector.cpp - CUEMU_CHECK=race: two threads of a block touching the
// same shared-memory word, at least one of them writing, with no barrier
// between them. Also runs the volatile shared accesses of legacy
// warp-synchronous code in lockstep (see race_detector.h).
//
// The model. Every thread of a block passes each __syncthreads() together, so
// a block's life is a sequence of barrier intervals ("epochs"): accesses in
// different intervals are ordered by the barrier between them. Within one
// interval, two accesses of different threads are unordered, unless both
// threads are lanes of one warp and a warp function (__syncwarp, a shuffle,
// a vote ...) completed in that warp since the earlier one. The shadow of each
// 4-byte word keeps the last write and up to two reads (of different threads)
// of the current interval, which is enough to find a conflicting pair: the
// order the emulator runs threads in does not matter, only the interval.
//
// One report per launch: the thread that finds the first race stops the
// launch through kernel_cannot_go_on (scheduler.cpp), as a synchronization
// bug does. Atomic operations are not recorded (they do not race with each
// other; a plain access racing with an atomic one is not reported).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuemu/builtins.h"
#include "call_chain.h"
#include "cuemu/launch.h"
#include "diagnostics.h"
#include "internal.h"
#include "race_detector.h"
#include "race_shadow.h"
#include "../profiler/profiler.h"
#include "shared_variables.h"

namespace cuemu::detail {

__thread unsigned char tls_access_watch = watch_nothing;
__thread race_view tls_race_view;

namespace {

std::atomic<bool> instrumented{false};

// An access as the detector sees it: the record, and where it happened.
struct access_record : shadow_record {
    const void* pc = nullptr;
};
access_record with_pc(const shadow_record& r, const void* pc) {
    access_record a;
    static_cast<shadow_record&>(a) = r;
    a.pc = pc;
    return a;
}

// A worker's view of the block it runs.
struct worker_shadow {
    bool layout_read = false;
    shared_layout layout;
    std::vector<std::uint8_t> is_variable;  // per word of [layout.begin, layout.end)
    std::vector<word_shadow> static_words, dynamic_words;
    std::vector<word_pcs> static_pcs, dynamic_pcs;  // beside them
    std::vector<word_saturation> static_saturation, dynamic_saturation;  // and these
    std::uintptr_t dynamic_begin = 0, dynamic_end = 0;
    std::uint32_t generation = 0;  // blocks this worker began (for volatile_global.cpp)
    std::uint32_t epoch = 0;       // barriers of the running block
    const char* epoch_file = nullptr;  // the __syncthreads() that began the interval
    int epoch_line = 0;
    std::string what, hint;  // the report handed to kernel_cannot_go_on
};

__thread worker_shadow* tls_shadow = nullptr;

worker_shadow& shadow() {
    if (!tls_shadow) tls_shadow = new worker_shadow;  // lives as long as its worker
    return *tls_shadow;
}

// Set before main() by every source that uses __shared__ (cuemu/launch.h).
std::atomic<bool> shared_memory_source{false};

// CUEMU_CHECK names "race": every kernel is checked, and legacy
// warp-synchronous code is reported as the race it is since Volta.
bool race_check_named() {
    static const bool on = check_requested("race");
    return on;
}

// Named, or by default in a program with a source that uses __shared__
// (unless CUEMU_CHECK=none).
bool race_check_requested() {
    static const bool off = checks_turned_off();
    return race_check_named() || (!off && shared_memory_source.load(std::memory_order_relaxed));
}

#if defined(__SANITIZE_ADDRESS__)
// Said once when CUEMU_CHECK=race cannot be honoured.
void say_race_check_unavailable() {
    static std::once_flag once;
    std::call_once(once, [] {
        std::fprintf(stderr,
                     "cuemu: CUEMU_CHECK=race is off in the AddressSanitizer build "
                     "(TUTORIAL_SANITIZE=ON):\n"
                     "  the race check needs its own instrumentation of the kernels, and the two "
                     "cannot be combined;\n"
                     "  shared-memory races are not checked, and volatile shared accesses do not "
                     "run in lockstep\n");
    });
}
#endif

unsigned running_thread() { return race_running_thread(); }

std::string xyz_of(unsigned linear) {
    const uint3 d = ::cuemu::tls_block_dim;
    char buf[64];
    std::snprintf(buf, sizeof buf, "(%u,%u,%u)", linear % d.x, linear / d.x % d.y,
                  linear / (d.x * d.y));
    return buf;
}

struct source_position {
    std::string text;  // "file.cu:31 in kernel(...)", or the address
    std::string file;
    int line = 0;
    std::string function;  // the innermost function of the user's, "" when unknown
    std::string context;   // where in the emulator's headers the access was, when it was (call_chain.h)
};

// pc is the return address of the hook's call; callers, when known, the
// return addresses of the frames above it, which lead from an access in the
// emulator's headers (not inlined at -O0 and -O1) back to the learner's line.
source_position position_of(const void* pc, const call_chain* callers = nullptr) {
    source_position p;
    learner_position learner = learner_position_of(pc, callers);
    p.text = learner.text;
    p.context = learner.context;
    if (p.text.empty()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "address %p (no line information)", pc);
        p.text = buf;
        return p;
    }
    const std::size_t in = p.text.find(" in ");
    if (in != std::string::npos) p.function = p.text.substr(in + 4, p.text.find('(', in) - in - 4);
    std::string where = p.text.substr(0, in);
    std::size_t colon = where.rfind(':');
    if (colon != std::string::npos) {
        p.file = where.substr(0, colon);
        p.line = std::atoi(where.c_str() + colon + 1);
    }
    return p;
}

bool same_file(const std::string& a, const char* b) {
    if (!b) return false;
    // addr2line gives the path the compiler saw; __builtin_FILE the same.
    return a == b || (a.size() > std::strlen(b) && a.compare(a.size() - std::strlen(b), std::string::npos, b) == 0);
}

// A line of `file` between `from` and `to` (exclusive) that has a
// __syncthreads() which did not order the two accesses: commented out, or in a
// branch not taken. 0 when there is none, or the file cannot be read.
int unused_barrier_line(const std::string& file, int from, int to) {
    std::ifstream in(file);
    std::string text;
    for (int line = 1; line < to && std::getline(in, text); ++line)
        if (line > from && text.find("__syncthreads") != std::string::npos) return line;
    return 0;
}

// Does the line update something in place (x += y, x++, x |= y, ...)? Two
// threads meeting on such a line may be a counter that wants an atomic.
bool updates_in_place(const std::string& file, int line_number) {
    std::ifstream in(file);
    std::string text;
    int line = 0;
    while (line < line_number && std::getline(in, text)) ++line;
    if (line != line_number) return false;
    static const char* const operators[] = {"+=", "-=", "*=", "|=", "&=", "^=", "++", "--"};
    for (const char* op : operators)
        if (text.find(op) != std::string::npos) return true;
    return false;
}

// Where the missing barrier goes, from the lines of the two accesses and the
// barrier that began the interval: a thread runs down from that barrier,
// so a line above it was reached by going round a loop.
std::string where_the_barrier_goes(const source_position& x, const source_position& y,
                                   const worker_shadow& w) {
    if (x.line == 0 || y.line == 0 || x.file != y.file) return "between the two accesses";
    // Line numbers of two functions say nothing about the order the code runs them in.
    if (!x.function.empty() && !y.function.empty() && x.function != y.function)
        return "between line " + std::to_string(x.line) + " (in " + x.function + ") and line " +
               std::to_string(y.line) + " (in " + y.function + "): in the kernel, between the calls that reach them";
    if (x.line == y.line)
        return "after line " + std::to_string(x.line) +
               ", inside the loop around it, so that one pass ends before the next begins";
    const bool after_barrier = w.epoch_file && same_file(x.file, w.epoch_file);
    const int b = after_barrier ? w.epoch_line : 0;
    auto distance = [b](int line) { return line > b ? line - b : line + 1000000; };
    const source_position& first = distance(x.line) < distance(y.line) ? x : y;
    const source_position& second = &first == &x ? y : x;
    // Looking for a barrier that is there but did not run: between the two
    // lines, or in the few lines after the first when the loop came round.
    const bool wrapped = first.line > second.line;
    const int unused = unused_barrier_line(first.file, first.line,
                                           wrapped ? first.line + 12 : second.line);
    std::string where = "after line " + std::to_string(first.line) +
                        (wrapped ? ", before the loop comes back to line " : " and before line ") +
                        std::to_string(second.line);
    if (unused)
        where += ";\n        line " + std::to_string(unused) +
                 " has a __syncthreads() that did not run between them (commented out, or in\n"
                 "        a branch these threads did not take?)";
    return where;
}

[[noreturn]] void report_race(worker_shadow& w, const access_record& earlier, bool earlier_is_write,
                              const access_record& now, bool now_writes, std::uintptr_t address,
                              std::size_t access_size, bool is_dynamic) {
    const char* hazard = !now_writes ? "read-after-write"
                         : earlier_is_write ? "write-after-write" : "write-after-read";
    // The running access's frames are still on this stack: unwound now, at
    // no cost to the accesses that are not reported.
    const call_chain now_callers = callers_of(now.pc);
    const source_position first = position_of(earlier.pc), second = position_of(now.pc, &now_callers);
    std::string variable;
    std::uintptr_t variable_start = 0;
    if (is_dynamic) {
        variable = "the dynamic shared memory (extern __shared__)";
        variable_start = w.dynamic_begin;
    } else {
        std::string full = shared_variable_name(address, &variable_start);
        std::size_t scope = full.rfind("::");
        variable = scope == std::string::npos
                       ? "'" + full + "'"
                       : "'" + full.substr(scope + 2) + "' of " + full.substr(0, scope);
    }
    const std::size_t element = access_size ? access_size : 4;
    const std::uintptr_t offset = address - variable_start;
    const bool one_warp = earlier.thread / 32 == now.thread / 32;
    const bool legacy = one_warp && earlier.is_volatile && now.is_volatile;
    // __syncwarp() is the fix only where the code is meant for one warp, which
    // volatile warp-synchronous code says; elsewhere the block's barrier is.
    const char* barrier = legacy ? "__syncwarp()" : "__syncthreads()";
    // file:line only: at -O2 the function addr2line names is often the
    // emulator's launch wrapper the kernel was inlined into.
    auto access_line = [](const char* kind, unsigned thread, const source_position& p) {
        const std::string where = p.line ? p.file + ":" + std::to_string(p.line) : p.text;
        std::string text = "    " + std::string(kind) + " by thread " + xyz_of(thread) + " at " + where + "\n";
        if (!p.context.empty()) text += "      (inside " + p.context + ", called from that line)\n";
        return text;
    };
    char head[512];
    std::snprintf(head, sizeof head,
                  "  %s hazard on %s, element %zu (byte offset %zu, counting %zu-byte elements, row "
                  "by row in a 2D array):\n",
                  hazard, variable.c_str(), static_cast<std::size_t>(offset / element),
                  static_cast<std::size_t>(offset), element);
    w.what = head;
    w.what += access_line(earlier_is_write ? "write" : "read ", earlier.thread, first);
    w.what += access_line(now_writes ? "write" : "read ", now.thread, second);
    std::string interval = w.epoch_file ? "after the __syncthreads() at " + std::string(w.epoch_file) +
                                              ":" + std::to_string(w.epoch_line)
                                        : "since the block started";
    if (one_warp)
        w.what += "  no barrier came between them: no __syncthreads(), nor a __syncwarp() or other warp\n"
                  "  function for these two lanes of warp " + std::to_string(now.thread / 32) +
                  "; both happened " + interval + "\n";
    else
        w.what += "  no __syncthreads() came between them: both happened " + interval + "\n";
    if (legacy)
        w.what +=
            "  This is warp-synchronous code: it counts on the lanes of a warp running in lockstep.\n"
            "  GPUs since Volta (compute capability 7.0) schedule lanes independently, and\n"
            "  volatile only keeps values out of registers; it orders nothing. Without\n"
            "  CUEMU_CHECK=race the emulator runs volatile shared accesses in lockstep, as the\n"
            "  GPUs this code was written for did.\n";
    w.hint = "add a " + std::string(barrier) + " " + where_the_barrier_goes(first, second, w);
    if (legacy)
        w.hint +=
            ";\n        in a reduction, read into a register, sync, then write, and sync again:\n"
            "        v += s[tid + 16]; __syncwarp(); s[tid] = v; __syncwarp();";
    else if (!one_warp)
        w.hint += ",\n        where every thread of the block reaches it";
    if (!legacy && first.line && first.line == second.line && first.file == second.file &&
        updates_in_place(first.file, first.line))
        // `bins[v] += 1` by two threads is one statement racing with itself: an
        // atomic cures it, no barrier does. `s[t] += s[t + stride]` in a loop
        // looks the same from here and wants the barrier: say both, and which is which.
        w.hint += ";\n        but if both threads mean to update this one element (a count, a sum),\n"
                  "        no barrier can order one statement with itself: make the update atomic (atomicAdd)";
    ::cuemu::kernel_cannot_go_on(
        race_check_named() ? "race on shared memory (CUEMU_CHECK=race)"
                           : "race on shared memory (checked by default; CUEMU_CHECK=none turns the check off)",
        w.what.c_str(), w.hint.c_str(),
        "a race is not an error: the kernel may give right answers on one run or one GPU\n"
        "  and wrong ones on the next, with nothing reported (compute-sanitizer --tool racecheck\n"
        "  finds it there)",
        "", 0);
}

bool ordered(const worker_shadow& w, const shadow_record& earlier, unsigned thread) {
    if (earlier.thread == thread) return true;
    const unsigned warp = thread / 32, earlier_warp = earlier.thread / 32;
    if (earlier_warp == warp) return tls_race_view.warp_sync[warp] != earlier.warp_sync;
    // Threads of one multi-warp tile, the earlier access before a sync of it
    // (the tile of 64 << size_class threads spans 2 << size_class warps).
    if (!tls_race_view.tiles_made) return false;
    for (unsigned size_class = 0; size_class < 5; ++size_class)
        if ((earlier_warp >> (size_class + 1)) == (warp >> (size_class + 1)) &&
            earlier.warp_sync < tls_race_view.tile_mark[size_class][earlier_warp])
            return true;
    return false;
}

bool current(const worker_shadow&, const shadow_record& r) { return r.interval == tls_race_view.interval; }

// Legacy warp-synchronous code (two lanes of one warp on volatile shared
// memory, no warp function between them) runs in lockstep, as on the GPUs it
// was written for. Under the default race check that is a note, once, and the
// kernel goes on, as for volatile global memory; CUEMU_CHECK=race reports it.
bool tolerated_warp_synchronous(const access_record& earlier, bool earlier_writes, const access_record& now,
                                bool now_writes, std::uintptr_t address) {
    if (race_check_named() || !earlier.is_volatile || !now.is_volatile ||
        earlier.thread / 32 != now.thread / 32)
        return false;
    note_warp_synchronous("shared", earlier.thread, earlier_writes, earlier.pc, now.thread, now_writes, now.pc,
                          address);
    return true;
}

// In the hooks' section, like shared_access (kernel_pc_of).
__attribute__((section("cuemu_access_hooks"), noinline)) void check_word(
    worker_shadow& w, word_shadow& cell, word_pcs& pcs, std::uint8_t bytes, bool is_write, const access_record& now,
    std::uintptr_t address, std::size_t size, bool is_dynamic) {
    auto conflicts = [&](const shadow_record& r, const void* r_pc, bool r_writes) {
        return current(w, r) && (r.bytes & bytes) && !ordered(w, r, now.thread) &&
               !tolerated_warp_synchronous(with_pc(r, r_pc), r_writes, now, is_write, address);
    };
    if (conflicts(cell.write, pcs.write, true))
        report_race(w, with_pc(cell.write, pcs.write), true, now, is_write, address, size, is_dynamic);
    if (!is_write) {
        const shadow_record& r0 = cell.read[0];
        const shadow_record& r1 = cell.read[1];
        int slot = 1;
        if (!current(w, r0) || r0.thread == now.thread) slot = 0;
        else if (current(w, r1) && r1.thread != r0.thread &&
                 read_adds_nothing(r0, r1, now.thread, now.warp_sync, now.is_volatile, bytes))
            return;
        cell.read[slot] = now;
        cell.read[slot].bytes = bytes;
        pcs.read[slot] = now.pc;
        return;
    }
    for (int slot = 0; slot < 2; ++slot)
        if (conflicts(cell.read[slot], pcs.read[slot], false))
            report_race(w, with_pc(cell.read[slot], pcs.read[slot]), false, now, true, address, size, is_dynamic);
    cell.write = now;
    cell.write.bytes = bytes;
    pcs.write = now.pc;
    cell.read[0].interval = cell.read[1].interval = 0;
}

// A new interval: every record made so far stops counting. The count goes on
// from block to block; when it wraps, the shadows are cleared for real.
void next_interval(worker_shadow& w) {
    if (++tls_race_view.interval == 0) {
        std::fill(w.static_words.begin(), w.static_words.end(), word_shadow{});
        std::fill(w.dynamic_words.begin(), w.dynamic_words.end(), word_shadow{});
        std::fill(w.static_saturation.begin(), w.static_saturation.end(), word_saturation{});
        std::fill(w.dynamic_saturation.begin(), w.dynamic_saturation.end(), word_saturation{});
        tls_race_view.interval = 1;
    }
}

}  // namespace

bool race_instrumented() { return instrumented.load(std::memory_order_relaxed); }

void note_instrumented() { instrumented.store(true, std::memory_order_relaxed); }

void race_block_begin(const void* dynamic_shared, std::size_t dynamic_bytes, bool left_out) {
    tls_access_watch = watch_nothing;
    if (!race_instrumented()) {
        // No source of the program was built with the instrumentation (no
        // kernel source), or this is the AddressSanitizer build, which has none.
#if defined(__SANITIZE_ADDRESS__)
        if (race_check_named()) say_race_check_unavailable();
#endif
        return;
    }
    worker_shadow& w = shadow();
    if (!w.layout_read) {
        w.layout_read = true;
        if (shared_variable_layout(&w.layout)) {
            w.layout.begin &= ~std::uintptr_t{3};  // words are counted from an aligned start
            w.is_variable.assign((w.layout.end - w.layout.begin + 3) / 4, 0);
            for (const auto& v : w.layout.variables)
                for (std::uintptr_t a = v.begin & ~std::uintptr_t{3}; a < v.end; a += 4)
                    w.is_variable[(a - w.layout.begin) / 4] = 1;
        }
    }
    w.dynamic_begin = reinterpret_cast<std::uintptr_t>(dynamic_shared);
    w.dynamic_end = w.dynamic_begin + dynamic_bytes;
    if (!race_check_requested() || left_out) {
        tls_access_watch = watch_volatile;
        return;
    }
    w.static_words.resize(w.is_variable.size());
    w.static_pcs.resize(w.is_variable.size());
    w.static_saturation.resize(w.is_variable.size());
    if (w.dynamic_words.size() < (dynamic_bytes + 3) / 4) {
        w.dynamic_words.resize((dynamic_bytes + 3) / 4);
        w.dynamic_pcs.resize((dynamic_bytes + 3) / 4);
        w.dynamic_saturation.resize((dynamic_bytes + 3) / 4);
    }
    if (++w.generation == 0) w.generation = 1;  // 0 is volatile_global.cpp's "none"
    next_interval(w);
    w.epoch = 0;
    w.epoch_file = nullptr;
    w.epoch_line = 0;
    race_view& v = tls_race_view;
    v.static_begin = w.layout.begin;
    v.static_bytes = w.layout.end - w.layout.begin;
    v.dynamic_begin = w.dynamic_begin;
    v.dynamic_bytes = dynamic_bytes;
    v.is_variable = w.is_variable.data();
    v.static_words = w.static_words.data();
    v.static_count = w.static_words.size();
    v.dynamic_words = w.dynamic_words.data();
    v.static_pcs = w.static_pcs.data();
    v.dynamic_pcs = w.dynamic_pcs.data();
    v.static_saturation = w.static_saturation.data();
    v.dynamic_saturation = w.dynamic_saturation.data();
    v.dynamic_count = w.dynamic_words.size();
    std::fill(std::begin(v.warp_sync), std::end(v.warp_sync), 0u);
    for (auto& marks : v.tile_mark) std::fill(std::begin(marks), std::end(marks), 0u);
    v.tiles_made = false;
    v.row_threads = ::cuemu::tls_block_dim.x;
    v.plane_threads = ::cuemu::tls_block_dim.x * ::cuemu::tls_block_dim.y;
    tls_access_watch = watch_races;
}

void race_worker_idle() {
    tls_access_watch = watch_nothing;
    const std::uint32_t interval = tls_race_view.interval;  // the count goes on
    tls_race_view = race_view{};
    tls_race_view.interval = interval;
}

void race_barrier_released(const char* file, int line) {
    if (tls_access_watch != watch_races) return;
    worker_shadow& w = shadow();
    ++w.epoch;
    next_interval(w);
    w.epoch_file = file;
    w.epoch_line = line;
}

void race_warp_synchronized(unsigned warp) {
    if (tls_access_watch != watch_races || warp >= 32) return;
    ++tls_race_view.warp_sync[warp];
}

void race_tile_synchronized(unsigned first_warp, unsigned warps) {
    if (tls_access_watch != watch_races) return;
    race_view& v = tls_race_view;
    v.tiles_made = true;
    const unsigned size_class = static_cast<unsigned>(__builtin_ctz(warps)) - 1;  // 2 warps: 0 ... 32: 4
    for (unsigned warp = first_warp; warp < first_warp + warps && warp < 32; ++warp)
        v.tile_mark[size_class][warp] = ++v.warp_sync[warp];
}

void race_multi_warp_tile_made() {
    if (tls_access_watch == watch_races) tls_race_view.tiles_made = true;
}

void shared_access(const void* addr, std::size_t size, bool is_write, bool is_volatile,
                   const void* pc) {
    // Set only while a worker runs blocks, where every instrumented access
    // comes from a CUDA thread (the block loop itself is not instrumented).
    if (tls_access_watch == watch_nothing) return;
    const auto a = reinterpret_cast<std::uintptr_t>(addr);
    worker_shadow* w = tls_shadow;
    const bool in_static = w && a >= w->layout.begin && a < w->layout.end &&
                           w->is_variable[(a - w->layout.begin) / 4];
    const bool in_dynamic = w && a >= w->dynamic_begin && a < w->dynamic_end;
    if (!in_static && !in_dynamic) {
        if (is_volatile) {
            if (tls_access_watch != watch_races) {
                volatile_access_outside_shared(addr, is_write, pc, nullptr);
            } else {
                const auto thread = static_cast<std::uint16_t>(running_thread());
                const volatile_race_clock clock{w->generation, w->epoch, tls_race_view.warp_sync[thread / 32], thread};
                volatile_access_outside_shared(addr, is_write, pc, &clock);
            }
        }
        return;
    }
    if (is_volatile) warp_lockstep_point();
    if (tls_access_watch != watch_races) return;
    const auto thread = static_cast<std::uint16_t>(running_thread());
    const std::uint32_t warp_sync = tls_race_view.warp_sync[thread / 32];
    if (!is_write) {  // most accesses: a read of one word that changes nothing
        const std::uintptr_t offset = a - (in_static ? w->layout.begin : w->dynamic_begin);
        const std::uintptr_t word = offset / 4;
        const std::vector<word_shadow>& words = in_static ? w->static_words : w->dynamic_words;
        if (offset % 4 + size <= 4 && word < words.size() &&
            read_changes_nothing(tls_race_view.interval, words[word],
                                 static_cast<std::uint8_t>(((1u << size) - 1u) << offset % 4), thread, warp_sync,
                                 is_volatile))
            return;
    }
    access_record now;
    now.interval = tls_race_view.interval;
    now.thread = thread;
    now.warp_sync = warp_sync;
    now.is_volatile = is_volatile;
    now.pc = pc;
    const std::uintptr_t base = in_static ? w->layout.begin : w->dynamic_begin;
    std::vector<word_shadow>& words = in_static ? w->static_words : w->dynamic_words;
    std::vector<word_pcs>& pcs = in_static ? w->static_pcs : w->dynamic_pcs;
    // Word by word (an access of 8 or 16 bytes, or a misaligned one, spans
    // several), each with the mask of the bytes it touches in that word.
    for (std::uintptr_t p = a, end = a + size; p < end;) {
        const std::uintptr_t word = (p - base) / 4;
        const unsigned first_byte = static_cast<unsigned>((p - base) % 4);
        const std::uintptr_t stop = std::min(end, base + (word + 1) * 4);
        const auto bytes = static_cast<std::uint8_t>(((1u << (stop - p)) - 1u) << first_byte);
        if (word < words.size()) check_word(*w, words[word], pcs[word], bytes, is_write, now, a, size, in_dynamic);
        p = stop;
    }
}

}  // namespace cuemu::detail

namespace cuemu::detail {
namespace {
// Which launches and blocks the check looks at. With CUEMU_CHECK=race (or
// CUEMU_RACE_LAUNCHES=all), every block of every launch. By default (the check
// not named in CUEMU_CHECK), and with CUEMU_RACE_LAUNCHES=sampled, the
// launches of a kernel in one configuration (grid, block, dynamic shared
// memory) are sampled: the 1st is looked at in every block (in some blocks,
// as below, where the grid has more than every_block_up_to); the 2nd, 4th,
// 8th, 16th ... in some blocks (race_samples_block); the others in none. What
// is not looked at runs the kernel's uninstrumented twin (or its split
// version) where it has one. A training loop that launches one kernel
// thousands of times pays for the check about a dozen times, mostly in a few
// blocks, and every size the program runs has a look at its first launch. A race
// that shows only where nothing looked (a launch's own data that the launches
// looked at did not have) goes unreported (README, "Races in shared
// memory"); CUEMU_CHECK=race checks everything unless
// CUEMU_RACE_LAUNCHES=sampled (what ./tutorial run sets: the lessons' reports
// say CUEMU_CHECK=race, and their training loops stay quick).
bool every_launch_checked() {
    static const bool every = [] {
        const char* text = std::getenv("CUEMU_RACE_LAUNCHES");
        if (!text || !*text) return race_check_named();
        if (std::strcmp(text, "all") == 0) return true;
        if (std::strcmp(text, "sampled") == 0) return false;
        std::fflush(stdout);
        std::fprintf(stderr, "cuemu: CUEMU_RACE_LAUNCHES must be 'all' or 'sampled', got '%s'\n", text);
        std::exit(2);
    }();
    return every;
}

// A first launch of up to this many blocks is looked at in every block; a
// larger one in the sampled blocks (race_samples_block), which still include
// every block at the grid's far edges.
constexpr std::uint64_t every_block_up_to = 64;

race_blocks checks_this_launch(const launch_site& site, const launch_config& config) {
    if (every_launch_checked()) return race_blocks::every;
    char key[96];
    std::snprintf(key, sizeof key, "|%u,%u,%u|%u,%u,%u|%zu", config.grid.x, config.grid.y, config.grid.z,
                  config.block.x, config.block.y, config.block.z, config.shared_bytes);
    static std::mutex mutex;
    static auto& launches = *new std::unordered_map<std::string, unsigned>;  // by kernel and configuration
    std::lock_guard<std::mutex> lock(mutex);
    const unsigned launched_before = launches[std::string(site.kernel ? site.kernel : "") + key]++;
    const unsigned count = launched_before + 1;  // this one's place, from 1
    if (count == 1) {
        const std::uint64_t blocks = std::uint64_t{config.grid.x} * config.grid.y * config.grid.z;
        return blocks <= every_block_up_to ? race_blocks::every : race_blocks::sampled;
    }
    return (count & (count - 1)) == 0 ? race_blocks::sampled : race_blocks::none;
}
}  // namespace

// The blocks a sampled launch looks at: those at the far end of the grid in
// each dimension that has more than one block (where a partial tile or a
// bounds check differs from the rest), block 0, and about one in 16 of the
// others, spread over the grid by a multiplicative hash of the block's index.
bool race_samples_block(std::uint64_t linear_block, dim3 grid) {
    const std::uint64_t x = linear_block % grid.x, y = linear_block / grid.x % grid.y,
                        z = linear_block / (std::uint64_t{grid.x} * grid.y);
    if ((grid.x > 1 && x == grid.x - 1) || (grid.y > 1 && y == grid.y - 1) || (grid.z > 1 && z == grid.z - 1))
        return true;
    return linear_block == 0 || static_cast<std::uint32_t>(static_cast<std::uint32_t>(linear_block) * 2654435761u) >> 28 == 0;
}
}  // namespace cuemu::detail

namespace cuemu {
__thread bool tls_block_race_checked = true;

// A launch runs a kernel's uninstrumented twin (cuemu/launch.h) in the
// blocks the race check leaves out; the profiler needs every access to reach
// the hooks.
race_blocks race_check_of_launch(const launch_site& site, const launch_config& config) {
    if (detail::profiling_requested()) return race_blocks::every;
    detail::every_launch_checked();  // a bad CUEMU_RACE_LAUNCHES stops the first launch
    if (!detail::race_check_requested()) return race_blocks::none;
    return detail::checks_this_launch(site, config);
}
bool shared_memory_free_twins_allowed() { return !detail::profiling_requested(); }

bool note_source_uses_shared_memory() {
    detail::shared_memory_source.store(true, std::memory_order_relaxed);
    return true;
}
}  // namespace cuemu
