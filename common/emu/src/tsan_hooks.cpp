// tsan_hooks.cpp - the functions GCC's -fsanitize=thread instrumentation calls,
// defined by the emulator instead of by libtsan (which is never linked).
//
// Kernel translation units are compiled with `-fsanitize=thread --param
// tsan-distinguish-volatile=1 --param tsan-instrument-func-entry-exit=0`
// (cuemu_add_executable, bin/nvcc-emu): every load and store that may touch
// memory other threads see becomes a call here first. Outside a kernel, and
// for anything but the block's shared memory, a hook returns at once
// (race_detector.h). This file itself must not be instrumented.
//
// The atomic hooks must do the operation: the instrumentation replaces the
// __atomic builtins by these calls. They always use sequential consistency,
// which is at least as strong as any order the program asked for.
#include <cstddef>
#include <cstdint>

#include "race_detector.h"
#include "race_shadow.h"
#include "../profiler/profiler.h"

#if defined(__SANITIZE_THREAD__)
#error "tsan_hooks.cpp must be built without -fsanitize=thread"
#endif

// Every hook lives in this section, with shared_access: a watchdog signal
// that lands in one of them reports the kernel line that called it instead.
#define CUEMU_HOOK __attribute__((section("cuemu_access_hooks")))
extern "C" const char __start_cuemu_access_hooks[], __stop_cuemu_access_hooks[];

namespace cuemu::detail {
// The return address of the latest hook call on this thread.
__thread const void* tls_hook_caller = nullptr;

const void* kernel_pc_of(const void* pc) {
    const char* p = static_cast<const char*>(pc);
    if (p < __start_cuemu_access_hooks || p >= __stop_cuemu_access_hooks || !tls_hook_caller)
        return pc;
    return static_cast<const char*>(tls_hook_caller) - 1;  // the call, not the next instruction
}
}  // namespace cuemu::detail

namespace {
using cuemu::detail::tls_access_watch;

// The profiler (CUEMU_PROFILE) sees every access of a profiled kernel.
inline void profile(const void* p, std::size_t n, bool write, const void* pc) {
    if (__builtin_expect(cuemu::detail::tls_profiling, 0))
        cuemu::detail::profile_access(p, n, write ? cuemu::detail::profile_op::store : cuemu::detail::profile_op::load, pc);
}
// A plain access to the block's shared memory under the race check: most
// need only a look at the word's records (race_shadow.h), the rest go to the
// detector. Out of line, so that the hooks themselves stay small: most
// accesses of a kernel are to global memory, and need nothing.
CUEMU_HOOK __attribute__((noinline)) void plain_shared(const void* p, std::size_t n, bool write, const void* pc) {
    if (!cuemu::detail::plain_access_done(p, n, write, pc)) cuemu::detail::shared_access(p, n, write, false, pc);
}
__attribute__((always_inline)) inline void plain(const void* p, std::size_t n, bool write, const void* pc) {
    cuemu::detail::tls_hook_caller = pc;
    if (__builtin_expect(tls_access_watch == cuemu::detail::watch_races, 0) &&
        cuemu::detail::tls_race_view.touches(p, n) && (write || !cuemu::detail::read_needs_no_check(p, n)))
        plain_shared(p, n, write, pc);
    profile(p, n, write, pc);
}
inline void marked_volatile(const void* p, std::size_t n, bool write, const void* pc) {
    cuemu::detail::tls_hook_caller = pc;
    if (__builtin_expect(tls_access_watch != cuemu::detail::watch_nothing, 0))
        cuemu::detail::shared_access(p, n, write, true, pc);
    profile(p, n, write, pc);
}
}  // namespace

#define CUEMU_TSAN_ACCESS(N)                                                                      \
    CUEMU_HOOK void __tsan_read##N(void* p) { plain(p, N, false, __builtin_return_address(0)); }             \
    CUEMU_HOOK void __tsan_write##N(void* p) { plain(p, N, true, __builtin_return_address(0)); }             \
    CUEMU_HOOK void __tsan_unaligned_read##N(void* p) { plain(p, N, false, __builtin_return_address(0)); }   \
    CUEMU_HOOK void __tsan_unaligned_write##N(void* p) { plain(p, N, true, __builtin_return_address(0)); }   \
    CUEMU_HOOK void __tsan_volatile_read##N(void* p) { marked_volatile(p, N, false, __builtin_return_address(0)); } \
    CUEMU_HOOK void __tsan_volatile_write##N(void* p) { marked_volatile(p, N, true, __builtin_return_address(0)); }

// The atomic operations, for the sizes GCC instruments (1 to 8 bytes).
#define CUEMU_TSAN_ATOMIC(BITS, T)                                                                \
    CUEMU_HOOK T __tsan_atomic##BITS##_load(const volatile T* a, int) { \
        cuemu::detail::tls_hook_caller = __builtin_return_address(0); \
        return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                              \
    }                                                                                             \
    CUEMU_HOOK void __tsan_atomic##BITS##_store(volatile T* a, T v, int) { \
        cuemu::detail::tls_hook_caller = __builtin_return_address(0); \
        __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                 \
    }                                                                                             \
    CUEMU_HOOK T __tsan_atomic##BITS##_exchange(volatile T* a, T v, int) { \
        cuemu::detail::tls_hook_caller = __builtin_return_address(0); \
        return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                       \
    }                                                                                             \
    CUEMU_HOOK T __tsan_atomic##BITS##_fetch_add(volatile T* a, T v, int) { \
        cuemu::detail::tls_hook_caller = __builtin_return_address(0); \
        return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                        \
    }                                                                                             \
    CUEMU_HOOK T __tsan_atomic##BITS##_fetch_sub(volatile T* a, T v, int) { \
        cuemu::detail::tls_hook_caller = __builtin_return_address(0); \
        return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                        \
    }                                                                                             \
    CUEMU_HOOK T __tsan_atomic##BITS##_fetch_and(volatile T* a, T v, int) { \
        cuemu::detail::tls_hook_caller = __builtin_return_address(0); \
        return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                        \
    }                                                                                             \
    CUEMU_HOOK T __tsan_atomic##BITS##_fetch_or(volatile T* a, T v, int) { \
        cuemu::detail::tls_hook_caller = __builtin_return_address(0); \
        return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                         \
    }                                                                                             \
    CUEMU_HOOK T __tsan_atomic##BITS##_fetch_xor(volatile T* a, T v, int) { \
        cuemu::detail::tls_hook_caller = __builtin_return_address(0); \
        return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                        \
    }                                                                                             \
    CUEMU_HOOK T __tsan_atomic##BITS##_fetch_nand(volatile T* a, T v, int) { \
        cuemu::detail::tls_hook_caller = __builtin_return_address(0); \
        return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST);                                       \
    }                                                                                             \
    CUEMU_HOOK int __tsan_atomic##BITS##_compare_exchange_strong(volatile T* a, T* expected, T v, int, int) { \
        cuemu::detail::tls_hook_caller = __builtin_return_address(0); \
        return __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST,               \
                                           __ATOMIC_SEQ_CST);                                     \
    }                                                                                             \
    CUEMU_HOOK int __tsan_atomic##BITS##_compare_exchange_weak(volatile T* a, T* expected, T v, int, int) { \
        cuemu::detail::tls_hook_caller = __builtin_return_address(0); \
        return __atomic_compare_exchange_n(a, expected, v, true, __ATOMIC_SEQ_CST,                \
                                           __ATOMIC_SEQ_CST);                                     \
    }                                                                                             \
    CUEMU_HOOK T __tsan_atomic##BITS##_compare_exchange_val(volatile T* a, T expected, T v, int, int) { \
        cuemu::detail::tls_hook_caller = __builtin_return_address(0); \
        __atomic_compare_exchange_n(a, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);  \
        return expected;                                                                          \
    }

extern "C" {
CUEMU_TSAN_ACCESS(1)
CUEMU_TSAN_ACCESS(2)
CUEMU_TSAN_ACCESS(4)
CUEMU_TSAN_ACCESS(8)
CUEMU_TSAN_ACCESS(16)

CUEMU_HOOK void __tsan_read_range(void* p, std::size_t n) { plain(p, n, false, __builtin_return_address(0)); }
CUEMU_HOOK void __tsan_write_range(void* p, std::size_t n) { plain(p, n, true, __builtin_return_address(0)); }

// A C++ object's vtable pointer: never in shared memory that threads race on.
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_init() { cuemu::detail::note_instrumented(); }

CUEMU_TSAN_ATOMIC(8, std::uint8_t)
CUEMU_TSAN_ATOMIC(16, std::uint16_t)
CUEMU_TSAN_ATOMIC(32, std::uint32_t)
CUEMU_TSAN_ATOMIC(64, std::uint64_t)

void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
}
