// arch.h - __CUDA_ARCH__ for a compiler that sees host and device code at once.
//
// nvcc compiles a .cu twice: for the host, where __CUDA_ARCH__ is undefined,
// and for the device, where it is the compute capability (750 for the
// emulated 7.5). The emulator compiles once, so the rewriter resolves every
// #if that names __CUDA_ARCH__ by where it stands:
//   - inside a __device__ or __global__ function: the device value;
//   - inside a host function: undefined;
//   - inside a __host__ __device__ function (or one whose qualifiers hide in
//     a macro), when the two sides take different branches: both branches
//     are kept and chosen at run time, `if (::cuemu::in_device_branch()) {...}
//     else {...}`, when they are whole statements (a variable both declare
//     alike is declared once before the if, and each branch assigns it);
//     otherwise the build stops;
//   - outside functions: only when host and device take the same branch,
//     when one side's branch is empty and the other's defines no macro
//     (what one side alone declares, the other's valid code never uses), or
//     when the device branch is an #error (nvcc would stop at it too);
//     otherwise the build stops and says why. A kernel left with no code at
//     all stops the build too.
// The directive lines are rewritten in place (#if 1 / #if 0, or the code
// above), so line numbers do not move, and __CUDA_ARCH__ in the code of a
// device function becomes 750. A macro whose body names __CUDA_ARCH__ stops
// the build: where it expands is not known here.
#ifndef CUEMU_REWRITE_ARCH_H
#define CUEMU_REWRITE_ARCH_H

#include <map>
#include <string>
#include <vector>

#include "conditionals.h"
#include "scopes.h"
#include "source.h"

namespace cuemu_rewrite::internal {

// Tokens [first, end) are replaced by `text` (which keeps their newlines).
struct Edit {
    std::size_t end;
    std::string text;
};
using Edits = std::map<std::size_t, Edit>;  // keyed by the first token

struct ArchPlan {
    Edits edits;
    std::vector<std::size_t> inactive;  // tokens of branches no side takes
    std::vector<Diagnostic> errors;
};

ArchPlan resolve_arch(const Source& src, const ConditionalAnalysis& conditionals, const Scopes& scopes);

}  // namespace cuemu_rewrite::internal

#endif
