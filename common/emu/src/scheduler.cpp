// scheduler.cpp - runs a launch: blocks spread over a pool of worker OS
// threads, each CUDA thread of a block a fiber on its worker, and
// __syncthreads as a switch back to the block's scheduling loop. Also owns the
// fault handler that turns a bad access inside a kernel into a report and a
// sticky cudaErrorIllegalAddress instead of a dead process.
//
// How one block runs (on one worker thread, never moving):
//   1. A fiber takes thread 0 and runs it. If it finishes without reaching a
//      barrier, the same fiber takes thread 1, and so on: a barrier-free
//      kernel runs a whole block on one fiber, with no switches at all.
//   2. A thread that calls __syncthreads suspends its fiber; a fresh fiber
//      carries on with the next thread index.
//   3. When every thread has started, all live threads are at the barrier:
//      they are resumed one by one in threadIdx order, each running to its
//      next barrier or its end. Repeat until none is waiting.
// Resuming in a fixed order makes a race (a missing barrier) give the same
// wrong answer on every run, which is what a learner can debug.
#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include "cuemu/builtins.h"
#include "cuemu/launch.h"
#include "cuemu/runtime.h"
#include "diagnostics.h"
#include "fiber_switch.h"
#include "internal.h"

namespace cuemu {
__thread uint3 tls_thread_idx;
__thread uint3 tls_block_idx;
__thread uint3 tls_block_dim;
__thread uint3 tls_grid_dim;
}  // namespace cuemu

namespace cuemu::detail {
namespace {
namespace bctx = boost::context;

// The hardware limits a launch is checked against (the real ones).
constexpr unsigned max_threads_per_block = 1024;
constexpr unsigned max_block_dim[3] = {1024, 1024, 64};
constexpr unsigned max_grid_dim[3] = {2147483647u, 65535u, 65535u};
constexpr std::size_t max_shared_per_block = 48 * 1024;

// Each CUDA thread's stack. Large enough for printf and modest local arrays;
// a guard page below it turns an overflow into a reported fault.
constexpr std::size_t fiber_stack_size = 256 * 1024;
constexpr std::size_t signal_stack_size = 64 * 1024;

struct launch_job {
    const launch_site* site;
    const launch_config* config;
    void (*run_thread)(void*);
    void* ctx;
    std::uint64_t total_blocks;
    std::atomic<std::uint64_t> next_block{0};
    std::atomic<bool> failed{false};
    std::atomic<unsigned long long> fault_count{0};  // CUEMU_ON_FAULT=continue
    std::mutex report_mutex;
    cudaError_t error = cudaSuccess;  // guarded by report_mutex
};

struct block_state {
    launch_job* job;
    unsigned thread_count;
    unsigned next_thread;  // next linear thread index that has not started
    uint3 next_idx;        // ... and its (x, y, z)
    dim3 dim;
};

// The thread index after idx in x-fastest order. Counting up is much cheaper
// than dividing the linear index for every CUDA thread.
inline void advance(uint3& idx, const dim3& dim) {
    if (++idx.x < dim.x) return;
    idx.x = 0;
    if (++idx.y < dim.y) return;
    idx.y = 0;
    ++idx.z;
}

enum class fiber_state { idle, at_barrier, faulted, threw };

struct fiber_slot {
    bctx::fiber fiber;  // this CUDA thread, while suspended
    bctx::fiber sched;  // the block's scheduling loop, while this one runs
    fiber_state state = fiber_state::idle;
    block_state* block = nullptr;
    uint3 thread_idx{0, 0, 0};
    sigjmp_buf fault_jump;
    // what the fault handler saw
    int signal_number = 0;
    const void* fault_address = nullptr;
    const void* fault_pc = nullptr;
    int fault_is_write = -1;
    const char* stack_low = nullptr;  // guard page .. top of this fiber's stack
    const char* stack_high = nullptr;
    std::string exception_text;
    // For AddressSanitizer's fiber annotations (fiber_switch.h).
    stack_span own_stack, scheduler_stack;
    void* fake_stack = nullptr;
};

// The stack allocator the fibers use: boost's guarded stack, remembering
// where the stack lies so an overflow can be told apart from a bad pointer.
struct recorded_stack {
    bctx::protected_fixedsize_stack inner{fiber_stack_size};
    fiber_slot* slot;
    bctx::stack_context allocate() {
        bctx::stack_context sc = inner.allocate();
        slot->stack_high = static_cast<const char*>(sc.sp);
        slot->stack_low = slot->stack_high - sc.size - 2 * 4096;  // include the guard
        slot->own_stack = stack_span{slot->stack_high - sc.size, sc.size};
        return sc;
    }
    void deallocate(bctx::stack_context& sc) noexcept { inner.deallocate(sc); }
};

// Dynamic shared memory is 256-byte aligned; aligned_alloc memory goes back
// through free (an aligned new[] freed by plain delete[] is undefined).
struct free_deleter {
    void operator()(unsigned char* p) const { std::free(p); }
};

struct worker_state {
    std::vector<std::unique_ptr<fiber_slot>> slots;  // every fiber this worker made
    std::vector<fiber_slot*> idle;                   // ready to take a new thread
    std::vector<fiber_slot*> waiting, next_round;    // suspended at a barrier
    std::unique_ptr<unsigned char[], free_deleter> shared;  // dynamic shared memory
    std::size_t shared_capacity = 0;
};

__thread fiber_slot* tls_slot = nullptr;  // the CUDA thread running now
__thread unsigned char* tls_dynamic_shared = nullptr;

uint3 unflatten(std::uint64_t linear, dim3 d) {
    return uint3{static_cast<unsigned>(linear % d.x),
                 static_cast<unsigned>(linear / d.x % d.y),
                 static_cast<unsigned>(linear / (std::uint64_t(d.x) * d.y))};
}

// ---- fibers ------------------------------------------------------------------
// From a CUDA thread's fiber back to the block's scheduling loop, and on when
// the loop resumes this fiber.
void yield_to_scheduler(fiber_slot* s) {
    fiber_switch_start(&s->fake_stack, s->scheduler_stack);
    s->sched = std::move(s->sched).resume();
    fiber_switch_finish(s->fake_stack, nullptr);
}

bctx::fiber make_fiber(fiber_slot* s) {
    return bctx::fiber(std::allocator_arg, recorded_stack{{}, s}, [s](bctx::fiber&& sched) {
        fiber_switch_finish(nullptr, &s->scheduler_stack);
        s->sched = std::move(sched);
        if (sigsetjmp(s->fault_jump, 0) != 0) {
            // The fault handler jumped here from inside the kernel. By default
            // this fiber is never resumed again and the worker discards it;
            // with CUEMU_ON_FAULT=continue it goes on with the next thread.
            s->state = fiber_state::faulted;
            yield_to_scheduler(s);
        }
        for (;;) {
            block_state* block = s->block;
            try {
                while (block->next_thread < block->thread_count) {
                    ++block->next_thread;
                    s->thread_idx = block->next_idx;
                    advance(block->next_idx, block->dim);
                    tls_thread_idx = s->thread_idx;
                    block->job->run_thread(block->job->ctx);
                }
                s->state = fiber_state::idle;
            } catch (const bctx::detail::forced_unwind&) {
                throw;  // the fiber is being destroyed: let boost unwind it
            } catch (const std::exception& e) {
                s->state = fiber_state::threw;
                s->exception_text = e.what();
            } catch (...) {
                s->state = fiber_state::threw;
                s->exception_text = "an exception that is not a std::exception";
            }
            yield_to_scheduler(s);
        }
        return std::move(s->sched);
    });
}

fiber_slot* acquire_slot(worker_state& w) {
    if (!w.idle.empty()) {
        fiber_slot* s = w.idle.back();
        w.idle.pop_back();
        return s;
    }
    w.slots.push_back(std::make_unique<fiber_slot>());
    fiber_slot* s = w.slots.back().get();
    s->fiber = make_fiber(s);
    return s;
}

// After a fault, fibers of the block may be suspended mid-kernel. Destroying
// them unwinds their stacks; the worker starts afresh with new fibers.
void discard_all_fibers(worker_state& w) {
    for (auto& slot : w.slots) {
        // Destroying a suspended fiber unwinds it on its own stack; tell ASan
        // about the trip there and back (fiber_switch.h).
        void* fake_stack = nullptr;
        fiber_switch_start(&fake_stack, slot->own_stack);
        slot->fiber = bctx::fiber{};  // unwind while the slot is whole
        fiber_switch_finish(fake_stack, nullptr);
        void* unused = nullptr;
        fiber_switch_start(&unused, slot->scheduler_stack);
        fiber_switch_finish(unused, nullptr);
    }
    w.idle.clear();
    w.waiting.clear();
    w.next_round.clear();
    w.slots.clear();
}

// ---- faults ------------------------------------------------------------------
void report_and_fail(launch_job& job, fiber_slot& s) {
    std::lock_guard<std::mutex> lock(job.report_mutex);
    ++job.fault_count;
    if (!continue_after_fault()) job.failed = true;
    if (job.fault_count > 1) return;  // one report per launch, not per thread
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
    const char* a = static_cast<const char*>(s.fault_address);
    r.stack_overflow = s.state == fiber_state::faulted && a && a >= s.stack_low &&
                       a < s.stack_high;
    cudaError_t error = report_fault(r);
    if (!continue_after_fault()) job.error = error;
}

struct sigaction previous_actions[NSIG];  // what was installed before ours

void on_fault(int sig, siginfo_t* info, void* raw_context) {
    const void* pc = nullptr;
    int is_write = -1;
#if defined(__linux__) && defined(__x86_64__)
    auto* uc = static_cast<ucontext_t*>(raw_context);
    pc = reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
    if (sig == SIGSEGV) is_write = (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;
#elif defined(__linux__) && defined(__aarch64__)
    auto* uc = static_cast<ucontext_t*>(raw_context);
    pc = reinterpret_cast<const void*>(uc->uc_mcontext.pc);
#else
    (void)raw_context;
#endif
    fiber_slot* s = tls_slot;
    if (!s) {
        // Not inside a kernel: a fault of the host program. Explain it if it
        // touched device memory, then let it crash the way it would have
        // without us (the previous action runs when the instruction repeats).
        report_host_fault(sig, info->si_addr, pc, is_write);
        sigaction(sig, &previous_actions[sig], nullptr);
        return;
    }
    // CUEMU_CHECK=uninit keeps pages nothing wrote closed: its own faults
    // are noted and the access is retried.
    if (sig == SIGSEGV && handle_uninit_fault(info->si_addr, is_write)) return;
    s->signal_number = sig;
    s->fault_address = info->si_addr;
    s->fault_pc = pc;
    s->fault_is_write = is_write;
    siglongjmp(s->fault_jump, 1);
}

void install_fault_handler() {
    struct sigaction action {};
    action.sa_sigaction = on_fault;
    // ONSTACK: a stack overflow leaves no room on the faulting stack.
    // NODEFER: we leave the handler with siglongjmp, so the signal must not
    // stay blocked afterwards.
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(sig, &action, &previous_actions[sig]);
}

// ---- one block ---------------------------------------------------------------
// Resumes s; files it by what it did. False when the block must be abandoned.
bool resume(worker_state& w, fiber_slot* s, std::vector<fiber_slot*>& barrier_list) {
    tls_slot = s;
    void* fake_stack = nullptr;
    fiber_switch_start(&fake_stack, s->own_stack);
    s->fiber = std::move(s->fiber).resume();
    fiber_switch_finish(fake_stack, nullptr);
    tls_slot = nullptr;
    switch (s->state) {
        case fiber_state::idle:
            w.idle.push_back(s);
            return true;
        case fiber_state::at_barrier:
            barrier_list.push_back(s);
            return true;
        default:
            report_and_fail(*s->block->job, *s);
            if (continue_after_fault()) {
                // The faulting thread ends here; its fiber is back at its
                // start and takes the next thread when resumed.
                w.idle.push_back(s);
                return true;
            }
            discard_all_fibers(w);
            return false;
    }
}

void run_block(worker_state& w, launch_job& job, std::uint64_t linear_block) {
    const dim3 block_dim = job.config->block;
    tls_block_idx = unflatten(linear_block, job.config->grid);
    block_state block{&job, block_dim.x * block_dim.y * block_dim.z, 0, uint3{0, 0, 0}, block_dim};

    w.waiting.clear();
    while (block.next_thread < block.thread_count) {
        fiber_slot* s = acquire_slot(w);
        s->block = &block;
        if (!resume(w, s, w.waiting)) return;
    }
    // Every thread has started; the live ones all wait at the barrier.
    while (!w.waiting.empty()) {
        w.next_round.clear();
        for (fiber_slot* s : w.waiting)
            if (!resume(w, s, w.next_round)) return;
        w.waiting.swap(w.next_round);
    }
}

void run_blocks(worker_state& w, launch_job& job) {
    std::size_t shared_bytes = job.config->shared_bytes;
    if (shared_bytes > w.shared_capacity) {
        w.shared.reset(static_cast<unsigned char*>(
            std::aligned_alloc(256, (shared_bytes + 255) / 256 * 256)));
        w.shared_capacity = shared_bytes;
    }
    tls_dynamic_shared = w.shared.get();
    tls_block_dim = job.config->block;
    tls_grid_dim = job.config->grid;
    for (;;) {
        if (job.failed.load(std::memory_order_relaxed)) break;
        std::uint64_t b = job.next_block.fetch_add(1, std::memory_order_relaxed);
        if (b >= job.total_blocks) break;
        run_block(w, job, b);
    }
}

// ---- the worker pool -----------------------------------------------------------
int configured_workers() {
    const char* text = std::getenv("CUEMU_WORKERS");
    if (text && *text) {
        char* end = nullptr;
        long n = std::strtol(text, &end, 10);
        if (*end != '\0' || n < 1 || n > 256) {
            std::fprintf(stderr,
                         "cuemu: CUEMU_WORKERS must be a whole number from 1 to 256, got '%s'\n",
                         text);
            std::exit(2);
        }
        return static_cast<int>(n);
    }
    unsigned hw = std::thread::hardware_concurrency();
    return hw ? static_cast<int>(hw) : 2;
}

class worker_pool {
public:
    explicit worker_pool(int n) {
        install_fault_handler_once();
        for (int i = 0; i < n; ++i) threads_.emplace_back([this] { work(); });
    }
    ~worker_pool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            quit_ = true;
        }
        wake_.notify_all();
        for (auto& t : threads_) t.join();
    }
    int size() const { return static_cast<int>(threads_.size()); }

    void run(launch_job& job) {
        std::unique_lock<std::mutex> lock(mutex_);
        job_ = &job;
        busy_ = size();
        ++generation_;
        wake_.notify_all();
        done_.wait(lock, [this] { return busy_ == 0; });
        job_ = nullptr;
    }

private:
    void work() {
        // A signal stack of our own: the fault handler must run even when a
        // fiber has overflowed its stack.
        std::vector<char> signal_stack(signal_stack_size);
        stack_t ss{};
        ss.ss_sp = signal_stack.data();
        ss.ss_size = signal_stack.size();
        sigaltstack(&ss, nullptr);

        worker_state state;
        std::uint64_t seen = 0;
        for (;;) {
            launch_job* job;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return quit_ || generation_ != seen; });
                if (quit_) break;
                seen = generation_;
                job = job_;
            }
            run_blocks(state, *job);
            std::lock_guard<std::mutex> lock(mutex_);
            if (--busy_ == 0) done_.notify_one();
        }
        discard_all_fibers(state);
        ss.ss_flags = SS_DISABLE;
        sigaltstack(&ss, nullptr);
    }

    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    launch_job* job_ = nullptr;
    std::uint64_t generation_ = 0;
    int busy_ = 0;
    bool quit_ = false;
};

worker_pool& pool() {
    static worker_pool instance(configured_workers());
    return instance;
}

std::mutex launch_mutex;  // one launch at a time, as on the default stream

cudaError_t check_configuration(const launch_config& c) {
    const unsigned block[3] = {c.block.x, c.block.y, c.block.z};
    const unsigned grid[3] = {c.grid.x, c.grid.y, c.grid.z};
    std::uint64_t threads = 1;
    for (int d = 0; d < 3; ++d) {
        if (block[d] == 0 || block[d] > max_block_dim[d]) return cudaErrorInvalidConfiguration;
        if (grid[d] == 0 || grid[d] > max_grid_dim[d]) return cudaErrorInvalidConfiguration;
        threads *= block[d];
    }
    if (threads > max_threads_per_block) return cudaErrorInvalidConfiguration;
    if (c.shared_bytes > max_shared_per_block) return cudaErrorInvalidValue;
    return cudaSuccess;
}

}  // namespace

int worker_count() { return pool().size(); }

void install_fault_handler_once() {
    static std::once_flag once;
    std::call_once(once, install_fault_handler);
}

bool current_kernel_position(kernel_position* out) {
    fiber_slot* s = tls_slot;
    if (!s || !s->block) return false;
    out->site = *s->block->job->site;
    out->block_idx = tls_block_idx;
    out->thread_idx = s->thread_idx;
    out->grid_dim = s->block->job->config->grid;
    out->block_dim = s->block->job->config->block;
    return true;
}

std::string emulator_device_name() {
    return "cuemu CPU emulator (" + std::to_string(worker_count()) +
           " worker threads, not a GPU)";
}

}  // namespace cuemu::detail

namespace cuemu {

void* dynamic_shared_memory() { return detail::tls_dynamic_shared; }

void run_launch(const launch_site& site, const launch_config& config,
                void (*run_thread)(void*), void* ctx) {
    using namespace detail;
    if (context_status() != cudaSuccess) return;  // a sticky error: nothing runs
    if (cudaError_t e = check_configuration(config)) {
        record(e);  // reported by the next cudaGetLastError(), not sticky
        return;
    }
    if (tls_slot) {
        std::fprintf(stderr,
                     "cuemu: kernel %s launched from inside another kernel (%s:%d); dynamic "
                     "parallelism is not supported by the emulator\n",
                     site.kernel, site.file, site.line);
        std::abort();
    }
    launch_job job;
    job.site = &site;
    job.config = &config;
    job.run_thread = run_thread;
    job.ctx = ctx;
    job.total_blocks =
        std::uint64_t(config.grid.x) * config.grid.y * std::uint64_t(config.grid.z);
    {
        std::lock_guard<std::mutex> lock(launch_mutex);
        // Until the device queue (async launches) owns these calls: device
        // memory is open to the host only while a kernel runs (memory.cpp).
        device_memory_open();
        pool().run(job);
        device_memory_close();
    }
    if (continue_after_fault() && job.fault_count > 1) report_fault_count(site, job.fault_count);
    if (job.error != cudaSuccess) make_sticky(job.error);
}

}  // namespace cuemu

void __syncthreads() {
    using namespace cuemu::detail;
    fiber_slot* s = tls_slot;
    if (!s) {
        std::fprintf(stderr, "cuemu: __syncthreads() called outside a kernel\n");
        std::abort();
    }
    s->state = fiber_state::at_barrier;
    yield_to_scheduler(s);
    // Resumed by the block's loop, on the same OS thread: restore this
    // thread's index (another fiber ran in between).
    cuemu::tls_thread_idx = s->thread_idx;
}
