// call_chain.h - the learner's line for an access made inside the emulator's
// own headers (CUB's BlockReduce, cooperative groups, libcu++) when the
// compiler did not inline them (-O0, -O1): the return addresses of the frames
// that led there, and the first of them in the learner's code
// (call_chain.cpp). Nothing here runs until a report is printed.
#ifndef CUEMU_CALL_CHAIN_H
#define CUEMU_CALL_CHAIN_H

#include <string>

namespace cuemu::detail {

// Return addresses, innermost first: the callers of one frame.
struct call_chain {
    static constexpr int capacity = 24;
    const void* pc[capacity] = {};
    int size = 0;
};

// The callers of the running stack's frame whose return address is `pc`
// (the instruction after a call made in it), unwound through the compiler's
// unwind tables (libgcc's _Unwind_Backtrace), which every frame has at every
// optimisation level. Stops at the fiber's start (its CFI marks the end of
// the stack) or after `capacity` frames. Empty when `pc` is not on the stack.
call_chain callers_of(const void* pc);

// Where an access at `pc` (the return address of its hook call, or 0) is, as
// the learner should read it: "file.cu:42" when that is their code, else,
// when one of `callers` is, "file.cu:42" for the first such caller, with
// `context` saying where in the library the access was
// ("cub::BlockReduce<int, 128>::Reduce at .../block_reduce.cuh:56").
struct learner_position {
    std::string text;     // "file:line in function(...)" as source_line_of gives it; "" when unknown
    std::string context;  // "" when the access is in the learner's own code
};
learner_position learner_position_of(const void* pc, const call_chain* callers);

}  // namespace cuemu::detail

#endif
