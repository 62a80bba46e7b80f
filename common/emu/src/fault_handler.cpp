// fault_handler.cpp - the signal handlers inside a kernel: a bad access (SIGSEGV,
// SIGBUS, SIGFPE, SIGILL) ends its CUDA thread with a report and a sticky
// cudaErrorIllegalAddress instead of a dead process, and the watchdog's signal
// ends a CUDA thread of a launch that has run out of time. Also which failure's
// report a launch prints (keep_report), and where the calling thread is inside
// a kernel, for reports made outside the handler.
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>

#include <cstdint>
#include <functional>
#include <mutex>

#include "block_state.h"
#include "diagnostics.h"
#include "internal.h"
#include "launch_job.h"
#include "race_detector.h"
#include "watchdog.h"

namespace cuemu::detail {

// Keeps the report of a failure in the current block if it is the one the
// launch will print: a failure that stops the launch wins over one it goes on
// after (CUEMU_ON_FAULT=continue), then the lowest-numbered block, then the
// first report from that block. Called with job.report_mutex held.
void keep_report(launch_job& job, bool stops, std::function<cudaError_t()> report) {
    const std::uint64_t block = tls_linear_block;
    const bool better = (stops && !job.report_stops) ||
                        (stops == job.report_stops && block < job.report_block);
    if (better) {
        job.report = std::move(report);
        job.report_block = block;
        job.report_stops = stops;
    }
    if (job.report_stops) job.lowest_failed_block = job.report_block;
}

void report_and_fail(launch_job& job, fiber_slot& s) {
    std::lock_guard<std::mutex> lock(job.report_mutex);
    // CUEMU_ON_FAULT=continue ends only the faulting thread; the watchdog
    // always stops the launch.
    const bool timed_out = s.state == fiber_state::timed_out;
    const bool stop = timed_out || !continue_after_fault();
    if (!timed_out) ++job.fault_count;
    fault_report r;
    r.site = job.site;
    r.block_idx = tls_block_idx;
    r.thread_idx = s.thread_idx;
    r.grid_dim = job.config->grid;
    r.block_dim = job.config->block;
    r.signal_number = s.signal_number;
    r.address = s.fault_address;
    r.pc = s.fault_pc;
    r.is_write = s.fault_is_write;
    r.exception_text = s.exception_text;
    r.timed_out = s.state == fiber_state::timed_out;
    r.watchdog_seconds = job.watchdog_seconds;
    r.timed_out_busy = job.timed_out_busy;
    r.seconds_without_progress = job.seconds_without_progress;
    const char* a = static_cast<const char*>(s.fault_address);
    r.stack_overflow = s.state == fiber_state::faulted && a && a >= s.stack_low &&
                       a < s.stack_high;
    keep_report(job, stop, [r] { return report_fault(r); });
}

// The fault handler runs with the watchdog's signal blocked; a fiber that
// left the handler by siglongjmp unblocks it again.
void unblock_watchdog_signal() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, watchdog_signal());
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

namespace {
#if defined(__linux__) && defined(__x86_64__)
// Whether the x86-64 instruction at pc reads its memory operand before it
// writes it, without a lock prefix: add, sub, and, or, xor, adc, sbb with a
// memory destination, inc, dec, not, neg, shifts and rotates, and the same
// without an atomic's lock. Its fault on memory that is not open shows as a
// write; a GPU loads and stores in separate instructions, and the load
// faults first (`data[i] += 1` reads past the end before it writes there).
bool reads_before_writing(const unsigned char* p) {
    int n = 0;
    bool locked = false;
    for (; n < 14; ++n) {  // legacy prefixes
        const unsigned char b = p[n];
        if (b == 0xF0) locked = true;
        else if (b != 0x66 && b != 0x67 && b != 0xF2 && b != 0xF3 && b != 0x2E && b != 0x36 && b != 0x3E &&
                 b != 0x26 && b != 0x64 && b != 0x65)
            break;
    }
    if (locked) return false;  // an atomic: a write, as it was
    if ((p[n] & 0xF0) == 0x40) ++n;  // REX
    const unsigned char op = p[n];
    const unsigned reg = (p[n + 1] >> 3) & 7u;  // the ModRM byte's reg field: the operation of a group
    if (op < 0x40 && (op & 7) <= 1) return (op & 0x38) != 0x38;  // op r/m, r (0x38/0x39: cmp, which writes nothing)
    if (op == 0x80 || op == 0x81 || op == 0x83) return reg != 7;  // op r/m, imm (/7: cmp)
    if (op == 0xFE || op == 0xFF) return reg <= 1;                 // inc, dec
    if (op == 0xF6 || op == 0xF7) return reg == 2 || reg == 3;     // not, neg
    return op == 0xC0 || op == 0xC1 || (op >= 0xD0 && op <= 0xD3);  // shifts and rotates
}
#endif

// Where the interrupted instruction was (for the report's source line), and
// whether a SIGSEGV was a write.
void read_context(int sig, void* raw_context, const void** pc, int* is_write) {
    *pc = nullptr;
    *is_write = -1;
#if defined(__linux__) && defined(__x86_64__)
    auto* uc = static_cast<ucontext_t*>(raw_context);
    *pc = reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
    if (sig == SIGSEGV) *is_write = (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;
    if (*is_write == 1 && reads_before_writing(static_cast<const unsigned char*>(*pc))) *is_write = 0;
#elif defined(__linux__) && defined(__aarch64__)
    auto* uc = static_cast<ucontext_t*>(raw_context);
    *pc = reinterpret_cast<const void*>(uc->uc_mcontext.pc);
    (void)sig;
#else
    (void)sig;
    (void)raw_context;
#endif
}

struct sigaction previous_actions[NSIG];  // what was installed before ours

// Whether the interrupted code ran on the stack of s's fiber. A worker
// switching to or from a CUDA thread (resume in block_loop.cpp,
// yield_to_scheduler in scheduler.cpp) still names it in tls_slot while it
// runs on the scheduler's stack; leaving from there by siglongjmp would land
// on a fiber that is suspended. True where the stack pointer cannot be read.
bool interrupted_on_fiber_stack(const fiber_slot& s, const void* raw_context) {
#if defined(__linux__) && defined(__x86_64__)
    const auto* uc = static_cast<const ucontext_t*>(raw_context);
    const auto* sp = reinterpret_cast<const char*>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__linux__) && defined(__aarch64__)
    const auto* uc = static_cast<const ucontext_t*>(raw_context);
    const auto* sp = reinterpret_cast<const char*>(uc->uc_mcontext.sp);
#else
    (void)s;
    (void)raw_context;
    return true;
#endif
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
    return sp >= s.stack_low && sp < s.stack_high;
#endif
}

void on_fault(int sig, siginfo_t* info, void* raw_context) {
    const void* pc = nullptr;
    int is_write = -1;
    read_context(sig, raw_context, &pc, &is_write);
    // A device buffer first touched while its device works (on any thread,
    // as its memory is open then): opened, and the access is retried.
    if (sig == SIGSEGV && open_device_memory_on_touch(info->si_addr)) return;
    fiber_slot* s = tls_slot;
    if (!s) {
        // Not inside a kernel. On a host thread of the program: explain it if
        // it touched device memory (closed while the device is idle). On the
        // device thread: queued work (a copy, a memset, a host function)
        // touched memory that was not valid when it ran. On a worker between
        // CUDA threads: the emulator's own fault. Then let the program crash
        // the way it would have without us (the previous action runs when the
        // instruction repeats), as a GPU program crashes there too.
        if (on_device_thread())
            report_device_thread_fault(sig, info->si_addr, pc, is_write);
        else if (!tls_is_worker)
            report_host_fault(sig, info->si_addr, pc, is_write);
        sigaction(sig, &previous_actions[sig], nullptr);
        return;
    }
    // CUEMU_CHECK=uninit keeps pages nothing wrote closed: its own faults
    // are noted and the access is retried.
    if (sig == SIGSEGV && handle_uninit_fault(info->si_addr, is_write)) return;
    note_current_thread_out_of_line(s);
    s->signal_number = sig;
    s->fault_address = info->si_addr;
    s->fault_pc = kernel_pc_of(pc);  // an atomic faults inside its hook: name the kernel's line
    s->fault_is_write = is_write;
    siglongjmp(s->fault_jump, 1);
}

// The watchdog's signal. Inside a kernel of a launch that has run out of time,
// it abandons the CUDA thread the way a fault does. Anywhere else (the worker
// is between fibers, or idle) it does nothing: the block loop checks the flag
// itself, and the watchdog signals again until the launch has ended.
void on_watchdog(int, siginfo_t*, void* raw_context) {
    fiber_slot* s = tls_slot;
    launch_job* job = tls_job;
    if (!job || !job->timed_out.load()) {  // a look: the running CUDA thread's registers now
        if (tls_fingerprint) {
            // A thread waiting for its warp at a volatile access, or a worker
            // switching fibers, shows the emulator's registers: no news.
            std::uint64_t fingerprint = 0;
            if (s)
                fingerprint = !s->in_lockstep_wait && interrupted_on_fiber_stack(*s, raw_context)
                                  ? register_fingerprint(raw_context, s->stack_high)
                                  : fingerprint_in_access_hook;
            tls_fingerprint->store(fingerprint);
            tls_answered->store(tls_answered->load() + 1);
        }
        return;
    }
    // Between fibers, or waiting for its warp: the block loop checks the
    // flag itself before it resumes a fiber (run_block_threads).
    if (!s || s->in_lockstep_wait || !interrupted_on_fiber_stack(*s, raw_context)) return;
    note_thread_index(s);  // the block is discarded: its exits need no record
    s->signal_number = 0;
    s->fault_address = nullptr;
    read_context(0, raw_context, &s->fault_pc, &s->fault_is_write);
    s->fault_pc = kernel_pc_of(s->fault_pc);  // not the race check's hook it was in
    siglongjmp(s->fault_jump, 2);
}

void install_fault_handler() {
    struct sigaction action {};
    action.sa_sigaction = on_fault;
    // ONSTACK: a stack overflow leaves no room on the faulting stack.
    // NODEFER: we leave the handler with siglongjmp, so the signal must not
    // stay blocked afterwards.
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    // The watchdog's signal waits while a fault is handled: its siglongjmp
    // would leave the fault handler holding the registry's lock (CUEMU_CHECK=uninit).
    sigaddset(&action.sa_mask, watchdog_signal());
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(sig, &action, &previous_actions[sig]);
    sigemptyset(&action.sa_mask);
    action.sa_sigaction = on_watchdog;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | SA_RESTART;
    sigaction(watchdog_signal(), &action, nullptr);
}

}  // namespace

void install_fault_handler_once() {
    static std::once_flag once;
    std::call_once(once, install_fault_handler);
}

// A program may put a SIGSEGV handler of its own in place of ours (a test
// framework does, around each test): device memory must then be opened
// before it is touched, as no fault would reach us to open it.
bool fault_handler_in_place() {
    struct sigaction now {};
    return sigaction(SIGSEGV, nullptr, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
           now.sa_sigaction == on_fault;
}

// CUEMU_CHECK=uninit cannot do without our handler: pages nothing wrote stay
// closed, and only on_fault opens them. doctest, for one, puts back the
// handler it found at the end of each test case, so ours, installed during
// the first test case that allocated, is gone in the next. Here ours goes back
// in front, and the program's handler becomes the one a fault outside a
// kernel passes on to, as the first installation did.
void put_fault_handler_back() {
    install_fault_handler_once();
    if (!fault_handler_in_place()) install_fault_handler();
}

bool current_kernel_position(kernel_position* out) {
    fiber_slot* s = tls_slot;
    if (!s || !s->block) return false;
    note_current_thread_out_of_line(s);
    out->site = *s->block->job->site;
    out->block_idx = tls_block_idx;
    out->thread_idx = s->thread_idx;
    out->grid_dim = s->block->job->config->grid;
    out->block_dim = s->block->job->config->block;
    return true;
}

}  // namespace cuemu::detail
