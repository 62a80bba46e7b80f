// source.cpp - the tokenizer behind source.h, and the bracket and
// statement matching its parsers share.
#include "source.h"

namespace cuemu_rewrite::internal {
namespace {

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

}  // namespace

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

std::size_t Source::token_at(std::size_t offset) const {
    // Tokens are never empty, so their starts increase: one can start at `offset`.
    const auto it = std::lower_bound(tokens_.begin(), tokens_.end(), offset,
                                     [](const Token& t, std::size_t at) { return t.begin < at; });
    return it != tokens_.end() && it->begin == offset ? static_cast<std::size_t>(it - tokens_.begin()) : npos;
}

std::size_t Source::group_end(std::size_t open) const {
    int depth = 0;
    for (std::size_t t = open; t < size(); t = next_code(t + 1)) {
        if (is_punct(t, '(') || is_punct(t, '[') || is_punct(t, '{')) ++depth;
        if ((is_punct(t, ')') || is_punct(t, ']') || is_punct(t, '}')) && --depth == 0) return t + 1;
    }
    return npos;
}

std::size_t Source::matching_open_back(std::size_t close, char opening, char closing, DirectiveEdge edge) const {
    int depth = 0;
    for (std::size_t i = close + 1; i-- > 0;) {
        if (is_punct(i, closing)) ++depth;
        if (is_punct(i, opening) && --depth == 0) return i;
        if (edge == DirectiveEdge::stops && tokens_[i].in_directive != tokens_[close].in_directive) return npos;
    }
    return npos;
}

std::size_t Source::statement_end(std::size_t i, std::size_t limit, StatementGrammar grammar) const {
    const bool full = grammar == StatementGrammar::full;
    if (full)
        while (i < limit && tokens_[i].in_directive) i = next_code(directive_end(i));  // #pragma unroll
    if (is_punct(i, '{')) return group_end(i);
    const bool is_if = is_ident(i, "if");
    if (is_if || is_ident(i, "for") || is_ident(i, "while") || is_ident(i, "switch")) {
        std::size_t open = next_code(i + 1);
        if (full && is_if && is_ident(open, "constexpr")) open = next_code(open + 1);
        if (is_punct(open, '(')) {
            const std::size_t close = group_end(open);
            if (close == npos) return npos;
            std::size_t end = statement_end(next_code(close), limit, grammar);
            if (end != npos && is_if && is_ident(next_code(end), "else"))
                end = statement_end(next_code(next_code(end) + 1), limit, grammar);
            return end;
        }
        if (full) return npos;
    } else if (is_ident(i, "do")) {
        const std::size_t body_end = statement_end(next_code(i + 1), limit, grammar);
        if (body_end == npos) return npos;
        const std::size_t w = next_code(body_end);
        if (!is_ident(w, "while") || !is_punct(next_code(w + 1), '(')) return npos;
        const std::size_t condition_end = group_end(next_code(w + 1));
        if (condition_end == npos) return npos;
        const std::size_t semi = next_code(condition_end);
        if (full && !is_punct(semi, ';')) return npos;
        return semi + 1;
    }
    for (std::size_t t = i; t < limit; t = next_code(t + 1)) {
        if (is_punct(t, '(') || is_punct(t, '[') || is_punct(t, '{')) {
            const std::size_t end = group_end(t);
            if (end == npos) return npos;
            t = end - 1;
        } else if (is_punct(t, ';')) {
            return t + 1;
        }
    }
    return npos;
}

}  // namespace cuemu_rewrite::internal
