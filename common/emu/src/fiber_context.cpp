// fiber_context.cpp - the fibers' stacks and the switch between them (see
// fiber_context.h for why the emulator has its own).
#include "fiber_context.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#if !(defined(__x86_64__) && defined(__linux__)) || defined(CUEMU_PORTABLE_FIBER_SWITCH)
#include <boost/context/detail/fcontext.hpp>
#endif

namespace cuemu::detail {

fiber_stack allocate_fiber_stack(std::size_t usable, std::size_t max_colour, std::size_t colour) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    // Every mapping the same size: stacks then lie a fixed distance apart and
    // only the colours set where the tops fall in the caches (a mapping sized
    // by each colour made lesson 21 under the race check 20 % slower).
    const std::size_t mapped = (usable + max_colour + page - 1) / page * page + page;
    // The guard: the whole pages more than `usable` bytes below the top (at
    // least one page, since the colour is below max_colour).
    const std::size_t top_offset = mapped - colour;
    const std::size_t guard = (top_offset - usable) / page * page;
    void* memory = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (memory == MAP_FAILED) {
        std::fprintf(stderr, "cuemu: no memory for another CUDA thread's stack (%zu bytes)\n", mapped);
        std::abort();
    }
    mprotect(memory, guard, PROT_NONE);  // an overflow faults
    fiber_stack stack;
    stack.low = static_cast<char*>(memory);
    stack.high = stack.low + mapped - colour;
    stack.mapped = mapped;
    return stack;
}

void free_fiber_stack(fiber_stack& stack) {
    if (stack.low) munmap(stack.low, stack.mapped);
    stack = fiber_stack{};
}

#if defined(__x86_64__) && defined(__linux__) && !defined(CUEMU_PORTABLE_FIBER_SWITCH)
// cuemu_switch_fiber(from, to, message): pushes the registers a callee must
// keep (System V ABI; the control words are left alone, see the header),
// saves the stack pointer in *from, takes `to` as the stack pointer, pops
// that stack's registers and returns message there.
// cuemu_fiber_start: where a new fiber's first switch returns to; calls
// entry(arg, message) with entry and arg from its popped r12 and r13.
asm(R"(
    .text
    .globl cuemu_switch_fiber
    .hidden cuemu_switch_fiber
    .type cuemu_switch_fiber, @function
    .p2align 4
cuemu_switch_fiber:
    pushq %rbp
    pushq %rbx
    pushq %r15
    pushq %r14
    pushq %r13
    pushq %r12
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r12
    popq %r13
    popq %r14
    popq %r15
    popq %rbx
    popq %rbp
    movq %rdx, %rax
    ret
    .size cuemu_switch_fiber, .-cuemu_switch_fiber

    .globl cuemu_fiber_start
    .hidden cuemu_fiber_start
    .type cuemu_fiber_start, @function
    .p2align 4
cuemu_fiber_start:
    .cfi_startproc
    .cfi_undefined rip
    movq %r13, %rdi
    movq %rax, %rsi
    callq *%r12
    ud2
    .cfi_endproc
    .size cuemu_fiber_start, .-cuemu_fiber_start
)");

extern "C" void* cuemu_switch_fiber(fiber_context* from, fiber_context to, void* message);
extern "C" void cuemu_fiber_start();

void* switch_fiber(fiber_context* from, fiber_context to, void* message) {
    return cuemu_switch_fiber(from, to, message);
}

fiber_context make_fiber_context(const fiber_stack& stack, fiber_entry entry, void* arg) {
    // What the switch pops: r12 .. rbp, then the return address. The
    // start's call must find the stack 16-byte aligned, as the ABI requires.
    auto top = reinterpret_cast<std::uintptr_t>(stack.high) & ~std::uintptr_t{15};
    auto* frame = reinterpret_cast<std::uintptr_t*>(top - 72);
    frame[0] = reinterpret_cast<std::uintptr_t>(entry);  // r12
    frame[1] = reinterpret_cast<std::uintptr_t>(arg);    // r13
    frame[2] = frame[3] = frame[4] = frame[5] = 0;       // r14, r15, rbx, rbp
    frame[6] = reinterpret_cast<std::uintptr_t>(&cuemu_fiber_start);
    return frame;
}
#else
// Elsewhere: Boost.Context's switch, which hands the context it leaves to the
// side it resumes; that side files it where the switch was told to.
namespace bcd = boost::context::detail;
namespace {
struct handoff {
    fiber_context* from;
    void* message;
};
void* arrive(bcd::transfer_t t) {
    const handoff* h = static_cast<const handoff*>(t.data);
    *h->from = t.fctx;
    return h->message;
}
struct start_record {
    fiber_entry entry;
    void* arg;
};
void fiber_start(bcd::transfer_t t) {
    const start_record start = *static_cast<const start_record*>(t.data);
    // Back to make_fiber_context; the first real switch comes here.
    void* message = arrive(bcd::jump_fcontext(t.fctx, nullptr));
    start.entry(start.arg, message);
    std::abort();  // entry never returns
}
}  // namespace

void* switch_fiber(fiber_context* from, fiber_context to, void* message) {
    handoff h{from, message};
    return arrive(bcd::jump_fcontext(to, &h));
}

fiber_context make_fiber_context(const fiber_stack& stack, fiber_entry entry, void* arg) {
    bcd::fcontext_t fresh = bcd::make_fcontext(stack.high, stack.high - stack.low - 4096, fiber_start);
    start_record start{entry, arg};
    return bcd::jump_fcontext(fresh, &start).fctx;
}
#endif

void unwind_fiber(fiber_context& context) {
    fiber_context back = nullptr;
    switch_fiber(&back, context, &back);
    context = nullptr;
}

}  // namespace cuemu::detail
