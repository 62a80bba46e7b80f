// warp_group.h - what each lane of a completed warp group gets back from its
// warp function: shuffles (PTX's rules for width and out-of-segment sources),
// votes, __reduce_*_sync and __match_*_sync. The scheduler (scheduler.cpp)
// decides when a group is complete and who resumes; this file only works out
// the answers, from the requests the lanes left in their warp_state
// (block_state.h). Inline, so that the scheduler's hot path compiles them in.
//
// Usually the whole warp calls one function with one mask (warp_state::uniform):
// then the function, its parameter and width are worked out once for the
// group and each lane's answer is a few instructions. Lanes that call
// different warp functions together, or with different masks, take the
// general path, one lane at a time; both give the same answers.
#ifndef CUEMU_WARP_GROUP_H
#define CUEMU_WARP_GROUP_H

#include <cstdint>

#include "cuemu/builtins.h"
#include "block_state.h"

namespace cuemu::detail {

// Calls f(lane) for each lane of `lanes`, lowest first.
template <class F>
inline void for_each_lane(std::uint32_t lanes, F&& f) {
    for (; lanes; lanes &= lanes - 1) f(static_cast<unsigned>(__builtin_ctz(lanes)));
}

// The value lane `lane` gets from shuffle Op with parameter `param` (source
// lane, delta or lane mask): the lane rule is shuffle_source (cuemu/builtins.h,
// shared with split versions). A source that is not in the group (exited, not
// in the mask, not in a partial warp) is undefined on a GPU; here it is all
// one bits, and the first such read of a program prints a note
// (undefined_shuffle.cpp).
[[gnu::cold, gnu::noinline]] void note_undefined_shuffle(const warp_state& w, unsigned lane, unsigned source);
template <int Op>
inline std::uint64_t shuffle_result(const warp_state& w, std::uint32_t group, unsigned lane, int param,
                                    unsigned width) {
    const int source = shuffle_source(Op, lane, param, width);
    if (source < 0) return w.request[lane].value;
    if (!(group >> source & 1u)) {
        note_undefined_shuffle(w, lane, static_cast<unsigned>(source));
        return ~std::uint64_t{0};
    }
    return w.request[source].value;
}

// Shuffle Op for every lane of a group that asked the same (uniform).
template <int Op>
inline void shuffle_group(warp_state& w, std::uint32_t group, int param, unsigned width) {
    for_each_lane(group, [&](unsigned l) { w.request[l].result = shuffle_result<Op>(w, group, l, param, width); });
}

// One lane's shuffle, whatever its op (the general path).
inline std::uint64_t shuffle_result(const warp_state& w, std::uint32_t group, unsigned lane) {
    const warp_request& r = w.request[lane];
    const unsigned width = shuffle_width(r.width);
    switch (r.op) {
        case warp_shfl_idx: return shuffle_result<warp_shfl_idx>(w, group, lane, r.param, width);
        case warp_shfl_up: return shuffle_result<warp_shfl_up>(w, group, lane, r.param, width);
        case warp_shfl_down: return shuffle_result<warp_shfl_down>(w, group, lane, r.param, width);
        default: return shuffle_result<warp_shfl_xor>(w, group, lane, r.param, width);
    }
}

// __reduce_*_sync over the 32-bit values of the group's lanes (redux.sync:
// the lanes named in the mask that have not exited). add wraps around at 32
// bits; min and max compare as signed or unsigned as the op says.
inline std::uint64_t reduce_result(const warp_state& w, std::uint32_t group, int op) {
    std::uint32_t acc = 0;
    bool first = true;
    for_each_lane(group, [&](unsigned l) {
        const std::uint32_t v = static_cast<std::uint32_t>(w.request[l].value);
        const std::int32_t sv = static_cast<std::int32_t>(v), sacc = static_cast<std::int32_t>(acc);
        if (first) {
            acc = v;
            first = false;
            return;
        }
        switch (op) {
            case warp_reduce_add: acc += v; break;
            case warp_reduce_min_signed: if (sv < sacc) acc = v; break;
            case warp_reduce_max_signed: if (sv > sacc) acc = v; break;
            case warp_reduce_min_unsigned: if (v < acc) acc = v; break;
            case warp_reduce_max_unsigned: if (v > acc) acc = v; break;
            case warp_reduce_and: acc &= v; break;
            case warp_reduce_or: acc |= v; break;
            case warp_reduce_xor: acc ^= v; break;
        }
    });
    return acc;
}

// __match_any_sync: the lanes of the group whose value has the same bits as
// lane `lane`'s. __match_all_sync: the group if every lane's value has the
// same bits, else 0; bit 32 of the result is its predicate.
inline std::uint64_t match_answer(int op, std::uint32_t same, std::uint32_t group) {
    if (op == warp_match_any) return same;
    return same == group ? (std::uint64_t{1} << 32) | group : 0;
}
inline std::uint64_t match_result(const warp_state& w, std::uint32_t group, unsigned lane) {
    const warp_request& r = w.request[lane];
    std::uint32_t same = 0;
    for_each_lane(group, [&](unsigned l) {
        if (w.request[l].value == r.value) same |= 1u << l;
    });
    return match_answer(r.op, same, group);
}

// The lanes of `group` whose value is nonzero (the votes' predicates).
inline std::uint32_t ballot_of(const warp_state& w, std::uint32_t group) {
    std::uint32_t ballot = 0;
    for_each_lane(group, [&](unsigned l) {
        if (w.request[l].value) ballot |= 1u << l;
    });
    return ballot;
}

// A vote's answer, from the group's ballot: vote_result (cuemu/builtins.h).

inline bool is_shuffle(int op) {
    return op == warp_shfl_idx || op == warp_shfl_up || op == warp_shfl_down || op == warp_shfl_xor;
}
inline bool is_vote(int op) { return op == warp_ballot || op == warp_any || op == warp_all; }
inline bool is_match(int op) { return op == warp_match_any || op == warp_match_all; }

// Every lane of a group that asked the same (w.uniform): the function's
// choice is made once. A lane's result is 0 from its arrival (__syncwarp's).
inline void work_out_uniform_results(warp_state& w, std::uint32_t group, const warp_request& asked) {
    const int op = asked.op;
    if (op == warp_sync) return;
    if (is_shuffle(op)) {
        const unsigned width = shuffle_width(asked.width);
        switch (op) {
            case warp_shfl_idx: shuffle_group<warp_shfl_idx>(w, group, asked.param, width); break;
            case warp_shfl_up: shuffle_group<warp_shfl_up>(w, group, asked.param, width); break;
            case warp_shfl_down: shuffle_group<warp_shfl_down>(w, group, asked.param, width); break;
            default: shuffle_group<warp_shfl_xor>(w, group, asked.param, width); break;
        }
        return;
    }
    if (is_match(op)) {
        // Most often every lane agrees (the wmma functions' meetings ask so):
        // then each answer is the whole group, found in one pass.
        const std::uint64_t first = w.request[__builtin_ctz(group)].value;
        bool all_same = true;
        for_each_lane(group, [&](unsigned l) { all_same = all_same && w.request[l].value == first; });
        if (all_same) {
            const std::uint64_t answer = match_answer(op, group, group);
            for_each_lane(group, [&](unsigned l) { w.request[l].result = answer; });
            return;
        }
        for_each_lane(group, [&](unsigned l) { w.request[l].result = match_result(w, group, l); });
        return;
    }
    const std::uint64_t answer =
        is_vote(op) ? vote_result(op, ballot_of(w, group), group) : reduce_result(w, group, op);
    for_each_lane(group, [&](unsigned l) { w.request[l].result = answer; });
}

// Lanes that asked different things together, each its own.
inline void work_out_each_result(warp_state& w, std::uint32_t group) {
    const std::uint32_t ballot = ballot_of(w, group);
    for_each_lane(group, [&](unsigned l) {
        warp_request& r = w.request[l];
        if (r.op == warp_sync)
            r.result = 0;
        else if (is_shuffle(r.op))
            r.result = shuffle_result(w, group, l);
        else if (is_vote(r.op))
            r.result = vote_result(r.op, ballot, group);
        else if (is_match(r.op))
            r.result = match_result(w, group, l);
        else
            r.result = reduce_result(w, group, r.op);
    });
}

// Sets the result of every lane of `group`, a complete group of warp w.
inline void work_out_results(warp_state& w, std::uint32_t group) {
    if (w.uniform)
        work_out_uniform_results(w, group, w.request[__builtin_ctz(group)]);
    else
        work_out_each_result(w, group);
}

}  // namespace cuemu::detail

#endif
