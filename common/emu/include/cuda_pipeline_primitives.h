// cuda_pipeline_primitives.h - CUDA's asynchronous-copy primitives on the
// emulator: __pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior.
//
// The emulated device has compute capability 7.5, which has no asynchronous
// copy into shared memory (cp.async came with 8.0): there the primitives copy
// at once, and so do these. The calling thread copies when it calls
// __pipeline_memcpy_async (size_and_align - zfill bytes, then zfill zero
// bytes), commit and wait have nothing left to wait for. The copy is a loop
// of plain stores inlined into the program's kernel (the libcu++ glue's
// copy_share, which cuda::memcpy_async uses too), so under CUEMU_CHECK=race
// the bytes count as written by the issuing thread at the line of its call:
// another thread that reads them before a __syncthreads() is reported, as it
// must be, since a GPU's __pipeline_wait_prior waits for the calling
// thread's own copies only.
#ifndef CUEMU_CUDA_PIPELINE_PRIMITIVES_H
#define CUEMU_CUDA_PIPELINE_PRIMITIVES_H
#define _CUDA_PIPELINE_PRIMITIVES_H_  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include <cstddef>
#include <cstdint>

#include "../libcudacxx/include/cuemu/libcudacxx_async_copy.h"

// What CUDA asserts in a debug build (and traps on otherwise): stops the
// launch with a device-side assert naming the rule broken (the emulator's
// __assert_fail, src/device_assert.cpp; declared here as <assert.h> does,
// which leaves it out under NDEBUG).
extern "C" void __assert_fail(const char* assertion, const char* file, unsigned int line,
                              const char* function) noexcept __attribute__((__noreturn__));
#define CUEMU_PIPELINE_REQUIRE(condition, rule) \
    ((condition) ? void(0) : __assert_fail(rule, __FILE__, __LINE__, __func__))

__attribute__((always_inline)) static inline void __pipeline_memcpy_async(void* __restrict__ dst_shared,
                                                                          const void* __restrict__ src_global,
                                                                          std::size_t size_and_align,
                                                                          std::size_t zfill = 0) {
    CUEMU_PIPELINE_REQUIRE(size_and_align == 4 || size_and_align == 8 || size_and_align == 16,
                           "__pipeline_memcpy_async: size_and_align must be 4, 8 or 16");
    CUEMU_PIPELINE_REQUIRE(zfill <= size_and_align, "__pipeline_memcpy_async: zfill must not exceed size_and_align");
    CUEMU_PIPELINE_REQUIRE(((reinterpret_cast<std::uintptr_t>(dst_shared) |
                             reinterpret_cast<std::uintptr_t>(src_global)) & (size_and_align - 1)) == 0,
                           "__pipeline_memcpy_async: both pointers must be aligned to size_and_align");
    const std::size_t copied = size_and_align - zfill;
    cuemu::libcudacxx::copy_share(dst_shared, src_global, copied, 0, 1);
    auto* tail = static_cast<unsigned char*>(dst_shared) + copied;
    for (std::size_t i = 0; i < zfill; ++i) {
        tail[i] = 0;
        __asm__ volatile("" ::: "memory");  // a loop of stores the race check sees, not a memset
    }
}

// A batch of copies ends here; on compute capability 7.5 they are done already.
static inline void __pipeline_commit() {}

// Waits until at most `prior` of the calling thread's batches are pending:
// none ever are here.
static inline void __pipeline_wait_prior(std::size_t prior) { (void)prior; }

#undef CUEMU_PIPELINE_REQUIRE

#endif
