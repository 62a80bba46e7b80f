// cooperative_groups.h - CUDA's cooperative groups on the CPU emulator.
//
// In an emulator build, #include <cooperative_groups.h> finds this file, so a
// kernel written for nvcc (namespace cg = cooperative_groups;) compiles
// unchanged. Every group function is built on the emulator's own barriers and
// warp functions: a block's sync() is __syncthreads(), a tile's sync() and
// shuffles are __syncwarp/__shfl_*_sync with the tile's lane mask and width.
// So they wait, exchange and diagnose exactly as those do (see
// common/emu/README.md), and a report names the line of the group call.
//
// What is here: thread_block (this_thread_block, also with a
// block_tile_memory scratch), thread_block_tile<N> for N a power of two up to
// 32 (tiled_partition<N>, also of a tile) and, in <cuemu/multi_warp_tile.h>,
// from 64 to 1024 (what CUDA 13 gives such a tile: sync, ranks, shfl from one
// rank, any, all, cg::reduce; each call waits for the tile's threads in the
// scheduler's tile_barrier), the dynamic tiled_partition(group, n),
// coalesced_group (coalesced_threads), labeled_partition and
// binary_partition, grid_group (this_grid), cg::reduce in
// <cooperative_groups/reduce.h> and the scans in <cooperative_groups/scan.h>.
// What is not: see "What it does not do" in common/emu/README.md; each such use
// is a compile error or a loud report, never a silent guess.
#ifndef CUEMU_COOPERATIVE_GROUPS_H
#define CUEMU_COOPERATIVE_GROUPS_H
#define _COOPERATIVE_GROUPS_H_  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include <cuda_runtime.h>

// The hidden arguments carry the caller's file and line to the barrier or warp
// function underneath, so a diagnostic names the kernel's line, not this file's.
#define CUEMU_CG_SITE const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()
#define CUEMU_CG_SITE_ARGS cuemu_file, cuemu_line

namespace cooperative_groups {

namespace details {
// The calling thread's index in its block, x fastest (CUDA's thread rank).
inline unsigned block_rank() {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned lane() { return block_rank() & 31u; }
inline unsigned lanes_below() { return (1u << lane()) - 1u; }
// The lane of the group member of rank `rank` (the rank-th set bit of mask), or
// -1 when the group has no such member.
inline int lane_of_rank(unsigned mask, unsigned rank) {
    for (unsigned m = mask; m; m &= m - 1)
        if (rank-- == 0) return __builtin_ctz(m);
    return -1;
}

enum class group_kind { block, grid, lanes };
// Makes and looks into groups whose constructors are not public (as in CUDA,
// a group comes only from this_thread_block(), tiled_partition() and so on).
struct group_access;

// A GPU traps here (__trap); the emulator stops the launch with a report.
[[noreturn]] inline void bad_partition_size(const char* file, int line) {
    ::cuemu::kernel_cannot_go_on(
        "tiled_partition() with a tile size that is not 1, 2, 4, 8, 16 or 32",
        "  the dynamic tiled_partition(group, size) makes tiles of a power of two up to 32 threads",
        "use a power of two from 1 to 32 as the tile size",
        "the group code traps (__trap()), and the launch fails with an error", file, line);
}

[[noreturn]] inline void grid_sync_without_cooperative_launch(const char* file, int line) {
    ::cuemu::kernel_cannot_go_on(
        "this_grid().sync() needs a cooperative launch",
        "  a grid-wide barrier needs every block of the grid running at once, which only a\n"
        "  launch with cudaLaunchCooperativeKernel guarantees; a <<<...>>> launch does not\n"
        "  (this_grid().is_valid() is false in it)",
        "launch the kernel with cudaLaunchCooperativeKernel, with no more blocks than the\n"
        "        device holds at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor times the\n"
        "        multiprocessor count), or split it in two at the barrier and launch both\n"
        "        halves one after the other: the end of a kernel is a barrier for the whole grid",
        "a kernel launched with <<<...>>> gets an invalid grid group: grid.sync() traps\n"
        "  (__trap()) and the launch fails with an error", file, line);
}

[[noreturn]] inline void grid_sync_not_reached(const char* file, int line) {
    ::cuemu::kernel_cannot_go_on(
        "this_grid().sync() not reached by every block of the grid",
        "  this block waits at the grid barrier, but another block of the cooperative launch\n"
        "  has ended without reaching it, so the barrier can never be passed",
        "every thread of every block must call grid.sync() the same number of times:\n"
        "        do not return early before it, or call it inside a branch only some blocks take",
        "the blocks wait for ever: the kernel hangs", file, line);
}

// A cooperative launch's grid barrier: the block's threads meet, its first
// thread waits for the other blocks (src/cooperative.cpp), and the block's
// threads meet again, so nothing after the barrier runs before every thread
// of the grid has reached it.
inline void grid_sync(const char* file, int line) {
    if (!::cuemu::grid_is_cooperative()) grid_sync_without_cooperative_launch(file, line);
    __syncthreads(file, line);
    if (block_rank() == 0 && ::cuemu::grid_barrier_wait() == ::cuemu::grid_wait::blocks_ended)
        grid_sync_not_reached(file, line);
    __syncthreads(file, line);
}
}  // namespace details

// Any group, as a value that knows at run time what it is. The warp-level
// kinds (tiles, coalesced groups, dynamic partitions) keep the lanes of the
// caller's warp that belong to the group.
class thread_group {
protected:
    details::group_kind kind_;
    unsigned mask_ = 0;  // lanes of the group (warp-level kinds)
    unsigned meta_rank_ = 0, meta_size_ = 1;

    explicit thread_group(details::group_kind kind, unsigned mask = 0, unsigned meta_rank = 0,
                          unsigned meta_size = 1)
        : kind_(kind), mask_(mask), meta_rank_(meta_rank), meta_size_(meta_size) {}

    friend struct details::group_access;

public:
    unsigned long long num_threads() const {
        switch (kind_) {
            case details::group_kind::block: return details::block_size();
            case details::group_kind::grid:
                return static_cast<unsigned long long>(details::block_size()) * gridDim.x * gridDim.y *
                       gridDim.z;
            default: return static_cast<unsigned>(__builtin_popcount(mask_));
        }
    }
    unsigned long long size() const { return num_threads(); }
    unsigned long long thread_rank() const {
        switch (kind_) {
            case details::group_kind::block: return details::block_rank();
            case details::group_kind::grid: {
                const unsigned long long block =
                    (static_cast<unsigned long long>(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x +
                    blockIdx.x;
                return block * details::block_size() + details::block_rank();
            }
            default: return static_cast<unsigned>(__builtin_popcount(mask_ & details::lanes_below()));
        }
    }
    void sync(CUEMU_CG_SITE) const {
        switch (kind_) {
            case details::group_kind::block: __syncthreads(CUEMU_CG_SITE_ARGS); break;
            case details::group_kind::grid: details::grid_sync(CUEMU_CG_SITE_ARGS); break;
            default: __syncwarp(mask_, CUEMU_CG_SITE_ARGS); break;
        }
    }
};

// ---- the block -------------------------------------------------------------------
// The shared memory that tiles of more than 32 threads use on a GPU of compute
// capability below 8.0 (nvcc's this_thread_block(scratch)); from 8.0 a GPU
// keeps them in memory of its own. The emulator needs none: the object only
// takes the bytes a GPU's would in the block's shared memory, and
// this_thread_block(scratch) checks that the block fits MaxBlockSize.
template <unsigned MaxBlockSize = 1024>
struct alignas(8) block_tile_memory {
    static_assert(MaxBlockSize >= 1 && MaxBlockSize <= 1024,
                  "block_tile_memory<MaxBlockSize>: a block has at most 1024 threads");

private:
    // A GPU's: 5 barrier words and 12 reserved bytes, and 8 bytes per warp.
    unsigned char scratch_[32 + (MaxBlockSize + 31) / 32 * 8];
};

class thread_block;
template <unsigned MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize>& scratch, CUEMU_CG_SITE);

class thread_block : public thread_group {
    friend thread_block this_thread_block();
    template <unsigned MaxBlockSize>
    friend thread_block this_thread_block(block_tile_memory<MaxBlockSize>&, const char*, int);
    thread_block() : thread_group(details::group_kind::block) {}

public:
    static void sync(CUEMU_CG_SITE) { __syncthreads(CUEMU_CG_SITE_ARGS); }
    static unsigned size() { return details::block_size(); }
    static unsigned num_threads() { return details::block_size(); }
    static unsigned thread_rank() { return details::block_rank(); }
    static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    static dim3 group_dim() { return blockDim; }
    static dim3 dim_threads() { return blockDim; }
};

inline thread_block this_thread_block() { return thread_block(); }

template <unsigned MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize>&, const char* cuemu_file, int cuemu_line) {
    if (details::block_size() > MaxBlockSize)
        ::cuemu::kernel_cannot_go_on(
            "this_thread_block(scratch) in a block larger than the scratch's MaxBlockSize",
            "  a block_tile_memory<MaxBlockSize> holds what the tiles of a block of up to\n"
            "  MaxBlockSize threads exchange; this block has more threads",
            "declare the scratch as block_tile_memory<N> with N at least the block's size\n"
            "        (block_tile_memory<> holds any block: N = 1024)",
            "below compute capability 8.0 the tiles' exchanges run past the scratch into other\n"
            "  shared memory (nvcc's debug build aborts here)",
            cuemu_file, cuemu_line);
    return thread_block();
}

// ---- the grid --------------------------------------------------------------------
// Its ranks and sizes work. Its sync() needs a cooperative launch
// (cudaLaunchCooperativeKernel): in a <<<...>>> launch is_valid() is false, as
// on a GPU, and sync() stops the launch with a report.
class grid_group : public thread_group {
    friend grid_group this_grid();
    grid_group() : thread_group(details::group_kind::grid) {}

public:
    bool is_valid() const { return ::cuemu::grid_is_cooperative(); }
    void sync(CUEMU_CG_SITE) const { details::grid_sync(CUEMU_CG_SITE_ARGS); }
    static dim3 dim_blocks() { return gridDim; }
    static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static unsigned long long num_blocks() {
        return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z;
    }
    static unsigned long long block_rank() {
        return (static_cast<unsigned long long>(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    }
    static dim3 dim_threads() { return blockDim; }
};

inline grid_group this_grid() { return grid_group(); }

// ---- lanes of one warp -------------------------------------------------------------
namespace details {
// Shuffles any trivially copyable value, 8 bytes at a time, as CUDA's group
// shuffles do for larger types. `shuffle` moves one 8-byte word.
template <class T, class Shuffle>
T shuffle_value(const T& value, Shuffle shuffle) {
    static_assert(std::is_trivially_copyable<T>::value, "group shuffles move trivially copyable values");
    if constexpr (sizeof(T) <= 8) {
        return shuffle(value);
    } else {
        unsigned long long words[(sizeof(T) + 7) / 8] = {};
        std::memcpy(words, &value, sizeof(T));
        for (unsigned long long& word : words) word = shuffle(word);
        T result;
        std::memcpy(&result, words, sizeof(T));
        return result;
    }
}

// Packs the bits of `lanes` that belong to `mask` into rank order.
inline unsigned pack_by_rank(unsigned mask, unsigned lanes) {
    unsigned packed = 0, rank = 0;
    for (unsigned m = mask; m; m &= m - 1, ++rank)
        if (lanes >> __builtin_ctz(m) & 1u) packed |= 1u << rank;
    return packed;
}
}  // namespace details

// The lanes of a warp that run together. A GPU leaves out lanes that have
// exited or taken another branch; the emulator does not model divergence
// inside a warp and gives every lane the warp has (like __activemask()). So a
// coalesced_threads() inside an if that only some lanes take has more members
// here than on a GPU: see common/emu/README.md.
class coalesced_group : public thread_group {
    friend struct details::group_access;

protected:
    explicit coalesced_group(unsigned mask, unsigned meta_rank = 0, unsigned meta_size = 1)
        : thread_group(details::group_kind::lanes, mask, meta_rank, meta_size) {}

public:
    unsigned num_threads() const { return static_cast<unsigned>(__builtin_popcount(mask_)); }
    unsigned size() const { return num_threads(); }
    unsigned thread_rank() const { return static_cast<unsigned>(__builtin_popcount(mask_ & details::lanes_below())); }
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }
    void sync(CUEMU_CG_SITE) const { __syncwarp(mask_, CUEMU_CG_SITE_ARGS); }

    // Shuffles address members by rank. A rank the group does not have gives
    // (shfl) an undefined value on a GPU, here all one bits; shfl_down and
    // shfl_up past the group's end give the caller's own value.
    // A rank past the group's end reads lane 31 (nvcc's header does the same),
    // which may not be a member: then the value is all one bits here.
    template <class T>
    T shfl(const T& var, unsigned src_rank, CUEMU_CG_SITE) const {
        int src = mask_ == 0xffffffffu ? static_cast<int>(src_rank & 31u) : details::lane_of_rank(mask_, src_rank);
        if (src < 0) src = 31;
        return details::shuffle_value(var, [&](auto word) {
            return __shfl_sync(mask_, word, src, 32, CUEMU_CG_SITE_ARGS);
        });
    }
    template <class T>
    T shfl_down(const T& var, unsigned delta, CUEMU_CG_SITE) const {
        int src = details::lane_of_rank(mask_, thread_rank() + delta);
        if (src < 0) src = static_cast<int>(details::lane());
        return details::shuffle_value(var, [&](auto word) {
            return __shfl_sync(mask_, word, src, 32, CUEMU_CG_SITE_ARGS);
        });
    }
    template <class T>
    T shfl_up(const T& var, unsigned delta, CUEMU_CG_SITE) const {
        const unsigned rank = thread_rank();
        const int src = delta <= rank ? details::lane_of_rank(mask_, rank - delta) : static_cast<int>(details::lane());
        return details::shuffle_value(var, [&](auto word) {
            return __shfl_sync(mask_, word, src, 32, CUEMU_CG_SITE_ARGS);
        });
    }
    // Votes; ballot's bits are in rank order.
    unsigned ballot(int predicate, CUEMU_CG_SITE) const {
        return details::pack_by_rank(mask_, __ballot_sync(mask_, predicate, CUEMU_CG_SITE_ARGS));
    }
    int any(int predicate, CUEMU_CG_SITE) const { return __ballot_sync(mask_, predicate, CUEMU_CG_SITE_ARGS) != 0; }
    int all(int predicate, CUEMU_CG_SITE) const {
        return __ballot_sync(mask_, predicate, CUEMU_CG_SITE_ARGS) == mask_;
    }
    template <class T>
    unsigned match_any(T value, CUEMU_CG_SITE) const {
        return details::pack_by_rank(mask_, __match_any_sync(mask_, value, CUEMU_CG_SITE_ARGS));
    }
    template <class T>
    unsigned match_all(T value, int& pred, CUEMU_CG_SITE) const {
        return details::pack_by_rank(mask_, __match_all_sync(mask_, value, &pred, CUEMU_CG_SITE_ARGS));
    }
};

namespace details {
struct group_access {
    static thread_group lanes(unsigned mask, unsigned meta_rank, unsigned meta_size) {
        return thread_group(group_kind::lanes, mask, meta_rank, meta_size);
    }
    static coalesced_group coalesced(unsigned mask, unsigned meta_rank = 0, unsigned meta_size = 1) {
        return coalesced_group(mask, meta_rank, meta_size);
    }
    static group_kind kind(const thread_group& g) { return g.kind_; }
    static unsigned mask(const thread_group& g) { return g.mask_; }
    template <class Tile, class ParentT>
    static Tile tile(const ParentT& parent) { return Tile(parent); }
    // cg::reduce on a multi-warp tile (cuemu/multi_warp_tile.h).
    template <class Tile, class T, class Op>
    static T multi_warp_reduce(const Tile& tile, T value, Op& op, const char* file, int line) {
        return tile.reduce(value, op, file, line);
    }
    // The scans on a multi-warp tile (cooperative_groups/scan.h).
    template <class Tile, class T, class Op>
    static T multi_warp_inclusive_scan(const Tile& tile, T value, Op& op, const char* call, const char* file,
                                       int line) {
        return tile.inclusive_scan(value, op, call, file, line);
    }
    template <class Tile, class T>
    static T multi_warp_value_below(const Tile& tile, T value, const char* call, const char* file, int line) {
        return tile.value_below(value, call, file, line);
    }
};
}  // namespace details

inline coalesced_group coalesced_threads() { return details::group_access::coalesced(__activemask()); }

// ---- tiles of a fixed size ------------------------------------------------------------
template <unsigned Size, class ParentT = void>
class thread_block_tile;

namespace details {
// A tile of Size (1 ... 32) consecutive threads (by thread rank) of the
// block. Its lanes are one aligned segment of a warp, so its functions are
// the warp functions with the tile's lane mask and width. As with nvcc,
// size() is Size even where a partial last warp lacks some of the tile's lanes.
template <unsigned Size>
class warp_tile : public thread_group {
    template <unsigned, class> friend class ::cooperative_groups::thread_block_tile;
    friend struct group_access;

protected:
    static unsigned tile_mask() {
        if constexpr (Size == 32) {
            return 0xffffffffu;
        } else {
            return ((1u << Size) - 1u) << (details::lane() & ~(Size - 1u));
        }
    }
    warp_tile(unsigned meta_rank, unsigned meta_size)
        : thread_group(details::group_kind::lanes, tile_mask(), meta_rank, meta_size) {}

public:
    static constexpr unsigned num_threads() { return Size; }
    static constexpr unsigned size() { return Size; }
    static unsigned thread_rank() { return details::block_rank() & (Size - 1u); }
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }
    void sync(CUEMU_CG_SITE) const { __syncwarp(mask_, CUEMU_CG_SITE_ARGS); }

    template <class T>
    T shfl(const T& var, int src_rank, CUEMU_CG_SITE) const {
        return details::shuffle_value(var, [&](auto word) {
            return __shfl_sync(mask_, word, src_rank, static_cast<int>(Size), CUEMU_CG_SITE_ARGS);
        });
    }
    template <class T>
    T shfl_down(const T& var, unsigned delta, CUEMU_CG_SITE) const {
        return details::shuffle_value(var, [&](auto word) {
            return __shfl_down_sync(mask_, word, delta, static_cast<int>(Size), CUEMU_CG_SITE_ARGS);
        });
    }
    template <class T>
    T shfl_up(const T& var, unsigned delta, CUEMU_CG_SITE) const {
        return details::shuffle_value(var, [&](auto word) {
            return __shfl_up_sync(mask_, word, delta, static_cast<int>(Size), CUEMU_CG_SITE_ARGS);
        });
    }
    template <class T>
    T shfl_xor(const T& var, unsigned lane_mask, CUEMU_CG_SITE) const {
        return details::shuffle_value(var, [&](auto word) {
            return __shfl_xor_sync(mask_, word, static_cast<int>(lane_mask), static_cast<int>(Size),
                                   CUEMU_CG_SITE_ARGS);
        });
    }
    // Votes over the tile. ballot's bit i is the tile's rank i. all() is
    // true only if every one of the Size lanes votes yes, as with nvcc: in a
    // partial warp whose tile lacks lanes, it is false.
    int any(int predicate, CUEMU_CG_SITE) const { return __ballot_sync(mask_, predicate, CUEMU_CG_SITE_ARGS) != 0; }
    int all(int predicate, CUEMU_CG_SITE) const {
        return __ballot_sync(mask_, predicate, CUEMU_CG_SITE_ARGS) == mask_;
    }
    unsigned ballot(int predicate, CUEMU_CG_SITE) const {
        return __ballot_sync(mask_, predicate, CUEMU_CG_SITE_ARGS) >> (details::lane() & ~(Size - 1u));
    }
    template <class T>
    unsigned match_any(T value, CUEMU_CG_SITE) const {
        return __match_any_sync(mask_, value, CUEMU_CG_SITE_ARGS) >> (details::lane() & ~(Size - 1u));
    }
    template <class T>
    unsigned match_all(T value, int& pred, CUEMU_CG_SITE) const {
        return __match_all_sync(mask_, value, &pred, CUEMU_CG_SITE_ARGS) >> (details::lane() & ~(Size - 1u));
    }
};
}  // namespace details
}  // namespace cooperative_groups

#include <cuemu/multi_warp_tile.h>

namespace cooperative_groups {
// A tile of the block: of up to 32 threads (details::warp_tile, above), or of
// 64 to 1024 (details::multi_warp_tile, <cuemu/multi_warp_tile.h>).
template <unsigned Size>
class thread_block_tile<Size, void>
    : public std::conditional_t<(Size > 32), details::multi_warp_tile<Size>, details::warp_tile<Size>> {
    static_assert(Size >= 1 && Size <= 1024 && (Size & (Size - 1)) == 0,
                  "thread_block_tile<Size>: Size must be a power of two from 1 to 1024");
    using base = std::conditional_t<(Size > 32), details::multi_warp_tile<Size>, details::warp_tile<Size>>;

    template <unsigned, class> friend class thread_block_tile;
    friend struct details::group_access;

protected:
    thread_block_tile(unsigned meta_rank, unsigned meta_size) : base(meta_rank, meta_size) {}
};

// The tile as tiled_partition<Size>(parent) returns it; it converts to
// thread_block_tile<Size> (and to thread_group), as nvcc's does.
template <unsigned Size, class ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {
    friend struct details::group_access;

    explicit thread_block_tile(const ParentT& parent)
        : thread_block_tile<Size, void>(static_cast<unsigned>(parent.thread_rank()) / Size,
                                        static_cast<unsigned>((parent.size() + Size - 1) / Size)) {}
};

namespace details {
template <class ParentT>
struct static_tile_parent : std::false_type {};
template <>
struct static_tile_parent<thread_block> : std::true_type {};
template <unsigned Size, class P>
struct static_tile_parent<thread_block_tile<Size, P>> : std::true_type {};
// The parent's size, as far as the types tell: a block may hold a tile of
// 1024, a tile only smaller tiles.
template <class ParentT>
struct parent_size : std::integral_constant<unsigned, 2048> {};
template <unsigned Size, class P>
struct parent_size<thread_block_tile<Size, P>> : std::integral_constant<unsigned, Size> {};
}  // namespace details

// A tile of more than one warp whose block lacks a whole warp of it stops the
// launch here (a GPU hangs: ::cuemu::multi_warp_tile_made).
template <unsigned Size, class ParentT>
thread_block_tile<Size, ParentT> tiled_partition(const ParentT& parent, CUEMU_CG_SITE) {
    static_assert(details::static_tile_parent<ParentT>::value,
                  "tiled_partition<Size>(parent): the parent must be a thread_block or a thread_block_tile");
    static_assert(Size < details::parent_size<ParentT>::value,
                  "tiled_partition<Size>(tile): the new tiles must be smaller than the parent tile");
    if constexpr (Size > 32) ::cuemu::multi_warp_tile_made(Size, CUEMU_CG_SITE_ARGS);
    return details::group_access::tile<thread_block_tile<Size, ParentT>>(parent);
}

// The calling thread alone.
inline thread_block_tile<1, thread_block> this_thread() { return tiled_partition<1>(this_thread_block()); }

// ---- tiles of a size known at run time ------------------------------------------------
// tiled_partition(parent, n): tiles of n threads (a power of two up to 32) by
// the parent's thread rank. The result is a thread_group (a coalesced_group
// for a coalesced parent). A GPU traps on another n; the emulator reports it.
namespace details {
// The members of `parent_mask` whose rank in it is in the caller's tile of n.
inline unsigned tile_of(unsigned parent_mask, unsigned n) {
    const unsigned first_rank = static_cast<unsigned>(__builtin_popcount(parent_mask & lanes_below())) & ~(n - 1);
    unsigned mask = 0, rank = 0;
    for (unsigned m = parent_mask; m; m &= m - 1, ++rank)
        if (rank >= first_rank && rank < first_rank + n) mask |= 1u << __builtin_ctz(m);
    return mask;
}
inline bool valid_tile_size(unsigned n) { return n >= 1 && n <= 32 && (n & (n - 1)) == 0; }
}  // namespace details

inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size, CUEMU_CG_SITE) {
    using details::group_access;
    if (!details::valid_tile_size(tile_size)) details::bad_partition_size(CUEMU_CG_SITE_ARGS);
    if (group_access::kind(parent) == details::group_kind::grid)
        ::cuemu::kernel_cannot_go_on("tiled_partition() of a grid group",
                                     "  only a thread_block or a group of one warp can be partitioned",
                                     "partition this_thread_block()", "the group code traps (__trap())",
                                     CUEMU_CG_SITE_ARGS);
    unsigned parent_mask, meta_rank, meta_size;
    if (group_access::kind(parent) == details::group_kind::block) {
        // The block's lanes in the caller's warp, all of them present.
        const unsigned first = details::block_rank() & ~31u;
        const unsigned lanes = details::block_size() - first;
        parent_mask = lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1u;
        meta_rank = details::block_rank() / tile_size;
        meta_size = (details::block_size() + tile_size - 1) / tile_size;
    } else {
        parent_mask = group_access::mask(parent);
        const unsigned rank = static_cast<unsigned>(parent.thread_rank());
        meta_rank = rank / tile_size;
        meta_size = static_cast<unsigned>((parent.size() + tile_size - 1) / tile_size);
    }
    return group_access::lanes(details::tile_of(parent_mask, tile_size), meta_rank, meta_size);
}

inline thread_group tiled_partition(const thread_block& parent, unsigned tile_size, CUEMU_CG_SITE) {
    return tiled_partition(static_cast<const thread_group&>(parent), tile_size, CUEMU_CG_SITE_ARGS);
}

inline coalesced_group tiled_partition(const coalesced_group& parent, unsigned tile_size, CUEMU_CG_SITE) {
    using details::group_access;
    if (!details::valid_tile_size(tile_size)) details::bad_partition_size(CUEMU_CG_SITE_ARGS);
    return group_access::coalesced(details::tile_of(group_access::mask(parent), tile_size),
                                   parent.thread_rank() / tile_size, (parent.size() + tile_size - 1) / tile_size);
}

// ---- partitions by a value each thread passes ------------------------------------------
// labeled_partition(parent, label): the parent's members (a coalesced group or
// a tile of up to 32) that pass the same label form one coalesced_group. Its
// meta_group_size is the number of groups the labels made; its
// meta_group_rank orders the groups by their lowest lane. A pointer label
// compares as its address; a bool label is binary_partition(parent, label):
// false and true lanes apart (meta ranks 0 and 1 of 2), or, where every member
// passed the same value, the parent's members again (meta rank 0 of 1). Each
// is a warp collective of the parent's members, as on a GPU.
namespace details {
inline coalesced_group split_in_two(unsigned parent_mask, bool pred, const char* file, int line) {
    const unsigned passed_true = __ballot_sync(parent_mask, pred, file, line);
    if (passed_true == 0 || passed_true == parent_mask) return group_access::coalesced(parent_mask, 0, 1);
    return pred ? group_access::coalesced(passed_true, 1, 2)
                : group_access::coalesced(parent_mask & ~passed_true, 0, 2);
}
template <class Label>
coalesced_group split_by_label(unsigned parent_mask, Label label, const char* file, int line) {
    if constexpr (std::is_same_v<Label, bool>) {
        return split_in_two(parent_mask, label, file, line);
    } else if constexpr (std::is_pointer_v<Label>) {
        return split_by_label(parent_mask, reinterpret_cast<unsigned long long>(label), file, line);
    } else {
        static_assert(std::is_integral_v<Label> || std::is_enum_v<Label>,
                      "labeled_partition: the label must be an integer or a pointer");
        const unsigned same = __match_any_sync(parent_mask, static_cast<unsigned long long>(label), file, line);
        const unsigned leader = same & (0u - same);  // the group's lowest lane
        const unsigned leaders = __ballot_sync(parent_mask, (1u << lane()) == leader, file, line);
        return group_access::coalesced(same, static_cast<unsigned>(__builtin_popcount(leaders & (leader - 1u))),
                                       static_cast<unsigned>(__builtin_popcount(leaders)));
    }
}
}  // namespace details

template <class Label>
coalesced_group labeled_partition(const coalesced_group& parent, Label label, CUEMU_CG_SITE) {
    return details::split_by_label(details::group_access::mask(parent), label, CUEMU_CG_SITE_ARGS);
}
template <class Label, unsigned Size, class ParentT>
coalesced_group labeled_partition(const thread_block_tile<Size, ParentT>& parent, Label label, CUEMU_CG_SITE) {
    return details::split_by_label(details::group_access::mask(parent), label, CUEMU_CG_SITE_ARGS);
}
inline coalesced_group binary_partition(const coalesced_group& parent, bool pred, CUEMU_CG_SITE) {
    return details::split_in_two(details::group_access::mask(parent), pred, CUEMU_CG_SITE_ARGS);
}
template <unsigned Size, class ParentT>
coalesced_group binary_partition(const thread_block_tile<Size, ParentT>& parent, bool pred, CUEMU_CG_SITE) {
    return details::split_in_two(details::group_access::mask(parent), pred, CUEMU_CG_SITE_ARGS);
}

// ---- free functions ------------------------------------------------------------------
template <class GroupT>
void sync(const GroupT& group, CUEMU_CG_SITE) {
    group.sync(CUEMU_CG_SITE_ARGS);
}
template <class GroupT>
auto thread_rank(const GroupT& group) -> decltype(group.thread_rank()) {
    return group.thread_rank();
}
template <class GroupT>
auto group_size(const GroupT& group) -> decltype(group.num_threads()) {
    return group.num_threads();
}

// Thread block clusters (compute capability 9.0: cg::this_cluster(),
// cluster_group, distributed shared memory) are not emulated. The names exist
// so that a program using them stops at one error naming clusters, raised
// where this_cluster() is called, instead of a cascade of unknown names; the
// members below are never reached.
template <class... T>
constexpr bool cuemu_cluster_refused = false;
class cluster_group {
  public:
    void sync() const {}
    void barrier_wait() const {}
    unsigned long long barrier_arrive() const { return 0; }
    unsigned block_rank() const { return 0; }
    unsigned num_blocks() const { return 0; }
    dim3 dim_blocks() const { return dim3(); }
    dim3 block_index() const { return dim3(); }
    unsigned long long thread_rank() const { return 0; }
    unsigned long long num_threads() const { return 0; }
    dim3 dim_threads() const { return dim3(); }
    dim3 thread_index() const { return dim3(); }
    template <class T>
    T* map_shared_rank(T* address, unsigned) const { return address; }
    template <class T>
    unsigned query_shared_rank(const T*) const { return 0; }
};
template <class... A>
cluster_group this_cluster(A&&...) {
    static_assert(cuemu_cluster_refused<A...>,
                  "cuemu does not emulate thread block clusters (cg::this_cluster, cluster_group, "
                  "distributed shared memory, __cluster_dims__): build this program with nvcc for "
                  "a GPU of compute capability 9.0");
    return cluster_group();
}

}  // namespace cooperative_groups

// The multi-GPU parts of cooperative groups do not exist here; using one is
// a compile error naming it.

#undef CUEMU_CG_SITE
#undef CUEMU_CG_SITE_ARGS

#endif
