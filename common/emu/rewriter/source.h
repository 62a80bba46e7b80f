// source.h - a .cu or header text as tokens, for the rewriter's parsers.
//
// The tokenizer is not a C++ parser: it only knows enough to tell code from
// comments, string/char literals (raw strings included), numbers (with '
// digit separators) and preprocessor lines, so that nothing inside those is
// ever rewritten by mistake. Source adds the small questions every parser
// asks (is this a '<'? what is the next token that is code?).
#ifndef CUEMU_REWRITE_SOURCE_H
#define CUEMU_REWRITE_SOURCE_H

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "rewrite.h"

namespace cuemu_rewrite::internal {

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
    Inactive,      // code in a preprocessor branch the compiler skips: copied, never parsed
};

struct Token {
    Kind kind;
    std::size_t begin;  // byte offsets into the source
    std::size_t end;
    bool in_directive;  // part of a preprocessor line (#define, #if, ...)
    bool in_include;    // part of an #include line: always copied untouched
};

std::vector<Token> tokenize(const std::string& s);

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

constexpr std::size_t npos = static_cast<std::size_t>(-1);

// Comments and whitespace: what the compiler sees as (at most) one space.
inline bool is_trivia(const Token& t) {
    return t.kind == Kind::Inactive || t.kind == Kind::Whitespace || t.kind == Kind::Newline ||
           t.kind == Kind::LineComment || t.kind == Kind::BlockComment;
}

inline std::string escape_for_string_literal(const std::string& text) {
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

inline std::size_t count_newlines(const std::string& s, std::size_t begin, std::size_t end) {
    return static_cast<std::size_t>(std::count(s.begin() + static_cast<std::ptrdiff_t>(begin),
                                               s.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

// The newlines that a rewrite removed, to be put back. Inside a #define a
// bare newline would end the macro, so there they come back as continuations.
inline std::string newlines(std::size_t count, bool in_directive) {
    std::string out;
    for (std::size_t k = 0; k < count; ++k) out += in_directive ? "\\\n" : "\n";
    return out;
}

// Whether a backward bracket match may leave the preprocessor line (or the
// code outside one) that it starts in.
enum class DirectiveEdge { stops, crossed };

// How much of the statement grammar Source::statement_end knows.
enum class StatementGrammar {
    // A #pragma line before a statement goes with it, `if constexpr` is an
    // if, and a keyword statement without its '(' (or a do loop without its
    // ';') is not understood.
    full,
    // None of that: a keyword statement without its '(' (`if constexpr`
    // too) runs to its first ';', and a do loop ends at whatever token
    // follows its while's ')'. rename_redeclared has always read for loops'
    // bodies this way; a kernel it renames must come out the same.
    basic,
};

// A source text with its tokens, and the small questions the parsers ask.
// It keeps a reference to the text, which must outlive it.
class Source {
public:
    explicit Source(const std::string& text) : text_(text), tokens_(tokenize(text)), lines_(text) {}

    // Token i is in a branch the compiler skips: from now on it is trivia.
    void mark_inactive(std::size_t i) { tokens_[i].kind = Kind::Inactive; }

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

    // The token after i, past a backslash-newline that splices two lines
    // (the compiler joins them before it sees tokens, so '<\\\n<<' is '<<<').
    std::size_t next_spliced(std::size_t i) const {
        std::size_t j = i + 1;
        if (j < size() && tokens_[j].kind == Kind::Whitespace && only_splices(j)) ++j;
        return j;
    }
    // Three '<' (or '>') in a row, splices allowed: one past the third, or npos.
    std::size_t triple_end(std::size_t i, char c) const {
        if (!is_punct(i, c)) return npos;
        const std::size_t second = next_spliced(i);
        if (!is_punct(second, c)) return npos;
        const std::size_t third = next_spliced(second);
        if (!is_punct(third, c)) return npos;
        return third + 1;
    }
    // Three adjacent '<' that are not the tail of a longer run: the only
    // spelling that starts a launch ('x << 3' and 'a<b<<c' never match).
    bool is_launch_open(std::size_t i) const {
        if (tokens_[i].in_include || triple_end(i, '<') == npos) return false;
        if (i > 0 && is_punct(i - 1, '<')) return false;
        return !(i > 1 && is_punct(i - 2, '<') && tokens_[i - 1].kind == Kind::Whitespace && only_splices(i - 1));
    }
    // 'operator<<<T>' is operator<< with template arguments, not a launch.
    bool follows_operator_keyword(std::size_t open) const {
        return is_ident(prev_code(open), "operator");
    }

    // The token that starts at byte `offset`, or npos.
    std::size_t token_at(std::size_t offset) const;
    // One past the last token of the directive that starts at i.
    std::size_t directive_end(std::size_t i) const {
        while (i < size() && tokens_[i].in_directive) ++i;
        return i;
    }

    // Brackets, for parsers that meet only code the compiler accepts: a
    // mismatch is npos, for the caller to refuse in its own terms.
    // One past the ')', ']' or '}' that closes the group opened at i (one
    // depth for all three kinds: code the compiler accepts pairs them anyway).
    std::size_t group_end(std::size_t open) const;
    // The `opening` bracket that pairs with the `closing` one at `close`.
    std::size_t matching_open_back(std::size_t close, char opening, char closing, DirectiveEdge edge) const;
    // One past the last token of the statement that starts at i, searched
    // before `limit`: a block, an if (with its else), a loop, or up to its ';'.
    std::size_t statement_end(std::size_t i, std::size_t limit, StatementGrammar grammar) const;

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
    bool only_splices(std::size_t j) const {
        for (std::size_t k = tokens_[j].begin; k < tokens_[j].end; ++k) {
            const char c = text_[k];
            if (c != '\\' && c != '\n' && c != '\r') return false;
        }
        return true;
    }

    const std::string& text_;
    std::vector<Token> tokens_;
    LineIndex lines_;
};

}  // namespace cuemu_rewrite::internal

#endif
