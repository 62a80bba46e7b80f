// cuemu/libcudacxx_async_copy.h - the copy underneath cuda::memcpy_async on the
// emulator (include/cuda/barrier and include/cuda/pipeline), and the two small
// types its signatures use: cuda::aligned_size_t and
// cuda::async_contract_fulfillment.
//
// The emulated device has compute capability 7.5, which has no asynchronous
// copy engine for shared memory (cp.async came with 8.0): there, as here, the
// copy is done by the calling thread when it calls memcpy_async, and the
// barrier or pipeline only has to order it before the wait. The copy is a
// loop of plain loads and stores in the program's own translation unit, so
// under CUEMU_CHECK=race every word it writes to shared memory is seen as a
// write by the thread that issued it, in the barrier interval it was issued
// in: another thread that reads it before the barrier or pipeline wait is
// reported.
#ifndef CUEMU_LIBCUDACXX_ASYNC_COPY_H
#define CUEMU_LIBCUDACXX_ASYNC_COPY_H

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cuda {

// A size whose copy may assume source and destination aligned to Alignment.
template <::std::size_t Alignment>
struct aligned_size_t {
    static_assert(Alignment != 0 && (Alignment & (Alignment - 1)) == 0,
                  "cuda::aligned_size_t: the alignment must be a power of two");
    static constexpr ::std::size_t align = Alignment;
    ::std::size_t value;
    explicit constexpr aligned_size_t(::std::size_t size) : value(size) {}
    constexpr operator ::std::size_t() const { return value; }
};

// What memcpy_async with a barrier tells its caller: whether the barrier
// tracks the copy (async) or the copy is already done (none). Compute
// capability 7.5 has no copy a barrier could track: always none.
enum class async_contract_fulfillment { none, async };

}  // namespace cuda

namespace cuemu::libcudacxx {

// The calling thread's share of a copy its group makes together: words
// rank, rank + count, rank + 2*count ... (one thread alone: all of them).
// Inlined into the program's kernel, so a race report names the line of its
// memcpy_async call; the empty asm keeps it a loop of stores the race check
// sees, which the compiler would otherwise turn into a call of memcpy.
__attribute__((always_inline)) inline void copy_share(void* destination, const void* source, std::size_t size,
                                                      std::size_t rank, std::size_t count) {
    const auto d = reinterpret_cast<std::uintptr_t>(destination);
    const auto s = reinterpret_cast<std::uintptr_t>(source);
    if (((d | s | size) & 3) == 0) {
        auto* to = static_cast<std::uint32_t*>(destination);
        const auto* from = static_cast<const std::uint32_t*>(source);
        for (std::size_t i = rank; i < size / 4; i += count) {
            to[i] = from[i];
            __asm__ volatile("" ::: "memory");
        }
    } else {
        auto* to = static_cast<unsigned char*>(destination);
        const auto* from = static_cast<const unsigned char*>(source);
        for (std::size_t i = rank; i < size; i += count) {
            to[i] = from[i];
            __asm__ volatile("" ::: "memory");
        }
    }
}

// A group's rank and size (a cooperative_groups group, or one thread).
struct one_thread_group {
    static constexpr std::size_t thread_rank() { return 0; }
    static constexpr std::size_t size() { return 1; }
};

template <class Group>
__attribute__((always_inline)) inline void group_copy(const Group& group, void* destination, const void* source, std::size_t size) {
    copy_share(destination, source, size, static_cast<std::size_t>(group.thread_rank()),
               static_cast<std::size_t>(group.size()));
}

template <class T>
constexpr void require_trivially_copyable() {
    static_assert(std::is_trivially_copyable<T>::value,
                  "cuda::memcpy_async copies trivially copyable types only");
}

template <class Size>
constexpr std::size_t byte_count(Size size) { return static_cast<std::size_t>(size); }

// The call site of a function whose callers a report names (hidden
// argument: its default is evaluated where the function is called). Explicit,
// so no argument of the caller's converts to it by mistake.
struct call_site {
    const char* file;
    int line;
    explicit constexpr call_site(const char* f = __builtin_FILE(), int l = __builtin_LINE()) : file(f), line(l) {}
};

}  // namespace cuemu::libcudacxx

#endif
