// fiber_context.h - a CUDA thread's stack and the switch from one stack to
// another: the scheduler's fibers (scheduler.cpp), without Boost.Context's
// fiber objects.
//
// Why not Boost.Context's switch: a __syncthreads in a block of 256 threads
// is 256 switches, and Boost's switch saves and restores the x87 and SSE
// control words (fnstcw/fldcw, stmxcsr/ldmxcsr) every time, which cost more
// than the rest of the switch together. The emulator never changes them while
// a kernel runs, so on x86-64 the switch here keeps only the registers the
// ABI asks a callee to keep. Elsewhere it uses Boost.Context's own switch
// (make_fcontext/jump_fcontext), which is portable; building
// fiber_context.cpp with -DCUEMU_PORTABLE_FIBER_SWITCH tries that one on x86-64.
//
// A suspended fiber is one pointer: where its stack pointer was when it
// switched away. Whoever switches to it passes a message, which the switch
// returns on the other side: null to go on, or, to destroy a suspended fiber,
// a request to unwind (the fiber throws fiber_unwind from the switch, its
// entry function catches it and switches back for good), so the destructors
// of the kernel's locals run as they did with Boost's fibers.
#ifndef CUEMU_FIBER_CONTEXT_H
#define CUEMU_FIBER_CONTEXT_H

#include <cstddef>

namespace cuemu::detail {

// A saved stack: where to switch to. Null for a fiber that has none (never
// made, or already destroyed).
using fiber_context = void*;

// Switches from the running stack to `to`, saving the running one in *from.
// Returns the message of whoever switches back to *from later.
void* switch_fiber(fiber_context* from, fiber_context to, void* message);

// What a fiber's stack starts with: entry(arg, message) runs on it at the
// first switch to it, message being that switch's. entry must never return.
using fiber_entry = void (*)(void* arg, void* message);

// A fiber's stack, with a guard page below it; the fiber's frames start
// `colour` bytes below the mapping's end (block_loop.cpp: stack_colour), and
// have the same room whatever the colour, so that a kernel's deep stack
// overflows the same way on every thread.
struct fiber_stack {
    char* low = nullptr;   // the mapping's start, where the guard begins
    char* high = nullptr;  // the top the fiber's frames start from
    std::size_t mapped = 0;
};
fiber_stack allocate_fiber_stack(std::size_t usable, std::size_t max_colour, std::size_t colour);
void free_fiber_stack(fiber_stack& stack);

// A context that, switched to, calls entry(arg, message) on `stack`.
fiber_context make_fiber_context(const fiber_stack& stack, fiber_entry entry, void* arg);

// Thrown inside a suspended fiber asked to unwind (see the top); `back` is
// where the fiber switches once it has unwound. A kernel must not swallow it
// (a catch (...) that does not rethrow), as with Boost's forced_unwind.
struct fiber_unwind {
    fiber_context* back;
};

// The message of a switch that asks the fiber to unwind, and its check on the
// fiber's side after every switch back to it.
inline void unwind_if_asked(void* message) {
    if (message) throw fiber_unwind{static_cast<fiber_context*>(message)};
}

// Unwinds the suspended fiber `context` (its entry catches fiber_unwind and
// switches back here); afterwards the stack may be freed.
void unwind_fiber(fiber_context& context);

}  // namespace cuemu::detail

#endif
