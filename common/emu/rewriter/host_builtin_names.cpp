// host_builtin_names.cpp - variables and parameters named threadIdx,
// blockIdx, blockDim or gridDim are renamed in their scope (see
// host_builtin_names.h).
#include "host_builtin_names.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cuemu_rewrite::internal {
namespace {

bool is_builtin_name(const Source& src, std::size_t t) {
    static const std::set<std::string> names = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
    return src.is_ident(t) && names.count(src.spelling(t)) != 0;
}

// After '.', '->' or '::': a member, the program's own (params.gridDim).
bool is_member(const Source& src, std::size_t t) {
    const std::size_t before = src.prev_code(t);
    if (before == npos) return false;
    if (src.is_punct(before, '.')) return true;
    const std::string w = src.spelling(before);
    return w == "->" || w == "::" || (w == ">" && src.is_punct(src.prev_code(before), '-')) ||
           (w == ":" && src.is_punct(src.prev_code(before), ':'));
}

// Words before a name that make it no declaration (`return gridDim;`).
bool is_expression_keyword(const std::string& w) {
    static const std::set<std::string> words = {"return", "case", "sizeof", "new", "delete", "throw", "else", "do",
                                                "co_return", "co_yield", "typeid", "alignof", "goto", "not", "and",
                                                "or", "operator"};
    return words.count(w) != 0;
}

// `TYPE NAME` followed by what ends a declarator: a variable or parameter.
bool declares(const Source& src, std::size_t t) {
    const std::size_t before = src.prev_code(t);
    const std::size_t after = src.next_code(t + 1);
    if (before == npos || !src.is_ident(before) || is_expression_keyword(src.spelling(before))) return false;
    const std::string w = after < src.size() ? src.spelling(after) : "";
    return w == ";" || w == "=" || w == "," || w == ")" || w == "(" || w == "{" || w == "[";
}

}  // namespace

Edits rename_host_builtin_names(const Source& src, const Scopes& scopes) {
    // Each function's parameter list, and the body that is its parameters' scope.
    std::vector<std::pair<std::size_t, std::size_t>> parameter_lists;  // '(' and body '{'
    for (std::size_t b = 0; b < src.size(); ++b) {
        if (!src.is_punct(b, '{') || src[b].in_directive) continue;
        const BraceInfo& info = scopes.info(b);
        if ((info.kind == BraceKind::function_body || info.kind == BraceKind::lambda_body) &&
            info.params_open != npos && info.params_close != npos)
            parameter_lists.emplace_back(info.params_open, b);
    }
    Edits edits;
    for (std::size_t t = 0; t < src.size(); ++t) {
        if (!is_builtin_name(src, t) || src[t].in_directive || is_member(src, t) || !declares(src, t)) continue;
        // The declaration's scope: its block, or for a parameter its function's body.
        std::size_t end = npos;
        for (const auto& [open, body] : parameter_lists)
            if (t > open && t < body) end = matching_brace(src, body);
        if (end == npos) {
            const std::size_t block = scopes.enclosing(t);
            // At namespace scope, or a class's member: left alone.
            if (block == npos) continue;
            const BraceKind kind = scopes.info(block).kind;
            if (kind != BraceKind::block && kind != BraceKind::function_body && kind != BraceKind::lambda_body)
                continue;
            end = matching_brace(src, block);
        }
        if (end == npos) continue;
        const std::string name = src.spelling(t);
        for (std::size_t u = t; u < end; ++u) {
            if (src.is_ident(u, name.c_str()) && !src[u].in_directive && !is_member(src, u))
                edits[u] = Edit{u + 1, "cuemu_host_" + name};
        }
    }
    return edits;
}

}  // namespace cuemu_rewrite::internal
