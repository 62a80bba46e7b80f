// l2_model.h - the modelled L2 cache between the SMs and DRAM, for the
// profiler's dram__bytes_read/write (labelled "modelled" everywhere).
//
// A set-associative cache of 32-byte sectors (16 ways, least recently used
// out; the sets of each aligned run of 64 sectors are consecutive and a hash
// of the run's number places it, so that power-of-two strides do not all
// fall in one set while a stream of sectors walks the model's memory in
// order, which is what keeps the model cheap), the size of the chosen GPU's L2. It
// starts cold at every launch, as ncu's default --cache-control all makes it
// when it measures a kernel. A read miss reads the sector from DRAM; a write
// allocates the sector without reading it (the SMs write whole sectors or
// byte-masked parts, which L2 merges); dirty sectors are written to DRAM when
// evicted and at the end of the launch. Accesses come in the emulator's
// order (warp by warp, block by block), not a GPU's interleaving of many SMs:
// one more reason the figure is a model.
#ifndef CUEMU_L2_MODEL_H
#define CUEMU_L2_MODEL_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cuemu::detail {

class l2_model {
public:
    void reset(double l2_bytes) {
        const std::uint64_t sectors = l2_bytes > 0 ? std::uint64_t(l2_bytes) / 32 : 1024;
        sets_ = std::max<std::uint64_t>(1, sectors / ways);
        if (lines_.size() != sets_ * ways) lines_.assign(sets_ * ways, line{});
        if (stamps_.size() != sets_) stamps_.assign(sets_, 0);
        ++generation_;  // every line of an older generation is empty: no clearing per launch
        reads_ = writes_ = 0;
    }

    void access(std::uint64_t sector, bool write) {
        // A sector touched again before anything else touched its set is
        // still that set's most recently used line: nothing would change
        // (unless a write finds it clean). A warp's loop meets the same few
        // sectors again and again; this spares each a walk through 16 ways.
        recent& r = recent_[sector % recent_slots];
        if (r.generation == generation_ && r.sector == sector && stamps_[r.set] == r.stamp && (r.dirty || !write))
            return;
        const std::uint64_t set = (hash(sector / run) * run + sector % run) % sets_;
        line* l = &lines_[set * ways];
        const std::uint32_t now = ++stamps_[set];
        r = recent{sector, set, generation_, now, write};
        line* victim = l;
        for (unsigned w = 0; w < ways; ++w) {
            if (l[w].generation == generation_ && (l[w].tag >> 1) == sector) {
                l[w].used = now;
                l[w].tag |= write;
                r.dirty = l[w].tag & 1;
                return;
            }
            if (l[w].generation != generation_) victim = &l[w];
            else if (victim->generation == generation_ && l[w].used < victim->used) victim = &l[w];
        }
        if (victim->generation == generation_ && (victim->tag & 1)) ++writes_;
        if (!write) ++reads_;
        *victim = line{sector << 1 | write, generation_, now};
    }

    // Writes back what is dirty (the end of the launch).
    void flush() {
        for (line& l : lines_)
            if (l.generation == generation_ && (l.tag & 1)) {
                ++writes_;
                l.tag &= ~std::uint64_t(1);
            }
    }

    std::uint64_t dram_read_bytes() const { return reads_ * 32; }
    std::uint64_t dram_write_bytes() const { return writes_ * 32; }

private:
    static constexpr unsigned ways = 16, run = 64;
    struct line {                // 16 bytes: a set's 16 ways are four cache lines
        std::uint64_t tag = 0;   // sector << 1 | dirty
        std::uint32_t generation = 0;
        std::uint32_t used = 0;
    };
    static std::uint64_t hash(std::uint64_t s) {
        s ^= s >> 17;
        s *= 0xed5ad4bbu;
        s ^= s >> 11;
        return s;
    }
    static constexpr unsigned recent_slots = 64;
    struct recent {
        std::uint64_t sector = 0, set = 0;
        std::uint32_t generation = 0, stamp = 0;
        bool dirty = false;
    };
    recent recent_[recent_slots];
    std::vector<line> lines_;
    std::vector<std::uint32_t> stamps_;
    std::uint64_t sets_ = 1;
    std::uint32_t generation_ = 0;
    std::uint64_t reads_ = 0, writes_ = 0;
};

}  // namespace cuemu::detail

#endif
