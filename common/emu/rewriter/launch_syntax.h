// launch_syntax.h - the two CUDA-only constructs rewrite.cpp replaces,
// read from the tokens: a kernel launch k<<<grid, block[, shmem[, stream]]>>>(args)
// and an extern __shared__ array declaration.
//
// A parse that finds the construct gives its positions; one that finds
// something that looks like it but cannot be read gives the message the user
// sees at its position (never a silent miscompile); one that finds neither
// gives neither.
#ifndef CUEMU_REWRITE_LAUNCH_SYNTAX_H
#define CUEMU_REWRITE_LAUNCH_SYNTAX_H

#include <cstddef>
#include <optional>
#include <string>

#include "source.h"

namespace cuemu_rewrite::internal {

// Where one kernel launch sits in the token list.
struct Launch {
    std::size_t callee_begin;  // first token of the kernel name
    std::size_t callee_end;    // one past its last token
    std::size_t open;          // the first '<' of <<<
    std::size_t open_end;      // one past its third '<' (a line splice may sit inside)
    std::size_t close;         // the first '>' of >>>
    std::size_t close_end;     // one past its third '>'
    std::size_t paren_open;    // '(' of the argument list
    std::size_t paren_close;   // its matching ')'
};

// Result of parsing one construct: either the value or an error message.
template <typename T>
struct Parsed {
    std::optional<T> value;
    std::string error;  // empty with a value, or when the construct was not there at all
};

// extern __shared__ TYPE NAME[];  ->  the parts that matter. TYPE NAME[][N]
// (rows of N, the further dimensions known) has extents "[N]".
struct DynamicShared {
    std::string type;
    std::string name;
    std::string extents;
    std::size_t semicolon;
    // The pointer the array becomes, and that pointer's type.
    std::string pointer_type() const { return extents.empty() ? type + "*" : type + " (*)" + extents; }
    std::string declarator() const {
        return extents.empty() ? type + "* " + name : type + " (*" + name + ")" + extents;
    }
};

// The launch whose <<< starts at `open`. Neither value nor error: not a
// launch after all (operator<<<T>).
Parsed<Launch> parse_launch(const Source& src, std::size_t open);

// Called at an 'extern'. Neither value nor error: not an extern __shared__.
Parsed<DynamicShared> parse_dynamic_shared(const Source& src, std::size_t extern_token);

}  // namespace cuemu_rewrite::internal

#endif
