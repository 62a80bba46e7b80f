// cooperative_groups/reduce.h - cg::reduce and its operators on the CPU
// emulator (see ../cooperative_groups.h).
//
// cg::reduce(group, value, op) combines the value of every member of a tile
// (thread_block_tile<N>, N up to 1024) or coalesced group with op, and every
// member gets the result. It is built on the group's rank-addressed shuffles, so a member a
// partial warp lacks (a tile of 32 in a block of 48) gives all one bits (NaN,
// -1), as such a shuffle does; nvcc's is undefined there too.
#ifndef CUEMU_COOPERATIVE_GROUPS_REDUCE_H
#define CUEMU_COOPERATIVE_GROUPS_REDUCE_H
#define _COOPERATIVE_GROUPS_REDUCE_H  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include <cooperative_groups.h>

#include <type_traits>

namespace cooperative_groups {

// The operators. less and greater give the smaller and the larger value (a
// reduction with them is a minimum and a maximum), not a bool.
template <class T>
struct plus {
    T operator()(const T& a, const T& b) const {
        if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
            // A GPU's integer add wraps around; in C++ on the CPU a signed
            // overflow is undefined, so add the bits as unsigned, which wraps.
            using bits = std::make_unsigned_t<T>;
            return static_cast<T>(static_cast<bits>(a) + static_cast<bits>(b));
        } else {
            return a + b;
        }
    }
};
template <class T>
struct less {
    T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
    T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
    T operator()(const T& a, const T& b) const { return a & b; }
};
template <class T>
struct bit_or {
    T operator()(const T& a, const T& b) const { return a | b; }
};
template <class T>
struct bit_xor {
    T operator()(const T& a, const T& b) const { return a ^ b; }
};

namespace details {
template <class GroupT>
struct reducible_group : std::false_type {};
template <unsigned Size, class P>
struct reducible_group<thread_block_tile<Size, P>> : std::true_type {};
template <>
struct reducible_group<coalesced_group> : std::true_type {};
template <class GroupT>
struct is_multi_warp_tile : std::false_type {};
template <unsigned Size, class P>
struct is_multi_warp_tile<thread_block_tile<Size, P>> : std::bool_constant<(Size > 32)> {};
}  // namespace details

// Rank 0 gathers the members' values by halving distances (a size that is not
// a power of two leaves out what lies past the end), then hands the result to
// every member.
// A tile of more than 32 threads (cuemu/multi_warp_tile.h) combines the
// values of each warp, then the warps' results, the same way.
template <class GroupT, class T, class Op>
T reduce(const GroupT& group, T value, Op op, const char* cuemu_file = __builtin_FILE(),
         int cuemu_line = __builtin_LINE()) {
    // nvcc 13 refuses a whole block or grid too ("This group does not
    // exclusively represent a tile"); the branch below keeps the refusal to
    // this one line.
    static_assert(details::reducible_group<GroupT>::value,
                  "cg::reduce: the group must be a thread_block_tile or a coalesced_group, as with "
                  "nvcc (a whole block or grid is not a tile: reduce each warp's tile, then the tiles' results)");
    if constexpr (!details::reducible_group<GroupT>::value) {
        return value;
    } else if constexpr (details::is_multi_warp_tile<GroupT>::value) {
        return details::group_access::multi_warp_reduce(group, value, op, cuemu_file, cuemu_line);
    } else {
        const unsigned size = group.size(), rank = group.thread_rank();
        unsigned span = 1;
        while (span < size) span *= 2;
        for (unsigned offset = span / 2; offset > 0; offset /= 2) {
            T other = group.shfl_down(value, offset, cuemu_file, cuemu_line);
            if (rank + offset < size) value = op(value, other);
        }
        return group.shfl(value, 0, cuemu_file, cuemu_line);
    }
}

}  // namespace cooperative_groups

#endif
