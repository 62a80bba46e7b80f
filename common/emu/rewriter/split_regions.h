// split_regions.h - a kernel split at its __syncthreads into loops over the
// block's threads, for the kernels whose shape allows it.
//
// On the fiber path every CUDA thread runs on a stack of its own and each
// __syncthreads is a switch to the next thread: about 11 ns per thread per
// barrier, and the kernel's arithmetic runs one thread at a time between
// switches. A compiler for CPUs (PoCL, MCUDA, CuPBoP) instead cuts the kernel
// at its barriers into "regions" and runs each region as a loop over the
// block's threads; what a thread keeps across a barrier lives in an array
// indexed by the thread. This file makes that version of a kernel, as text,
// from the kernel's twin (cuemu/launch.h), when the kernel is simple enough
// that the cut is certain:
//   - every __syncthreads() is a statement of the body, or of the body of a
//     `for` or `while` loop that is itself such a statement (loops nest), or
//     alone under `if constexpr (C)` (the split version is then for C true:
//     its tag's type is split_tag only where C holds, and launch.h runs the
//     twin for the others); the block's cooperative group waiting
//     (cg::sync(block), block.sync()) is such a barrier, the group declared
//     from this_thread_block(), with its type or auto;
//   - a warp shuffle (__shfl_sync, _up, _down, _xor) or vote (__ballot_sync,
//     __any_sync, __all_sync), or `__syncwarp();`, is a cut too, where it
//     is called once in a statement of its own at such a statement level,
//     or under an `if (C)` without else or barrier whose C is of the
//     thread's index only, inside no loop but uniform ones, not under ?: &&
//     ||, with a literal all-ones mask, a literal power-of-two width, and
//     value and parameter expressions that change nothing
//     (split_shuffle.cpp); every call in such a kernel whose order between
//     threads could show (an atomic, printf, any function but pure math)
//     stands under ifs of the thread's index only; before the block runs,
//     the version checks that each warp takes each such if whole and that
//     one thread at most makes those calls, else it declines the block
//     (split_guards.cpp);
//   - nothing else in the kernel can wait for another thread: no other warp
//     function, other cooperative group, volatile access, inline asm, and no call of
//     a function that may reach one (the barrier names of the tree,
//     find_barrier_reach), no lambda, goto or local class; a call that
//     split_inline.h can write into the kernel's text is written in first;
//   - what a thread keeps across a barrier is declared at such a statement
//     level, as a scalar or pointer of a built-in type (or an array of them),
//     or of a template type parameter T (the split version is then for
//     arithmetic T only), or a const object of a trivially copyable class
//     type (likewise), and its address is never taken (an object of any
//     class type may live between two barriers); the kernel's parameters are never
//     assigned to (each CUDA thread has its own copy; the split version has one).
// A `for` loop whose start, condition and step are the same for every thread
// of the block and whose body never changes its variable (uniform_loop in
// split_regions.cpp) runs once for the block around its regions; any other
// loop with barriers evaluates its condition for each thread, and a thread
// for which it is false waits for the others to leave the loop.
// Anything else keeps the fiber path: the kernel simply gets no split
// version; so does a block with a partial warp, or one that fails that
// check, when the kernel has shuffles (the split version declines it). The split version runs the threads of a region in threadIdx order,
// the order in which the fiber path resumes them, so results, device printf
// and the faults' reports are the same; where the fiber path would report a
// __syncthreads that some threads never reach, so does it
// (cuemu/split_block.h).
#ifndef CUEMU_REWRITE_SPLIT_REGIONS_H
#define CUEMU_REWRITE_SPLIT_REGIONS_H

#include <cstddef>
#include <string>

#include "rewrite.h"
#include "scopes.h"
#include "source.h"
#include "split_inline.h"

namespace cuemu_rewrite::internal {

// The names of a source that may lead a kernel to wait for another thread:
// the warp and block functions themselves, and every function or macro whose
// body mentions one (as shared_reach.h finds the names that reach __shared__).
SharedNames find_barrier_reach(const Source& src, const Scopes& scopes);
// Whether a name is one of the seeds: a warp or block function, or a word of
// a library that has them (cg, cub, wmma, ...), or volatile, asm.
bool is_barrier_seed(const std::string& name);

// The split version of a twinned kernel, or "" when the kernel is not one
// this file can split. `kernel` is the rewritten text of the kernel's
// definition (its twin's copy, before the renaming); `name_offset` where its
// name starts in it; `first_line` the source line the text starts on and
// `file_literal` the quoted file name for #line. The result defines
// __cuemu_fast_NAME(::cuemu::split_tag, parameters...). `callees`: the
// __device__ functions above the kernel whose calls may be written into it
// first (split_inline.h).
std::string split_kernel(const std::string& kernel, std::size_t name_offset, const std::string& name,
                         int first_line, const std::string& file_literal, const SharedNames& barrier_names,
                         const std::map<std::string, DeviceFunctionText>& callees = {},
                         const MacroWords& macros = {});

}  // namespace cuemu_rewrite::internal

#endif
