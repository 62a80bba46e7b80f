// rewrite.h - the source-to-source step of the CPU emulator, as a library.
//
// rewrite() turns one CUDA .cu file into C++ that g++ can compile with the
// emulator header force-included:
//   - kernel launches  k<<<grid, block[, shmem[, stream]]>>>(args)
//     become calls to ::cuemu::launch(...);
//   - extern __shared__ T name[];  becomes a pointer to the emulator's
//     dynamic shared memory;
//   - static __shared__ loses its 'static' (the header already adds it);
//   - __noinline__ becomes __attribute__((noinline)).
// Everything else is copied byte for byte, and every output line after the
// leading #line directive is the same line of the input, so compiler errors
// and __LINE__ point into the original .cu file.
#ifndef CUEMU_REWRITE_H
#define CUEMU_REWRITE_H

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cuemu_rewrite {

// A problem found in the input; line and column are 1-based (column counts bytes).
struct Diagnostic {
    int line;
    int column;
    std::string message;
};

struct Result {
    std::string output;               // the rewritten source (meaningless when errors is not empty)
    std::vector<Diagnostic> errors;   // empty on success
};

// Rewrites `source`. `display_name` goes into the leading #line directive
// (callers pass the absolute path of the .cu file).
Result rewrite(const std::string& source, const std::string& display_name);

// Reads a file for the include check; returns std::nullopt when it cannot be
// read (then that include is simply not checked).
using FileReader = std::function<std::optional<std::string>(const std::string& path)>;

// Same as above, plus one check that needs files: every quoted
// #include "file" is resolved relative to the directory of display_name
// (nested quoted includes relative to their own file) and read through
// `read_file`; a header that contains a kernel launch is reported as an error
// at the #include, because only the .cu file itself gets rewritten.
Result rewrite(const std::string& source, const std::string& display_name,
               const FileReader& read_file);

}  // namespace cuemu_rewrite

#endif
