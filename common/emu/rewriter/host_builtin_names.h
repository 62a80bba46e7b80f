// host_builtin_names.h - host variables named like the built-in variables.
//
// To nvcc's host compilation, threadIdx, blockIdx, blockDim and gridDim are
// mere declarations of device variables, so host code may declare its own of
// these names: NVIDIA's immaTensorCoreGemm sample has `dim3 gridDim; dim3
// blockDim;` in main and launches <<<gridDim, blockDim>>>. Here the names are
// macros for the running CUDA thread's values (cuemu/builtins.h), and such a
// declaration does not compile. So a variable or parameter declared with one
// of these names (`TYPE NAME` then `;`, `=`, `,`, `)`, `(`, `{` or `[`), in any
// function, becomes cuemu_host_<name>, and so does every use of the name in
// its scope (its block, or its function's body) that is not a member (after
// '.', '->' or '::'), on the same lines. A GPU's device code may shadow the
// built-ins the same way, so device functions get the same treatment. One
// declared at namespace scope, or a class member of such a name, is left
// alone (and does not compile).
#ifndef CUEMU_REWRITE_HOST_BUILTIN_NAMES_H
#define CUEMU_REWRITE_HOST_BUILTIN_NAMES_H

#include "arch.h"
#include "scopes.h"
#include "source.h"

namespace cuemu_rewrite::internal {

Edits rename_host_builtin_names(const Source& src, const Scopes& scopes);

}  // namespace cuemu_rewrite::internal

#endif
