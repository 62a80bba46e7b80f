// diagnostics.cpp - explains a fault inside a kernel in a beginner's terms:
// which kernel, launched where, which block and thread, which source line,
// and what the address was (past the end of which buffer, a freed buffer, a
// null pointer, the thread's own stack). Then it says what a GPU would have
// reported, because that is the error the program sees next.
#include <dlfcn.h>
#include <signal.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "cuemu/runtime.h"
#include "diagnostics.h"
#include "internal.h"

namespace cuemu::detail {
namespace {

std::string run_command(const std::string& command) {
    std::string out;
    if (FILE* pipe = popen(command.c_str(), "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof buf, pipe)) out += buf;
        pclose(pipe);
    }
    return out;
}

// "file.cu:31 in kernel(...)" for an instruction address, using the debug
// line table through addr2line (binutils). Empty when unknown.
std::string source_line_of(const void* pc) {
    if (!pc) return "";
    Dl_info info{};
    if (!dladdr(pc, &info) || !info.dli_fname) return "";
    std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(pc) -
                            reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    char command[1200];
    std::snprintf(command, sizeof command, "addr2line -C -f -e '%s' 0x%zx 2>/dev/null",
                  info.dli_fname, static_cast<std::size_t>(offset));
    std::string out = run_command(command);
    std::size_t newline = out.find('\n');
    if (newline == std::string::npos) return "";
    std::string function = out.substr(0, newline);
    std::string where = out.substr(newline + 1);
    while (!where.empty() && (where.back() == '\n' || where.back() == '\r')) where.pop_back();
    std::size_t discriminator = where.find(" (discriminator");
    if (discriminator != std::string::npos) where.erase(discriminator);
    if (where.empty() || where[0] == '?') return "";
    return where + " in " + function;
}

const char* access_word(int is_write) {
    return is_write == 1 ? "write" : is_write == 0 ? "read" : "access";
}

}  // namespace

cudaError_t report_fault(const fault_report& r) {
    std::fflush(stdout);  // keep the program's own output before the report
    const launch_site& site = *r.site;
    cudaError_t error = cudaErrorIllegalAddress;
    std::string headline, detail, hint;

    allocation_info alloc;
    const char* addr = static_cast<const char*>(r.address);
    char buf[512];
    if (r.timed_out) {
        error = cudaErrorLaunchTimeout;
        std::snprintf(buf, sizeof buf, "no progress for %g second%s in kernel", r.watchdog_seconds,
                      r.watchdog_seconds == 1 ? "" : "s");
        headline = buf;
        std::snprintf(buf, sizeof buf,
                      "no thread of the kernel finished for %g second%s, and this one was still running\n"
                      "  when the emulator's watchdog stopped the kernel (CUEMU_WATCHDOG_SECONDS sets the\n"
                      "  limit, %g seconds by default; 0 turns the watchdog off)",
                      r.watchdog_seconds, r.watchdog_seconds == 1 ? "" : "s", default_watchdog_seconds);
        detail = buf;
        hint = "a loop that waits for a flag spins forever if no thread sets it, or if the block\n"
               "        that sets it has not started: blocks are not guaranteed to run at the same time";
    } else if (r.signal_number == 0) {
        error = cudaErrorLaunchFailure;
        headline = "C++ exception thrown inside kernel";
        detail = "what(): " + r.exception_text;
        hint = "kernels cannot throw on a GPU; handle the error without exceptions";
    } else if (r.signal_number == SIGFPE) {
        error = cudaErrorLaunchFailure;
        headline = "integer division by zero (or overflow) in kernel";
        detail = "a GPU does not stop here: it silently produces an unspecified value. The "
                 "emulator stops instead, because that value would be a bug anyway";
        hint = "check the divisor before dividing";
    } else if (r.signal_number == SIGILL) {
        error = cudaErrorIllegalInstruction;
        headline = "illegal instruction (a trap) in kernel";
    } else if (r.stack_overflow) {
        headline = "stack overflow in kernel";
        detail = "this thread used more than its stack holds (deep recursion or a large local array)";
        hint = "move large arrays to device memory (cudaMalloc) or shared memory";
    } else if (find_allocation(r.address, &alloc)) {
        const char* end = alloc.begin + alloc.size;
        std::snprintf(buf, sizeof buf, "a %zu-byte buffer from %s at %s:%d", alloc.size,
                      alloc.how, alloc.file, alloc.line);
        std::string buffer = buf;
        if (alloc.freed) {
            headline = std::string("use after cudaFree: ") + access_word(r.is_write) +
                       " in kernel";
            detail = "the address is inside " + buffer + ", which was freed before this access";
            hint = "free device memory only after the last kernel that uses it";
        } else if (addr >= end) {
            std::size_t past = static_cast<std::size_t>(addr - end);
            std::size_t offset = static_cast<std::size_t>(addr - alloc.begin);
            headline = std::string("out-of-bounds ") + access_word(r.is_write) + " in kernel";
            std::snprintf(buf, sizeof buf,
                          "the address is %zu bytes past the end of %s\n"
                          "    (byte offset %zu: element %zu if the elements are 4-byte floats or ints)",
                          past, buffer.c_str(), offset, offset / 4);
            detail = buf;
            hint = "threads whose index is past the end must not touch the array: guard the "
                   "access with if (i < n)";
        } else {
            headline = std::string("invalid ") + access_word(r.is_write) + " in kernel";
            detail = "the address is inside " + buffer;
        }
    } else if (reinterpret_cast<std::uintptr_t>(addr) < 65536) {
        headline = std::string("null pointer ") + access_word(r.is_write) + " in kernel";
        std::snprintf(buf, sizeof buf, "the address is %p, next to 0", r.address);
        detail = buf;
        hint = "a pointer passed to the kernel was never set: did a cudaMalloc go missing?";
    } else {
        headline = std::string("invalid memory ") + access_word(r.is_write) + " in kernel";
        std::snprintf(buf, sizeof buf, "the address %p is not inside any device buffer", r.address);
        detail = buf;
        hint = "is the index far out of range, or the pointer not from cudaMalloc?";
    }

    std::fprintf(stderr, "cuemu: %s '%s' (launched at %s:%d)\n", headline.c_str(), site.kernel,
                 site.file, site.line);
    std::fprintf(stderr, "  block (%u,%u,%u) of grid (%u,%u,%u), thread (%u,%u,%u) of block (%u,%u,%u)\n",
                 r.block_idx.x, r.block_idx.y, r.block_idx.z, r.grid_dim.x, r.grid_dim.y,
                 r.grid_dim.z, r.thread_idx.x, r.thread_idx.y, r.thread_idx.z, r.block_dim.x,
                 r.block_dim.y, r.block_dim.z);
    std::string line = source_line_of(r.pc);
    if (!line.empty()) std::fprintf(stderr, "  at %s\n", line.c_str());
    if (!detail.empty()) std::fprintf(stderr, "  %s\n", detail.c_str());
    if (!hint.empty()) std::fprintf(stderr, "  hint: %s\n", hint.c_str());
    std::fprintf(stderr,
                 "  On a GPU this is %s (\"%s\"):\n"
                 "  the kernel stops, and every later CUDA call returns that error.\n",
                 cudaGetErrorName(error), cudaGetErrorString(error));
    return error;
}

cudaError_t report_kernel_problem(const launch_site& site, const std::string& headline,
                                  const std::string& body, const char* hint,
                                  const char* on_a_gpu, cudaError_t error) {
    std::fflush(stdout);  // keep the program's own output before the report
    std::fprintf(stderr, "cuemu: %s in kernel '%s' (launched at %s:%d)\n", headline.c_str(),
                 site.kernel, site.file, site.line);
    std::fprintf(stderr, "%s", body.c_str());
    if (hint && *hint) std::fprintf(stderr, "  hint: %s\n", hint);
    std::fprintf(stderr,
                 "  On a GPU %s.\n"
                 "  The emulator stops the kernel with %s (\"%s\"),\n"
                 "  and every later CUDA call returns that error.\n",
                 on_a_gpu, cudaGetErrorName(error), cudaGetErrorString(error));
    return error;
}

}  // namespace cuemu::detail
