// scopes.h - what each '{' opens, and in which execution space code runs.
//
// Not a C++ parser: a '{' is classified by the few tokens before it (a ')'
// of a parameter list, a class keyword, '=' of an initializer, ...). Several
// parts of the rewriter ask "is this inside a __device__ function?": the
// __CUDA_ARCH__ resolution (arch.cpp), the file-scope extern __shared__
// aliases and the device-code checks. Where the answer is not certain they
// get `unsure`, and each does what is safe for it.
#ifndef CUEMU_REWRITE_SCOPES_H
#define CUEMU_REWRITE_SCOPES_H

#include <cstddef>
#include <string>
#include <vector>

#include "source.h"

namespace cuemu_rewrite::internal {

enum class Space { host, device, host_device, global };
const char* space_word(Space s);

// The '}' that closes the '{' at `open` (braces inside #define lines do not
// count), or npos.
std::size_t matching_brace(const Source& src, std::size_t open);

// True when the '{' at `brace` opens a namespace or an extern "C" block:
// a scope whose declarations are still at namespace level.
bool opens_namespace_scope(const Source& src, std::size_t brace);

// An identifier spelled like a macro (HD, CUDA_CALLABLE): it may stand for
// __host__ __device__, so a function's space is not certain.
bool looks_like_macro(const std::string& name);

enum class BraceKind { namespace_scope, class_body, function_body, lambda_body, block, initializer };

struct BraceInfo {
    BraceKind kind = BraceKind::block;
    // For function and lambda bodies: the qualifiers. A lambda without any
    // runs where the function around it runs (annotated = false).
    Space space = Space::host;
    bool annotated = false;  // __host__/__device__/__global__ written in the head
    bool certain = true;     // false: a macro-like word in the head may hide qualifiers
    std::size_t params_open = npos, params_close = npos;  // '(' and ')' of the parameters
};

BraceInfo classify_brace(const Source& src, std::size_t brace);

// Where a token sits.
enum class CodeContext {
    file_scope,  // namespace or class scope: declarations, no statements
    host,        // inside a host function
    device,      // inside a __device__ or __global__ function
    both,        // inside a __host__ __device__ function, or one whose space is not certain
};

// The open '{' around each token (npos at file scope), over code tokens only
// (directives and inactive branches do not count).
class Scopes {
public:
    explicit Scopes(const Source& src);
    std::size_t enclosing(std::size_t token) const { return enclosing_[token]; }
    const BraceInfo& info(std::size_t brace) const { return info_[brace]; }
    std::size_t parent(std::size_t brace) const { return enclosing_[brace]; }
    CodeContext context_at(std::size_t token) const;
    // The outermost function body around `token`, or npos.
    std::size_t outermost_function(std::size_t token) const;

private:
    std::vector<std::size_t> enclosing_;
    std::vector<BraceInfo> info_;  // filled for '{' tokens only
};

}  // namespace cuemu_rewrite::internal

#endif
