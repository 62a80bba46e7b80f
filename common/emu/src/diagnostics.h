// diagnostics.h - turning a fault inside a kernel into a message that names
// the kernel, block, thread, source line and buffer (diagnostics.cpp).
#ifndef CUEMU_DIAGNOSTICS_H
#define CUEMU_DIAGNOSTICS_H

#include <string>

#include "cuemu/launch.h"
#include "cuemu/types.h"
#include "internal.h"

namespace cuemu::detail {

// How long a launch may run before the watchdog stops it, unless
// CUEMU_WATCHDOG_SECONDS says otherwise (watchdog.cpp).
constexpr double default_watchdog_seconds = 20;

struct fault_report {
    const launch_site* site = nullptr;
    uint3 block_idx{0, 0, 0}, thread_idx{0, 0, 0};
    dim3 grid_dim, block_dim;
    int signal_number = 0;          // 0 when the kernel threw an exception
    const void* address = nullptr;  // the faulting data address
    const void* pc = nullptr;       // the faulting instruction, when known
    int is_write = -1;              // 1 write, 0 read, -1 unknown
    bool stack_overflow = false;
    std::string exception_text;
    bool timed_out = false;       // stopped by the watchdog, not by a fault
    double watchdog_seconds = 0;  // its limit
    bool timed_out_busy = false;  // stopped at the long limit: the thread was computing (watchdog.h)
    double seconds_without_progress = 0;
};

// Prints the report to stderr and returns the error a GPU would give for it
// (made sticky by the caller, unless CUEMU_ON_FAULT=continue).
cudaError_t report_fault(const fault_report& r);

// A kernel that cannot go on for a reason of the schedule (a __syncthreads that
// not every thread reaches, a deadlock): prints
//   cuemu: <headline> in kernel '<k>' (launched at <file>:<line>)
//   <body, lines already indented>
//     hint: <hint>
//     On a GPU <on_a_gpu>. ... <error>
// and returns error (made sticky by the caller).
cudaError_t report_kernel_problem(const launch_site& site, const std::string& headline,
                                  const std::string& body, const char* hint,
                                  const char* on_a_gpu, cudaError_t error);

// True for a file in the emulator's own header folders (header_dirs.cpp).
bool is_emulator_header(const std::string& file);
// True for a source file the learner did not write: those, and the system's.
bool is_library_file(const std::string& file);
// A demangled function name without its parameter list ("k<(Pitch)0>").
std::string without_parameters(const std::string& name);

// CUEMU_ON_FAULT=continue: a faulting CUDA thread is ended and reported, the
// rest of the launch runs, and no error is set. The default (stop) is a GPU's
// behaviour: the launch stops and the error is sticky.
bool continue_after_fault();
// After a launch in which more than one CUDA thread faulted (continue mode).
void report_fault_count(const launch_site& site, unsigned long long faults);

// A fault in host code (outside kernels). True when it was a device pointer
// and a report was printed; the caller then lets the program crash.
bool report_host_fault(int signal_number, const void* address, const void* pc, int is_write);
// A library call run as device work (a Thrust algorithm) names itself here
// while it runs on the device thread (null when it is done), so that a fault
// in it is reported as that call's, with the buffer the address is nearest.
void set_library_work(const char* name);
// A fault on the device thread outside kernels: queued work (a copy, a
// memset, a cudaLaunchHostFunc function, a library call) touched memory that
// was not valid when it ran. Prints a report; the caller then lets the program crash.
void report_device_thread_fault(int signal_number, const void* address, const void* pc,
                                int is_write);

// How the name of a kernel's uninstrumented twin starts (cuemu/launch.h,
// __cuemu_fast_NAME; cuemu-rewrite writes it).
constexpr char twin_name_prefix[] = "__cuemu_fast_";
constexpr char aligned_twin_tag[] = "cuemu::aligned_tag";
// A function name as the program's own (a kernel's twin is named as the
// kernel, NAME), into out[0 .. size), cut short if need be; returns its length.
// Allocates nothing: a device-side assert calls it on a path that never returns.
std::size_t copy_kernel_function_name(const char* function, char* out, std::size_t size);

// "file.cu:31 in kernel(...)" for an instruction address (the -g line table,
// through addr2line); "" when unknown.
std::string source_line_of(const void* pc);
// The demangled name of the function at `function`, without its parameters
// ("sum_tree_kernel", "k<(Pitch)0>"); "" when unknown.
std::string function_name_of(const void* function);

// Refused calls: a line saying why, before the error code is returned.
void explain_bad_free(const void* p, const allocation_info* known, const char* file, int line,
                      const char* call = "cudaFree");
void explain_bad_copy(const char* call, const char* role, const char* kind_name, const void* p,
                      std::size_t count, const allocation_info* known, const char* file, int line);
// An allocation refused with cudaErrorMemoryAllocation: more than the device
// has left (capacity and in_use given), more than the machine could back now
// (capacity 0, available given), or no addresses left (both 0).
void explain_allocation_refused(const char* how, std::size_t size, std::size_t capacity,
                                std::size_t in_use_or_available, const char* file, int line);
// CUEMU_CHECK=uninit reports.
void explain_unwritten_copy(const char* call, std::size_t count, std::size_t unwritten,
                            std::size_t first_offset, const allocation_info& info,
                            const char* file, int line);
void report_uninit_read(const kernel_position& where, const void* address,
                        const allocation_info& info);

}  // namespace cuemu::detail

#endif
