// scopes.cpp - classifying '{' and the execution space around a token
// (see scopes.h).
#include "scopes.h"

#include <set>

namespace cuemu_rewrite::internal {

const char* space_word(Space s) {
    switch (s) {
        case Space::host: return "__host__";
        case Space::device: return "__device__";
        case Space::host_device: return "__host__ __device__";
        case Space::global: return "__global__";
    }
    return "";
}

std::size_t matching_brace(const Source& src, std::size_t open) {
    int depth = 0;
    for (std::size_t i = open; i < src.size(); ++i) {
        if (src[i].in_directive) continue;
        if (src.is_punct(i, '{')) ++depth;
        if (src.is_punct(i, '}') && --depth == 0) return i;
    }
    return npos;
}

bool opens_namespace_scope(const Source& src, std::size_t brace) {
    std::size_t t = src.prev_code(brace);
    if (t != npos && src[t].kind == Kind::String && src.is_ident(src.prev_code(t), "extern")) {
        return true;
    }
    while (t != npos && (src.is_ident(t) || src.is_punct(t, ':'))) {
        if (src.is_ident(t, "namespace")) return true;
        t = src.prev_code(t);
    }
    return false;
}

bool looks_like_macro(const std::string& name) {
    if (name.size() < 2 || name.compare(0, 2, "__") == 0) return false;
    bool letter = false;
    for (char c : name) {
        if (c >= 'a' && c <= 'z') return false;
        if (c >= 'A' && c <= 'Z') letter = true;
    }
    return letter;
}

namespace {

// Code tokens only: directive lines are not part of the C++ around them.
std::size_t prev_real(const Source& src, std::size_t i) {
    for (;;) {
        i = src.prev_code(i);
        if (i == npos || !src[i].in_directive) return i;
    }
}

// The '(' that matches the ')' at `close`, or npos.
std::size_t matching_open_paren(const Source& src, std::size_t close) {
    int depth = 0;
    for (std::size_t i = close + 1; i-- > 0;) {
        if (src[i].in_directive) continue;
        if (src.is_punct(i, ')')) ++depth;
        if (src.is_punct(i, '(') && --depth == 0) return i;
    }
    return npos;
}

// The qualifiers in the tokens [begin, end).
void read_qualifiers(const Source& src, std::size_t begin, std::size_t end, BraceInfo& info) {
    bool global = false, device = false, host = false, macro = false;
    for (std::size_t t = begin; t < end && t != npos; ++t) {
        if (!src.is_ident(t) || src[t].in_directive) continue;
        const std::string word = src.spelling(t);
        global = global || word == "__global__";
        device = device || word == "__device__";
        host = host || word == "__host__";
        macro = macro || looks_like_macro(word);
    }
    info.annotated = global || device || host;
    info.certain = info.annotated || !macro;
    info.space = global ? Space::global : device ? (host ? Space::host_device : Space::device) : Space::host;
}

// The first token of the declaration that ends at `brace`: after the
// previous ';', '{' or '}' (or an access specifier's ':').
std::size_t head_start(const Source& src, std::size_t brace) {
    std::size_t t = brace;
    int parens = 0;
    for (;;) {
        const std::size_t p = prev_real(src, t);
        if (p == npos) return t;
        if (src.is_punct(p, ')')) ++parens;
        if (src.is_punct(p, '(')) --parens;
        if (parens == 0 && (src.is_punct(p, ';') || src.is_punct(p, '{') || src.is_punct(p, '}'))) return t;
        if (parens == 0 && src.is_punct(p, ':') && !src.is_punct(p - 1, ':') && !src.is_punct(p + 1, ':')) {
            const std::size_t access = prev_real(src, p);
            if (src.is_ident(access, "public") || src.is_ident(access, "private") ||
                src.is_ident(access, "protected")) {
                return t;
            }
        }
        t = p;
    }
}

bool is_control_word(const Source& src, std::size_t t) {
    static const std::set<std::string> words = {"if", "for", "while", "switch", "catch", "constexpr"};
    return src.is_ident(t) && words.count(src.spelling(t)) != 0;
}

}  // namespace

BraceInfo classify_brace(const Source& src, std::size_t brace) {
    BraceInfo info;
    if (opens_namespace_scope(src, brace)) {
        info.kind = BraceKind::namespace_scope;
        return info;
    }
    const std::size_t before = prev_real(src, brace);
    if (before == npos) return info;
    if (src.is_punct(before, ']')) {  // [captures] { ... }
        info.kind = BraceKind::lambda_body;
        return info;
    }
    if (src.is_ident(before, "else") || src.is_ident(before, "do") || src.is_ident(before, "try")) return info;

    // Walk back over what may follow a parameter list: const, noexcept,
    // override, mutable, a trailing return type '-> T'.
    std::size_t close = before;
    while (close != npos && !src.is_punct(close, ')') &&
           (src.is_ident(close) || src.is_punct(close, ':') || src.is_punct(close, '<') ||
            src.is_punct(close, '>') || src.is_punct(close, '*') || src.is_punct(close, '&') ||
            src.is_punct(close, '-'))) {
        if (src.is_ident(close, "class") || src.is_ident(close, "struct") || src.is_ident(close, "union") ||
            src.is_ident(close, "enum")) {
            info.kind = BraceKind::class_body;
            return info;
        }
        close = prev_real(src, close);
    }
    if (close != npos && src.is_punct(close, ')')) {
        const std::size_t open = matching_open_paren(src, close);
        if (open == npos) return info;
        std::size_t callee = prev_real(src, open);
        if (is_control_word(src, callee)) return info;
        // A lambda: [captures] [__device__] (params) ... {
        std::size_t t = callee;
        while (src.is_ident(t) && (src.spelling(t) == "__device__" || src.spelling(t) == "__host__")) {
            t = prev_real(src, t);
        }
        if (src.is_punct(t, ']')) {
            info.kind = BraceKind::lambda_body;
            read_qualifiers(src, t, brace, info);
        } else {
            info.kind = BraceKind::function_body;
            read_qualifiers(src, head_start(src, brace), open, info);
        }
        info.params_open = open;
        info.params_close = close;
        return info;
    }
    // Not a function: a class body, an initializer, or a plain block.
    for (std::size_t t = head_start(src, brace); t < brace; ++t) {
        if (src[t].in_directive) continue;
        if (src.is_ident(t, "class") || src.is_ident(t, "struct") || src.is_ident(t, "union") ||
            src.is_ident(t, "enum")) {
            info.kind = BraceKind::class_body;
            return info;
        }
    }
    if (src.is_punct(before, '=') || src.is_punct(before, ',') || src.is_punct(before, '(') ||
        src.is_ident(before, "return") || src.is_ident(before)) {
        info.kind = BraceKind::initializer;
    }
    return info;
}

Scopes::Scopes(const Source& src) : enclosing_(src.size(), npos), info_(src.size()) {
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < src.size(); ++i) {
        enclosing_[i] = open.empty() ? npos : open.back();
        if (src[i].in_directive) continue;
        if (src.is_punct(i, '{')) {
            info_[i] = classify_brace(src, i);
            open.push_back(i);
        } else if (src.is_punct(i, '}') && !open.empty()) {
            open.pop_back();
        }
    }
}

CodeContext Scopes::context_at(std::size_t token) const {
    for (std::size_t b = enclosing_[token]; b != npos; b = enclosing_[b]) {
        const BraceInfo& info = info_[b];
        switch (info.kind) {
            case BraceKind::namespace_scope:
            case BraceKind::class_body:
                return CodeContext::file_scope;
            case BraceKind::lambda_body:
                if (!info.annotated) continue;  // runs where its function runs
                [[fallthrough]];
            case BraceKind::function_body:
                if (!info.certain) return CodeContext::both;
                if (info.space == Space::host) return CodeContext::host;
                if (info.space == Space::host_device) return CodeContext::both;
                return CodeContext::device;
            case BraceKind::block:
            case BraceKind::initializer:
                continue;
        }
    }
    return CodeContext::file_scope;
}

std::size_t Scopes::outermost_function(std::size_t token) const {
    std::size_t found = npos;
    for (std::size_t b = enclosing_[token]; b != npos; b = enclosing_[b]) {
        if (info_[b].kind == BraceKind::function_body || info_[b].kind == BraceKind::lambda_body) found = b;
    }
    return found;
}

}  // namespace cuemu_rewrite::internal
