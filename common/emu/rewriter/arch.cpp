// arch.cpp - resolving #if on __CUDA_ARCH__ per place (see arch.h).
#include "arch.h"

#include <algorithm>
#include <set>

namespace cuemu_rewrite::internal {
namespace {

constexpr std::size_t kNone = npos;  // "no branch is taken"

// The branch a side takes, kNone when none is, or nullopt when a condition on
// the way is unknown.
std::optional<std::size_t> chosen_branch(const Group& g, ArchSide side) {
    for (std::size_t k = 0; k < g.branches.size(); ++k) {
        const std::optional<long long>& v =
            side == ArchSide::device ? g.branches[k].device_value : g.branches[k].host_value;
        if (!v) return std::nullopt;
        if (*v) return k;
    }
    return kNone;
}

std::string newline_run(std::size_t n) { return std::string(n, '\n'); }

bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// `condition` with __CUDA_ARCH__ given its value on one side:
// `defined(__CUDA_ARCH__)` and `defined __CUDA_ARCH__` become 1 or 0, the
// name itself 750 or 0 (an undefined name is 0 in #if).
std::string substitute_arch(const std::string& condition, ArchSide side) {
    const std::string arch = "__CUDA_ARCH__";
    std::string out;
    std::size_t i = 0;
    auto skip_blanks = [&](std::size_t j) {
        while (j < condition.size() && (condition[j] == ' ' || condition[j] == '\t')) ++j;
        return j;
    };
    while (i < condition.size()) {
        if (!is_name_char(condition[i]) || (i > 0 && is_name_char(condition[i - 1]))) {
            out += condition[i++];
            continue;
        }
        std::size_t end = i;
        while (end < condition.size() && is_name_char(condition[end])) ++end;
        const std::string word = condition.substr(i, end - i);
        if (word == "defined") {
            std::size_t j = skip_blanks(end);
            const bool paren = j < condition.size() && condition[j] == '(';
            if (paren) j = skip_blanks(j + 1);
            if (condition.compare(j, arch.size(), arch) == 0 &&
                (j + arch.size() == condition.size() || !is_name_char(condition[j + arch.size()]))) {
                j += arch.size();
                if (paren) {
                    j = skip_blanks(j);
                    if (j < condition.size() && condition[j] == ')') ++j;
                }
                out += side == ArchSide::device ? "1" : "0";
                i = j;
                continue;
            }
        }
        if (word == arch) {
            out += side == ArchSide::device ? std::to_string(kEmulatedArch) : "0";
        } else {
            out += word;
        }
        i = end;
    }
    return out;
}

// The code tokens of [begin, end), directives left out.
std::vector<std::size_t> code_tokens(const Source& src, std::size_t begin, std::size_t end) {
    std::vector<std::size_t> out;
    for (std::size_t t = begin; t < end; ++t) {
        if (!is_trivia(src[t]) && !src[t].in_directive) out.push_back(t);
    }
    return out;
}

// Words that start a statement that is not a declaration.
bool statement_keyword(const std::string& w) {
    static const std::set<std::string> words = {"return", "goto", "delete", "throw", "case", "default",
                                                "break", "continue", "if", "for", "while", "do",
                                                "switch", "else", "try", "asm", "co_return", "typedef",
                                                "using", "static_assert", "sizeof", "new"};
    return words.count(w) != 0;
}

// Why the tokens [begin, end) cannot become the body of an if/else (a
// declaration the code after the #endif may use, brackets that close
// outside), or "" when they can.
std::string not_a_statement_list(const Source& src, std::size_t begin, std::size_t end,
                                 const std::set<std::size_t>& moved = {}) {
    const std::vector<std::size_t> code = code_tokens(src, begin, end);
    std::vector<char> open;
    bool statement_start = true;
    for (std::size_t k = 0; k < code.size(); ++k) {
        const std::size_t t = code[k];
        if (statement_start && open.empty() && src.is_ident(t) && !statement_keyword(src.spelling(t)) &&
            moved.count(t) == 0 &&
            k + 1 < code.size() &&
            (src.is_ident(code[k + 1]) ||
             ((src.is_punct(code[k + 1], '*') || src.is_punct(code[k + 1], '&')) && k + 2 < code.size() &&
              src.is_ident(code[k + 2]) && k + 3 < code.size() &&
              (src.is_punct(code[k + 3], '=') || src.is_punct(code[k + 3], ';'))))) {
            return "it declares '" + src.spelling(src.is_ident(code[k + 1]) ? code[k + 1] : code[k + 2]) +
                   "', which the code after the #endif may use";
        }
        statement_start = false;
        if (src[t].kind != Kind::Punct) continue;
        const char c = src.text()[src[t].begin];
        if (c == '(' || c == '[' || c == '{') open.push_back(c);
        if (c == ')' || c == ']' || c == '}') {
            const char expected = c == ')' ? '(' : c == ']' ? '[' : '{';
            if (open.empty() || open.back() != expected) return "its brackets close outside it";
            open.pop_back();
        }
        if (open.empty() && (c == ';' || c == '}')) statement_start = true;
    }
    if (!open.empty()) return "its brackets close outside it";
    if (!code.empty() && !src.is_punct(code.back(), ';') && !src.is_punct(code.back(), '}')) {
        return "it does not end a statement";
    }
    return "";
}

// A declaration `TYPE NAME = value;` or `TYPE NAME;` at the top level of a
// branch, of the kind that can move before the if that replaces the #if:
// one declarator, a type of names, `::`, `<>` and `*` (no auto, const,
// static, reference or array, which an assignment could not finish).
struct MovableDeclaration {
    std::size_t first;      // its first token
    std::size_t name;       // the declared name
    std::size_t semicolon;  // its ';'
    bool initialized;       // `= value` follows the name
    std::string type;       // the type's tokens, one blank apart
};

std::vector<MovableDeclaration> movable_declarations(const Source& src, std::size_t begin, std::size_t end) {
    static const std::set<std::string> refused = {"auto",     "const",        "constexpr", "static",  "extern",
                                                  "register", "thread_local", "typedef",   "using",   "decltype",
                                                  "volatile", "mutable",      "inline",    "typename"};
    const std::vector<std::size_t> code = code_tokens(src, begin, end);
    std::vector<MovableDeclaration> out;
    int depth = 0;
    bool statement_start = true;
    for (std::size_t k = 0; k < code.size(); ++k) {
        const std::size_t t = code[k];
        if (statement_start && depth == 0 && src.is_ident(t) && !statement_keyword(src.spelling(t))) {
            std::size_t eq = npos, semicolon = npos;
            bool single = true;
            int d = 0;
            for (std::size_t j = k; j < code.size() && semicolon == npos; ++j) {
                const std::string w = src.spelling(code[j]);
                if (w == "(" || w == "[" || w == "{") ++d;
                else if (w == ")" || w == "]" || w == "}") --d;
                else if (d == 0 && w == "=" && eq == npos) eq = j;
                else if (d == 0 && w == "," ) single = false;
                else if (d == 0 && w == ";") semicolon = j;
                if (d < 0) break;
            }
            const std::size_t name = semicolon == npos ? npos : (eq == npos ? semicolon : eq) - 1;
            bool movable = single && name != npos && name > k && src.is_ident(code[name]);
            std::string type;
            for (std::size_t j = k; movable && j < name; ++j) {
                const std::string w = src.spelling(code[j]);
                movable = src.is_ident(code[j]) ? refused.count(w) == 0
                                                : (w == "*" || w == "::" || w == ":" || w == "<" || w == ">" || w == ">>");
                type += (type.empty() ? "" : " ") + w;
            }
            if (movable) out.push_back({t, code[name], code[semicolon], eq != npos, type});
        }
        statement_start = false;
        if (src[t].kind != Kind::Punct) continue;
        const char c = src.text()[src[t].begin];
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') --depth;
        if (depth == 0 && (c == ';' || c == '}')) statement_start = true;
    }
    return out;
}

// Code, as opposed to blanks and comments (for tokens already marked inactive,
// whose kind no longer says).
bool is_code_text(const std::string& text) {
    if (text.empty() || text[0] == ' ' || text[0] == '\t' || text[0] == '\n' || text[0] == '\r' || text[0] == '\\') {
        return false;
    }
    return text.compare(0, 2, "//") != 0 && text.compare(0, 2, "/*") != 0;
}

std::string where(const Source& src, std::size_t token) {
    return "line " + std::to_string(src.location(token).first);
}

class Resolver {
public:
    Resolver(const Source& src, const ConditionalAnalysis& c, const Scopes& scopes)
        : src_(src), c_(c), scopes_(scopes), gone_(src.size(), false) {}

    ArchPlan run() {
        for (const Group& g : c_.groups) {
            if (!g.mentions_arch() || g.outer == Activity::inactive || g.branches.empty()) continue;
            if (g.endif_hash <= g.branches[0].hash) continue;  // no #endif: the compiler will say
            if (gone_[g.branches[0].hash]) continue;  // inside a branch already dropped
            resolve(g);
        }
        for (std::size_t hash : c_.arch_in_macro) {
            if (gone_[hash] || c_.activity[hash] == Activity::inactive) continue;
            plan_.errors.push_back(src_.diagnostic_at(
                hash, "this macro's body names __CUDA_ARCH__; the emulator compiles host and device "
                      "code in one pass and cannot tell where the macro expands, so it cannot give "
                      "it the host or the device value (test __CUDA_ARCH__ with #if inside the "
                      "function bodies instead)"));
        }
        replace_arch_in_device_code();
        refuse_emptied_kernels();
        for (std::size_t t = 0; t < gone_.size(); ++t) {
            if (gone_[t]) plan_.inactive.push_back(t);
        }
        return std::move(plan_);
    }

private:
    const Source& src_;
    const ConditionalAnalysis& c_;
    const Scopes& scopes_;
    std::vector<bool> gone_;
    std::vector<std::pair<std::size_t, std::size_t>> device_branches_;  // run-time device branches
    ArchPlan plan_;

    void drop_body(const Group& g, std::size_t k, bool blank) {
        for (std::size_t t = g.body_begin(k) + 1; t < g.body_end(k); ++t) gone_[t] = true;
        if (blank) {
            const std::size_t end = g.body_end(k);
            plan_.edits[g.body_begin(k)] = Edit{end, newline_run(src_.newlines_between(g.body_begin(k), end))};
        }
    }

    // The directive line of branch k as `#if VALUE` / `#elif VALUE`, newlines kept.
    void set_directive(const Branch& b, const std::string& condition) {
        const bool first = b.directive == "if" || b.directive == "ifdef" || b.directive == "ifndef";
        const std::string name = b.directive == "else" ? "else" : first ? "if" : "elif";
        std::string text = name + (b.directive == "else" ? "" : " " + condition);
        const std::size_t lines = src_.newlines_between(b.name, b.line_end);
        for (std::size_t n = 0; n < lines; ++n) text += " \\\n";
        plan_.edits[b.name] = Edit{b.line_end, text};
    }

    void resolve(const Group& g) {
        const std::size_t at = g.branches[0].hash;
        const CodeContext context = scopes_.context_at(at);
        if (context == CodeContext::host || context == CodeContext::device) {
            const ArchSide side = context == CodeContext::device ? ArchSide::device : ArchSide::host;
            for (const Branch& b : g.branches) {
                if (!b.mentions_arch) continue;
                std::string condition = b.condition;
                if (b.directive == "ifdef" || b.directive == "elifdef") condition = "defined(" + condition + ")";
                if (b.directive == "ifndef" || b.directive == "elifndef") condition = "!defined(" + condition + ")";
                set_directive(b, substitute_arch(condition, side));
            }
            if (const std::optional<std::size_t> chosen = chosen_branch(g, side)) {
                for (std::size_t k = 0; k < g.branches.size(); ++k) {
                    if (k != *chosen) drop_body(g, k, false);
                }
            }
            return;
        }
        const std::optional<std::size_t> host = chosen_branch(g, ArchSide::host);
        const std::optional<std::size_t> device = chosen_branch(g, ArchSide::device);
        if (!host || !device) {
            plan_.errors.push_back(src_.diagnostic_at(
                at, std::string("cannot tell which branch of this #if host code and device code take: it "
                                "tests __CUDA_ARCH__ together with macros the emulator does not know here, "
                                "and ") +
                        (context == CodeContext::file_scope ? "it stands outside any function"
                                                            : "it stands in a __host__ __device__ function") +
                        ", where the emulator's single compilation must pick the branches itself"));
            return;
        }
        std::size_t taken = *device;
        if (*host != *device && same_to_the_emulator(g, *host, *device)) {
            // Like '#define HD __host__ __device__' against '#define HD': the
            // emulator compiles both qualifiers as nothing anyway.
        } else if (*host != *device) {
            if (context == CodeContext::both) {
                dispatch_at_run_time(g, *host, *device);
                return;
            }
            const bool host_empty = meaningful_tokens(g, *host).empty();
            const bool device_empty = meaningful_tokens(g, *device).empty();
            if ((host_empty || device_empty) && !defines_macros(g, host_empty ? *device : *host)) {
                // '#ifndef __CUDA_ARCH__ #include <iostream> #endif': what one
                // side alone declares the other side's valid code never uses,
                // so the emulator may take it for both. Not so for macros,
                // which change the meaning of code on both sides.
                taken = host_empty ? *device : *host;
            } else if (!branch_has_error_directive(g, *device)) {
                plan_.errors.push_back(src_.diagnostic_at(
                    at, "this #if takes one branch in host code (where __CUDA_ARCH__ is undefined) and "
                        "another in device code (where it is " + std::to_string(kEmulatedArch) +
                        "), outside any function; the emulator compiles host and device code in one "
                        "pass and cannot give each side its own branch here (move the test into the "
                        "function bodies, or write it so both sides take the same branch, like "
                        "'#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600')"));
                return;
            }
        }
        for (std::size_t k = 0; k < g.branches.size(); ++k) {
            if (g.branches[k].mentions_arch) set_directive(g.branches[k], k == taken ? "1" : "0");
            if (k != taken) drop_body(g, k, false);
        }
    }

    // The tokens of branch k, without blanks, comments and __host__/__device__.
    std::vector<std::string> meaningful_tokens(const Group& g, std::size_t k) const {
        std::vector<std::string> out;
        if (k == kNone) return out;
        for (std::size_t t = g.body_begin(k); t < g.body_end(k); ++t) {
            if (is_trivia(src_[t]) || src_.is_ident(t, "__host__") || src_.is_ident(t, "__device__")) continue;
            out.push_back(src_.spelling(t));
        }
        return out;
    }

    bool same_to_the_emulator(const Group& g, std::size_t host, std::size_t device) const {
        return meaningful_tokens(g, host) == meaningful_tokens(g, device);
    }

    bool defines_macros(const Group& g, std::size_t k) const {
        for (std::size_t t = g.body_begin(k); t < g.body_end(k); ++t) {
            if (src_[t].in_directive && (src_.is_ident(t, "define") || src_.is_ident(t, "undef")) &&
                src_.is_punct(src_.prev_code(t), '#')) {
                return true;
            }
        }
        return false;
    }

    bool branch_has_error_directive(const Group& g, std::size_t k) const {
        if (k == kNone) return false;
        for (std::size_t t = g.body_begin(k); t < g.body_end(k); ++t) {
            if (src_[t].in_directive && src_.is_ident(t, "error") && src_.is_punct(src_.prev_code(t), '#')) {
                return true;
            }
        }
        return false;
    }

    //   #ifdef __CUDA_ARCH__        if (::cuemu::in_device_branch()) {
    //     device branch        ->     device branch
    //   #else                       } else {
    //     host branch                 host branch
    //   #endif                      }
    //
    // A variable both branches declare alike (`unsigned seed = ...;` in each)
    // is declared once before the if, and each branch assigns it, so the code
    // after the #endif sees it whichever branch ran.
    void dispatch_at_run_time(const Group& g, std::size_t host, std::size_t device) {
        const std::size_t at = g.branches[0].hash;
        std::vector<MovableDeclaration> moved;
        std::set<std::size_t> moved_firsts;
        std::string declared_before;
        if (host != kNone && device != kNone) {
            const auto on_host = movable_declarations(src_, g.body_begin(host), g.body_end(host));
            for (const MovableDeclaration& d : movable_declarations(src_, g.body_begin(device), g.body_end(device))) {
                for (const MovableDeclaration& h : on_host) {
                    if (src_.spelling(h.name) != src_.spelling(d.name) || h.type != d.type) continue;
                    moved.push_back(d);
                    moved.push_back(h);
                    moved_firsts.insert(d.first);
                    moved_firsts.insert(h.first);
                    declared_before += d.type + " " + src_.spelling(d.name) + "; ";
                }
            }
        }
        std::string refusal;
        for (std::size_t k : {device, host}) {
            if (k == kNone) continue;
            const std::string why = not_a_statement_list(src_, g.body_begin(k), g.body_end(k), moved_firsts);
            if (!why.empty()) {
                refusal = "the " + std::string(k == device ? "device" : "host") + " branch (from " +
                          where(src_, g.branches[k].hash) + ") cannot be chosen at run time: " + why;
                break;
            }
        }
        const std::size_t before = src_.prev_code(at);
        std::size_t prev = before;
        while (prev != npos && src_[prev].in_directive) prev = src_.prev_code(prev);
        const bool statement_boundary = prev != npos && (src_.is_punct(prev, ';') || src_.is_punct(prev, '{') ||
                                                         src_.is_punct(prev, '}') || src_.is_punct(prev, ')') ||
                                                         src_.is_ident(prev, "else") || src_.is_ident(prev, "do"));
        if (refusal.empty() && !statement_boundary) refusal = "it does not stand between statements";
        if (!refusal.empty()) {
            plan_.errors.push_back(src_.diagnostic_at(
                at, "this #if takes one branch in host code (__CUDA_ARCH__ undefined) and another in device "
                    "code (__CUDA_ARCH__ " + std::to_string(kEmulatedArch) +
                    ") inside a __host__ __device__ function; the emulator compiles the function once and "
                    "would choose between the branches at run time, but " + refusal +
                    " (make each branch whole statements, or split the function into a __host__ and a "
                    "__device__ one)"));
            return;
        }
        const std::size_t first = std::min(host, device);  // kNone is the largest
        const std::size_t second = std::max(host, device);
        bool open = false;
        auto line_for = [&](std::size_t k, std::size_t name_token, std::size_t line_end, std::size_t hash) {
            std::string text = open ? "}" : "";
            if (k == first) {
                text += declared_before;
                text += k == device ? "if (::cuemu::in_device_branch()) {" : "if (!::cuemu::in_device_branch()) {";
                open = true;
            } else if (k == second && second != kNone) {
                text += first == kNone ? (k == device ? "if (::cuemu::in_device_branch()) {"
                                                      : "if (!::cuemu::in_device_branch()) {")
                                       : " else {";
                open = true;
            } else {
                open = false;
            }
            text += newline_run(src_.newlines_between(name_token, line_end));
            plan_.edits[hash] = Edit{line_end, text};
        };
        for (std::size_t k = 0; k < g.branches.size(); ++k) {
            line_for(k, g.branches[k].name, g.branches[k].line_end, g.branches[k].hash);
            if (k != host && k != device) drop_body(g, k, true);
        }
        // `TYPE NAME = value;` becomes `NAME = value;`, and `TYPE NAME;` goes.
        for (const MovableDeclaration& d : moved) {
            const std::size_t end = d.initialized ? d.name : d.semicolon + 1;
            plan_.edits[d.first] = Edit{end, newline_run(src_.newlines_between(d.first, d.initialized ? d.name : d.semicolon))};
        }
        std::string last = open ? "}" : "";
        last += newline_run(src_.newlines_between(g.endif_hash, g.endif_line_end));
        plan_.edits[g.endif_hash] = Edit{g.endif_line_end, last};
        if (device != kNone) device_branches_.push_back({g.body_begin(device), g.body_end(device)});
    }

    // A kernel whose whole body sits in #if branches the emulated device does
    // not take would compile to nothing and its launches would quietly do
    // nothing. A GPU of compute capability 7.5 would do the same, but the
    // program surely meant a newer one: stop the build and say so.
    void refuse_emptied_kernels() {
        for (std::size_t b = 0; b < src_.size(); ++b) {
            if (!src_.is_punct(b, '{') || src_[b].in_directive) continue;
            const BraceInfo& info = scopes_.info(b);
            if (info.kind != BraceKind::function_body || info.space != Space::global || !info.certain) continue;
            const std::size_t close = matching_brace(src_, b);
            if (close == npos) continue;
            const bool tests_arch = std::any_of(c_.groups.begin(), c_.groups.end(), [&](const Group& g) {
                return g.mentions_arch() && g.branches[0].hash > b && g.branches[0].hash < close;
            });
            if (!tests_arch) continue;
            std::size_t code = 0, kept = 0;
            for (std::size_t t = b + 1; t < close; ++t) {
                if (src_[t].in_directive || !is_code_text(src_.spelling(t))) continue;
                ++code;
                if (!gone_[t] && src_[t].kind != Kind::Inactive) ++kept;
            }
            if (code == 0 || kept != 0) continue;
            plan_.errors.push_back(src_.diagnostic_at(
                b, "the whole body of this kernel is in #if branches on __CUDA_ARCH__ that the emulated device "
                   "(compute capability 7.5, __CUDA_ARCH__ " + std::to_string(kEmulatedArch) +
                   ") does not take: it would compile to nothing and every launch would silently do nothing "
                   "(on a GPU of that compute capability too); give the kernel a branch for this device, or "
                   "one for '#ifdef CUEMU' where the emulator provides what the code needs"));
        }
    }

    // __CUDA_ARCH__ as a value in device code: 750.
    void replace_arch_in_device_code() {
        for (std::size_t t = 0; t < src_.size(); ++t) {
            if (!src_.is_ident(t, "__CUDA_ARCH__") || src_[t].in_directive || gone_[t]) continue;
            bool device = scopes_.context_at(t) == CodeContext::device;
            for (const auto& [begin, end] : device_branches_) device = device || (t > begin && t < end);
            if (device) plan_.edits[t] = Edit{t + 1, std::to_string(kEmulatedArch)};
        }
    }
};

}  // namespace

ArchPlan resolve_arch(const Source& src, const ConditionalAnalysis& conditionals, const Scopes& scopes) {
    return Resolver(src, conditionals, scopes).run();
}

}  // namespace cuemu_rewrite::internal
