// inline_ptx.h - inline PTX (asm statements) in device code.
//
// nvcc passes an asm statement's text to the PTX assembler; the emulator
// compiles device code for the host CPU, whose assembler knows no PTX, and
// gave "no such instruction" lines that name neither PTX nor the emulator.
// The reads of PTX's special registers that learners' code makes this way,
//   asm("mov.u32 %0, %%laneid;" : "=r"(lane));
//   asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
// become calls of the emulator's equivalents (cuemu/ptx_registers.h), on the
// same line, and so does PTX's bfind (find the most significant bit),
//   asm("bfind.u32 %0, %1;" : "=r"(place) : "r"(word));
// which quicksorts use to round up to a power of two; any other asm statement in device code stops the build with one
// line that names it. Host code's asm is the host's business and left alone.
#ifndef CUEMU_REWRITE_INLINE_PTX_H
#define CUEMU_REWRITE_INLINE_PTX_H

#include <vector>

#include "arch.h"
#include "conditionals.h"
#include "scopes.h"
#include "source.h"

namespace cuemu_rewrite::internal {

struct InlinePtxPlan {
    Edits edits;  // one per special-register read
    std::vector<Diagnostic> errors;
};

InlinePtxPlan translate_inline_ptx(const Source& src, const Scopes& scopes);

}  // namespace cuemu_rewrite::internal

#endif
