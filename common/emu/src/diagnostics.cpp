// diagnostics.cpp - explains a fault inside a kernel in a beginner's terms:
// which kernel, launched where, which block and thread, which source line,
// and what the address was (past the end of which buffer, a freed buffer, a
// null pointer, the thread's own stack). Then it says what a GPU would have
// reported, because that is the error the program sees next.
#include <dlfcn.h>
#include <signal.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include "cuemu/runtime.h"
#include "diagnostics.h"
#include "internal.h"
#include "watchdog.h"

namespace cuemu::detail {
namespace {

// One report at a time, for the whole process: each device's thread prints
// the reports of its own kernels, and a report is many lines (with a pause
// for addr2line in the middle), so two devices faulting together would
// otherwise mix their lines.
std::mutex report_output_mutex;

std::string run_command(const std::string& command) {
    std::string out;
    if (FILE* pipe = popen(command.c_str(), "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof buf, pipe)) out += buf;
        pclose(pipe);
    }
    return out;
}

}  // namespace

// The emulator's own headers (the launch wrapper, the builtins, its libcu++
// and CUB: header_dirs.cpp) and the system's (std::apply).
bool is_library_file(const std::string& file) {
    return is_emulator_header(file) || file.compare(0, 5, "/usr/") == 0;
}

std::string without_parameters(const std::string& name) {
    // The '(' that opens the parameters, not one inside a template
    // argument (k<(Pitch)0>).
    int depth = 0;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '<') ++depth;
        else if (name[i] == '>') --depth;
        else if (name[i] == '(' && depth == 0 && i > 0) return name.substr(0, i);
    }
    return name;
}

std::size_t copy_kernel_function_name(const char* function, char* out, std::size_t size) {
    std::size_t length = 0;
    for (const char* c = function; *c && length + 1 < size;) {
        if (std::strncmp(c, twin_name_prefix, sizeof twin_name_prefix - 1) == 0) {
            c += sizeof twin_name_prefix - 1;
            continue;
        }
        // The aligned twin's first parameter (cuemu/launch.h), not the kernel's.
        if (std::strncmp(c, aligned_twin_tag, sizeof aligned_twin_tag - 1) == 0) {
            c += sizeof aligned_twin_tag - 1;
            if (std::strncmp(c, ", ", 2) == 0) c += 2;
            continue;
        }
        out[length++] = *c++;
    }
    if (size > 0) out[length] = '\0';
    return length;
}

// "file.cu:31 in kernel(...)" for an instruction address, using the debug
// line table through addr2line (binutils). Empty when unknown. With inlining
// (any optimisation level) one address belongs to several frames, innermost
// first: a kernel inlined into the launch wrapper, an atomic inlined into the
// kernel. The report names the innermost frame in the learner's own code.
std::string function_name_of(const void* function) {
    if (!function) return "";
    Dl_info info{};
    if (!dladdr(function, &info) || !info.dli_fname) return "";
    const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(function) -
                                  reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    char command[1200];
    std::snprintf(command, sizeof command, "addr2line -C -f -e '%s' 0x%zx 2>/dev/null",
                  info.dli_fname, static_cast<std::size_t>(offset));
    std::string name = run_command(command);
    name = name.substr(0, name.find('\n'));
    if (name.empty() || name[0] == '?') return "";
    return without_parameters(name);
}

std::string source_line_of(const void* pc) {
    if (!pc) return "";
    Dl_info info{};
    if (!dladdr(pc, &info) || !info.dli_fname) return "";
    std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(pc) -
                            reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    char command[1200];
    std::snprintf(command, sizeof command, "addr2line -C -f -i -e '%s' 0x%zx 2>/dev/null",
                  info.dli_fname, static_cast<std::size_t>(offset));
    const std::string out = run_command(command);
    std::string chosen;
    std::size_t at = 0;
    while (at < out.size()) {  // pairs of lines: function, then file:line
        const std::size_t end_function = out.find('\n', at);
        if (end_function == std::string::npos) break;
        const std::size_t end_where = out.find('\n', end_function + 1);
        std::string function = out.substr(at, end_function - at);
        std::string where = out.substr(end_function + 1, end_where == std::string::npos
                                                              ? std::string::npos
                                                              : end_where - end_function - 1);
        at = end_where == std::string::npos ? out.size() : end_where + 1;
        std::size_t discriminator = where.find(" (discriminator");
        if (discriminator != std::string::npos) where.erase(discriminator);
        if (where.empty() || where[0] == '?') continue;
        std::string name(function.size() + 1, '\0');
        name.resize(copy_kernel_function_name(function.c_str(), name.data(), name.size()));
        const std::string line = where + " in " + name;
        if (chosen.empty()) chosen = line;  // the innermost, if no frame is the learner's
        if (!is_library_file(where.substr(0, where.rfind(':')))) return line;
    }
    return chosen;
}

namespace {

const char* access_word(int is_write) {
    return is_write == 1 ? "write" : is_write == 0 ? "read" : "access";
}

// "a 4000-byte buffer from cudaMalloc at file.cu:12"
std::string buffer_words(const allocation_info& a) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "a %zu-byte buffer from %s at %s:%d", a.size, a.how, a.file,
                  a.line);
    return buf;
}

// "cudaFree at file.cu:40", or "cudaDeviceReset" (which frees without a call site per buffer).
std::string freed_words(const allocation_info& a) {
    if (!*a.free_file) return a.freed_by;
    return std::string(a.freed_by) + " at " + a.free_file + ":" + std::to_string(a.free_line);
}

// Graph memory outside its lifetime in stream order (allocation_info::graph_unmapped):
// CUDA unmaps it, so an access is a use after free (or before allocation).
void graph_memory_words(const allocation_info& a, int is_write, std::string* headline, std::string* detail,
                        std::string* hint) {
    const bool freed = *a.freed_by != '\0';
    if (freed) {
        *headline = std::string("use after ") + a.freed_by + ": " + access_word(is_write);
        *detail += "\n  this graph memory was freed by " + freed_words(a) + ", before this access";
    } else {
        *headline = std::string("use of graph memory before its alloc node ran: ") + access_word(is_write);
        *detail += "\n  no launch of its graph had reached its alloc node before this access";
    }
    *detail += "\n  (graph memory exists from its alloc node to its free, in stream order; its "
               "address stays the same)";
    *hint = "order the access after the alloc node and before the free node (graph edges, or "
            "stream order),\n        or free the memory later";
}

// The offset in bytes, and as an element index for the commonest element size.
std::string offset_words(long long offset) {
    char buf[160];
    long long element = offset >= 0 ? offset / 4 : -((-offset + 3) / 4);
    std::snprintf(buf, sizeof buf, "byte offset %lld: element %lld if the elements are 4-byte floats or ints",
                  offset, element);
    return buf;
}

// Where addr lies relative to a buffer, in words.
std::string where_in_buffer(const char* addr, const allocation_info& a) {
    const char* end = a.begin + a.size;
    const long long offset = static_cast<long long>(addr - a.begin);
    std::string buffer = buffer_words(a);
    char buf[256];
    if (addr >= end)
        std::snprintf(buf, sizeof buf, "%lld bytes past the end of ",
                      static_cast<long long>(addr - end));
    else if (addr < a.begin)
        std::snprintf(buf, sizeof buf, "%lld bytes before the start of ", -offset);
    else
        std::snprintf(buf, sizeof buf, "inside ");
    return "the address is " + std::string(buf) + buffer + "\n    (" + offset_words(offset) + ")";
}

void print_position(const char* headline, const launch_site& site, uint3 block_idx,
                    dim3 grid_dim, uint3 thread_idx, dim3 block_dim) {
    std::fprintf(stderr, "cuemu: %s in kernel '%s' (launched at %s:%d)\n", headline, site.kernel,
                 site.file, site.line);
    std::fprintf(stderr,
                 "  block (%u,%u,%u) of grid (%u,%u,%u), thread (%u,%u,%u) of block (%u,%u,%u)\n",
                 block_idx.x, block_idx.y, block_idx.z, grid_dim.x, grid_dim.y, grid_dim.z,
                 thread_idx.x, thread_idx.y, thread_idx.z, block_dim.x, block_dim.y, block_dim.z);
}

}  // namespace

bool continue_after_fault() {
    static const bool on = [] {
        const char* text = std::getenv("CUEMU_ON_FAULT");
        if (!text || !*text || std::strcmp(text, "stop") == 0) return false;
        if (std::strcmp(text, "continue") == 0) return true;
        std::fprintf(stderr, "cuemu: CUEMU_ON_FAULT must be 'stop' or 'continue', got '%s'\n", text);
        std::exit(2);
    }();
    return on;
}

// What a GPU does with a kernel's access to host memory through an argument.
const char* const host_memory_on_a_gpu =
    "this usually stops the kernel with cudaErrorIllegalAddress; only on systems\n"
    "  with HMM or ATS, where a GPU may reach host memory, it may work";

cudaError_t report_fault(const fault_report& r) {
    std::lock_guard<std::mutex> whole_report(report_output_mutex);
    std::fflush(stdout);  // keep the program's own output before the report
    const launch_site& site = *r.site;
    cudaError_t error = cudaErrorIllegalAddress;
    std::string headline, detail, hint;
    // What a GPU may do, in words that do not claim more than it does: many
    // bad accesses go unnoticed there, a watchdog exists only on some GPUs.
    const char* on_a_gpu =
        "a bad access may go unnoticed (memory near a buffer is often mapped), or stop\n"
        "  the kernel with cudaErrorIllegalAddress";

    allocation_info alloc;
    host_alias_info alias;
    const char* addr = static_cast<const char*>(r.address);
    char buf[512];
    if (r.timed_out) {
        error = cudaErrorLaunchTimeout;
        const double limit = r.watchdog_seconds;
        const double waited = r.seconds_without_progress;
        const char* setting =
            "  (CUEMU_WATCHDOG_SECONDS sets the limit, %g seconds by default; 0 turns the watchdog off)";
        if (r.timed_out_busy) {
            // Working, as far as the emulator can see: say so, and how to let it run.
            std::snprintf(buf, sizeof buf, "still running after %.0f seconds", waited);
            headline = buf;
            std::snprintf(buf, sizeof buf,
                          "for %.0f seconds no CUDA thread of the kernel finished, passed a barrier "
                          "or a warp function;\n"
                          "  this one was still computing (its registers kept changing) when the "
                          "emulator's watchdog\n"
                          "  stopped it, at %g times CUEMU_WATCHDOG_SECONDS (%g seconds here)\n"
                          "  to let it run longer: CUEMU_WATCHDOG_SECONDS=%g gives it %g seconds; "
                          "0 turns the watchdog off",
                          waited, busy_limit_factor, limit, limit * 10,
                          limit * 10 * busy_limit_factor);
            detail = buf;
            hint = "the emulator is far slower than a GPU: try a smaller problem first. A loop "
                   "whose end\n        condition is never met also runs forever";
        } else {
            std::snprintf(buf, sizeof buf, "no progress for %g second%s", limit, limit == 1 ? "" : "s");
            headline = buf;
            char setting_text[160];
            std::snprintf(setting_text, sizeof setting_text, setting, default_watchdog_seconds);
            std::snprintf(buf, sizeof buf,
                          "for %g second%s no CUDA thread of the kernel finished, passed a barrier "
                          "or a warp function,\n"
                          "  and this one kept the same register values: it waits for something "
                          "that does not change\n%s",
                          limit, limit == 1 ? "" : "s", setting_text);
            detail = buf;
            hint = "a loop that waits for a flag spins forever if no thread sets it, or if the block\n"
                   "        that sets it has not started: blocks are not guaranteed to run at the same time";
        }
        on_a_gpu = "a kernel that never ends may be stopped with cudaErrorLaunchTimeout only where\n"
                   "  the GPU drives a display (its watchdog); elsewhere it runs until the program is killed";
    } else if (r.signal_number == 0) {
        error = cudaErrorLaunchFailure;
        headline = "C++ exception thrown";
        detail = "what(): " + r.exception_text;
        hint = "kernels cannot throw on a GPU; handle the error without exceptions";
        on_a_gpu = "device code cannot throw: nvcc refuses to build it";
    } else if (r.signal_number == SIGFPE) {
        error = cudaErrorLaunchFailure;
        headline = "integer division by zero (or overflow)";
        detail = "the emulator stops here, because the value a GPU would give is a bug anyway";
        hint = "check the divisor before dividing";
        on_a_gpu = "integer division by zero gives an unspecified value, and the kernel goes on";
    } else if (r.signal_number == SIGILL) {
        error = cudaErrorIllegalInstruction;
        headline = "illegal instruction (a trap)";
        on_a_gpu = "a trap stops the kernel with an error";
    } else if (r.stack_overflow) {
        headline = "stack overflow";
        detail = "this thread used more than its stack holds (deep recursion or a large local "
                 "array); a CUDA thread's stack is small (1 KiB by default on a GPU, 256 KiB here)";
        hint = "move large arrays to device memory (cudaMalloc) or shared memory";
        on_a_gpu = "a stack overflow may stop the kernel with cudaErrorIllegalAddress or another\n"
                   "  launch error, or corrupt other data";
    } else if (find_host_alias(r.address, &alias) && alias.memory_device >= 0) {
        headline = std::string("another device's memory used without peer access (") +
                   access_word(r.is_write) + ")";
        const char* a_at = static_cast<const char*>(alias.host_pointer) + alias.offset;
        std::snprintf(buf, sizeof buf,
                      "the kernel runs on device %d; argument %d of the launch at %s:%d is %p,\n"
                      "    memory of device %d, and peer access from device %d to device %d is "
                      "not enabled",
                      alias.launch_device, alias.argument, alias.site.file, alias.site.line,
                      alias.host_pointer, alias.memory_device, alias.launch_device,
                      alias.memory_device);
        detail = buf;
        if (find_allocation(a_at, &alloc)) detail += "\n  " + where_in_buffer(a_at, alloc);
        std::snprintf(buf, sizeof buf,
                      "call cudaDeviceEnablePeerAccess(%d, 0) while device %d is current (after "
                      "checking\n        cudaDeviceCanAccessPeer), or copy the data to device %d "
                      "first (cudaMemcpyPeer)",
                      alias.memory_device, alias.launch_device, alias.launch_device);
        hint = buf;
        on_a_gpu = "this may stop the kernel with cudaErrorIllegalAddress, or give a silent "
                   "wrong answer";
    } else if (find_host_alias(r.address, &alias) && alias.parent_memory) {
        headline = std::string("a parent's ") + alias.parent_memory + " used by a child grid (" +
                   access_word(r.is_write) + ")";
        char text[1024];  // the file's path may be long
        std::snprintf(text, sizeof text,
                      "argument %d of the launch at %s:%d, made by a kernel, is %p, the launching "
                      "thread's %s,\n    which a child grid cannot reach; the kernel used it at %s",
                      alias.argument, alias.site.file, alias.site.line, alias.host_pointer,
                      alias.parent_memory, offset_words(alias.offset).c_str());
        detail = text;
        hint = "give a child grid global memory (cudaMalloc, a __device__ variable, malloc in "
               "the kernel),\n        copying what it needs there first";
        on_a_gpu = "a pointer to a parent's shared or local memory is undefined in a child grid "
                   "(CUDA Programming Guide): it may fault, or read other data";
    } else if (find_host_alias(r.address, &alias) && alias.reference) {
        headline = std::string("host object used through a reference parameter (") +
                   access_word(r.is_write) + ")";
        char text[1024];  // the file's path may be long
        std::snprintf(text, sizeof text,
                      "parameter %d of the kernel is a reference: the launch at %s:%d passed "
                      "the address of\n    the caller's object, %p, and made no copy; that "
                      "object is in host memory (the host\n    program's stack or heap), which "
                      "a GPU cannot read; the kernel used it at byte offset %lld",
                      alias.argument, alias.site.file, alias.site.line, alias.host_pointer,
                      alias.offset);
        detail = text;
        hint = "put the object where the device reaches it (cudaMallocManaged, a class whose "
               "operator new\n        uses it, a __managed__ variable), or take the parameter "
               "by value";
        on_a_gpu = host_memory_on_a_gpu;
    } else if (find_host_alias(r.address, &alias)) {
        headline = std::string("host pointer dereferenced (") + access_word(r.is_write) + ")";
        std::snprintf(buf, sizeof buf,
                      "argument %d of the launch at %s:%d is %p, a host address (the host "
                      "program's stack or heap);\n    the kernel used it at %s",
                      alias.argument, alias.site.file, alias.site.line, alias.host_pointer,
                      offset_words(alias.offset).c_str());
        detail = buf;
        hint = "kernels use device memory: cudaMalloc a device buffer, cudaMemcpy the data "
               "into it, and pass that pointer to the kernel";
        on_a_gpu = host_memory_on_a_gpu;
    } else if (find_allocation(r.address, &alloc)) {
        detail = where_in_buffer(addr, alloc);
        if (alloc.freed) {
            // freed_by: cudaFree, or cudaDeviceReset (which has no call site to name).
            headline = std::string("use after ") + alloc.freed_by + ": " + access_word(r.is_write);
            detail += "\n  the buffer was freed by " + freed_words(alloc) + ", before this access";
            hint = "free device memory only after the last kernel that uses it";
        } else if (addr >= alloc.begin + alloc.size) {
            headline = std::string("out-of-bounds ") + access_word(r.is_write);
            hint = "threads whose index is past the end must not touch the array: guard the "
                   "access with if (i < n)";
        } else if (addr < alloc.begin) {
            headline = std::string("out-of-bounds ") + access_word(r.is_write) +
                       " before the start of a buffer";
            hint = "an index went negative: check the arithmetic that computes it";
        } else if (alloc.graph_unmapped) {
            graph_memory_words(alloc, r.is_write, &headline, &detail, &hint);
        } else if (engine_device() >= 0 && alloc.device != engine_device()) {
            // Not through a kernel argument (a pointer kept in a struct or in
            // device memory): caught only because that device was idle.
            // Access enabled after the launch was queued does not count: the
            // launch keeps what it had then (peer memory opened for it, or not).
            const int here = engine_device(), there = alloc.device;
            headline = std::string("another device's memory used (") + access_word(r.is_write) + ")";
            std::snprintf(buf, sizeof buf,
                          "\n  the kernel runs on device %d; the buffer is memory of device %d, and "
                          "peer access from\n    device %d to device %d was not enabled when the "
                          "kernel was launched",
                          here, there, here, there);
            detail += buf;
            std::snprintf(buf, sizeof buf,
                          "call cudaDeviceEnablePeerAccess(%d, 0) while device %d is current "
                          "(after checking\n        cudaDeviceCanAccessPeer), or copy the data to "
                          "device %d first (cudaMemcpyPeer)",
                          there, here, here);
            hint = buf;
            on_a_gpu = "this may stop the kernel with cudaErrorIllegalAddress, or give a silent "
                       "wrong answer";
        } else {
            headline = std::string("invalid ") + access_word(r.is_write);
        }
    } else if (reinterpret_cast<std::uintptr_t>(addr) < 65536) {
        headline = std::string("null pointer ") + access_word(r.is_write);
        std::snprintf(buf, sizeof buf, "the address is %p, next to 0", r.address);
        detail = buf;
        hint = "a pointer passed to the kernel was never set: did a cudaMalloc go missing?";
        on_a_gpu = "a null pointer access stops the kernel with cudaErrorIllegalAddress";
    } else {
        headline = std::string("invalid memory ") + access_word(r.is_write);
        std::snprintf(buf, sizeof buf, "the address %p is not inside any device buffer", r.address);
        detail = buf;
        hint = "is the index far out of range, or the pointer not from cudaMalloc?";
    }

    if (alias.shared)  // past the emulator's limit on windows (kernel_pointers.cpp)
        detail += "\n  caution: over 256 launches with such pointer arguments were queued at "
                  "once, so what the first line\n    calls the pointer, and the argument and launch "
                  "named above, may be another launch's;\n    the kernel and launch in the first "
                  "line are the faulting ones";
    print_position(headline.c_str(), site, r.block_idx, r.grid_dim, r.thread_idx, r.block_dim);
    std::string line = source_line_of(r.pc);
    if (!line.empty()) std::fprintf(stderr, "  at %s\n", line.c_str());
    if (!detail.empty()) std::fprintf(stderr, "  %s\n", detail.c_str());
    if (!hint.empty()) std::fprintf(stderr, "  hint: %s\n", hint.c_str());
    std::fprintf(stderr, "  On a GPU %s.\n", on_a_gpu);
    if (continue_after_fault() && !r.timed_out)
        std::fprintf(stderr,
                     "  CUEMU_ON_FAULT=continue: this thread is ended, the rest of the launch runs,\n"
                     "  and no error is set (the emulator would stop with %s).\n",
                     cudaGetErrorName(error));
    else
        std::fprintf(stderr,
                     "  The emulator stops the kernel with %s (\"%s\"),\n"
                     "  and every later CUDA call fails with that error%s.\n",
                     cudaGetErrorName(error), cudaGetErrorString(error),
                     device_count() > 1 ? " while this device is current" : "");
    return error;
}

cudaError_t report_kernel_problem(const launch_site& site, const std::string& headline,
                                  const std::string& body, const char* hint,
                                  const char* on_a_gpu, cudaError_t error) {
    std::lock_guard<std::mutex> whole_report(report_output_mutex);
    std::fflush(stdout);  // keep the program's own output before the report
    std::fprintf(stderr, "cuemu: %s in kernel '%s' (launched at %s:%d)\n", headline.c_str(),
                 site.kernel, site.file, site.line);
    std::fprintf(stderr, "%s", body.c_str());
    if (hint && *hint) std::fprintf(stderr, "  hint: %s\n", hint);
    std::fprintf(stderr,
                 "  On a GPU %s.\n"
                 "  The emulator stops the kernel with %s (\"%s\"),\n"
                 "  and every later CUDA call fails with that error.\n",
                 on_a_gpu, cudaGetErrorName(error), cudaGetErrorString(error));
    return error;
}

void report_fault_count(const launch_site& site, unsigned long long faults) {
    std::lock_guard<std::mutex> whole_report(report_output_mutex);
    std::fprintf(stderr,
                 "cuemu: %llu CUDA threads of kernel '%s' (launched at %s:%d) faulted; the first "
                 "is reported above\n",
                 faults, site.kernel, site.file, site.line);
}

bool report_host_fault(int signal_number, const void* address, const void* pc, int is_write) {
    if (signal_number != SIGSEGV && signal_number != SIGBUS) return false;
    allocation_info alloc;
    if (!find_allocation_in_signal(address, &alloc)) return false;
    if (!is_device_only_kind(alloc.how)) return false;
    std::fflush(stdout);
    std::string line = source_line_of(pc);
    if (alloc.freed)
        std::fprintf(stderr, "cuemu: host code %s a device pointer that %s already released\n",
                     is_write == 1 ? "wrote through" : is_write == 0 ? "read through" : "used",
                     alloc.freed_by);
    else
        std::fprintf(stderr, "cuemu: host code %s a device pointer (cudaMalloc of %zu bytes at %s:%d)\n",
                     is_write == 1 ? "wrote through" : is_write == 0 ? "read through" : "used",
                     alloc.size, alloc.file, alloc.line);
    if (!line.empty()) std::fprintf(stderr, "  at %s\n", line.c_str());
    std::fprintf(stderr, "  %s\n", where_in_buffer(static_cast<const char*>(address), alloc).c_str());
    std::fprintf(stderr,
                 "  device memory is only reachable from kernels; copy it back with cudaMemcpy\n"
                 "  (..., cudaMemcpyDeviceToHost) and use the copy.\n"
                 "  A real GPU program crashes here with a segmentation fault, and so does this one.\n");
    std::fflush(stderr);
    return true;
}

namespace {
// A fault inside a copy the device thread was doing: say which call, where,
// and which of its buffers was too small.
void report_copy_fault(const copy_in_progress& c, const void* address, int is_write) {
    const char* a = static_cast<const char*>(address);
    const bool in_dst = a >= static_cast<const char*>(c.dst) &&
                        a < static_cast<const char*>(c.dst) + c.count;
    const bool in_src = a >= static_cast<const char*>(c.src) &&
                        a < static_cast<const char*>(c.src) + c.count;
    const char* role = in_dst ? "destination" : in_src ? "source" : nullptr;
    std::fprintf(stderr, "cuemu: %s at %s:%d (%s, %zu bytes) faulted %s address %p\n", c.call,
                 c.file, c.line, c.kind_name, c.count,
                 is_write == 1 ? "writing" : is_write == 0 ? "reading" : "at", address);
    allocation_info alloc;
    if (find_allocation_in_signal(address, &alloc) && !alloc.freed && alloc.graph_unmapped) {
        std::string headline, detail = where_in_buffer(a, alloc), hint;
        graph_memory_words(alloc, is_write, &headline, &detail, &hint);
        std::fprintf(stderr, "  %s\n  %s\n  hint: %s\n", headline.c_str(), detail.c_str(), hint.c_str());
        std::fprintf(stderr, "  The program crashes here; on a GPU the copy would fail with an illegal "
                             "address.\n");
        return;
    }
    if (role) {
        const long long offset = static_cast<long long>(
            a - static_cast<const char*>(in_dst ? c.dst : static_cast<const void*>(c.src)));
        std::fprintf(stderr,
                     "  byte %lld of the %s %p: that host buffer is smaller than the %zu bytes "
                     "the copy moves,\n"
                     "  or was freed before the copy ran\n",
                     offset, role, in_dst ? c.dst : c.src, c.count);
    }
    if (std::strcmp(c.call, "cudaMemcpyAsync") == 0)
        std::fprintf(stderr,
                     "  hint: host memory given to an asynchronous copy must stay valid until the "
                     "copy has run:\n"
                     "        synchronize (cudaStreamSynchronize) before freeing or reusing it\n");
    else
        std::fprintf(stderr,
                     "  hint: the count is in bytes (n * sizeof(element)), and the host buffer "
                     "must hold all of them\n");
    std::fprintf(stderr, "  The program crashes here, as a GPU program's copy with a bad host "
                         "buffer may.\n");
}
}  // namespace

namespace {
thread_local const char* library_work = nullptr;

// A library call's own code (a Thrust algorithm, the program's functor in it)
// faulted: a GPU would fault in the library's kernel.
void report_library_work_fault(int signal_number, const void* address, const void* pc,
                               int is_write) {
    std::fprintf(stderr, "cuemu: %s faulted (%s, %s address %p) while the device ran it\n",
                 library_work,
                 signal_number == SIGSEGV ? "SIGSEGV" : signal_number == SIGBUS ? "SIGBUS" : "a signal",
                 is_write == 1 ? "writing" : is_write == 0 ? "reading" : "at", address);
    std::string line = source_line_of(pc);
    if (!line.empty()) std::fprintf(stderr, "  at %s\n", line.c_str());
    allocation_info alloc;
    if (find_allocation_in_signal(address, &alloc))
        std::fprintf(stderr, "  %s\n", where_in_buffer(static_cast<const char*>(address), alloc).c_str());
    std::fprintf(stderr,
                 "  The program crashes here; on a GPU the call's kernel faults and the error\n"
                 "  (an illegal memory access) comes back from it.\n");
}
}  // namespace

void set_library_work(const char* name) { library_work = name; }

void report_device_thread_fault(int signal_number, const void* address, const void* pc,
                                int is_write) {
    std::fflush(stdout);
    copy_in_progress copy;
    if (current_device_copy(&copy)) {
        report_copy_fault(copy, address, is_write);
        std::fflush(stderr);
        return;
    }
    if (library_work) {
        report_library_work_fault(signal_number, address, pc, is_write);
        std::fflush(stderr);
        return;
    }
    std::fprintf(stderr,
                 "cuemu: the emulated device faulted (%s, %s address %p) while doing queued work:\n"
                 "  a copy (cudaMemcpyAsync), a fill (cudaMemsetAsync) or a cudaLaunchHostFunc function\n",
                 signal_number == SIGSEGV ? "SIGSEGV" : signal_number == SIGBUS ? "SIGBUS" : "a signal",
                 is_write == 1 ? "writing" : is_write == 0 ? "reading" : "at", address);
    std::string line = source_line_of(pc);
    if (!line.empty()) std::fprintf(stderr, "  at %s\n", line.c_str());
    std::fprintf(stderr,
                 "  hint: host memory given to an asynchronous call must stay valid until the work has\n"
                 "        run: synchronize (cudaStreamSynchronize) before freeing or reusing it\n"
                 "  The program crashes here, as it could on a GPU.\n");
    std::fflush(stderr);
}

void explain_bad_free(const void* p, const allocation_info* known, const char* file, int line,
                      const char* call) {
    if (known && known->freed && known->begin == p)
        std::fprintf(stderr,
                     "cuemu: %s at %s:%d frees %s a second time\n"
                     "  (it was freed by %s); %s returns cudaErrorInvalidValue\n",
                     call, file, line, buffer_words(*known).c_str(), freed_words(*known).c_str(), call);
    else if (known)
        std::fprintf(stderr,
                     "cuemu: %s at %s:%d was given %p, which is not the start of a live "
                     "buffer:\n  %s\n  %s returns cudaErrorInvalidValue\n",
                     call, file, line, p, where_in_buffer(static_cast<const char*>(p), *known).c_str(), call);
    else
        std::fprintf(stderr,
                     "cuemu: %s at %s:%d was given %p, which did not come from cudaMalloc\n"
                     "  (host memory is freed with free or delete); %s returns "
                     "cudaErrorInvalidValue\n",
                     call, file, line, p, call);
}

void explain_bad_copy(const char* call, const char* role, const char* kind_name, const void* p,
                      std::size_t count, const allocation_info* known, const char* file, int line) {
    std::string why;
    char buf[512];
    if (!p) {
        why = std::string("the ") + role + " is a null pointer";
    } else if (known && !known->freed) {
        const char* c = static_cast<const char*>(p);
        const long long offset = static_cast<long long>(c - known->begin);
        std::snprintf(buf, sizeof buf,
                      "%zu bytes from byte offset %lld do not fit in %s:\n"
                      "  that buffer holds %zu bytes, so the copy would run %lld bytes past its end",
                      count, offset, buffer_words(*known).c_str(), known->size,
                      offset + static_cast<long long>(count) - static_cast<long long>(known->size));
        why = buf;
    } else if (known) {
        std::snprintf(buf, sizeof buf, "the %s is %s, freed by %s", role,
                      buffer_words(*known).c_str(), freed_words(*known).c_str());
        why = buf;
    } else if (kind_name) {
        const bool to_device = std::strcmp(role, "destination") == 0;
        std::snprintf(buf, sizeof buf,
                      "the %s %p is not device memory, but %s copies %s the device:\n"
                      "  are the two pointers, or the direction, swapped?",
                      role, p, kind_name, to_device ? "to" : "from");
        why = buf;
    } else {
        std::snprintf(buf, sizeof buf, "the %s %p is not device memory (%s sets device memory only)",
                      role, p, call);
        why = buf;
    }
    std::fprintf(stderr, "cuemu: %s at %s:%d refused: %s\n  %s returns cudaErrorInvalidValue\n",
                 call, file, line, why.c_str(), call);
}

namespace {
// "1.5 GiB" or "300 MiB": sizes a learner can compare at a glance.
std::string size_words(std::size_t bytes) {
    char buf[64];
    if (bytes >= (std::size_t(1) << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
    else if (bytes >= (std::size_t(1) << 20))
        std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
    else
        std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
    return buf;
}
}  // namespace

void explain_allocation_refused(const char* how, std::size_t size, std::size_t capacity,
                                std::size_t in_use_or_available, const char* file, int line) {
    std::string why;
    if (capacity)
        why = "the emulated device has " + size_words(capacity) + " of memory (three quarters of "
              "this machine's), " + size_words(in_use_or_available) + " of it in use";
    else if (in_use_or_available)
        why = "this machine has only " + size_words(in_use_or_available) +
              " of memory available now (other programs use the rest)";
    else
        why = "the device's address range is full";
    std::fprintf(stderr,
                 "cuemu: %s at %s:%d of %zu bytes (%s) refused: %s;\n"
                 "  %s returns cudaErrorMemoryAllocation, as a GPU without enough free memory does\n",
                 how, file, line, size, size_words(size).c_str(), why.c_str(), how);
}

void explain_unwritten_copy(const char* call, std::size_t count, std::size_t unwritten,
                            std::size_t first_offset, const allocation_info& info,
                            const char* file, int line) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "cuemu: %s at %s:%d copies device memory that nothing wrote "
                 "(CUEMU_CHECK=uninit)\n"
                 "  %zu of the %zu bytes copied from %s were never written by cudaMemcpy,\n"
                 "  cudaMemset or a kernel; the first is at %s\n"
                 "  they hold the emulator's fill, 0xFF bytes (NaN as float, -1 as int); a GPU "
                 "would copy whatever was there\n"
                 "  hint: does the grid cover every element, and does every thread write its "
                 "element?\n",
                 call, file, line, unwritten, count, buffer_words(info).c_str(),
                 offset_words(static_cast<long long>(first_offset)).c_str());
}

void report_uninit_read(const kernel_position& where, const void* address,
                        const allocation_info& info) {
    std::lock_guard<std::mutex> whole_report(report_output_mutex);
    std::fflush(stdout);
    print_position("read of device memory nothing wrote (CUEMU_CHECK=uninit)", where.site,
                   where.block_idx, where.grid_dim, where.thread_idx, where.block_dim);
    std::fprintf(stderr, "  %s\n", where_in_buffer(static_cast<const char*>(address), info).c_str());
    std::fprintf(stderr,
                 "  no cudaMemcpy, cudaMemset or kernel wrote this part of the buffer before the "
                 "kernel read it;\n"
                 "  the value read is the emulator's fill, 0xFF bytes (NaN as float, -1 as int)\n"
                 "  hint: copy the input to the device (cudaMemcpy ..., cudaMemcpyHostToDevice) "
                 "before the launch,\n"
                 "  or set an accumulator (cudaMemset) before a kernel adds to it\n"
                 "  A GPU reports nothing here and reads whatever the memory held; the launch "
                 "goes on.\n");
}

#if defined(__SANITIZE_ADDRESS__)
// ---- AddressSanitizer (the sanitizer build) ------------------------------------------------
extern "C" {
// The emulator's SIGSEGV handler must see guard-page faults: ASan keeps its own
// handler only until the emulator installs one (allow_user_segv_handler), and
// the emulator hands faults it does not own back to it. Fibers switch stacks
// (annotated in scheduler.cpp and block_loop.cpp); detect_stack_use_after_return stays off, as
// its fake stacks do not follow a fiber from one CUDA thread to the next.
// ASAN_OPTIONS in the environment still overrides these.
const char* __asan_default_options() {
    return "allow_user_segv_handler=1:detect_stack_use_after_return=0";
}

// Called as ASan starts a report: say first, in the emulator's words, which
// kernel, block, thread and buffer it is about. ASan's own report follows,
// with the source line of the access in its frame #0.
void __asan_on_error() {
    const void* address = __asan_get_report_address();
    allocation_info alloc;
    if (!address || !find_allocation_in_signal(address, &alloc)) return;
    kernel_position where;
    const bool in_kernel = current_kernel_position(&where);
    const char* addr = static_cast<const char*>(address);
    const int is_write = __asan_get_report_access_type();
    std::string headline = std::string("out-of-bounds ") + access_word(is_write) +
                           (addr < alloc.begin ? " before the start of a buffer" : "");
    std::fflush(stdout);
    if (in_kernel)
        print_position(headline.c_str(), where.site, where.block_idx, where.grid_dim,
                       where.thread_idx, where.block_dim);
    else
        std::fprintf(stderr, "cuemu: %s in host code\n", headline.c_str());
    std::fprintf(stderr, "  %s\n", where_in_buffer(addr, alloc).c_str());
    std::fprintf(stderr,
                 "  On a GPU this may go unnoticed or stop the kernel with "
                 "cudaErrorIllegalAddress; AddressSanitizer's\n  report follows and ends the "
                 "program. Its frame #0 is the line of the access.\n");
    std::fflush(stderr);  // ASan ends the process without flushing stdio
}
}
#endif

}  // namespace cuemu::detail
