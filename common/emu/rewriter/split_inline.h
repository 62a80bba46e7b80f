// split_inline.h - the __device__ functions with barriers that a kernel
// calls, written into the kernel's text before it is cut at its barriers
// (split_regions.h).
//
// Lesson 10's tiled_dot and many course kernels keep the tiled loop, and its
// two __syncthreads, in a __device__ function that the kernel calls once:
//     float sum = tiled_dot(a, b, m, n, k, row, col);
// split_regions.cpp can only cut at barriers it sees in the kernel's own
// statements, so such a kernel ran every thread on a fiber. Here a call of
// that shape (`T x = f(args);`, `x = f(args);` or `f(args);`, a statement of
// its own) becomes f's body in place: each parameter a variable initialized
// from its argument, f's parameters and locals renamed so that they cannot
// meet the kernel's names, and f's final `return e;` an assignment of e. The
// function must be defined above the kernel in the same file, once (no
// overload), not a template, with parameters passed by value and no `return`
// but the last statement; a function with __shared__ variables is written
// into a kernel once only (a GPU has one copy of them per block, however
// many calls). Anything else is left as it is, and the splitter then keeps
// the kernel on fibers as before. The splitter checks what it always checks
// on the result, and also that no name f uses from outside itself is one
// the kernel declares (it would mean something else inside the kernel).
// Lines stay f's: a fault or a barrier report in the inlined part names f's
// own line, as the fiber path does. A macro of the file that f uses and that
// names one of f's own variables (`#define AT(i) a[(i) * lda]`) would name
// something else after the renaming: such a call is left alone. (Macros of
// other headers are not seen here.)
#ifndef CUEMU_REWRITE_SPLIT_INLINE_H
#define CUEMU_REWRITE_SPLIT_INLINE_H

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cuemu_rewrite::internal {

// A __device__ function's twin, as rewrite.cpp emits it (calls of other
// twins already redirected), before its name is changed.
struct DeviceFunctionText {
    std::string text;
    std::size_t name_offset = 0;  // where its name starts in text
    int first_line = 1;           // the source line text starts on
};

// A kernel's text with the calls above written in.
struct InlinedKernel {
    std::string text;
    // The source line of each line of text (index: text's 1-based line);
    // empty where nothing was written in and the kernel's lines run on.
    std::vector<int> source_line;
    // The names the written-in bodies use from outside themselves.
    std::set<std::string> outside_names;
};

// The macros a file defines, each with the names its replacement uses
// (other than its parameters).
using MacroWords = std::map<std::string, std::set<std::string>>;
class Source;
MacroWords macro_words(const Source& src);

// `kernel`: the kernel's text (its name at name_offset, its first line
// first_line); `callees`: the __device__ functions defined above it, by
// name (a name defined twice is not there); `macros`: the file's.
InlinedKernel inline_barrier_calls(const std::string& kernel, std::size_t name_offset, int first_line,
                                   const std::map<std::string, DeviceFunctionText>& callees,
                                   const std::set<std::string>& barrier_names, const MacroWords& macros);

// The kernel's text with each variable declared a second time (the same
// name in two loops, `int i` in each) renamed in its own scope, where the scope
// is certain: the splitter keeps one array per name, so it refuses a name
// declared twice. Left as it is where a name is declared again inside the
// scope of its second declaration, or a macro of the file names it.
std::string rename_redeclared(const std::string& kernel, std::size_t name_offset, const MacroWords& macros);

}  // namespace cuemu_rewrite::internal

#endif
