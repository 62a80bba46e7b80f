// aligned_twin.cpp - whether a kernel's text keeps every checked access to
// `p[i]` of a pointer parameter, and the text of its aligned twin and probe
// (see aligned_twin.h for the rules and why).
#include "aligned_twin.h"

#include <set>
#include <vector>

namespace cuemu_rewrite::internal {
namespace {

// Names after which `*` or `&` starts an operand instead of joining two.
bool operand_keyword(const std::string& word) {
    static const std::set<std::string> words = {"return", "case",   "else",     "do",        "throw", "sizeof",
                                                "new",    "delete", "co_return", "co_yield", "goto",  "alignof"};
    return words.count(word) != 0;
}

// Token `prev` (npos at the start) ends an operand, so that a `*` or `&`
// after it is a binary operator (or part of a declaration's type).
bool ends_operand(const Source& s, std::size_t prev) {
    if (prev == npos) return false;
    if (s.is_punct(prev, ')') || s.is_punct(prev, ']')) return true;
    const Kind k = s[prev].kind;
    if (k == Kind::Number || k == Kind::String || k == Kind::Char) return true;
    return k == Kind::Identifier && !operand_keyword(s.spelling(prev));
}

bool is_capitals(const std::string& word) {
    if (word.size() < 2) return false;
    bool letter = false;
    for (const char c : word) {
        if (c >= 'a' && c <= 'z') return false;
        letter |= c >= 'A' && c <= 'Z';
    }
    return letter;
}

// The rules that need no knowledge of the kernel's names, for tokens
// [begin, end) of s: no unary `*` or `&`, no `->`, no `*` or `&` closing a
// type, no '[' after anything but a name or ']'.
// `values`: names that are never types (a macro's parameters, as in `(a) * (b)`).
bool keeps_token_rules(const Source& s, std::size_t begin, std::size_t end,
                       const std::set<std::string>& values = {}) {
    for (std::size_t t = s.next_code(begin); t < end; t = s.next_code(t + 1)) {
        if (s[t].kind != Kind::Punct) continue;
        const std::size_t prev = s.prev_code(t), next = s.next_code(t + 1);
        const bool star = s.is_punct(t, '*'), amp = s.is_punct(t, '&');
        if (s.is_punct(t, '-') && s.is_punct(t + 1, '>')) return false;  // p->x
        if (star || amp) {
            if (amp && s.is_punct(t + 1, '&')) {  // &&: a logical and (or an rvalue reference's)
                if (!ends_operand(s, prev)) return false;
                t = t + 1;
                continue;
            }
            if (amp && s.is_punct(t + 1, '=')) continue;  // &=
            if (star && s.is_punct(t + 1, '=')) continue;  // *=
            if (s.is_punct(prev, ')')) {
                // `(float) *q`, `(T) &x`: a cast before a unary operator. Any
                // parenthesised run of names counts as one.
                const std::size_t open = s.matching_open_back(prev, '(', ')', DirectiveEdge::stops);
                bool names_only = open != npos;
                for (std::size_t u = open == npos ? prev : s.next_code(open + 1); names_only && u < prev;
                     u = s.next_code(u + 1))
                    names_only = s.is_ident(u) || s.is_punct(u, ':') || s.is_punct(u, '<') || s.is_punct(u, '>') ||
                                 s.is_punct(u, ',') || s[u].kind == Kind::Number;
                const std::size_t inside = open == npos ? npos : s.next_code(open + 1);
                const bool one_value = inside != npos && s.next_code(inside + 1) == prev && s.is_ident(inside) &&
                                       values.count(s.spelling(inside));
                if (names_only && !one_value) return false;
            }
            if (!ends_operand(s, prev)) return false;
            if (next >= end || s.is_punct(next, ')') || s.is_punct(next, '>') || s.is_punct(next, ',') ||
                s.is_punct(next, '*') || s.is_punct(next, '&') || s.is_punct(next, ';') || s.is_punct(next, ']'))
                return false;  // the end of a type: (float4*), <T&>, T*, ...
        }
        if (s.is_punct(t, '[') && !(prev != npos && (s.is_ident(prev) || s.is_punct(prev, ']')))) return false;
    }
    return true;
}

struct Parameter {
    std::string name;
    bool pointer = false;
};

// The parameters between '(' at open and ')' at close, or false where one
// is not of a form the rules know.
bool read_parameters(const Source& s, std::size_t open, std::size_t close, std::vector<Parameter>& out) {
    std::size_t t = s.next_code(open + 1);
    if (t == close || (s.is_ident(t, "void") && s.next_code(t + 1) == close)) return true;
    while (t < close) {
        Parameter p;
        int stars = 0;
        std::size_t last_name = npos;
        int depth = 0;
        for (; t < close; t = s.next_code(t + 1)) {
            if (s.is_punct(t, '<')) ++depth;
            if (s.is_punct(t, '>')) --depth;
            if (depth == 0 && s.is_punct(t, ',')) break;
            if (s.is_punct(t, '&') || s.is_punct(t, '[') || s.is_punct(t, '(') || s.is_punct(t, '=') ||
                s.is_ident(t, "volatile"))
                return false;  // a reference, an array, a function pointer, a default value
            if (s.is_punct(t, '*') && depth == 0) {
                ++stars;
                last_name = npos;  // the name comes after the '*'
            }
            if (s.is_ident(t) && depth == 0) {
                const std::string word = s.spelling(t);
                if (word != "const" && word != "__restrict__" && word != "__restrict" && word != "restrict")
                    last_name = t;
            }
        }
        if (stars > 1 || (stars == 0 && last_name == npos)) return false;
        // `float*` without a name: nothing in the body can use it.
        if (last_name != npos) p.name = s.spelling(last_name);
        p.pointer = stars == 1;
        out.push_back(p);
        if (t < close) t = s.next_code(t + 1);  // past ','
    }
    return true;
}

}  // namespace

std::map<std::string, bool> file_macros(const Source& src) {
    std::map<std::string, bool> macros;
    for (std::size_t t = 0; t < src.size(); ++t) {
        if (!src[t].in_directive || !src.is_punct(t, '#')) continue;
        const std::size_t define = src.next_code(t + 1);
        const std::size_t name = src.next_code(define + 1);
        if (!src.is_ident(define, "define") || !src.is_ident(name) || !src[name].in_directive) continue;
        std::size_t end = name + 1;
        while (end < src.size() && src[end].in_directive && src[end].kind != Kind::Newline) ++end;
        std::size_t body = name + 1;
        std::set<std::string> parameters;
        if (src.is_punct(body, '(')) {
            for (std::size_t u = body + 1; u < end && !src.is_punct(u, ')'); ++u)
                if (src.is_ident(u)) parameters.insert(src.spelling(u));
            body = src.group_end(body);  // past the parameters
        }
        const bool risky = body == npos || body > end || !keeps_token_rules(src, body, end, parameters);
        macros[src.spelling(name)] = macros[src.spelling(name)] || risky;
        t = end;
    }
    return macros;
}

std::string aligned_twin(const std::string& kernel, std::size_t name_offset, const std::string& name,
                         int first_line, const std::string& quoted_file, const std::map<std::string, bool>& macros) {
    const Source s(kernel);
    const std::size_t name_token = s.token_at(name_offset);
    if (name_token == npos) return "";
    const std::size_t params_open = s.next_code(name_token + 1);
    if (!s.is_punct(params_open, '(')) return "";
    const std::size_t params_end = s.group_end(params_open);
    if (params_end == npos) return "";
    const std::size_t params_close = params_end - 1;
    const std::size_t body_open = s.next_code(params_close + 1);
    if (!s.is_punct(body_open, '{')) return "";
    const std::size_t body_end = s.group_end(body_open);
    if (body_end == npos) return "";
    const std::size_t body_close = body_end - 1;

    std::vector<Parameter> params;
    if (!read_parameters(s, params_open, params_close, params)) return "";
    std::set<std::string> pointers;
    for (const Parameter& p : params)
        if (p.pointer && !p.name.empty()) pointers.insert(p.name);

    if (!keeps_token_rules(s, body_open + 1, body_close)) return "";

    // The arrays the body declares: `TYPE name[` (a name after a type name).
    std::set<std::string> arrays, declared_twice;
    for (std::size_t t = s.next_code(body_open + 1); t < body_close; t = s.next_code(t + 1)) {
        if (!s.is_ident(t) || !s.is_punct(s.next_code(t + 1), '[')) continue;
        const std::size_t prev = s.prev_code(t);
        if (!s.is_ident(prev) || operand_keyword(s.spelling(prev))) continue;
        // Only __shared__ arrays: a local array makes the kernel's frame large,
        // and the aligned twin is inlined into the launch's loop, where a stack
        // overflow would then be reported at the launch, not in the kernel.
        bool shared = false;
        for (std::size_t u = prev; u != npos && u > body_open && !s.is_punct(u, ';') && !s.is_punct(u, '{') &&
                                   !s.is_punct(u, '}');
             u = s.prev_code(u))
            shared = shared || s.is_ident(u, "__shared__");
        if (!shared) return "";
        if (!arrays.insert(s.spelling(t)).second) declared_twice.insert(s.spelling(t));
    }

    std::set<std::string> used_pointers;
    for (std::size_t t = s.next_code(body_open + 1); t < body_close; t = s.next_code(t + 1)) {
        if (!s.is_ident(t) || s[t].in_directive) continue;
        const std::string word = s.spelling(t);
        const std::size_t next = s.next_code(t + 1), prev = s.prev_code(t);
        if (word.rfind("CUEMU_", 0) == 0) continue;  // the rewriter's own (CUEMU_KNOWN_TEMPLATE_KERNEL)
        if (const auto macro = macros.find(word); macro != macros.end()) {
            if (macro->second) return "";
        } else if (is_capitals(word) && s.is_punct(next, '(')) {
            return "";  // a function-like macro of another file: its text is not known here
        }
        const bool member = s.is_punct(prev, '.') || (s.is_punct(prev, ':') && s.is_punct(prev - 1, ':'));
        if (pointers.count(word) && !member) {
            used_pointers.insert(word);
            if (s.is_punct(next, '[')) {
                const std::size_t after = s.group_end(next);
                if (after == npos || s.is_punct(s.next_code(after), '[')) return "";  // p[i][j]
                continue;
            }
            return "";
        }
        if (s.is_punct(next, '[')) {
            if (member || !arrays.count(word) || declared_twice.count(word) || pointers.count(word)) return "";
            if (s.is_punct(prev, '*')) return "";
        }
    }

    // Nothing indexed, nothing the check would look at in the kernel's own text.
    if (used_pointers.empty() && arrays.empty()) return "";

    // Each statement's accesses stay on its own line: without the checks
    // between them, GCC would fold a load into the next statement's
    // arithmetic (`b = bias[row]; z[k] += b;` becomes one add from memory),
    // and a fault in it would name the later line. An empty asm that clobbers
    // memory after each statement that indexes, where another statement
    // follows it in its block, keeps them apart. It costs no instruction, but
    // GCC then reloads what it held in memory, so a kernel of one statement
    // (a vector add) gets none. Not after a statement an `else` or `while`
    // follows (an if's or a do loop's body); no class may be defined in the
    // kernel, where `;` ends a member.
    std::string body_text;
    std::size_t copied = s[body_open].begin;
    int parens = 0;
    bool indexes = false;  // the statement so far has a '['
    for (std::size_t t = s.next_code(body_open + 1); t < body_close; t = s.next_code(t + 1)) {
        if (s[t].in_directive) continue;
        if (s.is_ident(t, "struct") || s.is_ident(t, "class") || s.is_ident(t, "union") || s.is_ident(t, "enum"))
            return "";
        if (s.is_punct(t, '(')) ++parens;
        if (s.is_punct(t, ')')) --parens;
        if (s.is_punct(t, '[')) indexes = true;
        if (parens == 0 && (s.is_punct(t, '{') || s.is_punct(t, '}'))) indexes = false;
        if (!s.is_punct(t, ';') || parens != 0) continue;
        const bool had_index = indexes;
        indexes = false;
        const std::size_t next = s.next_code(t + 1);
        if (!had_index || s.is_punct(next, '}') || s.is_ident(next, "else") || s.is_ident(next, "while")) continue;
        body_text += kernel.substr(copied, s[t].end - copied) + " __asm__ __volatile__(\"\" ::: \"memory\");";
        copied = s[t].end;
    }
    body_text += kernel.substr(copied, s[body_close].end - copied);

    // The twin: the kernel's text with the tag first among its parameters.
    const std::string head = kernel.substr(0, s[name_token].begin);
    const std::string params_text = kernel.substr(s[params_open].end, s[params_close].begin - s[params_open].end);
    const bool no_params = params.empty();
    const std::string line = "#line " + std::to_string(first_line) + " " + quoted_file + "\n";
    std::string out = line + head + "__attribute__((no_sanitize(\"thread\", \"alignment\"), always_inline)) inline __cuemu_fast_" + name +
                      "(::cuemu::aligned_tag" + (no_params ? "" : ", " + params_text) +
                      kernel.substr(s[params_close].begin, s[body_open].begin - s[params_close].begin) + body_text +
                      "\n";
    // The probe: each pointer parameter the body uses, aligned for its type.
    out += line + head + "__attribute__((no_sanitize(\"thread\"))) __cuemu_fast_" + name +
           "(::cuemu::alignment_probe& __cuemu_probe" + (no_params ? "" : ", " + params_text) + ") {\n";
    std::string test = "true";
    for (const Parameter& p : params) {
        if (p.name.empty()) continue;
        if (used_pointers.count(p.name)) test += " && ::cuemu::aligned_for(" + p.name + ")";
        else out += "(void)" + p.name + ";\n";
    }
    out += "__cuemu_probe.aligned = " + test + ";\n}";
    return out;
}

}  // namespace cuemu_rewrite::internal
