// rewrite.cpp - the core of cuemu-rewrite: CUDA-only syntax in a .cu file
// becomes plain C++ for the CPU emulator, with every line kept in place.
//
// The file has three parts:
//   1. a small tokenizer. It is not a C++ parser; it only knows enough to
//      tell code from comments, string/char literals (raw strings included),
//      numbers (with ' digit separators) and #include lines, so that nothing
//      inside those is ever rewritten by mistake;
//   2. the analysis of kernel launches (finding the kernel name before <<<,
//      the >>> and the argument list after it) and of the other constructs;
//   3. the emitter, which copies tokens to the output and replaces the
//      constructs, re-emitting any newline it had to remove so that the next
//      source line keeps its line number.
// Anything that looks like a launch but cannot be parsed is an error with the
// position of its <<<, never a silent miscompile.
#include "rewrite.h"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>
#include <utility>

namespace cuemu_rewrite {
namespace {

// ---------------------------------------------------------------------------
// 1. Tokenizer
// ---------------------------------------------------------------------------

enum class Kind {
    Whitespace,    // spaces, tabs, \r, and backslash-newline continuations
    Newline,       // one '\n' that ends a line
    LineComment,   // // ... (without the newline that ends it)
    BlockComment,  // /* ... */
    String,        // "..." with any prefix, raw strings included
    Char,          // '...' with any prefix
    Number,        // a pp-number: 1'000, 0x1'FF, 1.5e+3f
    Identifier,    // names and keywords
    HeaderName,    // <file.h> after #include
    Punct,         // any other single character; <<< is three '<' tokens
};

struct Token {
    Kind kind;
    std::size_t begin;  // byte offsets into the source
    std::size_t end;
    bool in_directive;  // part of a preprocessor line (#define, #if, ...)
    bool in_include;    // part of an #include line: always copied untouched
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) {
    // Bytes >= 0x80 let UTF-8 identifiers through as identifiers.
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
           static_cast<unsigned char>(c) >= 0x80;
}
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

// Length of a backslash-newline line continuation starting at i, or 0.
std::size_t continuation_length(const std::string& s, std::size_t i) {
    if (i >= s.size() || s[i] != '\\') return 0;
    if (i + 1 < s.size() && s[i + 1] == '\n') return 2;
    if (i + 2 < s.size() && s[i + 1] == '\r' && s[i + 2] == '\n') return 3;
    return 0;
}

// End of a "..." or '...' literal whose opening quote is at i. An unterminated
// literal stops at the end of the line (think of "#error don't"): the compiler
// reports it, the rewriter just must not swallow the rest of the file.
std::size_t quoted_end(const std::string& s, std::size_t i) {
    const char quote = s[i];
    std::size_t j = i + 1;
    while (j < s.size()) {
        if (std::size_t c = continuation_length(s, j)) {
            j += c;
        } else if (s[j] == '\\') {
            j += 2;
        } else if (s[j] == quote) {
            return j + 1;
        } else if (s[j] == '\n') {
            return j;
        } else {
            ++j;
        }
    }
    return s.size();
}

// End of a raw string R"delim( ... )delim" whose '"' is at i, or 0 when what
// follows the quote is not a valid delimiter (then it is lexed as a plain string).
std::size_t raw_string_end(const std::string& s, std::size_t i) {
    std::size_t open = i + 1;
    while (open < s.size() && open - (i + 1) <= 16 && s[open] != '(') {
        const char c = s[open];
        if (c == ' ' || c == ')' || c == '\\' || c == '\t' || c == '\n' || c == '"') return 0;
        ++open;
    }
    if (open >= s.size() || s[open] != '(') return 0;
    const std::string closing = ")" + s.substr(i + 1, open - (i + 1)) + "\"";
    const std::size_t found = s.find(closing, open + 1);
    return found == std::string::npos ? s.size() : found + closing.size();
}

// End of a pp-number starting at i: digits, letters, '.', exponent signs
// (e+ E- p+ P-) and ' digit separators, so 1'000'000 is one token and its
// quotes never open a char literal.
std::size_t number_end(const std::string& s, std::size_t i) {
    std::size_t j = i;
    while (j < s.size()) {
        const char c = s[j];
        const bool next_exists = j + 1 < s.size();
        if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') && next_exists &&
            (s[j + 1] == '+' || s[j + 1] == '-')) {
            j += 2;
        } else if (is_ident_char(c) || c == '.') {
            ++j;
        } else if (c == '\'' && next_exists && is_ident_char(s[j + 1])) {
            j += 2;
        } else {
            break;
        }
    }
    return j;
}

std::vector<Token> tokenize(const std::string& s) {
    std::vector<Token> tokens;
    const std::size_t n = s.size();

    // Preprocessor bookkeeping: a '#' that is the first token of a line
    // starts a directive, which runs to the next newline that is not a
    // continuation. After '#include' a <...> is a header name.
    bool line_start = true;
    bool in_directive = false;
    bool in_include = false;
    enum class Expect { Nothing, DirectiveName, HeaderName } expect = Expect::Nothing;

    std::size_t i = 0;
    while (i < n) {
        const std::size_t start = i;
        const char c = s[i];
        const char next = i + 1 < n ? s[i + 1] : '\0';
        Kind kind;
        if (c == '\n') {
            kind = Kind::Newline;
            ++i;
        } else if (is_space(c) || continuation_length(s, i)) {
            kind = Kind::Whitespace;
            while (i < n) {
                if (is_space(s[i])) {
                    ++i;
                } else if (std::size_t cont = continuation_length(s, i)) {
                    i += cont;
                } else {
                    break;
                }
            }
        } else if (c == '/' && next == '/') {
            // A // comment ends at a newline, unless a backslash continues it.
            kind = Kind::LineComment;
            i += 2;
            while (i < n && s[i] != '\n') {
                i += std::max<std::size_t>(1, continuation_length(s, i));
            }
        } else if (c == '/' && next == '*') {
            kind = Kind::BlockComment;
            const std::size_t close = s.find("*/", i + 2);
            i = close == std::string::npos ? n : close + 2;
        } else if (expect == Expect::HeaderName && c == '<') {
            kind = Kind::HeaderName;
            while (i < n && s[i] != '>' && s[i] != '\n') ++i;
            if (i < n && s[i] == '>') ++i;
        } else if (is_ident_start(c)) {
            while (i < n && is_ident_char(s[i])) ++i;
            // An encoding prefix glued to a quote makes a literal: u8"..", L'x', R"(..)".
            const std::string word = s.substr(start, i - start);
            const char after = i < n ? s[i] : '\0';
            const bool raw_prefix = word == "R" || word == "u8R" || word == "uR" ||
                                    word == "UR" || word == "LR";
            const bool plain_prefix = word == "u8" || word == "u" || word == "U" || word == "L";
            kind = Kind::Identifier;
            if (raw_prefix && after == '"') {
                kind = Kind::String;
                const std::size_t end = raw_string_end(s, i);
                i = end ? end : quoted_end(s, i);
            } else if (plain_prefix && (after == '"' || after == '\'')) {
                kind = after == '"' ? Kind::String : Kind::Char;
                i = quoted_end(s, i);
            }
        } else if (is_digit(c) || (c == '.' && is_digit(next))) {
            kind = Kind::Number;
            i = number_end(s, i);
        } else if (c == '"') {
            kind = Kind::String;
            i = quoted_end(s, i);
        } else if (c == '\'') {
            kind = Kind::Char;
            i = quoted_end(s, i);
        } else {
            kind = Kind::Punct;
            ++i;
        }

        Token token{kind, start, i, false, false};
        if (kind == Kind::Newline) {
            line_start = true;
            in_directive = in_include = false;
            expect = Expect::Nothing;
        } else if (kind != Kind::Whitespace && kind != Kind::LineComment &&
                   kind != Kind::BlockComment) {
            if (line_start && kind == Kind::Punct && c == '#') {
                in_directive = true;
                expect = Expect::DirectiveName;
            } else if (expect == Expect::DirectiveName) {
                const std::string name = s.substr(start, i - start);
                if (kind == Kind::Identifier && (name == "include" || name == "include_next")) {
                    in_include = true;
                    expect = Expect::HeaderName;
                    // The '#' and anything between it and the name belong to it too.
                    for (auto it = tokens.rbegin(); it != tokens.rend() && !it->in_include; ++it) {
                        it->in_include = true;
                        if (it->kind == Kind::Punct) break;  // that was the '#'
                    }
                } else {
                    expect = Expect::Nothing;
                }
            } else {
                expect = Expect::Nothing;
            }
            line_start = false;
        }
        token.in_directive = in_directive;
        token.in_include = in_include;
        tokens.push_back(token);
    }
    return tokens;
}

// Offsets to 1-based line and column.
class LineIndex {
public:
    explicit LineIndex(const std::string& s) {
        starts_.push_back(0);
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s[i] == '\n') starts_.push_back(i + 1);
        }
    }
    std::pair<int, int> locate(std::size_t offset) const {
        const auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
        const std::size_t line = static_cast<std::size_t>(it - starts_.begin());
        return {static_cast<int>(line), static_cast<int>(offset - starts_[line - 1] + 1)};
    }

private:
    std::vector<std::size_t> starts_;
};

// ---------------------------------------------------------------------------
// 2. Looking at tokens
// ---------------------------------------------------------------------------

constexpr std::size_t npos = static_cast<std::size_t>(-1);

// Comments and whitespace: what the compiler sees as (at most) one space.
bool is_trivia(const Token& t) {
    return t.kind == Kind::Whitespace || t.kind == Kind::Newline ||
           t.kind == Kind::LineComment || t.kind == Kind::BlockComment;
}

std::string escape_for_string_literal(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '\\' || c == '"') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::size_t count_newlines(const std::string& s, std::size_t begin, std::size_t end) {
    return static_cast<std::size_t>(std::count(s.begin() + static_cast<std::ptrdiff_t>(begin),
                                               s.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

// The newlines that a rewrite removed, to be put back. Inside a #define a
// bare newline would end the macro, so there they come back as continuations.
std::string newlines(std::size_t count, bool in_directive) {
    std::string out;
    for (std::size_t k = 0; k < count; ++k) out += in_directive ? "\\\n" : "\n";
    return out;
}

// Where one kernel launch sits in the token list.
struct Launch {
    std::size_t callee_begin;  // first token of the kernel name
    std::size_t callee_end;    // one past its last token
    std::size_t open;          // the first '<' of <<<
    std::size_t close;         // the first '>' of >>>
    std::size_t paren_open;    // '(' of the argument list
    std::size_t paren_close;   // its matching ')'
};

// A source text with its tokens, and the small questions the parsers ask.
// It keeps a reference to the text, which must outlive it.
class Source {
public:
    explicit Source(const std::string& text) : text_(text), tokens_(tokenize(text)), lines_(text) {}

    const std::string& text() const { return text_; }
    std::size_t size() const { return tokens_.size(); }
    const Token& operator[](std::size_t i) const { return tokens_[i]; }

    std::string spelling(std::size_t i) const {
        return text_.substr(tokens_[i].begin, tokens_[i].end - tokens_[i].begin);
    }
    bool is_punct(std::size_t i, char c) const {
        return i < size() && tokens_[i].kind == Kind::Punct && text_[tokens_[i].begin] == c;
    }
    bool is_ident(std::size_t i) const { return i < size() && tokens_[i].kind == Kind::Identifier; }
    bool is_ident(std::size_t i, const char* name) const { return is_ident(i) && spelling(i) == name; }

    // Index of the first non-trivia token at or after i (size() if none).
    std::size_t next_code(std::size_t i) const {
        while (i < size() && is_trivia(tokens_[i])) ++i;
        return i;
    }
    // Index of the last non-trivia token before i (npos if none).
    std::size_t prev_code(std::size_t i) const {
        while (i > 0) {
            --i;
            if (!is_trivia(tokens_[i])) return i;
        }
        return npos;
    }
    bool only_trivia(std::size_t begin, std::size_t end) const {
        for (std::size_t i = begin; i < end; ++i) {
            if (!is_trivia(tokens_[i])) return false;
        }
        return true;
    }

    // Three adjacent '<' that are not the tail of a longer run: the only
    // spelling that starts a launch ('x << 3' and 'a<b<<c' never match).
    bool is_launch_open(std::size_t i) const {
        return !tokens_[i].in_include && is_punct(i, '<') && is_punct(i + 1, '<') &&
               is_punct(i + 2, '<') && !(i > 0 && is_punct(i - 1, '<'));
    }
    // 'operator<<<T>' is operator<< with template arguments, not a launch.
    bool follows_operator_keyword(std::size_t open) const {
        return is_ident(prev_code(open), "operator");
    }

    // Tokens [begin, end) as one line: every run of whitespace and comments
    // becomes a single space.
    std::string joined(std::size_t begin, std::size_t end) const {
        std::string out;
        bool pending_space = false;
        for (std::size_t i = begin; i < end; ++i) {
            if (is_trivia(tokens_[i])) {
                pending_space = !out.empty();
            } else {
                if (pending_space) out += ' ';
                out += spelling(i);
                pending_space = false;
            }
        }
        return out;
    }

    std::size_t newlines_between(std::size_t first_token, std::size_t last_token) const {
        return count_newlines(text_, tokens_[first_token].begin, tokens_[last_token].begin);
    }

    Diagnostic diagnostic_at(std::size_t token, std::string message) const {
        const auto [line, column] = lines_.locate(tokens_[token].begin);
        return Diagnostic{line, column, std::move(message)};
    }
    std::pair<int, int> location(std::size_t token) const { return lines_.locate(tokens_[token].begin); }

private:
    const std::string& text_;
    std::vector<Token> tokens_;
    LineIndex lines_;
};

// Result of parsing one construct: either the value or an error message.
template <typename T>
struct Parsed {
    std::optional<T> value;
    std::string error;  // empty with a value, or when the construct was not there at all
};

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
            int parens = 0;
            for (;; --i) {
                if (src.is_punct(i, ')')) ++parens;
                if (src.is_punct(i, '(') && --parens == 0) break;
                if (i == 0) return npos;
            }
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

// Finds the whole launch whose <<< starts at `open`. No value and no error:
// not a launch after all (operator<<<T>).
Parsed<Launch> parse_launch(const Source& src, std::size_t open) {
    Parsed<Launch> result;
    if (src.follows_operator_keyword(open)) return result;
    Launch launch{};
    launch.open = open;

    // The kernel name, backwards: [::] ident (:: ident)* [<template args>].
    std::size_t i = src.prev_code(open);
    if (i == npos) {
        result.error = kNoKernelName;
        return result;
    }
    launch.callee_end = i + 1;
    if (src.is_punct(i, '>')) {
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

    // The configuration, forwards, up to the first >>> outside any brackets.
    // Of a longer run like 'S<4>>>>' the last three close the configuration.
    std::vector<char> brackets;
    const char* const kUnbalancedConfig =
        "kernel launch: unbalanced parentheses or brackets between '<<<' and '>>>'";
    launch.close = npos;
    for (std::size_t t = open + 3; t < src.size(); ++t) {
        if (brackets.empty() && src.is_punct(t, '>') && src.is_punct(t + 1, '>') &&
            src.is_punct(t + 2, '>')) {
            std::size_t run = t;
            while (src.is_punct(run, '>')) ++run;
            launch.close = run - 3;
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
    if (src.only_trivia(open + 3, launch.close)) {
        result.error =
            "kernel launch: empty launch configuration; say how many blocks and threads, "
            "like '<<<blocks, threads>>>'";
        return result;
    }

    // The argument list: '(' right after >>>, up to its matching ')'.
    launch.paren_open = src.next_code(launch.close + 3);
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

// extern __shared__ TYPE NAME[];  ->  the parts that matter.
struct DynamicShared {
    std::string type;
    std::string name;
    std::size_t semicolon;
};

const char* const kDynamicSharedShape =
    "extern __shared__ must declare an array without a size, like "
    "'extern __shared__ float buffer[];' (the size comes from the launch)";

// Called at an 'extern'. No value and no error: not an extern __shared__.
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
    if (m < 4 || !src.is_ident(kept[m - 3]) || !src.is_punct(kept[m - 2], '[') ||
        !src.is_punct(kept[m - 1], ']')) {
        result.error = kDynamicSharedShape;
        return result;
    }
    DynamicShared decl;
    for (std::size_t k = 0; k + 3 < m; ++k) {
        // Tokens that touched in the source stay together (my::T), others get one space.
        if (k > 0 && src[kept[k - 1]].end != src[kept[k]].begin) decl.type += ' ';
        decl.type += src.spelling(kept[k]);
    }
    decl.name = src.spelling(kept[m - 3]);
    decl.semicolon = t;
    result.value = decl;
    return result;
}

// True when the '{' at `brace` opens a namespace or an extern "C" block:
// a scope whose declarations are still at namespace level.
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

// ---------------------------------------------------------------------------
// 3. Emitting
// ---------------------------------------------------------------------------

class Rewriter {
public:
    explicit Rewriter(const Source& src) : src_(src), drop_(src.size(), false) {}

    Result run(const std::string& display_name) {
        find_launches();
        mark_static_shared();
        Result result;
        result.output = "#line 1 \"" + escape_for_string_literal(display_name) + "\"\n";
        emit(0, src_.size(), result.output);
        result.errors = std::move(errors_);
        return result;
    }

private:
    const Source& src_;
    std::map<std::size_t, Launch> launches_;  // keyed by the first token of the kernel name
    std::vector<bool> drop_;                  // tokens left out of the output
    std::vector<bool> scopes_;                // open braces: true for namespace-like ones
    std::vector<Diagnostic> errors_;

    void find_launches() {
        for (std::size_t i = 0; i < src_.size(); ++i) {
            if (!src_.is_launch_open(i)) continue;
            Parsed<Launch> parsed = parse_launch(src_, i);
            if (parsed.value) {
                launches_[parsed.value->callee_begin] = *parsed.value;
            } else if (!parsed.error.empty()) {
                errors_.push_back(src_.diagnostic_at(i, parsed.error));
            }
            i += 2;
        }
    }

    // The emulator header defines __shared__ as 'static thread_local', so a
    // 'static' next to __shared__ would say static twice.
    void mark_static_shared() {
        // Qualifiers that may sit between the two.
        auto skip_qualifiers = [&](std::size_t t) {
            while (src_.is_ident(t, "volatile") || src_.is_ident(t, "__device__")) {
                t = src_.next_code(t + 1);
            }
            return t;
        };
        auto is_blank = [&](std::size_t t) {
            return t < src_.size() && src_[t].kind == Kind::Whitespace &&
                   count_newlines(src_.text(), src_[t].begin, src_[t].end) == 0;
        };
        for (std::size_t i = 0; i < src_.size(); ++i) {
            if (src_[i].in_include) continue;
            if (src_.is_ident(i, "static") &&
                src_.is_ident(skip_qualifiers(src_.next_code(i + 1)), "__shared__")) {
                drop_[i] = true;  // 'static __shared__ int x' -> '__shared__ int x'
                if (is_blank(i + 1)) drop_[i + 1] = true;
            } else if (src_.is_ident(i, "__shared__")) {
                const std::size_t s = skip_qualifiers(src_.next_code(i + 1));
                if (src_.is_ident(s, "static")) {
                    drop_[s] = true;  // '__shared__ static int x' -> '__shared__ int x'
                    if (s > 0 && is_blank(s - 1)) drop_[s - 1] = true;
                }
            }
        }
    }

    // Copies tokens [begin, end) to out, rewriting the constructs on the way.
    // Launch configurations and arguments go through here again, so a launch
    // inside a lambda argument is rewritten too.
    void emit(std::size_t begin, std::size_t end, std::string& out) {
        for (std::size_t i = begin; i < end;) {
            const Token& token = src_[i];
            if (token.in_include) {
                out.append(src_.text(), token.begin, token.end - token.begin);
                ++i;
                continue;
            }
            if (drop_[i]) {
                ++i;
                continue;
            }
            if (auto launch = launches_.find(i); launch != launches_.end()) {
                emit_launch(launch->second, out);
                i = launch->second.paren_close + 1;
                continue;
            }
            if (src_.is_ident(i, "extern")) {
                if (const std::size_t after = emit_dynamic_shared(i, out)) {
                    i = after;
                    continue;
                }
            }
            if (src_.is_ident(i, "__noinline__")) {
                // Not a macro in the header: libstdc++ writes
                // __attribute__((__noinline__)) and a macro would break it.
                out += "__attribute__((noinline))";
                ++i;
                continue;
            }
            if (!token.in_directive && src_.is_punct(i, '{')) scopes_.push_back(opens_namespace_scope(src_, i));
            if (!token.in_directive && src_.is_punct(i, '}') && !scopes_.empty()) scopes_.pop_back();
            out.append(src_.text(), token.begin, token.end - token.begin);
            ++i;
        }
    }

    //   k<<<CFG>>>(ARGS)  ->
    //   ::cuemu::launch(::cuemu::launch_site{"k", __FILE__, __LINE__},
    //                   ::cuemu::launch_config(CFG),
    //                   [=](auto&&... cuemu_args_) { k(cuemu_args_...); },
    //                   ::cuemu::kernel_ref{RESOLVER}, ARGS)
    // all on the line of 'k'. CFG and ARGS keep their own newlines; the ones
    // inside a multi-line kernel name (and before <<<) come back right after
    // 'launch_config(', those between >>> and '(' right after its ')'.
    void emit_launch(const Launch& launch, std::string& out) {
        const bool in_directive = src_[launch.open].in_directive;
        const std::string callee = src_.joined(launch.callee_begin, launch.callee_end);
        out += "::cuemu::launch(::cuemu::launch_site{\"" + escape_for_string_literal(callee) +
               "\", __FILE__, __LINE__}, ::cuemu::launch_config(";
        out += newlines(src_.newlines_between(launch.callee_begin, launch.open), in_directive);
        emit(launch.open + 3, launch.close, out);
        out += ")";
        out += newlines(src_.newlines_between(launch.close, launch.paren_open), in_directive);
        out += ", [=](auto&&... cuemu_args_) { " + callee + "(cuemu_args_...); }";
        // The kernel's address for the parameters-as-bytes launch (launch.h).
        out += ", ::cuemu::kernel_ref{[=](auto cuemu_fp_) -> decltype(static_cast<typename "
               "decltype(cuemu_fp_)::type>(" + callee + ")) { return static_cast<typename "
               "decltype(cuemu_fp_)::type>(" + callee + "); }}";
        if (!src_.only_trivia(launch.paren_open + 1, launch.paren_close)) out += ", ";
        emit(launch.paren_open + 1, launch.paren_close, out);
        out += ")";
    }

    // extern __shared__ T name[];  ->  T* name = reinterpret_cast<T*>(::cuemu::dynamic_shared_memory());
    // Returns the index after the ';', or 0 when the 'extern' at `at` was left as it is.
    std::size_t emit_dynamic_shared(std::size_t at, std::string& out) {
        Parsed<DynamicShared> parsed = parse_dynamic_shared(src_, at);
        if (!parsed.value) {
            if (!parsed.error.empty()) errors_.push_back(src_.diagnostic_at(at, parsed.error));
            return 0;
        }
        const bool in_directive = src_[at].in_directive;
        // Inside a #define we cannot know the scope; the compiler will tell.
        if (!in_directive && std::all_of(scopes_.begin(), scopes_.end(), [](bool ns) { return ns; })) {
            errors_.push_back(src_.diagnostic_at(
                at, "extern __shared__ at file scope is not supported by the emulator; "
                    "declare it inside the kernel"));
            return 0;
        }
        const DynamicShared& decl = *parsed.value;
        out += decl.type + "* " + decl.name + " = reinterpret_cast<" + decl.type +
               "*>(::cuemu::dynamic_shared_memory());";
        out += newlines(src_.newlines_between(at, decl.semicolon), in_directive);
        return decl.semicolon + 1;
    }

    // Does the '{' at `brace` open a namespace-like scope? That is
    // 'namespace [a::b] {', 'inline namespace v1 {' or 'extern "C" {'.
};

// ---------------------------------------------------------------------------
// 4. The execution-space check
// ---------------------------------------------------------------------------
// nvcc refuses a kernel or __device__ function that calls a host function,
// host code that calls a __device__ function, and a __global__ function
// called like an ordinary function (without <<<...>>>). The emulator compiles
// __host__ and __device__ as nothing, so without this check those mistakes
// would build and run here and fail only on a machine with nvcc. The messages
// are nvcc's words.
//
// It is not a C++ parser: it knows the functions defined at namespace scope
// in this file, by name, and looks for calls of those names. Whatever it
// cannot be sure of is left alone, because refusing good code is worse than
// missing a bug nvcc will still catch: a name defined with different
// qualifiers (overloads), members, explicit template arguments, constexpr
// functions, qualifiers hidden in a macro (a head with an ALL_CAPS name),
// calls inside __host__ __device__ functions, and code inside #define.

enum class Space { host, device, host_device, global };

const char* space_word(Space s) {
    switch (s) {
        case Space::host: return "__host__";
        case Space::device: return "__device__";
        case Space::host_device: return "__host__ __device__";
        case Space::global: return "__global__";
    }
    return "";
}

struct FunctionDefinition {
    std::string name;
    Space space;
    bool certain;  // false: the qualifiers may hide in a macro, or it is constexpr
    std::size_t body_open, body_close;  // its '{' and '}'
};

// The '}' that closes the '{' at `open` (braces inside #define lines do not
// count), or npos.
std::size_t matching_brace(const Source& src, std::size_t open) {
    int depth = 0;
    for (std::size_t i = open; i < src.size(); ++i) {
        if (src[i].in_directive) continue;
        if (src.is_punct(i, '{')) ++depth;
        if (src.is_punct(i, '}') && --depth == 0) return i;
    }
    return npos;
}

// An identifier spelled like a macro (HD, CUDA_CALLABLE): it may stand for
// __host__ __device__, so the function's space is not certain.
bool looks_like_macro(const std::string& name) {
    if (name.size() < 2 || name.compare(0, 2, "__") == 0) return false;
    bool letter = false;
    for (char c : name) {
        if (c >= 'a' && c <= 'z') return false;
        if (c >= 'A' && c <= 'Z') letter = true;
    }
    return letter;
}

// Names that may come right before a '(' in a function's head without being
// its name.
bool is_head_keyword(const std::string& name) {
    static const std::set<std::string> words = {
        "__launch_bounds__", "__align__", "alignas", "__attribute__", "__declspec", "decltype",
        "noexcept", "sizeof", "alignof", "requires", "throw", "__cluster_dims__"};
    return words.count(name) != 0;
}

// If the tokens [begin, brace) are the head of a function definition at
// namespace scope, the function (body still to be filled in).
std::optional<FunctionDefinition> function_head(const Source& src, std::size_t begin, std::size_t brace) {
    std::size_t first = src.next_code(begin);
    if (first >= brace) return std::nullopt;
    for (const char* word : {"class", "struct", "union", "enum", "namespace", "extern"}) {
        if (src.is_ident(first, word)) return std::nullopt;
    }
    // Skip a template parameter list: its '=' and '(' belong to the parameters.
    std::size_t i = first;
    if (src.is_ident(i, "template")) {
        i = src.next_code(i + 1);
        int angle = 0;
        for (; i < brace; ++i) {
            if (src.is_punct(i, '<')) ++angle;
            if (src.is_punct(i, '>') && --angle == 0) break;
        }
        if (i >= brace) return std::nullopt;
        ++i;
    }
    const std::size_t head_start = i;
    int parens = 0;
    std::size_t name = npos;
    for (; i < brace; ++i) {
        if (src[i].in_directive || is_trivia(src[i])) continue;
        if (parens == 0 && (src.is_punct(i, '=') || src.is_punct(i, ';'))) return std::nullopt;
        if (src.is_punct(i, '(')) {
            if (parens == 0 && name == npos) {
                std::size_t before = src.prev_code(i);
                if (before == npos || before < head_start || !src.is_ident(before)) return std::nullopt;
                if (!is_head_keyword(src.spelling(before))) {
                    name = before;
                    break;
                }
            }
            ++parens;
        }
        if (src.is_punct(i, ')')) --parens;
    }
    if (name == npos) return std::nullopt;
    // A member defined outside its class (S::f), an operator or a destructor.
    const std::size_t before_name = src.prev_code(name);
    if (before_name != npos && before_name >= head_start &&
        (src.is_punct(before_name, ':') || src.is_punct(before_name, '~') ||
         src.is_ident(before_name, "operator"))) {
        return std::nullopt;
    }
    FunctionDefinition f{src.spelling(name), Space::host, true, brace, npos};
    bool global = false, device = false, host = false;
    for (std::size_t t = first; t < name; ++t) {
        if (!src.is_ident(t) || src[t].in_directive) continue;
        const std::string word = src.spelling(t);
        if (word == "__global__") global = true;
        if (word == "__device__") device = true;
        if (word == "__host__") host = true;
        if (word == "constexpr" || word == "consteval" || looks_like_macro(word)) f.certain = false;
    }
    f.space = global ? Space::global : device ? (host ? Space::host_device : Space::device) : Space::host;
    return f;
}

// Every function defined at namespace scope, with its body.
std::vector<FunctionDefinition> function_definitions(const Source& src) {
    std::vector<FunctionDefinition> found;
    std::size_t declaration_start = 0;
    for (std::size_t i = 0; i < src.size(); ++i) {
        if (src[i].in_directive || src[i].in_include || is_trivia(src[i])) continue;
        if (src.is_punct(i, ';') || src.is_punct(i, '}')) {
            declaration_start = i + 1;  // a '}' here closes a namespace
        } else if (src.is_punct(i, '{')) {
            if (opens_namespace_scope(src, i)) {
                declaration_start = i + 1;
                continue;
            }
            const std::size_t close = matching_brace(src, i);
            if (close == npos) return {};  // unbalanced (#if branches?): check nothing
            if (std::optional<FunctionDefinition> f = function_head(src, declaration_start, i)) {
                f->body_close = close;
                found.push_back(*f);
            }
            i = close;  // a class body or an initializer: nothing to look at inside
            declaration_start = close + 1;
        }
    }
    return found;
}

// Words after which `name(` is still a call: `return f(x)` is a call,
// `float f(float)` a declaration.
bool may_precede_call(const std::string& word) {
    static const std::set<std::string> words = {"return", "else", "do", "case", "throw",
                                                "co_return", "co_yield", "co_await"};
    return words.count(word) != 0;
}

std::vector<Diagnostic> check_execution_spaces(const Source& src) {
    const std::vector<FunctionDefinition> functions = function_definitions(src);
    std::map<std::string, std::set<Space>> spaces;  // every space each name is defined in
    std::set<std::string> uncertain;
    for (const FunctionDefinition& f : functions) {
        spaces[f.name].insert(f.space);
        if (!f.certain) uncertain.insert(f.name);
    }
    std::vector<Diagnostic> errors;
    for (const FunctionDefinition& caller : functions) {
        if (caller.space == Space::host_device || !caller.certain) continue;
        for (std::size_t i = caller.body_open + 1; i < caller.body_close; ++i) {
            if (!src.is_ident(i) || src[i].in_directive) continue;
            const std::string name = src.spelling(i);
            const auto known = spaces.find(name);
            if (known == spaces.end() || known->second.size() != 1 || uncertain.count(name)) continue;
            if (!src.is_punct(src.next_code(i + 1), '(')) continue;  // not a call (or f<T>(...))
            const std::size_t before = src.prev_code(i);
            const bool qualified = src.is_punct(before, ':') && src.is_punct(src.prev_code(before), ':');
            if (src.is_punct(before, '.') || qualified || src.is_punct(before, '>') ||
                src.is_punct(before, '&') ||
                (src.is_ident(before) && !may_precede_call(src.spelling(before)))) {
                continue;  // a member, a qualified name, a declaration, an address
            }
            const Space callee = *known->second.begin();
            std::string message;
            if (callee == Space::global) {
                message = "a __global__ function call must be configured: launch " + name +
                          " with <<<blocks, threads_per_block>>>(...), not like an ordinary function";
            } else if ((callee == Space::host && caller.space != Space::host) ||
                       (callee == Space::device && caller.space == Space::host)) {
                message = std::string("calling a ") + space_word(callee) + " function(\"" + name +
                          "\") from a " + space_word(caller.space) + " function(\"" + caller.name +
                          "\") is not allowed";
                message += callee == Space::host
                               ? " (nvcc refuses it: mark " + name +
                                     " __device__, or __host__ __device__ to call it from both sides)"
                               : " (nvcc refuses it: a __device__ function runs only on the GPU; mark " +
                                     name + " __host__ __device__ to call it from both sides)";
            } else {
                continue;
            }
            errors.push_back(src.diagnostic_at(i, message));
        }
    }
    return errors;
}

// ---------------------------------------------------------------------------
// The include check
// ---------------------------------------------------------------------------

std::string directory_of(const std::string& path) {
    const std::size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// Where #include "name" in `including_file` points, as the compiler looks
// first: next to the including file. "a/../b.h" becomes "b.h".
std::string resolve(const std::string& including_file, const std::string& name) {
    const std::string joined = !name.empty() && name[0] == '/' ? name : directory_of(including_file) + name;
    return std::filesystem::path(joined).lexically_normal().generic_string();
}

struct QuotedInclude {
    std::size_t hash_token;  // the '#', where an error is reported
    std::string name;        // between the quotes
};

std::vector<QuotedInclude> quoted_includes(const Source& src) {
    std::vector<QuotedInclude> found;
    for (std::size_t i = 0; i < src.size(); ++i) {
        if (!src.is_ident(i, "include") && !src.is_ident(i, "include_next")) continue;
        if (!src[i].in_include) continue;
        const std::size_t file = src.next_code(i + 1);
        if (file >= src.size() || src[file].kind != Kind::String) continue;
        const std::string quoted = src.spelling(file);
        if (quoted.size() < 2 || quoted.front() != '"' || quoted.back() != '"') continue;
        std::size_t hash = i;
        while (hash > 0 && !src.is_punct(hash, '#')) --hash;
        found.push_back({hash, quoted.substr(1, quoted.size() - 2)});
    }
    return found;
}

// Looks for a launch in `path` and, through its quoted includes, in the
// headers it includes. Returns "file:line" of the first one, or "".
std::string find_launch_in_header(const std::string& path, const FileReader& read_file,
                                  std::set<std::string>& visited) {
    if (visited.size() > 256 || !visited.insert(path).second) return "";
    const std::optional<std::string> text = read_file(path);
    if (!text) return "";
    const Source header(*text);
    for (std::size_t i = 0; i < header.size(); ++i) {
        if (header.is_launch_open(i) && !header.follows_operator_keyword(i)) {
            return path + ":" + std::to_string(header.location(i).first);
        }
    }
    for (const QuotedInclude& include : quoted_includes(header)) {
        std::string where = find_launch_in_header(resolve(path, include.name), read_file, visited);
        if (!where.empty()) return where;
    }
    return "";
}

Result rewrite_impl(const std::string& original, const std::string& display_name,
                    const FileReader* read_file) {
    // A UTF-8 byte order mark would end up after our #line, where g++ rejects it.
    const bool bom = original.compare(0, 3, "\xEF\xBB\xBF") == 0;
    const std::string text = bom ? original.substr(3) : original;
    const Source src(text);
    Result result = Rewriter(src).run(display_name);
    for (Diagnostic& d : check_execution_spaces(src)) result.errors.push_back(std::move(d));

    if (read_file && *read_file) {
        std::set<std::string> visited{display_name};
        for (const QuotedInclude& include : quoted_includes(src)) {
            const std::string where =
                find_launch_in_header(resolve(display_name, include.name), *read_file, visited);
            if (!where.empty()) {
                result.errors.push_back(src.diagnostic_at(
                    include.hash_token,
                    "kernel launches inside included headers are not rewritten by the emulator; "
                    "move the launch into the .cu file (launch found at " + where + ")"));
            }
        }
    }
    std::stable_sort(result.errors.begin(), result.errors.end(),
                     [](const Diagnostic& a, const Diagnostic& b) {
                         return std::make_pair(a.line, a.column) < std::make_pair(b.line, b.column);
                     });
    return result;
}

}  // namespace

Result rewrite(const std::string& source, const std::string& display_name) {
    return rewrite_impl(source, display_name, nullptr);
}

Result rewrite(const std::string& source, const std::string& display_name,
               const FileReader& read_file) {
    return rewrite_impl(source, display_name, &read_file);
}

}  // namespace cuemu_rewrite
