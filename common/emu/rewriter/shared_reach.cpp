// shared_reach.cpp - the names that may lead a kernel to shared memory
// (shared_reach.h says what the list means and what it is for).
#include "shared_reach.h"

#include <vector>

namespace cuemu_rewrite::internal {
namespace {

bool mentions(const Source& src, std::size_t t, const SharedReach& reach) {
    return src.is_ident(t) && (src.is_ident(t, "__shared__") || reach.names.count(src.spelling(t)) != 0);
}

struct Macro {
    std::size_t name, end;  // the name, and the end of its #define line
};

std::vector<Macro> macros_of(const Source& src) {
    std::vector<Macro> found;
    for (std::size_t i = 0; i < src.size(); ++i) {
        if (!src[i].in_directive || !src.is_punct(i, '#')) continue;
        const std::size_t word = src.next_code(i + 1);
        if (!src.is_ident(word, "define")) continue;
        const std::size_t name = src.next_code(word + 1);
        if (!src.is_ident(name)) continue;
        std::size_t end = name + 1;
        while (end < src.size() && src[end].in_directive && !src.is_punct(end, '#')) ++end;
        found.push_back(Macro{name, end});
        i = end - 1;
    }
    return found;
}

// The names a namespace-scope declaration starting at its __shared__ token
// declares: each identifier just before a '[', '=', ',', ';' or '{' outside
// parentheses (more than it declares, at worst: the list may only grow).
void add_declared_names(const Source& src, std::size_t shared, SharedReach& reach, bool& grew) {
    int depth = 0;
    for (std::size_t t = src.next_code(shared + 1); t < src.size(); t = src.next_code(t + 1)) {
        if (src.is_punct(t, '(')) ++depth;
        if (src.is_punct(t, ')')) --depth;
        const bool ends_name = src.is_punct(t, '[') || src.is_punct(t, '=') || src.is_punct(t, ',') ||
                               src.is_punct(t, ';') || src.is_punct(t, '{');
        if (ends_name && depth == 0) {
            const std::size_t name = src.prev_code(t);
            if (src.is_ident(name) && reach.names.insert(src.spelling(name)).second) grew = true;
        }
        if (depth == 0 && (src.is_punct(t, ';') || src.is_punct(t, '{'))) return;
    }
}

}  // namespace

SharedReach find_shared_reach(const Source& src, const Scopes& scopes) {
    SharedReach reach;
    const std::vector<Macro> macros = macros_of(src);
    for (bool grew = true; grew;) {
        grew = false;
        auto add = [&](const std::string& name) {
            if (reach.names.insert(name).second) grew = true;
        };
        for (const Macro& m : macros)
            for (std::size_t t = m.name + 1; t < m.end; ++t)
                if (mentions(src, t, reach)) {
                    add(src.spelling(m.name));
                    break;
                }
        for (std::size_t t = 0; t < src.size(); ++t) {
            if (src[t].in_directive || !mentions(src, t, reach)) continue;
            bool in_function = false;
            for (std::size_t b = scopes.enclosing(t); b != npos; b = scopes.parent(b)) {
                const BraceInfo& info = scopes.info(b);
                // A __shared__ member: not CUDA, and nothing this list can follow.
                if (info.kind == BraceKind::class_body && !in_function && src.is_ident(t, "__shared__"))
                    reach.unsure = true;
                if (info.kind != BraceKind::function_body) continue;
                in_function = true;
                const std::size_t name =
                    info.params_open == npos ? npos : src.prev_code(info.params_open);
                if (name != npos && src.is_ident(name)) add(src.spelling(name));
                else reach.unsure = true;  // an operator, or a head the scopes could not read
            }
            if (!in_function && src.is_ident(t, "__shared__")) add_declared_names(src, t, reach, grew);
        }
    }
    return reach;
}

bool mentions_shared(const Source& src, std::size_t begin, std::size_t end, const SharedReach& reach) {
    for (std::size_t t = begin; t <= end && t < src.size(); ++t)
        if (mentions(src, t, reach)) return true;
    return false;
}

}  // namespace cuemu_rewrite::internal
