// diagnostics.h - turning a fault inside a kernel into a message that names
// the kernel, block, thread, source line and buffer (diagnostics.cpp).
#ifndef CUEMU_DIAGNOSTICS_H
#define CUEMU_DIAGNOSTICS_H

#include <string>

#include "cuemu/launch.h"
#include "cuemu/types.h"

namespace cuemu::detail {

// How long a launch may run before the watchdog stops it, unless
// CUEMU_WATCHDOG_SECONDS says otherwise (scheduler.cpp).
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
};

// Prints the report to stderr and returns the error a GPU would give for it
// (made sticky by the caller).
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

}  // namespace cuemu::detail

#endif
