// rewrite.h - the source-to-source step of the CPU emulator, as a library.
//
// rewrite() turns one CUDA .cu file into C++ that g++ can compile with the
// emulator header force-included:
//   - kernel launches  k<<<grid, block[, shmem[, stream]]>>>(args)
//     become calls to ::cuemu::launch(...);
//   - extern __shared__ T name[];  becomes a pointer to the emulator's
//     dynamic shared memory;
//   - static __shared__ loses its 'static' (the header already adds it);
//   - __noinline__ becomes __attribute__((noinline));
//   - #if on __CUDA_ARCH__ is resolved per place (arch.h), and branches the
//     compiler certainly skips are not parsed (conditionals.h);
//   - throw, exit() and calls across execution spaces in device code are
//     refused as nvcc refuses them (checks.h);
//   - inline PTX that reads a special register (%laneid, %globaltimer, ...)
//     becomes a call of the emulator's; other inline PTX in device code is
//     refused, naming it (inline_ptx.h).
// Everything else is copied byte for byte, and every output line after the
// leading #line directive is the same line of the input, so compiler errors
// and __LINE__ point into the original .cu file.
#ifndef CUEMU_REWRITE_H
#define CUEMU_REWRITE_H

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cuemu_rewrite {

// A problem found in the input; line and column are 1-based (column counts bytes).
struct Diagnostic {
    int line;
    int column;
    std::string message;
};

// The names that may lead a kernel to shared memory (shared_reach.h): a
// kernel whose text mentions none of them, nor __shared__, gets a twin that
// may run under the race check too.
struct SharedNames {
    std::set<std::string> names;
    bool unsure = false;  // something the list cannot follow: no kernel counts as free of shared memory
    void merge(const SharedNames& other) {
        names.insert(other.names.begin(), other.names.end());
        unsure = unsure || other.unsure;
    }
};

struct Result {
    std::string output;               // the rewritten source (meaningless when errors is not empty)
    std::vector<Diagnostic> errors;   // empty on success
    bool uses_shared_memory = false;  // __shared__ appears in code the compiler sees (extern included)
    SharedNames shared_names;         // this file's
    SharedNames barrier_names;        // this file's names that may lead a kernel to wait (split_regions.h)
};

// What the rewriter knows beyond the text itself.
struct Options {
    // The command line's -D NAME[=VALUE] (VALUE "1" when absent) and -U NAME,
    // for deciding which #if branches the compiler will see.
    std::map<std::string, std::string> defines;
    std::vector<std::string> undefines;
    // Called for each #include the compiler may reach, with the name between
    // the quotes or brackets; returns the file to include instead (the
    // rewritten copy of a project header), or nullopt to leave it.
    std::function<std::optional<std::string>(const std::string& name, bool angled)> redirect_include;
    // The names of every file of the tree (rewrite_tree's second pass); unset:
    // this file's own.
    std::optional<SharedNames> tree_shared_names;
    std::optional<SharedNames> tree_barrier_names;  // likewise, for the split kernels
    // Whether kernels get a version split at their barriers (split_regions.h).
    bool split_kernels = true;
};

// Rewrites `source`. `display_name` goes into the leading #line directive
// (callers pass the absolute path of the original file).
Result rewrite(const std::string& source, const std::string& display_name, const Options& options = {});

// Reads a file; std::nullopt when it cannot be read.
using FileReader = std::function<std::optional<std::string>(const std::string& path)>;

// ---- a .cu file with the headers of the user's own tree ---------------------------
// A launch, an extern __shared__ or an #if on __CUDA_ARCH__ in a project
// header needs the same rewrite as in the .cu. Every header reachable from
// the .cu through #include "..." (next to the including file, then the
// include folders) or #include <...> (the include folders) is rewritten to
// HEADERS/<its absolute path>, and the #include lines that reach it are
// redirected there. A header found first in a system folder (the emulator's
// own, /usr/...) is left alone.
struct IncludeDir {
    std::string path;  // absolute
    bool system;
};
struct RewrittenFile {
    std::string original;  // absolute path of the file that was read
    std::string output;    // where its rewrite goes
    std::string text;
};
struct FileDiagnostic {
    std::string file;  // the original file
    Diagnostic where;
};
struct TreeResult {
    std::vector<RewrittenFile> files;    // the .cu first (output = the given output)
    std::vector<FileDiagnostic> errors;  // empty on success
    bool uses_shared_memory = false;     // some file of the tree uses __shared__
};
TreeResult rewrite_tree(const std::string& cu_path, const std::string& output, const std::string& headers_dir,
                        const std::vector<IncludeDir>& include_dirs, const Options& options,
                        const FileReader& read_file);

}  // namespace cuemu_rewrite

#endif
