// static_shared.cpp - the __shared__ declarations of a kernel's own body that
// count towards its static shared bytes (static_shared.h says which, and why
// the others are left out).
#include "static_shared.h"

#include <optional>
#include <utility>

namespace cuemu_rewrite::internal {
namespace {

// Only these words may come before __shared__ in its statement: anything else
// (if (c), else, case 1:, extern) means the declaration is not a plain
// statement of a block, and a probe after its ';' might not see its name.
bool starts_statement(const Source& src, std::size_t shared) {
    for (std::size_t t = src.prev_code(shared); t != npos; t = src.prev_code(t)) {
        if (src[t].in_directive) continue;  // an #if around the declaration
        if (src.is_punct(t, ';') || src.is_punct(t, '{') || src.is_punct(t, '}')) return true;
        if (!src.is_ident(t, "static") && !src.is_ident(t, "volatile") && !src.is_ident(t, "const")) return false;
    }
    return false;
}

// Every brace between the declaration and the kernel's body is a plain block.
bool directly_in_body(const Scopes& scopes, std::size_t shared, std::size_t open) {
    for (std::size_t b = scopes.enclosing(shared); b != open; b = scopes.parent(b))
        if (b == npos || scopes.info(b).kind != BraceKind::block) return false;
    return true;
}

bool is_open(const Source& src, std::size_t t) {
    return src.is_punct(t, '(') || src.is_punct(t, '[') || src.is_punct(t, '{');
}
bool is_close(const Source& src, std::size_t t) {
    return src.is_punct(t, ')') || src.is_punct(t, ']') || src.is_punct(t, '}');
}

// Words whose parenthesized argument belongs to the declaration, not to a declarator.
bool takes_argument(const Source& src, std::size_t t) {
    return src.is_ident(t, "alignas") || src.is_ident(t, "__align__") || src.is_ident(t, "__attribute__") ||
           src.is_ident(t, "__declspec");
}

// The name one declarator declares: the last identifier outside brackets
// before its extents or initializer. Nothing for a parenthesized declarator.
std::optional<std::string> declared_name(const Source& src, std::size_t begin, std::size_t end) {
    std::optional<std::string> name;
    int nest = 0;
    for (std::size_t t = src.next_code(begin); t < end; t = src.next_code(t + 1)) {
        if (nest == 0 && (src.is_punct(t, '[') || src.is_punct(t, '='))) break;
        if (nest == 0 && src.is_punct(t, '(') && !takes_argument(src, src.prev_code(t))) return std::nullopt;
        if (is_open(src, t)) ++nest;
        else if (is_close(src, t)) --nest;
        else if (nest == 0 && src.is_ident(t)) name = src.spelling(t);
    }
    return name;
}

bool mentioned(const Source& src, const std::string& name, std::size_t begin, std::size_t end) {
    for (std::size_t t = begin; t < end; ++t)
        if (src.is_ident(t) && !src[t].in_directive && src.spelling(t) == name) return true;
    return false;
}

// The declaration whose __shared__ is at `shared`, up to `close` (the body's '}').
std::optional<StaticSharedDeclaration> read_declaration(const Source& src, std::size_t shared, std::size_t close) {
    std::vector<std::pair<std::size_t, std::size_t>> declarators;  // [begin, end) of each
    std::size_t begin = shared + 1, semicolon = npos;
    int nest = 0;
    for (std::size_t t = src.next_code(shared + 1); t < close; t = src.next_code(t + 1)) {
        if (src[t].in_directive) return std::nullopt;
        if (is_open(src, t)) {
            ++nest;
        } else if (is_close(src, t)) {
            if (--nest < 0) return std::nullopt;
        } else if (nest == 0) {
            // A qualified or template type may be the emulator's own (cuda::barrier,
            // a CUB TempStorage), whose size need not be the GPU's.
            if (src.is_punct(t, ':') || src.is_punct(t, '<')) return std::nullopt;
            if (src.is_punct(t, ',') || src.is_punct(t, ';')) {
                declarators.emplace_back(begin, t);
                begin = t + 1;
            }
            if (src.is_punct(t, ';')) {
                semicolon = t;
                break;
            }
        }
    }
    if (semicolon == npos) return std::nullopt;
    StaticSharedDeclaration found{semicolon, {}};
    for (const auto& [from, to] : declarators) {
        const std::optional<std::string> name = declared_name(src, from, to);
        if (name && mentioned(src, *name, semicolon + 1, close)) found.names.push_back(*name);
    }
    if (found.names.empty()) return std::nullopt;
    return found;
}

}  // namespace

std::vector<StaticSharedDeclaration> find_static_shared(const Source& src, const Scopes& scopes,
                                                        std::size_t open, std::size_t close) {
    std::vector<StaticSharedDeclaration> found;
    for (std::size_t t = open + 1; t < close; ++t) {
        if (!src.is_ident(t, "__shared__") || src[t].in_directive || src[t].in_include) continue;
        if (!starts_statement(src, t) || !directly_in_body(scopes, t, open)) continue;
        if (std::optional<StaticSharedDeclaration> declaration = read_declaration(src, t, close)) {
            t = declaration->semicolon;
            found.push_back(std::move(*declaration));
        }
    }
    return found;
}

}  // namespace cuemu_rewrite::internal
