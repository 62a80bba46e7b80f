// cooperative_groups/scan.h - cg::inclusive_scan, cg::exclusive_scan and their
// _update forms on the CPU emulator (see ../cooperative_groups.h).
//
// A scan gives each member of a tile (thread_block_tile<N>) or coalesced group
// op applied over the values of the members up to its own rank (inclusive) or
// below it (exclusive); without op it is cg::plus. Like cg::reduce
// (reduce.h), it is built on the group's rank-addressed shuffles, so the
// emulator's warp functions check every step and a report names the line of
// the scan. Two things follow nvcc's header, since a program can see them:
// - op is called as op(own partial result, partial result from below); the
//   order matters only for an operator that is not commutative;
// - rank 0's exclusive result is a value-initialized T (0 for numbers), for
//   every op.
// The _update forms (given a cuda::atomic or cuda::atomic_ref from libcu++)
// also fold the group's total into the atomic: the last member makes one
// atomic update with the total, and every member's result starts from the
// value the atomic had before it, op(old, scan result).
// A member a partial warp lacks (a tile of 32 in a block of 48) gives all one
// bits to the shuffles, as in reduce.h; the members that exist come first, so
// their results are right.
// A tile of more than 32 threads (cuemu/multi_warp_tile.h), which has no
// shfl_up, hands its values over through the tile's exchange instead: each
// thread folds the values of the ranks up to its own, as
// op(own partial, partial from below); a report names the scan's line (the
// hidden file and line arguments below).
#ifndef CUEMU_COOPERATIVE_GROUPS_SCAN_H
#define CUEMU_COOPERATIVE_GROUPS_SCAN_H
#define _COOPERATIVE_GROUPS_SCAN_H  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include <cooperative_groups/reduce.h>

#include <type_traits>
#include <utility>

#if __has_include(<cuda/atomic>)
#include <cuda/atomic>
#define CUEMU_CG_SCAN_UPDATE 1
#endif

namespace cooperative_groups {

namespace details {
template <class GroupT, class T, class Op>
void check_scan() {
    static_assert(reducible_group<std::remove_cv_t<std::remove_reference_t<GroupT>>>::value,
                  "cg::inclusive_scan/exclusive_scan: the group must be a thread_block_tile or a "
                  "coalesced_group (CUDA has no block-wide or grid-wide scan)");
    static_assert(std::is_same_v<std::decay_t<decltype(std::declval<Op&>()(std::declval<T&>(), std::declval<T&>()))>,
                                 std::decay_t<T>>,
                  "cg scan: the operator must return the type of the value it scans");
}

// Hillis and Steele: after the step with distance d, each member holds op over
// the 2d members ending at its own rank (fewer near rank 0).
template <class GroupT, class T, class Op>
std::decay_t<T> scan_inclusive(const GroupT& group, const T& value, Op& op, const char* file, int line) {
    if constexpr (is_multi_warp_tile<GroupT>::value) {
        return group_access::multi_warp_inclusive_scan(group, std::decay_t<T>(value), op, "cg::inclusive_scan()",
                                                       file, line);
    } else {
        std::decay_t<T> partial = value;
        const unsigned size = group.size(), rank = group.thread_rank();
        for (unsigned distance = 1; distance < size; distance *= 2) {
            const std::decay_t<T> below = group.shfl_up(partial, distance, file, line);
            if (rank >= distance) partial = op(partial, below);
        }
        return partial;
    }
}

// From the inclusive results: each member takes the one of the rank below it.
template <class GroupT, class T>
T exclusive_from_inclusive(const GroupT& group, const T& inclusive, const char* file, int line) {
    T below;
    if constexpr (is_multi_warp_tile<GroupT>::value)
        below = group_access::multi_warp_value_below(group, inclusive, "cg::exclusive_scan()", file, line);
    else
        below = group.shfl_up(inclusive, 1, file, line);
    return group.thread_rank() == 0 ? T{} : below;
}

#ifdef CUEMU_CG_SCAN_UPDATE
// One atomic read-modify-write of dst with op, giving the value before it. The
// operators libcu++ has a fetch_ for use it; any other op loops on
// compare_exchange, as a GPU's generic atomic does.
template <class Atomic, class T, class Op>
T atomic_fold(Atomic& dst, const T& total, Op& op) {
    using plain_op = std::decay_t<Op>;
    if constexpr (std::is_same_v<plain_op, plus<T>>) {
        return dst.fetch_add(total);
    } else if constexpr (std::is_same_v<plain_op, less<T>>) {
        return dst.fetch_min(total);
    } else if constexpr (std::is_same_v<plain_op, greater<T>>) {
        return dst.fetch_max(total);
    } else if constexpr (std::is_same_v<plain_op, bit_and<T>>) {
        return dst.fetch_and(total);
    } else if constexpr (std::is_same_v<plain_op, bit_or<T>>) {
        return dst.fetch_or(total);
    } else if constexpr (std::is_same_v<plain_op, bit_xor<T>>) {
        return dst.fetch_xor(total);
    } else {
        T old = dst.load();
        while (!dst.compare_exchange_weak(old, op(old, total))) {
        }
        return old;
    }
}

template <bool Exclusive, class GroupT, class Atomic, class T, class Op>
std::decay_t<T> scan_update(const GroupT& group, Atomic& dst, const T& value, Op& op, const char* file, int line) {
    using value_t = std::decay_t<T>;
    const value_t inclusive = scan_inclusive(group, value, op, file, line);
    const unsigned last = group.size() - 1;
    value_t old{};
    if (group.thread_rank() == last) old = atomic_fold(dst, inclusive, op);
    old = group.shfl(old, last, file, line);
    if constexpr (Exclusive) {
        return op(old, exclusive_from_inclusive(group, inclusive, file, line));
    } else {
        return op(old, inclusive);
    }
}
#endif
}  // namespace details

#define CUEMU_SCAN_SITE const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()
template <class GroupT, class T, class Op>
auto inclusive_scan(const GroupT& group, T&& value, Op&& op, CUEMU_SCAN_SITE) -> decltype(op(value, value)) {
    details::check_scan<GroupT, T, Op>();
    return details::scan_inclusive(group, value, op, cuemu_file, cuemu_line);
}
template <class GroupT, class T>
std::decay_t<T> inclusive_scan(const GroupT& group, T&& value, CUEMU_SCAN_SITE) {
    return inclusive_scan(group, std::forward<T>(value), plus<std::decay_t<T>>(), cuemu_file, cuemu_line);
}

template <class GroupT, class T, class Op>
auto exclusive_scan(const GroupT& group, T&& value, Op&& op, CUEMU_SCAN_SITE) -> decltype(op(value, value)) {
    details::check_scan<GroupT, T, Op>();
    return details::exclusive_from_inclusive(group, details::scan_inclusive(group, value, op, cuemu_file, cuemu_line),
                                             cuemu_file, cuemu_line);
}
template <class GroupT, class T>
std::decay_t<T> exclusive_scan(const GroupT& group, T&& value, CUEMU_SCAN_SITE) {
    return exclusive_scan(group, std::forward<T>(value), plus<std::decay_t<T>>(), cuemu_file, cuemu_line);
}

#ifdef CUEMU_CG_SCAN_UPDATE
namespace details {
// What CUDA's _update forms take as dst: a cuda::atomic or a cuda::atomic_ref
// (by value or reference) of the scanned type.
template <class A>
struct scan_atomic : std::false_type {};
template <class V, cuda::thread_scope Scope>
struct scan_atomic<cuda::atomic<V, Scope>> : std::true_type {
    using value_type = V;
};
template <class V, cuda::thread_scope Scope>
struct scan_atomic<cuda::atomic_ref<V, Scope>> : std::true_type {
    using value_type = V;
};
template <class A>
using scan_atomic_of = scan_atomic<std::remove_cv_t<std::remove_reference_t<A>>>;
template <class A>
using if_scan_atomic = std::enable_if_t<scan_atomic_of<A>::value, int>;

template <bool Exclusive, class GroupT, class Atomic, class T, class Op>
std::decay_t<T> checked_scan_update(const GroupT& group, Atomic& dst, const T& value, Op& op, const char* file,
                                    int line) {
    check_scan<GroupT, T, Op>();
    static_assert(std::is_same_v<typename scan_atomic_of<Atomic>::value_type, std::decay_t<T>>,
                  "cg scan_update: the atomic and the value differ in type");
    return scan_update<Exclusive>(group, dst, value, op, file, line);
}
}  // namespace details

template <class GroupT, class Atomic, class T, class Op, details::if_scan_atomic<Atomic> = 0>
auto inclusive_scan_update(const GroupT& group, Atomic&& dst, T&& value, Op&& op, CUEMU_SCAN_SITE)
    -> decltype(op(value, value)) {
    return details::checked_scan_update<false>(group, dst, value, op, cuemu_file, cuemu_line);
}
template <class GroupT, class Atomic, class T, details::if_scan_atomic<Atomic> = 0>
std::decay_t<T> inclusive_scan_update(const GroupT& group, Atomic&& dst, T&& value, CUEMU_SCAN_SITE) {
    return inclusive_scan_update(group, dst, std::forward<T>(value),
                                 plus<typename details::scan_atomic_of<Atomic>::value_type>(), cuemu_file, cuemu_line);
}
template <class GroupT, class Atomic, class T, class Op, details::if_scan_atomic<Atomic> = 0>
auto exclusive_scan_update(const GroupT& group, Atomic&& dst, T&& value, Op&& op, CUEMU_SCAN_SITE)
    -> decltype(op(value, value)) {
    return details::checked_scan_update<true>(group, dst, value, op, cuemu_file, cuemu_line);
}
template <class GroupT, class Atomic, class T, details::if_scan_atomic<Atomic> = 0>
std::decay_t<T> exclusive_scan_update(const GroupT& group, Atomic&& dst, T&& value, CUEMU_SCAN_SITE) {
    return exclusive_scan_update(group, dst, std::forward<T>(value),
                                 plus<typename details::scan_atomic_of<Atomic>::value_type>(), cuemu_file, cuemu_line);
}
#endif
#undef CUEMU_SCAN_SITE

}  // namespace cooperative_groups

#endif
