// emu_common.cuh - what the emulator's CUB headers share: the block's linear
// thread index, raw shared storage, and warp shuffles of any trivially
// copyable type (the emulator's __shfl_*_sync move at most 8 bytes; larger
// values go in 8-byte pieces, as CUB's own shuffles go in words).
//
// This CUB is the emulator's own (common/emu/README.md, "CUB"): the system's
// CUB headers need nvcc (PTX assembly, __CUDA_ARCH__, kernels launched from
// headers the launch rewriter never sees), so the subset learners use is
// written here from CUB's documented interface and semantics.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#define CUB_VERSION 300001
#define CUB_MAJOR_VERSION 3
#define CUB_MINOR_VERSION 0
#define CUB_SUBMINOR_VERSION 1
#define CUB_PTX_WARP_THREADS 32
#define CUB_NAMESPACE_BEGIN namespace cub {
#define CUB_NAMESPACE_END }
#define CUB_RUNTIME_FUNCTION

namespace cub {

// An empty type: "no values" in key-only sorts.
struct NullType {};

namespace emu {

// Thread index within a block of BLOCK_X x BLOCK_Y x BLOCK_Z threads, x fastest.
template <int BLOCK_X, int BLOCK_Y, int BLOCK_Z>
inline int linear_tid() {
    return static_cast<int>(threadIdx.x) +
           (BLOCK_Y == 1 && BLOCK_Z == 1
                ? 0
                : static_cast<int>(threadIdx.y) * BLOCK_X + static_cast<int>(threadIdx.z) * BLOCK_X * BLOCK_Y);
}

// The calling thread's lane in its hardware warp (threads of a block are
// numbered x fastest, then y, then z, and grouped into warps of 32 in that order).
inline int lane_id() {
    const unsigned tid = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
    return static_cast<int>(tid % 32u);
}

// Storage for COUNT values of T without constructing them: TempStorage types
// are declared __shared__ by the program (and often put in unions), so they
// must have no constructor of their own.
template <typename T, int COUNT>
struct raw_array {
    alignas(T) unsigned char bytes[sizeof(T) * (COUNT > 0 ? COUNT : 1)];
    T* get() { return reinterpret_cast<T*>(bytes); }
};

// What every block primitive holds: its TempStorage (the program's, or
// without one a __shared__ one of its own, as CUB's default constructors
// do) and the calling thread's index in the block.
template <typename Storage, int BLOCK_X, int BLOCK_Y, int BLOCK_Z>
struct block_context {
    Storage& storage;
    int tid;
    block_context() : storage(private_storage()), tid(linear_tid<BLOCK_X, BLOCK_Y, BLOCK_Z>()) {}
    explicit block_context(Storage& s) : storage(s), tid(linear_tid<BLOCK_X, BLOCK_Y, BLOCK_Z>()) {}
    static Storage& private_storage() {
        __shared__ Storage storage;
        return storage;
    }
};

// Moves a value between lanes with one shuffle per 8 bytes.
template <typename T, typename Shuffle>
inline T shuffle_pieces(const T& value, Shuffle shuffle) {
    static_assert(std::is_trivially_copyable<T>::value,
                  "the emulator's CUB moves values between warp lanes by their bytes: T must be trivially copyable");
    constexpr int PIECES = (sizeof(T) + 7) / 8;
    std::uint64_t pieces[PIECES] = {};
    std::memcpy(pieces, &value, sizeof(T));
    for (int i = 0; i < PIECES; ++i) pieces[i] = shuffle(pieces[i]);
    T result = value;
    std::memcpy(static_cast<void*>(&result), pieces, sizeof(T));
    return result;
}
template <typename T>
inline T shuffle_up(const T& v, int delta, int width, unsigned mask) {
    return shuffle_pieces(v, [&](std::uint64_t p) { return __shfl_up_sync(mask, p, delta, width); });
}
template <typename T>
inline T shuffle_down(const T& v, int delta, int width, unsigned mask) {
    return shuffle_pieces(v, [&](std::uint64_t p) { return __shfl_down_sync(mask, p, delta, width); });
}
template <typename T>
inline T shuffle_index(const T& v, int source, int width, unsigned mask) {
    return shuffle_pieces(v, [&](std::uint64_t p) { return __shfl_sync(mask, p, source, width); });
}

// The lanes of a logical warp of `width` lanes (a power of two up to 32) that
// holds hardware lane `lane`.
inline unsigned logical_warp_mask(int width, int lane) {
    if (width >= 32) return 0xffffffffu;
    return ((1u << width) - 1u) << (lane / width * width);
}

// Reduction over the first `valid` lanes of a logical warp; lane 0 gets the
// result, combined left to right (the operator need not be commutative).
template <typename T, typename Op>
inline T warp_reduce(T value, Op op, int lane, int width, int valid, unsigned mask) {
    for (int offset = 1; offset < width; offset *= 2) {
        T other = shuffle_down(value, offset, width, mask);
        if (lane + offset < valid) value = op(value, other);
    }
    return value;
}

// Inclusive scan over a logical warp (every lane of it, left to right).
template <typename T, typename Op>
inline T warp_inclusive_scan(T value, Op op, int lane, int width, unsigned mask) {
    for (int offset = 1; offset < width; offset *= 2) {
        T other = shuffle_up(value, offset, width, mask);
        if (lane >= offset) value = op(other, value);
    }
    return value;
}

}  // namespace emu
}  // namespace cub
