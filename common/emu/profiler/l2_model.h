// l2_model.h - the modelled L2 cache between the SMs and DRAM, for the
// profiler's dram__bytes_read/write (labelled "modelled" everywhere).
//
// A set-associative cache of 32-byte sectors (16 ways, least recently used
// out, sets chosen by a hash of the sector number so that power-of-two
// strides do not all fall in one set), the size of the chosen GPU's L2. It
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
        const std::uint64_t set = hash(sector) % sets_;
        line* l = &lines_[set * ways];
        const std::uint32_t now = ++stamps_[set];
        line* victim = l;
        for (unsigned w = 0; w < ways; ++w) {
            if (l[w].generation == generation_ && l[w].sector == sector) {
                l[w].used = now;
                l[w].dirty |= write;
                return;
            }
            if (l[w].generation != generation_) victim = &l[w];
            else if (victim->generation == generation_ && l[w].used < victim->used) victim = &l[w];
        }
        if (victim->generation == generation_ && victim->dirty) ++writes_;
        if (!write) ++reads_;
        *victim = line{sector, generation_, now, write};
    }

    // Writes back what is dirty (the end of the launch).
    void flush() {
        for (line& l : lines_)
            if (l.generation == generation_ && l.dirty) {
                ++writes_;
                l.dirty = false;
            }
    }

    std::uint64_t dram_read_bytes() const { return reads_ * 32; }
    std::uint64_t dram_write_bytes() const { return writes_ * 32; }

private:
    static constexpr unsigned ways = 16;
    struct line {
        std::uint64_t sector = 0;
        std::uint32_t generation = 0;
        std::uint32_t used = 0;
        bool dirty = false;
    };
    static std::uint64_t hash(std::uint64_t s) {
        s ^= s >> 17;
        s *= 0xed5ad4bbu;
        s ^= s >> 11;
        return s;
    }
    std::vector<line> lines_;
    std::vector<std::uint32_t> stamps_;
    std::uint64_t sets_ = 1;
    std::uint32_t generation_ = 0;
    std::uint64_t reads_ = 0, writes_ = 0;
};

}  // namespace cuemu::detail

#endif
