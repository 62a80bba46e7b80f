// cooperative_groups/memcpy_async.h - cg::memcpy_async, cg::wait and
// cg::wait_prior on the emulator (see ../cooperative_groups.h).
//
// memcpy_async(group, dst, src, bytes) (bytes a count or a
// cuda::aligned_size_t) and memcpy_async(group, dst, dst_count, src,
// src_count) (elements; the smaller count is copied) are collective: each
// member copies its share, words rank, rank + size ... of the whole, when it
// calls. On compute capability 7.5, the emulated device's, there is no
// asynchronous copy, and this is what a GPU of 7.5 does too. wait(group) and
// wait_prior<N>(group) then synchronize the group, as CUDA's do after
// waiting, which is what makes every member's share visible to the others.
// The copies are plain stores inlined into the kernel (cuda_pipeline_primitives.h
// says why), so under CUEMU_CHECK=race a member that reads another's share
// before the wait is reported.
#ifndef CUEMU_COOPERATIVE_GROUPS_MEMCPY_ASYNC_H
#define CUEMU_COOPERATIVE_GROUPS_MEMCPY_ASYNC_H
#define _COOPERATIVE_GROUPS_MEMCPY_ASYNC  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include <cooperative_groups.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "../cuda_pipeline_primitives.h"

namespace cooperative_groups {

template <class Group, class T, class Bytes>
__attribute__((always_inline)) inline void memcpy_async(const Group& group, T* __restrict__ dst,
                                                        const T* __restrict__ src, const Bytes& bytes) {
    static_assert(std::is_void<T>::value || std::is_trivially_copyable<T>::value,
                  "cg::memcpy_async copies trivially copyable types only");
    cuemu::libcudacxx::group_copy(group, dst, src, static_cast<std::size_t>(bytes));
    __pipeline_commit();
}

template <class Group, class T, class DstCount, class SrcCount>
__attribute__((always_inline)) inline void memcpy_async(const Group& group, T* __restrict__ dst,
                                                        const DstCount& dst_count, const T* __restrict__ src,
                                                        const SrcCount& src_count) {
    static_assert(std::is_trivially_copyable<T>::value, "cg::memcpy_async copies trivially copyable types only");
    const std::size_t count = std::min(static_cast<std::size_t>(dst_count), static_cast<std::size_t>(src_count));
    cuemu::libcudacxx::group_copy(group, dst, src, count * sizeof(T));
    __pipeline_commit();
}

// The group's sync is named at the program's line, as a direct call would be
// (the hidden arguments' defaults are evaluated where wait is called).
template <unsigned int Stage, class Group>
inline void wait_prior(const Group& group, const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()) {
    __pipeline_wait_prior(Stage);
    group.sync(cuemu_file, cuemu_line);
}

template <class Group>
inline void wait(const Group& group, const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()) {
    __pipeline_wait_prior(0);
    group.sync(cuemu_file, cuemu_line);
}

}  // namespace cooperative_groups

#endif
