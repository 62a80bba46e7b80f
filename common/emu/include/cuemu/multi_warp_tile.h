// cuemu/multi_warp_tile.h - cooperative groups' tiles of more than one warp
// (thread_block_tile<64> to <1024>) on the CPU emulator. Only
// <cooperative_groups.h> includes it, in the middle, where the tile types are
// declared; it owns details::multi_warp_tile, the base of those tiles.
//
// What CUDA 13 declares for such a tile (its cooperative_groups.h) is all
// there is here: thread_rank(), num_threads(), size(), meta_group_rank(),
// meta_group_size(), sync(), shfl(value, src_rank) (every thread must pass the
// same src_rank), any() and all(), and cg::reduce and the scans
// (cooperative_groups/scan.h) take it; values moved are of at most 8 bytes. There is no shfl_up, shfl_down, shfl_xor, ballot,
// match_any or match_all, and the tile does not convert to thread_group:
// using one is a compile error, as with nvcc.
//
// Every call waits for the tile's threads (cuemu::tile_barrier, in the
// scheduler): like __syncthreads() for the tile alone. A block that is not a
// multiple of the tile leaves its last tile short: lanes of its last warp
// missing are absent from every call, as on a GPU (reduce, scans and votes
// take the threads there are; a shfl from a missing rank gives all one bits,
// as a warp shuffle from a missing lane does here); a whole warp missing
// stops the launch where the tile is made (tiled_partition; a GPU hangs). A
// thread of the tile that exits or waits elsewhere instead of reaching a call
// stops the launch with a report naming the call's line (undefined on a GPU).
// A shuffle, vote or reduce hands each thread's value to the others through
// words the worker keeps outside shared memory (cuemu::tile_exchange_words),
// between two such waits: the second keeps a thread's next call from
// overwriting its word before the tile has read it.
#ifndef CUEMU_MULTI_WARP_TILE_H
#define CUEMU_MULTI_WARP_TILE_H

#ifndef CUEMU_CG_SITE
#error "cuemu/multi_warp_tile.h is part of <cooperative_groups.h>; include that instead"
#endif

#include <cstdint>
#include <type_traits>

namespace cooperative_groups {
namespace details {
template <unsigned Size>
class multi_warp_tile {
    static_assert(Size >= 64 && Size <= 1024 && (Size & (Size - 1)) == 0,
                  "a multi-warp thread_block_tile has 64, 128, 256, 512 or 1024 threads");
    template <unsigned, class> friend class ::cooperative_groups::thread_block_tile;
    friend struct group_access;

    unsigned meta_rank_, meta_size_;

    template <class T>
    static void check_exchanged_type() {
        static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                      "collectives of tiles larger than 32 threads move trivially copyable values of at "
                      "most 8 bytes");
    }

    // Hands `value` to the tile, waits for all of it, and gives `read` the
    // tile's values in rank order; waits again before returning what read did.
    template <class Read>
    static auto exchange(std::uint64_t value, const char* call, Read read, const char* file, int line) {
        std::uint64_t* words = ::cuemu::tile_exchange_words();
        const unsigned rank = block_rank();
        words[rank] = value;
        ::cuemu::tile_barrier(Size, call, file, line);
        const auto result = read(static_cast<const std::uint64_t*>(words + (rank & ~(Size - 1))));
        ::cuemu::tile_barrier(Size, call, file, line);
        return result;
    }

    // The tile's threads the block has: Size, or fewer in a last tile whose
    // last warp lacks lanes (a tile lacking whole warps is never made).
    static unsigned present() {
        const unsigned first = block_rank() & ~(Size - 1);
        return block_size() - first < Size ? block_size() - first : Size;
    }

    // cg::reduce: each warp's values, then the warps' results, combined by
    // halving distances (rank i takes in rank i + d, where the tile has it),
    // as the emulator's warp tiles do; every thread works it out from the
    // same values.
    template <class T, class Op>
    T reduce(T value, Op& op, const char* file, int line) const {
        check_exchanged_type<T>();
        const unsigned n = present();
        return exchange(::cuemu::to_warp_bits(value), "cg::reduce()",
                        [&](const std::uint64_t* words) {
                            T partial[Size / 32];
                            for (unsigned warp = 0; warp < Size / 32; ++warp) {
                                T lanes[32];
                                const unsigned have = n - warp * 32 < 32 ? n - warp * 32 : 32;
                                for (unsigned lane = 0; lane < have; ++lane)
                                    lanes[lane] = ::cuemu::from_warp_bits<T>(words[warp * 32 + lane]);
                                partial[warp] = halve(lanes, 32u, have, op);
                            }
                            return halve(partial, Size / 32, Size / 32, op);
                        },
                        file, line);
    }
    // cg::inclusive_scan: op over the values of ranks 0 to the thread's own,
    // as op(own partial, partial from below) (cooperative_groups/scan.h).
    template <class T, class Op>
    T inclusive_scan(T value, Op& op, const char* call, const char* file, int line) const {
        check_exchanged_type<T>();
        const unsigned rank = thread_rank();
        return exchange(::cuemu::to_warp_bits(value), call,
                        [&](const std::uint64_t* words) {
                            T partial = ::cuemu::from_warp_bits<T>(words[0]);
                            for (unsigned i = 1; i <= rank; ++i)
                                partial = op(::cuemu::from_warp_bits<T>(words[i]), partial);
                            return partial;
                        },
                        file, line);
    }
    // The value of the rank below the thread's (rank 0: its own), for an
    // exclusive scan made from the inclusive one.
    template <class T>
    T value_below(T value, const char* call, const char* file, int line) const {
        check_exchanged_type<T>();
        const unsigned rank = thread_rank();
        return exchange(::cuemu::to_warp_bits(value), call,
                        [&](const std::uint64_t* words) {
                            return ::cuemu::from_warp_bits<T>(words[rank ? rank - 1 : 0]);
                        },
                        file, line);
    }
    // v[0] to v[have - 1] of n (a power of two): those past `have` are not
    // there and leave their partner as it is.
    template <class T, class Op>
    static T halve(T* v, unsigned n, unsigned have, Op& op) {
        for (unsigned d = n / 2; d > 0; d /= 2)
            for (unsigned i = 0; i < d && i + d < have; ++i) v[i] = op(v[i], v[i + d]);
        return v[0];
    }

protected:
    // tiled_partition, which makes the tile, tells the scheduler of it
    // (::cuemu::multi_warp_tile_made).
    multi_warp_tile(unsigned meta_rank, unsigned meta_size) : meta_rank_(meta_rank), meta_size_(meta_size) {}

public:
    static unsigned thread_rank() { return block_rank() & (Size - 1); }
    static constexpr unsigned num_threads() { return Size; }
    static constexpr unsigned size() { return Size; }
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }

    void sync(CUEMU_CG_SITE) const { ::cuemu::tile_barrier(Size, "sync()", CUEMU_CG_SITE_ARGS); }

    // The value of the thread of rank src_rank (past the tile's end: of
    // src_rank modulo Size, as a warp shuffle's width wraps it; of a rank the
    // block lacks: undefined on a GPU, all one bits here).
    template <class T>
    T shfl(T var, unsigned src_rank, CUEMU_CG_SITE) const {
        check_exchanged_type<T>();
        const unsigned src = src_rank & (Size - 1);
        const bool there = src < present();
        return exchange(::cuemu::to_warp_bits(var), "shfl()",
                        [&](const std::uint64_t* words) {
                            return ::cuemu::from_warp_bits<T>(there ? words[src] : ~std::uint64_t{0});
                        },
                        CUEMU_CG_SITE_ARGS);
    }
    int any(int predicate, CUEMU_CG_SITE) const {
        const unsigned n = present();
        return exchange(predicate != 0, "any()",
                        [n](const std::uint64_t* words) {
                            for (unsigned i = 0; i < n; ++i)
                                if (words[i]) return 1;
                            return 0;
                        },
                        CUEMU_CG_SITE_ARGS);
    }
    int all(int predicate, CUEMU_CG_SITE) const {
        const unsigned n = present();
        return exchange(predicate != 0, "all()",
                        [n](const std::uint64_t* words) {
                            for (unsigned i = 0; i < n; ++i)
                                if (!words[i]) return 0;
                            return 1;
                        },
                        CUEMU_CG_SITE_ARGS);
    }
};
}  // namespace details
}  // namespace cooperative_groups

#endif
