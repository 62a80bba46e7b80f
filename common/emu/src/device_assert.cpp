// device_assert.cpp - assert() inside a kernel, as on a GPU. A failing
// assert expands to a call of glibc's __assert_fail, which prints and aborts
// the whole process. The emulator defines __assert_fail itself (the program's
// definition wins over the C library's): on a CUDA thread the launch stops
// with cudaErrorAssert ("device-side assert triggered", sticky) and a report
// that carries the line a GPU prints; anywhere else (host code, the emulator's
// own threads) the C library's __assert_fail runs, unchanged.
#include <assert.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "cuemu/builtins.h"
#include "diagnostics.h"
#include "internal.h"

namespace {

using assert_fail_fn = void (*)(const char*, const char*, unsigned, const char*);

[[noreturn]] void host_assert_fail(const char* expression, const char* file, unsigned line,
                                   const char* function) {
    auto libc = reinterpret_cast<assert_fail_fn>(dlsym(RTLD_NEXT, "__assert_fail"));
    if (libc) libc(expression, file, line, function);
    // Not found (a static link): glibc's words, then the same abort.
    std::fprintf(stderr, "%s: %s:%u: %s: Assertion `%s' failed.\n",
                 program_invocation_short_name, file, line, function, expression);
    std::abort();
}

}  // namespace

extern "C" void __assert_fail(const char* expression, const char* file, unsigned line,
                              const char* function) noexcept {
    using namespace cuemu::detail;
    kernel_position where;
    if (!inside_kernel() || !current_kernel_position(&where))
        host_assert_fail(expression, file, line, function);
    // The function as the program's own, in a buffer: stop_kernel_with does
    // not return, so nothing here may need a destructor.
    char kernel_function[512];
    copy_kernel_function_name(function, kernel_function, sizeof kernel_function);
    // The line a GPU prints for a failed device-side assert.
    char gpu_line[1024];
    std::snprintf(gpu_line, sizeof gpu_line,
                  "  %s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.", file,
                  line, kernel_function, where.block_idx.x, where.block_idx.y, where.block_idx.z,
                  where.thread_idx.x, where.thread_idx.y, where.thread_idx.z, expression);
    stop_kernel_with(cudaErrorAssert, "device-side assert() failed", gpu_line,
                     "the asserted condition was false for this thread: the line above names "
                     "the\n        condition, the block and the thread",
                     "the failing thread prints the line above, the kernel stops and every later "
                     "CUDA call\n  fails with cudaErrorAssert",
                     file, static_cast<int>(line));
}
