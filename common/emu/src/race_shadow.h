// race_shadow.h - what the race check remembers of each shared-memory word
// (race_detector.cpp keeps it), and the shortcut that lets most reads go
// without a call into the detector: the instrumentation hooks
// (tsan_hooks.cpp) run it inline, on every plain read of shared memory.
//
// A block's life is a sequence of barrier intervals; each gets a number of
// its own from the worker's count (`interval`), so a record of any other
// number is as good as empty: a barrier or a new block forgets every record
// at once, without touching them.
#ifndef CUEMU_RACE_SHADOW_H
#define CUEMU_RACE_SHADOW_H

#include <cstddef>
#include <cstdint>

#include "cuemu/builtins.h"

namespace cuemu::detail {

// 12 bytes, so that the three of a word share a cache line most of the time;
// where in the code each happened is kept apart, in word_pcs, which only the
// stores and a report touch.
struct shadow_record {
    std::uint32_t interval = 0;   // the barrier interval it happened in; 0: none
    std::uint32_t warp_sync = 0;  // the warp's completed warp functions at the time
    std::uint16_t thread = 0;     // linear index in the block
    std::uint8_t bytes = 0;       // which bytes of the word (bit mask)
    bool is_volatile = false;
};

// The last write and up to two reads (of different threads) of the current
// interval: enough to find a conflicting pair whatever order the emulator
// runs the threads in.
struct word_shadow {
    shadow_record write, read[2];
};
// Where each of them happened: the instruction after the hook's call.
struct word_pcs {
    const void* write = nullptr;
    const void* read[2] = {nullptr, nullptr};
};

// A word whose further plain reads in the current interval can add nothing
// to the check, found when the second of two full-word, non-volatile reads by
// different threads is recorded with no write of this interval: when the two
// are lanes of different warps, any write that follows races with one of them
// (and stops the launch), so no read needs looking at; when they are lanes of
// one warp at one count of warp functions, the same holds for the reads of
// that warp until its next warp function (read_adds_nothing). The hooks then
// let such a read go after one compare, without the records' checks: in a
// tiled loop, where a row or a column of threads reads the same words, that
// is nearly every read.
constexpr std::uint32_t any_warp = 0xFFFFFFFFu;
struct word_saturation {
    std::uint32_t interval = 0;  // 0: none
    std::uint32_t warp = 0;      // any_warp, or the one warp whose reads it covers
    std::uint32_t warp_sync = 0;  // that warp's count of warp functions
};

// What a worker's hooks need of the block it runs under the race check; all
// zero otherwise (then nothing is shared memory).
struct race_view {
    std::uintptr_t static_begin = 0, static_bytes = 0;    // the __shared__ variables
    std::uintptr_t dynamic_begin = 0, dynamic_bytes = 0;  // extern __shared__
    const std::uint8_t* is_variable = nullptr;  // per word of the static part (the gaps are not shared)
    word_shadow* static_words = nullptr;
    word_shadow* dynamic_words = nullptr;
    word_pcs* static_pcs = nullptr;  // beside each of the words above
    word_pcs* dynamic_pcs = nullptr;
    word_saturation* static_saturation = nullptr;  // beside them too
    word_saturation* dynamic_saturation = nullptr;
    std::size_t static_count = 0, dynamic_count = 0;
    std::uint32_t interval = 0;
    // blockDim.x and blockDim.x * blockDim.y: a thread's linear index without
    // a chain of multiplications on every access
    unsigned row_threads = 0, plane_threads = 0;
    std::uint32_t warp_sync[32] = {};  // per warp of the block: its completed warp functions
    // Per size of multi-warp tile (64, 128 ... 1024) and warp: the warp's
    // warp_sync right after its tile of that size last synchronized; an
    // access of the warp at a smaller count is ordered before whatever the
    // tile's threads do now (race_detector.cpp: ordered).
    std::uint32_t tile_mark[5][32] = {};
    // The block has made a multi-warp tile. Then two reads by threads of
    // different warps no longer stand for every later read (a write ordered
    // after both by a tile sync races with neither, but may with a third
    // reader outside the tile), so the shortcuts below that rely on it are off.
    bool tiles_made = false;

    // Whether [p, p + n) overlaps the block's shared memory. Most accesses of
    // a kernel are to global memory, and this lets them go at once.
    bool touches(const void* p, std::size_t n) const {
        const auto a = reinterpret_cast<std::uintptr_t>(p);
        return (a < static_begin + static_bytes && a + n > static_begin) ||
               (a < dynamic_begin + dynamic_bytes && a + n > dynamic_begin);
    }
};
extern __thread race_view tls_race_view;

// The running CUDA thread's index in its block, x fastest.
inline unsigned race_running_thread() {
    const uint3 t = ::cuemu::tls_thread_idx, d = ::cuemu::tls_block_dim;
    return t.x + d.x * (t.y + d.y * t.z);
}
inline unsigned race_running_thread(const race_view& v) {
    const uint3 t = ::cuemu::tls_thread_idx;
    return t.x + v.row_threads * t.y + v.plane_threads * t.z;
}

// Can a read be left out of the shadow, with r0 and r1 two reads of other
// threads recorded in this interval? Yes when every later write that would
// race with it also races with one of them: both cover its bytes, neither
// could be excused as warp-synchronous when it is not, and either the two are
// in different warps (a writer is outside at least one of them), or they are
// lanes of its own warp at its count of warp functions (a writer that is not
// ordered after it is ordered after neither, and cannot be both of them).
// Then a report names one of those two reads instead. In a tiled loop, where
// every thread of a row or column reads the same words, that is nearly every read.
inline bool read_adds_nothing(const shadow_record& r0, const shadow_record& r1, unsigned thread,
                              std::uint32_t warp_sync, bool is_volatile, std::uint8_t bytes) {
    if ((bytes & ~(r0.bytes & r1.bytes)) != 0) return false;
    if ((r0.is_volatile || r1.is_volatile) && !is_volatile) return false;
    const unsigned warp0 = r0.thread / 32u, warp1 = r1.thread / 32u;
    if (warp0 != warp1) return !tls_race_view.tiles_made;
    return warp0 == thread / 32u && r0.warp_sync == warp_sync && r1.warp_sync == warp_sync;
}

// A read that needs neither a check nor a record: no write of another thread
// in this interval, and the thread's own read already recorded (at the same
// count of warp functions, the same bytes), or two reads recorded that stand
// for this one. Keeping the thread's earlier read instead of this one only
// changes which of its lines a report names. Anything else goes to the
// detector (shared_access).
inline bool read_changes_nothing(std::uint32_t interval, const word_shadow& cell, std::uint8_t bytes,
                                 unsigned thread, std::uint32_t warp_sync, bool is_volatile) {
    const shadow_record& write = cell.write;
    if (write.interval == interval && (write.bytes & bytes) && write.thread != thread) return false;
    const shadow_record& r0 = cell.read[0];
    if (r0.interval != interval) return false;
    auto stands_for_this = [&](const shadow_record& r) {
        return (bytes & ~r.bytes) == 0 && r.warp_sync == warp_sync && (!r.is_volatile || is_volatile);
    };
    if (r0.thread == thread) return stands_for_this(r0);
    const shadow_record& r1 = cell.read[1];
    if (r1.interval != interval || r1.thread == r0.thread) return false;
    if (r1.thread == thread) return stands_for_this(r1);
    return read_adds_nothing(r0, r1, thread, warp_sync, is_volatile, bytes);
}

// A read the word's saturation covers (above).
inline bool read_is_covered(const word_saturation& sat, const race_view& v) {
    if (sat.interval != v.interval) return false;
    if (sat.warp == any_warp) return true;
    return sat.warp == race_running_thread(v) / 32 && sat.warp_sync == v.warp_sync[sat.warp];
}

// For the hooks, before they call out of line: a plain read of n bytes at p,
// inside one word of the block's shared memory, that the word's saturation
// covers.
__attribute__((always_inline)) inline bool read_needs_no_check(const void* p, std::size_t n) {
    const race_view& v = tls_race_view;
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    std::uintptr_t offset;
    const word_saturation* sat;
    if (a - v.static_begin < v.static_bytes) {
        offset = a - v.static_begin;
        if (offset / 4 >= v.static_count) return false;
        sat = v.static_saturation + offset / 4;
    } else if (a - v.dynamic_begin < v.dynamic_bytes) {
        offset = a - v.dynamic_begin;
        if (offset / 4 >= v.dynamic_count) return false;
        sat = v.dynamic_saturation + offset / 4;
    } else {
        return false;
    }
    return offset % 4 + n <= 4 && read_is_covered(*sat, v);
}

// After a read was checked and its records kept: is the word saturated now?
inline void note_saturation(const word_shadow& cell, word_saturation& sat, std::uint32_t interval) {
    const shadow_record &r0 = cell.read[0], &r1 = cell.read[1];
    if (cell.write.interval == interval || r0.interval != interval || r1.interval != interval ||
        r0.thread == r1.thread || r0.bytes != 0xF || r1.bytes != 0xF || r0.is_volatile || r1.is_volatile)
        return;
    if (r0.thread / 32u != r1.thread / 32u) {
        if (!tls_race_view.tiles_made) sat = {interval, any_warp, 0};
    } else if (r0.warp_sync == r1.warp_sync) {
        sat = {interval, r0.thread / 32u, r0.warp_sync};
    }
}

// The hooks' own part of the check, for a plain access of n bytes at p that
// touches shared memory (view.touches) and lies in one word (a read here is
// one read_needs_no_check did not let go): a read that changes nothing, or
// that only takes a free slot of the word; a write to a word no other thread
// touched in this interval. True when that was all;
// false sends the access to the detector (shared_access), which sees every
// access that may race, or that spans words or falls between variables.
__attribute__((always_inline)) inline bool plain_access_done(const void* p, std::size_t n, bool is_write,
                                                            const void* pc) {
    race_view& v = tls_race_view;
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    std::uintptr_t offset;
    word_shadow* cell;
    word_pcs* pcs;
    word_saturation* sat;
    if (a - v.static_begin < v.static_bytes) {
        offset = a - v.static_begin;
        const std::uintptr_t word = offset / 4;
        if (word >= v.static_count) return false;
        sat = v.static_saturation + word;
        if (!v.is_variable[word]) return false;
        cell = v.static_words + word;
        pcs = v.static_pcs + word;
    } else if (a - v.dynamic_begin < v.dynamic_bytes) {
        offset = a - v.dynamic_begin;
        const std::uintptr_t word = offset / 4;
        if (word >= v.dynamic_count) return false;
        sat = v.dynamic_saturation + word;
        cell = v.dynamic_words + word;
        pcs = v.dynamic_pcs + word;
    } else {
        return false;
    }
    if (offset % 4 + n > 4) return false;
    const std::uint32_t interval = v.interval;
    const unsigned thread = race_running_thread(v);
    const std::uint32_t warp_sync = v.warp_sync[thread / 32];
    const auto bytes = static_cast<std::uint8_t>(((1u << n) - 1u) << offset % 4);
    const shadow_record now{interval, warp_sync, static_cast<std::uint16_t>(thread), bytes, false};
    // A record of another thread in this interval, on these bytes: a possible race.
    auto other = [&](const shadow_record& r) {
        return r.interval == interval && r.thread != thread && (r.bytes & bytes);
    };
    if (is_write) {
        if (other(cell->write) || other(cell->read[0]) || other(cell->read[1])) return false;
        cell->write = now;
        pcs->write = pc;
        cell->read[0].interval = cell->read[1].interval = 0;
        return true;
    }
    if (other(cell->write)) return false;
    if (!read_changes_nothing(interval, *cell, bytes, thread, warp_sync, false)) {
        // As the detector would: the first slot unless it holds another
        // thread's read of this interval, else the second.
        const shadow_record& r0 = cell->read[0];
        const int slot = r0.interval != interval || r0.thread == thread ? 0 : 1;
        cell->read[slot] = now;
        pcs->read[slot] = pc;
    }
    note_saturation(*cell, *sat, interval);
    return true;
}

}  // namespace cuemu::detail

#endif
