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
        if (tags_.size() != sets_ * ways) tags_.assign(sets_ * ways, 0);
        if (sets_info_.size() != sets_) sets_info_.assign(sets_, set_info{});
        ++generation_;  // every set of an older generation is empty: no clearing per launch
        reads_ = writes_ = 0;
    }

    void access(std::uint64_t sector, bool write) {
        // A sector touched again before anything else touched its set is
        // still that set's most recently used line: nothing would change
        // (unless a write finds it clean). A warp's loop meets the same few
        // sectors again and again; this spares each a look at the set.
        recent& r = recent_[sector % recent_slots];
        if (r.generation == generation_ && r.sector == sector && sets_info_[r.set].stamp == r.stamp &&
            (r.dirty || !write))
            return;
        const std::uint64_t set = (hash(sector / run) * run + sector % run) % sets_;
        set_info& info = sets_info_[set];
        if (info.generation != generation_) {  // first touch of this set in this launch
            info.generation = generation_;
            info.filled = 0;
        }
        // The set's lines, most recently used first: the first `filled` ways
        // hold this launch's lines (none is emptied before the launch ends).
        std::uint64_t* tags = &tags_[set * ways];
        r = recent{sector, set, generation_, ++info.stamp, write};
        unsigned w = 0;
        while (w < info.filled && (tags[w] >> 1) != sector) ++w;
        std::uint64_t tag;
        if (w < info.filled) {  // a hit: to the front, dirty if written
            tag = tags[w] | write;
        } else {  // a miss: the least recently used line goes when the set is full
            if (info.filled < ways) {
                w = info.filled++;
            } else {
                w = ways - 1;
                if (tags[w] & 1) ++writes_;  // written back to DRAM
            }
            if (!write) ++reads_;  // a write allocates without reading
            tag = sector << 1 | write;
        }
        std::copy_backward(tags, tags + w, tags + w + 1);
        tags[0] = tag;
        r.dirty = tag & 1;
    }

    // Writes back what is dirty (the end of the launch).
    void flush() {
        for (std::uint64_t set = 0; set < sets_; ++set) {
            const set_info& info = sets_info_[set];
            if (info.generation != generation_) continue;
            for (unsigned w = 0; w < info.filled; ++w) {
                std::uint64_t& tag = tags_[set * ways + w];
                if (tag & 1) {
                    ++writes_;
                    tag &= ~std::uint64_t(1);
                }
            }
        }
    }

    std::uint64_t dram_read_bytes() const { return reads_ * 32; }
    std::uint64_t dram_write_bytes() const { return writes_ * 32; }

private:
    static constexpr unsigned ways = 16, run = 64;
    struct set_info {
        std::uint32_t stamp = 0;       // counts the set's accesses (recent_ compares it)
        std::uint32_t generation = 0;  // the launch whose lines the set holds
        std::uint32_t filled = 0;      // ways 0 .. filled-1 hold lines of that launch
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
    std::vector<std::uint64_t> tags_;  // [set * ways + way]: sector << 1 | dirty, most recent first
    std::vector<set_info> sets_info_;
    std::uint64_t sets_ = 1;
    std::uint32_t generation_ = 0;
    std::uint64_t reads_ = 0, writes_ = 0;
};

}  // namespace cuemu::detail

#endif
