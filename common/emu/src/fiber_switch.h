// fiber_switch.h - telling AddressSanitizer about fiber switches, and about the
// frames a fault leaves behind on a fiber stack.
//
// ASan keeps, for each OS thread, the bounds of the stack it runs on; it needs
// them to unpoison a stack when an exception or longjmp leaves frames behind.
// A fiber switch moves the thread to another stack, so each switch is
// announced (start, before it) and completed (finish, after it, on the new
// stack). Boost.Context's fcontext does not do this itself. Outside the
// sanitizer build every function here is empty and costs nothing.
#ifndef CUEMU_FIBER_SWITCH_H
#define CUEMU_FIBER_SWITCH_H

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace cuemu::detail {

struct stack_span {
    const void* bottom = nullptr;  // lowest address
    std::size_t size = 0;
};

#if defined(__SANITIZE_ADDRESS__)
// Before switching to the stack `to`; *fake_stack keeps this stack's state.
inline void fiber_switch_start(void** fake_stack, stack_span to) {
    __sanitizer_start_switch_fiber(fake_stack, to.bottom, to.size);
}
// On the new stack, right after the switch. `from` (may be null) receives the
// bounds of the stack we came from.
inline void fiber_switch_finish(void* fake_stack, stack_span* from) {
    const void* bottom = nullptr;
    std::size_t size = 0;
    __sanitizer_finish_switch_fiber(fake_stack, &bottom, &size);
    if (from) *from = stack_span{bottom, size};
}
// A fault or the watchdog leaves the kernel by siglongjmp from a signal
// handler that runs on the alternate signal stack. ASan clears the shadow of
// abandoned frames only on the stack it is running on, so the kernel's frames
// below the landing point keep their redzones; the next call made from there
// (on this fiber's stack `own`) would then look like a stack overflow. Clears
// everything below the caller's frame, all of it dead. Not inlined, so that
// its frame lies below the caller's.
[[gnu::noinline]] inline void forget_abandoned_frames(stack_span own) {
    const char* low = static_cast<const char*>(own.bottom);
    const char* here = static_cast<const char*>(__builtin_frame_address(0));
    if (here > low && here <= low + own.size) __asan_unpoison_memory_region(low, here - low);
}
#else
inline void fiber_switch_start(void**, stack_span) {}
inline void fiber_switch_finish(void*, stack_span*) {}
inline void forget_abandoned_frames(stack_span) {}
#endif

}  // namespace cuemu::detail

#endif
