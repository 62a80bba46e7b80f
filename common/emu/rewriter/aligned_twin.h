// aligned_twin.h - a kernel's second uninstrumented twin, built without the
// misaligned-access check, and the probe that says when a launch may run it.
//
// Programs are built with GCC's alignment check (common/emu/CMakeLists.txt,
// src/misaligned_access.cpp): before every load and store a test of the
// address and a branch to the report. In a kernel without barriers that is
// most of the work per thread: a vector add spends more than half its time
// in those branches, and GCC cannot take them out of the loop over the
// block's threads (it adds them after its loop optimisations have run).
//
// Where every access of the kernel's own text that the check would look at
// is `p[i]` of a pointer parameter `T* p` (or an element of an array the
// kernel declares, which the compiler aligns), each access is aligned
// exactly when p is: p + i is p moved by whole T's. So one test per pointer
// parameter, once per launch, tells the same as a test per access, and the
// twin may leave them out:
//
//   __cuemu_fast_NAME(::cuemu::aligned_tag, PARAMS) BODY        // no check
//   __cuemu_fast_NAME(::cuemu::alignment_probe&, PARAMS)         // the test
//
// cuemu/launch.h runs the first where the probe passes and the launch would
// run the twin anyway, and the ordinary twin otherwise, which then reports
// the misaligned access as before. Functions the kernel calls keep their own
// checks (inlined or not).
//
// The text is read as tokens, not parsed, so the rules are strict and any
// doubt leaves the kernel without this twin (it runs as before):
//  - every use of a pointer parameter is `p[...]`, not indexed again; not
//    `&p[...]`, not an argument of a call (which also keeps the kernel's own
//    twin the only new caller of a library function, whose inlining into the
//    instrumented kernel the profiler's line attribution relies on);
//  - every other `x[` names a `__shared__` array the kernel declares, which
//    `*` never precedes (a local array would make the frame of the launch's
//    loop, into which the twin is inlined, as large as the kernel's, and a
//    stack overflow would be reported there);
//  - no unary `*` or `&`, no `->`, no `*` or `&` that ends a type (a cast:
//    `(float4*)`, `<float4&>`), no `[` after anything but a name or `]`
//    (`(p + 1)[i]`, a lambda), no class defined in the kernel;
//  - no macro of the file whose replacement breaks these rules, and no
//    function-like macro in capitals from elsewhere;
//  - a pointer parameter is `T* name` (qualifiers allowed), not `T**`, not
//    `T name[]`, and no parameter is a reference.
#ifndef CUEMU_REWRITE_ALIGNED_TWIN_H
#define CUEMU_REWRITE_ALIGNED_TWIN_H

#include <cstddef>
#include <map>
#include <string>

#include "source.h"

namespace cuemu_rewrite::internal {

// The file's macros, each true where its replacement text could form an
// address these rules would refuse in a kernel's own text.
std::map<std::string, bool> file_macros(const Source& src);

// The aligned twin and its probe for `kernel` (its text from its first token
// to its closing '}', its name at name_offset), each starting with `#line
// first_line file`; or "" where its text does not keep to the rules above.
std::string aligned_twin(const std::string& kernel, std::size_t name_offset, const std::string& name,
                         int first_line, const std::string& quoted_file, const std::map<std::string, bool>& macros);

}  // namespace cuemu_rewrite::internal

#endif
