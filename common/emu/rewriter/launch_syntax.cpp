// launch_syntax.cpp - where a kernel launch and an extern __shared__
// declaration sit in the tokens, or why they cannot be read (launch_syntax.h).
#include "launch_syntax.h"

#include <vector>

namespace cuemu_rewrite::internal {
namespace {

const char* const kNoKernelName =
    "kernel launch: expected the kernel's name before '<<<' (like 'my_kernel<<<blocks, threads>>>(...)')";

// Walks back from a '>' at `close` over a balanced template argument list
// <...> (nested <> and anything inside () allowed); returns the matching '<'.
std::size_t template_args_start(const Source& src, std::size_t close) {
    int depth = 0;
    for (std::size_t i = close + 1; i-- > 0;) {
        if (src[i].in_directive != src[close].in_directive) return npos;
        if (src.is_punct(i, ')')) {
            // Skip a parenthesised group: (a > b) must not count as a '>'.
            i = src.matching_open_back(i, '(', ')', DirectiveEdge::crossed);
            if (i == npos) return npos;
        } else if (src.is_punct(i, '>')) {
            ++depth;
        } else if (src.is_punct(i, '<')) {
            if (--depth == 0) return i;
        } else if (src.is_punct(i, ';') || src.is_punct(i, '{') || src.is_punct(i, '}')) {
            return npos;
        }
    }
    return npos;
}

// Keeps the stack of open brackets up to date for one punctuation character.
// False for a closing bracket that does not match the innermost open one.
bool track_bracket(char c, std::vector<char>& open) {
    if (c == '(' || c == '[' || c == '{') {
        open.push_back(c);
    } else if (c == ')' || c == ']' || c == '}') {
        const char expected = c == ')' ? '(' : c == ']' ? '[' : '{';
        if (open.empty() || open.back() != expected) return false;
        open.pop_back();
    }
    return true;
}

Parsed<Launch> parse_configuration(const Source& src, Launch launch);

}  // namespace

Parsed<Launch> parse_launch(const Source& src, std::size_t open) {
    Parsed<Launch> result;
    if (src.follows_operator_keyword(open)) return result;
    Launch launch{};
    launch.open = open;
    launch.open_end = src.triple_end(open, '<');

    // The kernel, backwards: (*pointer), or [::] ident (:: ident)* with
    // [<template args>] or [index] after it.
    std::size_t i = src.prev_code(open);
    if (i == npos) {
        result.error = kNoKernelName;
        return result;
    }
    launch.callee_end = i + 1;
    if (src.is_punct(i, ')')) {  // (*kernel_pointer)<<<...>>>
        launch.callee_begin = src.matching_open_back(i, '(', ')', DirectiveEdge::stops);
        if (launch.callee_begin == npos) {
            result.error = "kernel launch: the parentheses before '<<<' are not balanced";
            return result;
        }
        // f(x)<<<...>>> would launch what a call returns: not a kernel's name.
        const std::size_t before = src.prev_code(launch.callee_begin);
        // ...unless that ')' closes 'if (...)' or the like.
        const std::size_t group_open =
            src.is_punct(before, ')') ? src.matching_open_back(before, '(', ')', DirectiveEdge::stops) : npos;
        const std::size_t before_group = group_open == npos ? npos : src.prev_code(group_open);
        const bool after_control = before_group != npos &&
                                   (src.is_ident(before_group, "if") || src.is_ident(before_group, "while") ||
                                    src.is_ident(before_group, "for") || src.is_ident(before_group, "switch"));
        const bool call = (src.is_punct(before, ')') && !after_control) || src.is_punct(before, ']') ||
                          src.is_punct(before, '>') ||
                          (src.is_ident(before) && !src.is_ident(before, "return") &&
                           !src.is_ident(before, "else") && !src.is_ident(before, "do"));
        if (call) {
            result.error = kNoKernelName;
            return result;
        }
        return parse_configuration(src, launch);
    }
    if (src.is_punct(i, ']')) {  // kernels[k]<<<...>>>
        const std::size_t bracket = src.matching_open_back(i, '[', ']', DirectiveEdge::stops);
        i = bracket == npos ? npos : src.prev_code(bracket);
    }
    if (i != npos && src.is_punct(i, '>')) {
        const std::size_t lt = template_args_start(src, i);
        if (lt == npos) {
            result.error = "kernel launch: the template arguments before '<<<' are not balanced";
            return result;
        }
        i = src.prev_code(lt);
    }
    if (i == npos || !src.is_ident(i)) {
        result.error = kNoKernelName;
        return result;
    }
    launch.callee_begin = i;
    for (;;) {
        const std::size_t colon = src.prev_code(launch.callee_begin);
        if (colon == npos || colon == 0 || !src.is_punct(colon, ':') || !src.is_punct(colon - 1, ':')) {
            break;
        }
        launch.callee_begin = colon - 1;
        const std::size_t scope = src.prev_code(colon - 1);
        if (scope == npos || !src.is_ident(scope)) break;  // a leading '::'
        launch.callee_begin = scope;
    }
    const std::size_t before = src.prev_code(launch.callee_begin);
    if (src.is_punct(before, '.') || (src.is_punct(before, '>') && src.is_punct(before - 1, '-'))) {
        result.error =
            "kernel launch: a kernel is a free function; launch it by name "
            "(like 'my_kernel<<<...>>>(...)'), not through '.' or '->'";
        return result;
    }
    return parse_configuration(src, launch);
}

namespace {

// The rest of a launch whose kernel is known: <<<configuration>>>(arguments).
Parsed<Launch> parse_configuration(const Source& src, Launch launch) {
    Parsed<Launch> result;
    // The configuration, forwards, up to the first >>> outside any brackets.
    // Of a longer run like 'S<4>>>>' the last three close the configuration.
    std::vector<char> brackets;
    const char* const kUnbalancedConfig =
        "kernel launch: unbalanced parentheses or brackets between '<<<' and '>>>'";
    launch.close = npos;
    for (std::size_t t = launch.open_end; t < src.size(); ++t) {
        if (brackets.empty() && src.triple_end(t, '>') != npos) {
            std::vector<std::size_t> run;
            for (std::size_t r = t; src.is_punct(r, '>'); r = src.next_spliced(r)) run.push_back(r);
            launch.close = run[run.size() - 3];
            launch.close_end = run.back() + 1;
            break;
        }
        if (src[t].kind != Kind::Punct) continue;
        const char c = src.text()[src[t].begin];
        if (!track_bracket(c, brackets)) {
            result.error = kUnbalancedConfig;
            return result;
        }
        if (c == ';' && (brackets.empty() || brackets.back() != '{')) {
            break;  // the statement ended without >>>
        }
    }
    if (launch.close == npos) {
        result.error = brackets.empty()
                           ? "kernel launch: missing '>>>' to close the launch configuration "
                             "(like 'my_kernel<<<blocks, threads>>>(...)')"
                           : kUnbalancedConfig;
        return result;
    }
    if (src.only_trivia(launch.open_end, launch.close)) {
        result.error =
            "kernel launch: empty launch configuration; say how many blocks and threads, "
            "like '<<<blocks, threads>>>'";
        return result;
    }

    // The argument list: '(' right after >>>, up to its matching ')'.
    launch.paren_open = src.next_code(launch.close_end);
    if (!src.is_punct(launch.paren_open, '(')) {
        result.error = "kernel launch: expected '(' with the kernel's arguments after '>>>' "
                       "(write '()' when the kernel takes none)";
        return result;
    }
    const char* const kUnbalancedArgs =
        "kernel launch: unbalanced parentheses in the kernel's argument list";
    brackets.clear();
    launch.paren_close = npos;
    for (std::size_t t = launch.paren_open; t < src.size(); ++t) {
        if (src[t].kind != Kind::Punct) continue;
        const char c = src.text()[src[t].begin];
        if (!track_bracket(c, brackets)) {
            result.error = kUnbalancedArgs;
            return result;
        }
        if (brackets.empty()) {  // the ')' that matches the opening '('
            launch.paren_close = t;
            break;
        }
        if (c == ';' && brackets.back() != '{') {
            break;  // a ';' outside any lambda body: the ')' is missing
        }
    }
    if (launch.paren_close == npos) {
        result.error = kUnbalancedArgs;
        return result;
    }
    result.value = launch;
    return result;
}

const char* const kDynamicSharedShape =
    "extern __shared__ must declare an array without a size, like "
    "'extern __shared__ float buffer[];' or 'extern __shared__ float rows[][16];' "
    "(the size comes from the launch)";

}  // namespace

Parsed<DynamicShared> parse_dynamic_shared(const Source& src, std::size_t extern_token) {
    Parsed<DynamicShared> result;
    // The code tokens up to the ';' (a '{' or '}' first means this is
    // something else, like extern "C" { ... }).
    std::vector<std::size_t> code;
    std::size_t t = src.next_code(extern_token + 1);
    bool shared = false;
    for (; t < src.size(); t = src.next_code(t + 1)) {
        if (src.is_punct(t, ';') || src.is_punct(t, '{') || src.is_punct(t, '}')) break;
        shared = shared || src.is_ident(t, "__shared__");
        code.push_back(t);
    }
    if (!shared) return result;
    if (!src.is_punct(t, ';')) {
        result.error = kDynamicSharedShape;
        return result;
    }

    // Drop __shared__ and alignment attributes with their (...) argument.
    std::vector<std::size_t> kept;
    for (std::size_t k = 0; k < code.size(); ++k) {
        const std::size_t tok = code[k];
        if (src.is_ident(tok, "__shared__")) continue;
        if ((src.is_ident(tok, "__align__") || src.is_ident(tok, "alignas") ||
             src.is_ident(tok, "__attribute__")) &&
            k + 1 < code.size() && src.is_punct(code[k + 1], '(')) {
            int depth = 0;
            for (++k; k < code.size(); ++k) {
                if (src.is_punct(code[k], '(')) ++depth;
                if (src.is_punct(code[k], ')') && --depth == 0) break;
            }
            continue;
        }
        kept.push_back(tok);
    }
    const std::size_t m = kept.size();
    // The name is the identifier just before the first "[]"; after it come
    // only whole [...] groups, the further dimensions.
    std::size_t name_at = 0;
    for (std::size_t k = 1; k + 2 < m && !name_at; ++k)
        if (src.is_ident(kept[k]) && src.is_punct(kept[k + 1], '[') && src.is_punct(kept[k + 2], ']'))
            name_at = k;
    if (!name_at) {
        result.error = kDynamicSharedShape;
        return result;
    }
    // Tokens that touched in the source stay together (my::T), others get one space.
    auto spell = [&](std::size_t from, std::size_t to) {
        std::string text;
        for (std::size_t k = from; k < to; ++k) {
            if (k > from && src[kept[k - 1]].end != src[kept[k]].begin) text += ' ';
            text += src.spelling(kept[k]);
        }
        return text;
    };
    int depth = 0;
    for (std::size_t k = name_at + 3; k < m; ++k) {
        if (depth == 0 && !src.is_punct(kept[k], '[')) {
            result.error = kDynamicSharedShape;
            return result;
        }
        if (src.is_punct(kept[k], '[')) ++depth;
        if (src.is_punct(kept[k], ']')) --depth;
    }
    if (depth != 0) {
        result.error = kDynamicSharedShape;
        return result;
    }
    DynamicShared decl;
    decl.type = spell(0, name_at);
    decl.name = src.spelling(kept[name_at]);
    decl.extents = spell(name_at + 3, m);
    decl.semicolon = t;
    result.value = decl;
    return result;
}

}  // namespace cuemu_rewrite::internal
