// conditionals.cpp - #if evaluation and which branches the compiler will see
// (see conditionals.h).
#include "conditionals.h"

#include <cctype>
#include <limits>
#include <cstdlib>

namespace cuemu_rewrite::internal {
namespace {

using Value = std::optional<long long>;

// Arithmetic wraps around, as the preprocessor's does in practice; in
// unsigned so that no overflow is undefined behaviour here.
long long wrap(unsigned long long v) { return static_cast<long long>(v); }

// The tokens of a #if expression: names, numbers and operators ("&&", "<=").
std::vector<std::string> expression_tokens(const std::string& e) {
    static const char* const two_char[] = {"&&", "||", "==", "!=", "<=", ">=", "<<", ">>"};
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < e.size()) {
        const unsigned char c = static_cast<unsigned char>(e[i]);
        if (std::isspace(c)) {
            ++i;
        } else if (std::isalpha(c) || c == '_') {
            std::size_t j = i;
            while (j < e.size() && (std::isalnum(static_cast<unsigned char>(e[j])) || e[j] == '_')) ++j;
            out.push_back(e.substr(i, j - i));
            i = j;
        } else if (std::isdigit(c)) {
            std::size_t j = i;
            while (j < e.size() && (std::isalnum(static_cast<unsigned char>(e[j])) || e[j] == '\'' ||
                                    e[j] == '.')) {
                ++j;
            }
            out.push_back(e.substr(i, j - i));
            i = j;
        } else {
            std::string op(1, e[i]);
            for (const char* two : two_char) {
                if (e.compare(i, 2, two) == 0) op = two;
            }
            out.push_back(op);
            i += op.size();
        }
    }
    return out;
}

// Recursive descent over one expression, with C's precedence. Every result
// is a Value: nullopt where something unknown decides it. `&&`, `||` and
// `?:` still give a value when the known side decides alone.
class Evaluator {
public:
    Evaluator(std::vector<std::string> tokens, const MacroTable& macros, ArchSide side, int depth)
        : tokens_(std::move(tokens)), macros_(macros), side_(side), depth_(depth) {}

    Value run() {
        Value v = conditional();
        if (broken_ || pos_ != tokens_.size()) return std::nullopt;
        return v;
    }

private:
    std::vector<std::string> tokens_;
    const MacroTable& macros_;
    ArchSide side_;
    int depth_;
    std::size_t pos_ = 0;
    bool broken_ = false;  // a syntax the evaluator does not know: the whole value is unknown

    const std::string& peek() const {
        static const std::string end;
        return pos_ < tokens_.size() ? tokens_[pos_] : end;
    }
    bool take(const char* s) {
        if (peek() == s) {
            ++pos_;
            return true;
        }
        return false;
    }

    Value conditional() {
        Value c = logical_or();
        if (!take("?")) return c;
        Value a = conditional();
        if (!take(":")) broken_ = true;
        Value b = conditional();
        if (c) return *c ? a : b;
        return a && b && *a == *b ? a : std::nullopt;
    }
    Value logical_or() {
        Value v = logical_and();
        while (take("||")) {
            Value r = logical_and();
            if ((v && *v) || (r && *r)) {
                v = 1;
            } else if (v && r) {
                v = 0;
            } else {
                v = std::nullopt;
            }
        }
        return v;
    }
    Value logical_and() {
        Value v = binary(0);
        while (take("&&")) {
            Value r = binary(0);
            if ((v && !*v) || (r && !*r)) {
                v = 0;
            } else if (v && r) {
                v = 1;
            } else {
                v = std::nullopt;
            }
        }
        return v;
    }
    // The left-associative binary operators, loosest first.
    Value binary(int level) {
        static const std::vector<std::vector<std::string>> levels = {
            {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", ">", "<=", ">="}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
        if (level == static_cast<int>(levels.size())) return unary();
        Value v = binary(level + 1);
        for (;;) {
            std::string op;
            for (const std::string& candidate : levels[static_cast<std::size_t>(level)]) {
                if (peek() == candidate) op = candidate;
            }
            if (op.empty()) return v;
            ++pos_;
            Value r = binary(level + 1);
            if (!v || !r) {
                v = std::nullopt;
                continue;
            }
            const long long a = *v, b = *r;
            if (op == "|") v = a | b;
            else if (op == "^") v = a ^ b;
            else if (op == "&") v = a & b;
            else if (op == "==") v = a == b;
            else if (op == "!=") v = a != b;
            else if (op == "<") v = a < b;
            else if (op == ">") v = a > b;
            else if (op == "<=") v = a <= b;
            else if (op == ">=") v = a >= b;
            else if (op == "<<") v = b >= 0 && b < 64 ? wrap(static_cast<unsigned long long>(a) << b) : 0;
            else if (op == ">>") v = b >= 0 && b < 64 ? a >> b : 0;
            else if (op == "+") v = wrap(static_cast<unsigned long long>(a) + static_cast<unsigned long long>(b));
            else if (op == "-") v = wrap(static_cast<unsigned long long>(a) - static_cast<unsigned long long>(b));
            else if (op == "*") v = wrap(static_cast<unsigned long long>(a) * static_cast<unsigned long long>(b));
            else if (b == 0 || (b == -1 && a == std::numeric_limits<long long>::min())) v = std::nullopt;  // the compiler will say
            else v = op == "/" ? a / b : a % b;
        }
    }
    Value unary() {
        if (take("!")) {
            Value v = unary();
            return v ? Value(!*v) : std::nullopt;
        }
        if (take("-")) {
            Value v = unary();
            return v ? Value(wrap(0ULL - static_cast<unsigned long long>(*v))) : std::nullopt;
        }
        if (take("+")) return unary();
        if (take("~")) {
            Value v = unary();
            return v ? Value(~*v) : std::nullopt;
        }
        return primary();
    }
    Value primary() {
        if (take("(")) {
            Value v = conditional();
            if (!take(")")) broken_ = true;
            return v;
        }
        if (pos_ >= tokens_.size()) {
            broken_ = true;
            return std::nullopt;
        }
        const std::string token = tokens_[pos_++];
        if (std::isdigit(static_cast<unsigned char>(token[0]))) return number(token);
        if (!(std::isalpha(static_cast<unsigned char>(token[0])) || token[0] == '_')) {
            broken_ = true;  // a char literal or something stranger
            return std::nullopt;
        }
        if (token == "defined") {
            const bool paren = take("(");
            const std::string name = pos_ < tokens_.size() ? tokens_[pos_++] : "";
            if (paren && !take(")")) broken_ = true;
            return is_defined(name);
        }
        if (token == "true") return 1;
        if (token == "false") return 0;
        if (token == "__CUDA_ARCH__") {
            if (side_ == ArchSide::device) return kEmulatedArch;
            return side_ == ArchSide::host ? Value(0) : std::nullopt;
        }
        if (peek() == "(") {  // a function-like macro or __has_include(...): not evaluated
            skip_group();
            return std::nullopt;
        }
        const auto known = macros_.known.find(token);
        if (known == macros_.known.end()) return std::nullopt;
        if (!known->second) return 0;  // an undefined name is 0 in #if
        if (depth_ > 16) return std::nullopt;
        return Evaluator(expression_tokens(*known->second), macros_, side_, depth_ + 1).run();
    }
    Value is_defined(const std::string& name) {
        if (name == "__CUDA_ARCH__") {
            if (side_ == ArchSide::unknown) return std::nullopt;
            return side_ == ArchSide::device ? 1 : 0;
        }
        const auto known = macros_.known.find(name);
        if (known == macros_.known.end()) return std::nullopt;
        return known->second ? 1 : 0;
    }
    void skip_group() {
        int depth = 0;
        for (; pos_ < tokens_.size(); ++pos_) {
            if (tokens_[pos_] == "(") ++depth;
            if (tokens_[pos_] == ")" && --depth == 0) {
                ++pos_;
                return;
            }
        }
        broken_ = true;
    }
    Value number(std::string token) {
        token.erase(std::remove(token.begin(), token.end(), '\''), token.end());
        while (!token.empty() && (token.back() == 'u' || token.back() == 'U' || token.back() == 'l' ||
                                  token.back() == 'L')) {
            token.pop_back();
        }
        const bool binary = token.size() > 2 && token[0] == '0' && (token[1] == 'b' || token[1] == 'B');
        const char* digits = token.c_str() + (binary ? 2 : 0);
        char* end = nullptr;
        const long long v = std::strtoll(digits, &end, binary ? 2 : 0);
        if (end == digits || *end != '\0') return std::nullopt;
        return v;
    }
};

// True when only blanks come before token i on its line.
bool starts_line(const Source& src, std::size_t i) {
    while (i > 0) {
        --i;
        if (src[i].kind == Kind::Newline) return true;
        if (src[i].kind != Kind::Whitespace && src[i].kind != Kind::BlockComment) return false;
    }
    return true;
}

// The '#' of an include guard (#ifndef X / #define X as the first two
// directives, before any code), or npos.
std::size_t include_guard(const Source& src) {
    const std::size_t hash = src.next_code(0);
    if (!src.is_punct(hash, '#') || !src.is_ident(src.next_code(hash + 1), "ifndef")) return npos;
    const std::size_t name = src.next_code(src.next_code(hash + 1) + 1);
    const std::size_t define_hash = src.next_code(name + 1);
    const std::size_t define = src.next_code(define_hash + 1);
    const std::size_t defined_name = src.next_code(define + 1);
    if (!src.is_ident(name) || !src.is_punct(define_hash, '#') || !src.is_ident(define, "define") ||
        !src.is_ident(defined_name) || src.spelling(name) != src.spelling(defined_name)) {
        return npos;
    }
    return hash;
}

bool names_arch(const std::string& text) { return text.find("__CUDA_ARCH__") != std::string::npos; }

// What the rewriter knows before the first line: the command line, and what
// the emulator's force-included header defines.
void add_predefined(MacroTable& macros) {
    for (const char* name : {"__CUDACC__", "CUEMU"}) {
        if (!macros.known.count(name)) macros.known[name] = std::string("1");
    }
    // nvcc's version and the runtime's, as cuemu/cuemu.h defines them (its
    // values are checked against these in tests/emu/test_runtime_extra.cu):
    // llm.c tests __CUDACC_VER_MAJOR__ beside __CUDA_ARCH__ at file scope,
    // which the rewriter must then decide. The three nvcc ones come as a
    // group, unless the command line gave the first.
    if (!macros.known.count("__CUDACC_VER_MAJOR__")) {
        macros.known["__CUDACC_VER_MAJOR__"] = std::string("13");
        macros.known["__CUDACC_VER_MINOR__"] = std::string("0");
        macros.known["__CUDACC_VER_BUILD__"] = std::string("88");
    }
    if (!macros.known.count("CUDART_VERSION")) macros.known["CUDART_VERSION"] = std::string("13000");
    // Defined in every C++ compilation; its value depends on -std, so it is
    // left to a name the evaluator does not know.
    macros.known["__cplusplus"] = std::string("__cplusplus_value");
}

struct Frame {
    std::size_t group;
    Activity outer;
    bool taken = false;        // an earlier branch was certainly taken
    bool maybe_taken = false;  // an earlier branch may have been taken
    Activity current = Activity::active;
};

// The activity of a branch whose condition has value `v`, after the earlier
// branches of its group.
Activity branch_activity(Frame& f, const std::optional<long long>& v) {
    Activity mine;
    if (f.outer == Activity::inactive || f.taken || (v && *v == 0)) {
        mine = Activity::inactive;
    } else if (v && !f.maybe_taken) {
        mine = Activity::active;
    } else {
        mine = Activity::unknown;
    }
    if (mine == Activity::active) f.taken = true;
    if (mine == Activity::unknown) f.maybe_taken = true;
    if (mine == Activity::active && f.outer == Activity::unknown) mine = Activity::unknown;
    return mine;
}

}  // namespace

std::optional<long long> evaluate_condition(const std::string& expression, const MacroTable& macros,
                                            ArchSide side) {
    return Evaluator(expression_tokens(expression), macros, side, 0).run();
}

ConditionalAnalysis analyse_conditionals(const Source& src, MacroTable macros) {
    add_predefined(macros);
    ConditionalAnalysis result;
    result.activity.assign(src.size(), Activity::active);
    std::vector<Frame> stack;
    auto current = [&] { return stack.empty() ? Activity::active : stack.back().current; };

    const std::size_t guard = include_guard(src);
    std::size_t i = 0;
    while (i < src.size()) {
        const bool directive_start = src.is_punct(i, '#') && src[i].in_directive && starts_line(src, i);
        if (!directive_start) {
            result.activity[i] = current();
            ++i;
            continue;
        }
        std::size_t line_end = i;
        while (line_end < src.size() && src[line_end].kind != Kind::Newline) ++line_end;
        const std::size_t name = src.next_code(i + 1);
        const std::string word = name < line_end && src.is_ident(name) ? src.spelling(name) : "";
        const std::size_t rest = name < line_end ? name + 1 : line_end;
        const std::string condition = src.joined(rest, line_end);

        Activity around = current();
        if (word == "if" || word == "ifdef" || word == "ifndef") {
            Group g;
            g.outer = around;
            stack.push_back(Frame{result.groups.size(), around});
            result.groups.push_back(g);
        }
        const bool opens_branch = word == "if" || word == "ifdef" || word == "ifndef" || word == "elif" ||
                                  word == "elifdef" || word == "elifndef" || word == "else";
        if (opens_branch && !stack.empty()) {
            Frame& f = stack.back();
            around = f.outer;
            Branch b;
            b.directive = word;
            b.hash = i;
            b.name = name;
            b.line_end = line_end;
            b.condition = condition;
            std::string expression = condition;
            if (word == "ifdef" || word == "elifdef") expression = "defined(" + condition + ")";
            if (word == "ifndef" || word == "elifndef") expression = "!defined(" + condition + ")";
            if (word == "else") expression = "1";
            b.mentions_arch = names_arch(expression);
            std::optional<long long> value;
            if (i == guard) {
                // The compiler reads a guarded header either whole or not at
                // all (when it was read before): either way, as if active.
                value = 1;
            } else if (b.mentions_arch) {
                b.host_value = evaluate_condition(expression, macros, ArchSide::host);
                b.device_value = evaluate_condition(expression, macros, ArchSide::device);
                // Until arch.cpp decides which side applies here, both are possible.
                if (b.host_value && b.device_value && *b.host_value == *b.device_value) value = b.host_value;
            } else {
                value = evaluate_condition(expression, macros, ArchSide::unknown);
                b.host_value = b.device_value = value;
            }
            f.current = branch_activity(f, value);
            result.groups[f.group].branches.push_back(b);
        } else if (word == "endif" && !stack.empty()) {
            Group& g = result.groups[stack.back().group];
            g.endif_hash = i;
            g.endif_line_end = line_end;
            around = stack.back().outer;
            stack.pop_back();
        } else if ((word == "define" || word == "undef") && around != Activity::inactive) {
            const std::size_t macro = src.next_code(name + 1);
            if (macro < line_end && src.is_ident(macro)) {
                const std::string macro_name = src.spelling(macro);
                const bool function_like = src.is_punct(macro + 1, '(');
                const std::string body = src.joined(macro + 1, line_end);
                if (word == "define" && names_arch(body)) result.arch_in_macro.push_back(i);
                if (around == Activity::unknown || function_like) {
                    macros.known.erase(macro_name);
                } else if (word == "define") {
                    macros.known[macro_name] = body;
                } else {
                    macros.known[macro_name] = std::nullopt;
                }
            }
        }
        for (std::size_t t = i; t < line_end; ++t) result.activity[t] = around;
        i = line_end;
    }
    return result;
}

}  // namespace cuemu_rewrite::internal
