// split_inline.cpp - calls of __device__ functions with barriers written into
// the kernel's text before it is cut (split_inline.h says which, and why).
#include "split_inline.h"

#include <cstdio>
#include <cstdlib>

#include "source.h"

namespace cuemu_rewrite::internal {
namespace {

// The call stays a call (and the kernel stays on fibers); `why` is printed
// under CUEMU_SPLIT_EXPLAIN=1.
struct NotInlined {
    std::string why;
};

const std::string twin_prefix = "__cuemu_fast_";

// Words before which no statement of the shapes above starts, and words that
// cannot be the type of the variable a call's result initializes.
bool is_statement_word(const std::string& w) {
    static const std::set<std::string> words = {"return", "if",   "for",   "while",  "do",     "switch",
                                                "break",  "continue", "case", "default", "else", "goto",
                                                "sizeof", "new",  "delete", "throw", "co_return"};
    return words.count(w) != 0;
}
bool is_unsafe_type_word(const std::string& w) {
    static const std::set<std::string> words = {"auto",   "decltype", "static",       "constexpr", "extern",
                                                "register", "thread_local", "__shared__", "typename", "template",
                                                "struct", "class",    "volatile"};
    return words.count(w) != 0 || is_statement_word(w);
}

class Text {
public:
    explicit Text(const std::string& text) : s(text) {}
    const Source s;

    std::size_t nx(std::size_t i) const { return s.next_code(i); }
    std::size_t pv(std::size_t i) const { return s.prev_code(i); }
    bool is(std::size_t i, char c) const { return i != npos && s.is_punct(i, c); }
    bool id(std::size_t i) const { return i != npos && s.is_ident(i); }
    bool id(std::size_t i, const char* w) const { return i != npos && s.is_ident(i, w); }

    // Source's matching, leaving the call alone where brackets do not pair.
    std::size_t group_end(std::size_t i) const {
        const std::size_t end = s.group_end(i);
        if (end == npos) throw NotInlined{"brackets that do not pair"};
        return end;
    }
    // A token after which a statement starts; the rewriter's note of a
    // __shared__ variable's size, CUEMU_STATIC_SHARED(...), or of a template
    // kernel's address, CUEMU_KNOWN_TEMPLATE_KERNEL(...), ends one too.
    bool boundary(std::size_t t) const {
        if (t == npos || is(t, ';') || is(t, '{') || is(t, '}')) return true;
        if (!is(t, ')')) return false;
        const std::size_t open = s.matching_open_back(t, '(', ')', DirectiveEdge::crossed);
        return open != npos && (id(pv(open), "CUEMU_STATIC_SHARED") || id(pv(open), "CUEMU_KNOWN_TEMPLATE_KERNEL"));
    }
    // Token t is a member's or a qualified name: x.t, p->t, ns::t.
    bool qualified(std::size_t t) const {
        const std::size_t before = pv(t);
        return is(before, '.') || is(before, ':') || (is(before, '>') && before > 0 && is(before - 1, '-'));
    }
    // The last token of the statement at i, where a scope that ends with it ends.
    std::size_t statement_last(std::size_t i) const {
        const std::size_t end = s.statement_end(i, s.size(), StatementGrammar::basic);
        if (end == npos) throw NotInlined{"a statement without its end"};
        return end - 1;
    }

    // The code tokens [b, e) split at their top-level commas.
    std::vector<std::pair<std::size_t, std::size_t>> split_commas(std::size_t b, std::size_t e) const {
        std::vector<std::pair<std::size_t, std::size_t>> parts;
        std::size_t start = nx(b);
        for (std::size_t t = start; t < e; t = nx(t + 1)) {
            if (is(t, '(') || is(t, '[') || is(t, '{')) {
                t = group_end(t) - 1;
                continue;
            }
            if (is(t, ',')) {
                parts.push_back({start, t});
                start = nx(t + 1);
            }
        }
        if (start < e) parts.push_back({start, e});
        return parts;
    }
    // The text of code tokens [b, e), as written (comments and newlines too).
    std::string raw(std::size_t b, std::size_t e) const {
        std::size_t last = pv(e);
        if (b >= e || last == npos || last < b) return "";
        return s.text().substr(s[b].begin, s[last].end - s[b].begin);
    }
};

// ---- the function written in -----------------------------------------------------------
struct Callee {
    std::vector<std::string> param_types, param_names;
    bool returns_void = false;
    std::size_t body_open = 0, body_close = 0;
    std::size_t return_keyword = npos, return_semi = npos;  // its final `return e;`
    std::set<std::string> own_names;                        // parameters and locals: renamed
    bool has_shared = false;
};

// The names declared by the statement (or for-loop init) that starts at b:
// none where it is not a declaration. A type is names, '*' and '::' up to a
// name followed by = , ; or [; later declarators follow top-level commas.
std::vector<std::size_t> declared_at(const Text& c, std::size_t b, std::size_t e) {
    std::vector<std::size_t> names;
    if (!c.id(b) || is_statement_word(c.s.spelling(b))) return names;
    std::size_t name = npos;
    for (std::size_t t = b; t < e; t = c.nx(t + 1)) {
        if (c.id(t)) {
            const std::size_t after = c.nx(t + 1);
            if (t != b && (c.is(after, '=') || c.is(after, ',') || c.is(after, ';') || c.is(after, '['))) {
                name = t;
                break;
            }
            continue;
        }
        if (!c.is(t, '*') && !c.is(t, ':')) return names;  // an operator, a call: not a declaration
    }
    if (name == npos) return names;
    names.push_back(name);
    for (std::size_t t = c.nx(name + 1); t < e && !c.is(t, ';'); t = c.nx(t + 1)) {
        if (c.is(t, '(') || c.is(t, '[') || c.is(t, '{')) {
            t = c.group_end(t) - 1;
            continue;
        }
        if (!c.is(t, ',')) continue;
        std::size_t d = c.nx(t + 1);
        while (c.is(d, '*') || c.id(d, "const") || c.id(d, "__restrict__")) d = c.nx(d + 1);
        if (c.id(d)) names.push_back(d);
    }
    return names;
}
void note_declared(const Text& c, std::size_t b, std::size_t e, std::set<std::string>& names) {
    for (std::size_t t : declared_at(c, b, e)) names.insert(c.s.spelling(t));
}

Callee read_callee(const Text& c, std::size_t name, const std::string& name_text) {
    Callee f;
    if (c.qualified(name)) throw NotInlined{"it is a member or a qualified name"};
    std::vector<std::string> result_words;
    for (std::size_t t = c.nx(0); t < name; t = c.nx(t + 1)) {
        if (c.s[t].in_directive) continue;
        if (!c.id(t)) throw NotInlined{"its declaration is not of a plain function"};
        const std::string w = c.s.spelling(t);
        if (w == "template") throw NotInlined{"it is a template"};
        if (w == "__device__" || w == "__host__" || w == "inline" || w == "__forceinline__" ||
            w == "__noinline__" || w == "static")
            continue;
        result_words.push_back(w);
    }
    f.returns_void = result_words.size() == 1 && result_words[0] == "void";
    const std::size_t open = c.nx(name + 1);
    if (!c.is(open, '(')) throw NotInlined{"no parameter list"};
    const std::size_t close = c.group_end(open) - 1;
    auto params = c.split_commas(open + 1, close);
    if (params.size() == 1 && c.id(params[0].first, "void") && c.nx(params[0].first + 1) >= close) params.clear();
    for (const auto& [b, e] : params) {
        std::size_t last = npos;
        for (std::size_t t = b; t < e; t = c.nx(t + 1)) {
            if (c.is(t, '&') || c.is(t, '[') || c.is(t, '=') || c.is(t, '(') || c.is(t, '<') || c.is(t, '.'))
                throw NotInlined{"a parameter that is not a plain value (a reference, an array, a default)"};
            last = t;
        }
        if (last == npos || !c.id(last) || last == b) throw NotInlined{"a parameter without a name"};
        f.param_types.push_back(c.raw(b, last));
        f.param_names.push_back(c.s.spelling(last));
        f.own_names.insert(c.s.spelling(last));
    }
    f.body_open = c.nx(close + 1);
    if (!c.is(f.body_open, '{')) throw NotInlined{"something between its parameters and its body"};
    f.body_close = c.group_end(f.body_open) - 1;
    int depth = 0;
    std::size_t statement_start = c.nx(f.body_open + 1);
    for (std::size_t t = c.nx(f.body_open + 1); t < f.body_close; t = c.nx(t + 1)) {
        if (c.s[t].in_directive) continue;
        if (t == statement_start) note_declared(c, t, f.body_close, f.own_names);
        if (c.id(t, "for") && c.is(c.nx(t + 1), '(')) note_declared(c, c.nx(c.nx(t + 1) + 1), f.body_close, f.own_names);
        if (c.is(t, '(') || c.is(t, '[') || c.is(t, '{')) ++depth;
        if (c.is(t, ')') || c.is(t, ']') || c.is(t, '}')) --depth;
        if (c.boundary(t)) statement_start = c.nx(t + 1);
        if (!c.id(t)) continue;
        const std::string w = c.s.spelling(t);
        if (w == "__shared__") f.has_shared = true;
        if (w == name_text || w == twin_prefix + name_text) throw NotInlined{"it calls itself"};
        if (w != "return") continue;
        if (f.return_keyword != npos || depth != 0) throw NotInlined{"a return before its end"};
        f.return_keyword = t;
        for (std::size_t u = t; u < f.body_close; u = c.nx(u + 1)) {
            if (c.is(u, '(') || c.is(u, '[') || c.is(u, '{')) u = c.group_end(u) - 1;
            else if (c.is(u, ';')) {
                f.return_semi = u;
                break;
            }
        }
        if (f.return_semi == npos || c.nx(f.return_semi + 1) != f.body_close)
            throw NotInlined{"a return before its end"};
    }
    if (!f.returns_void && f.return_keyword == npos) throw NotInlined{"no return at its end"};
    return f;
}

// The type of `T x = ...` from tokens [b, e), to declare x without its
// initializer: a const that applies to x itself goes (x is assigned once, later).
std::string declared_alone(const Text& k, std::size_t b, std::size_t e) {
    std::size_t last_star = npos;
    for (std::size_t t = b; t < e; t = k.nx(t + 1))
        if (k.is(t, '*')) last_star = t;
    std::string type;
    bool glue = true;  // no space before the next token
    for (std::size_t t = b; t < e; t = k.nx(t + 1)) {
        if (k.id(t, "const") && (last_star == npos || t > last_star)) continue;
        const bool colon = k.is(t, ':');
        type += (glue || colon ? "" : " ") + k.s.spelling(t);
        glue = colon;
    }
    if (type.empty()) throw NotInlined{"its result initializes a variable of a type this cannot declare alone"};
    return type;
}

// A name of the function's own that one of the macros it uses names (through
// other macros too): "" if none.
std::string own_name_in_macros(const Text& c, const Callee& f, const MacroWords& macros, std::string* macro) {
    for (std::size_t t = c.nx(f.body_open + 1); t < f.body_close; t = c.nx(t + 1)) {
        if (!c.id(t) || !macros.count(c.s.spelling(t))) continue;
        std::set<std::string> seen;
        std::vector<std::string> todo{c.s.spelling(t)};
        while (!todo.empty()) {
            const std::string m = todo.back();
            todo.pop_back();
            if (!seen.insert(m).second) continue;
            const auto it = macros.find(m);
            if (it == macros.end()) continue;
            for (const std::string& w : it->second) {
                if (f.own_names.count(w)) {
                    *macro = c.s.spelling(t);
                    return w;
                }
                todo.push_back(w);
            }
        }
    }
    return "";
}

// ---- the kernel -----------------------------------------------------------------------
class Inliner {
public:
    Inliner(std::string kernel, std::size_t name_offset, int first_line,
            const std::map<std::string, DeviceFunctionText>& callees, const std::set<std::string>& barrier_names,
            const MacroWords& macros)
        : name_offset_(name_offset), first_line_(first_line), callees_(callees), barrier_names_(barrier_names),
          macros_(macros) {
        result_.text = std::move(kernel);
    }

    InlinedKernel run() {
        for (int round = 0; round < 16; ++round) {
            const Text k(result_.text);
            const std::size_t call = next_call(k);
            if (call == npos) break;
            try {
                inline_call(k, call);
            } catch (const NotInlined& no) {
                if (const char* explain = std::getenv("CUEMU_SPLIT_EXPLAIN"); explain && *explain == '1')
                    std::fprintf(stderr, "cuemu-rewrite: the call of %s at line %d is not written into the kernel: %s\n",
                                 callee_name(k, call).c_str(), line_of(k, call), no.why.c_str());
                break;
            }
        }
        return std::move(result_);
    }

private:
    std::size_t name_offset_;
    int first_line_;
    const std::map<std::string, DeviceFunctionText>& callees_;
    const std::set<std::string>& barrier_names_;
    const MacroWords& macros_;
    InlinedKernel result_;
    std::set<std::string> shared_inlined_;
    int instances_ = 0;

    int line_of(const Text& k, std::size_t t) const {
        const int line = k.s.location(t).first;
        if (result_.source_line.empty()) return first_line_ + line - 1;
        return line < static_cast<int>(result_.source_line.size()) ? result_.source_line[line] : first_line_;
    }
    std::string callee_name(const Text& k, std::size_t t) const {
        const std::string w = k.s.spelling(t);
        return w.rfind(twin_prefix, 0) == 0 ? w.substr(twin_prefix.size()) : w;
    }

    // The first call in the kernel's body of a function with barriers whose
    // text is known; npos if none.
    std::size_t next_call(const Text& k) const {
        const std::size_t name = k.s.token_at(name_offset_);
        if (name == npos) return npos;
        std::size_t body = k.nx(k.group_end(k.nx(name + 1)));
        if (!k.is(body, '{')) return npos;
        for (std::size_t t = k.nx(body + 1); t < k.s.size(); t = k.nx(t + 1)) {
            if (!k.id(t) || k.s[t].in_directive || !k.is(k.nx(t + 1), '(') || k.qualified(t)) continue;
            const std::string callee = callee_name(k, t);
            if (callees_.count(callee) && barrier_names_.count(callee)) return t;
        }
        return npos;
    }

    void inline_call(const Text& k, std::size_t call) {
        const std::string name = callee_name(k, call);
        const DeviceFunctionText& function = callees_.at(name);
        const Text c(function.text);
        const std::size_t callee_name_token = c.s.token_at(function.name_offset);
        if (callee_name_token == npos || !c.id(callee_name_token, name.c_str()))
            throw NotInlined{"its definition was not found"};
        const Callee f = read_callee(c, callee_name_token, name);
        std::string macro;
        if (const std::string own = own_name_in_macros(c, f, macros_, &macro); !own.empty())
            throw NotInlined{"its macro " + macro + " names its own " + own + ", which is renamed in the kernel"};
        if (f.has_shared && shared_inlined_.count(name))
            throw NotInlined{"it has __shared__ variables and is called more than once"};

        // The statement: `T x = f(args);`, `x = f(args);` or `f(args);`.
        const std::size_t open = k.nx(call + 1);
        const std::size_t close = k.group_end(open) - 1;
        const std::size_t semi = k.nx(close + 1);
        if (!k.is(semi, ';')) throw NotInlined{"its result is used inside an expression"};
        std::size_t statement = call;
        std::string declaration, target;
        const std::size_t before = k.pv(call);
        if (!k.boundary(before)) {
            // `= f(...)`: a plain '=' (not ==, +=, <=, ...), after a variable's name.
            if (!k.is(before, '=') || (before > 0 && k.s[before - 1].kind == Kind::Punct))
                throw NotInlined{"its result is used inside an expression"};
            const std::size_t variable = k.pv(before);
            if (!k.id(variable) || k.qualified(variable) || is_statement_word(k.s.spelling(variable)))
                throw NotInlined{"its result is not assigned to a variable"};
            target = k.s.spelling(variable);
            statement = variable;
            std::size_t t = k.pv(variable);
            while (!k.boundary(t)) {
                if (k.s[t].in_directive) throw NotInlined{"a directive before the statement"};
                const bool scope = k.is(t, ':') && (k.is(t - 1, ':') || k.is(t + 1, ':'));  // ::, not a label's :
                if (!(k.id(t) || k.is(t, '*') || scope) || (k.id(t) && is_unsafe_type_word(k.s.spelling(t))))
                    throw NotInlined{"its result initializes a variable of a type this cannot declare alone"};
                statement = t;
                t = k.pv(t);
            }
            if (statement != variable) declaration = declared_alone(k, statement, variable) + " " + target + "; ";
        }
        // A comma inside an argument's template arguments (g<1, 2>(x)) would
        // make one argument two: the count would not match, as f has no defaults.
        const auto args = k.split_commas(open + 1, close);
        if (args.size() != f.param_names.size()) throw NotInlined{"the arguments do not match the parameters"};
        if (!target.empty() && f.returns_void) throw NotInlined{"the result of a void function is assigned"};

        // The body, its names renamed and its final return an assignment.
        const std::string suffix = "__cuemu_in" + std::to_string(++instances_);
        auto renamed = [&](std::size_t t) {
            return c.id(t) && !c.s[t].in_directive && f.own_names.count(c.s.spelling(t)) && !c.qualified(t);
        };
        std::string body;
        for (std::size_t t = f.body_open + 1; t < f.body_close; ++t) {
            if (t == f.return_keyword) {
                const std::size_t value = c.nx(t + 1);
                std::string expression;
                for (std::size_t u = value; u < f.return_semi; ++u) {
                    if (!renamed(u) && c.id(u) && !c.qualified(u)) result_.outside_names.insert(c.s.spelling(u));
                    expression += renamed(u) ? c.s.spelling(u) + suffix : c.s.spelling(u);
                }
                if (value < f.return_semi) {
                    if (target.empty()) body += "(void)(" + expression + ");";
                    else body += target + " = (" + expression + ");";
                }
                t = f.return_semi;  // its ';' is in the text above
                continue;
            }
            if (renamed(t)) {
                body += c.s.spelling(t) + suffix;
                continue;
            }
            if (c.id(t) && !c.s[t].in_directive && !c.qualified(t)) result_.outside_names.insert(c.s.spelling(t));
            body += c.s.spelling(t);
        }
        std::string parameters;
        for (std::size_t p = 0; p < f.param_names.size(); ++p)
            parameters += f.param_types[p] + " " + f.param_names[p] + suffix + " = (" +
                          k.raw(args[p].first, args[p].second) + "); ";

        // The new text, and the source line of each of its lines.
        std::vector<int> lines{0};
        std::string out;
        int source = first_line_;
        lines.push_back(source);
        auto add = [&](const std::string& text) {
            for (const char ch : text) {
                out += ch;
                if (ch == '\n') lines.push_back(++source);
            }
        };
        auto new_line = [&](int at) {
            out += '\n';
            source = at;
            lines.push_back(source);
        };
        const std::string& old = result_.text;
        if (!result_.source_line.empty()) {
            // Lines already written in keep their source lines.
            for (std::size_t i = 0; i < k.s[statement].begin; ++i) {
                out += old[i];
                if (old[i] == '\n') lines.push_back(0);
            }
            for (std::size_t i = 1; i < lines.size(); ++i) lines[i] = result_.source_line[i];
            source = lines.back();
        } else {
            add(old.substr(0, k.s[statement].begin));
        }
        add(declaration + parameters);
        new_line(function.first_line + c.s.location(f.body_open).first - 1);
        add(body);
        const int after_line = line_of(k, semi);
        new_line(after_line);
        const std::string rest = old.substr(k.s[semi].end);
        if (!result_.source_line.empty()) {
            const int rest_first = k.s.location(semi).first;
            int line = rest_first;
            for (const char ch : rest) {
                out += ch;
                if (ch == '\n') {
                    ++line;
                    lines.push_back(line < static_cast<int>(result_.source_line.size()) ? result_.source_line[line]
                                                                                       : lines.back() + 1);
                }
            }
        } else {
            add(rest);
        }
        result_.text = std::move(out);
        result_.source_line = std::move(lines);
        if (f.has_shared) shared_inlined_.insert(name);
    }
};

}  // namespace

MacroWords macro_words(const Source& src) {
    MacroWords macros;
    for (std::size_t t = 0; t < src.size(); ++t) {
        if (!src[t].in_directive || !src.is_punct(t, '#')) continue;
        const std::size_t define = src.next_code(t + 1);
        const std::size_t name = src.next_code(define + 1);
        if (!src.is_ident(define, "define") || !src.is_ident(name) || !src[name].in_directive) continue;
        // The directive ends at a newline token (a continued line is whitespace).
        auto in_line = [&](std::size_t u) { return u < src.size() && src[u].kind != Kind::Newline; };
        std::set<std::string> parameters, words;
        std::size_t u = name + 1;
        if (src.is_punct(u, '(')) {  // function-like: '(' right after the name
            for (++u; in_line(u) && !src.is_punct(u, ')'); ++u)
                if (src.is_ident(u)) parameters.insert(src.spelling(u));
            ++u;
        }
        for (; in_line(u); ++u)
            if (src.is_ident(u) && !parameters.count(src.spelling(u))) words.insert(src.spelling(u));
        macros[src.spelling(name)].insert(words.begin(), words.end());
        t = u;
    }
    return macros;
}

std::string rename_redeclared(const std::string& kernel, std::size_t name_offset, const MacroWords& macros) {
    try {
        const Text k(kernel);
        const std::size_t name = k.s.token_at(name_offset);
        if (name == npos || !k.is(k.nx(name + 1), '(')) return kernel;
        const std::size_t params_open = k.nx(name + 1), params_close = k.group_end(params_open) - 1;
        const std::size_t body_open = k.nx(params_close + 1);
        if (!k.is(body_open, '{')) return kernel;
        const std::size_t body_close = k.group_end(body_open) - 1;

        // Every declaration of the body with the end of its scope: the '}' of
        // its block, or the last token of the for loop whose init it is.
        struct Declaration {
            std::size_t token, scope_end;
        };
        std::vector<Declaration> declarations;
        std::vector<std::size_t> blocks{body_open};
        std::size_t statement_start = k.nx(body_open + 1);
        for (std::size_t t = statement_start; t < body_close; t = k.nx(t + 1)) {
            if (k.s[t].in_directive) continue;
            if (t == statement_start)
                for (std::size_t d : declared_at(k, t, body_close))
                    declarations.push_back({d, k.group_end(blocks.back()) - 1});
            if (k.id(t, "for") && k.is(k.nx(t + 1), '(')) {
                const std::size_t open = k.nx(t + 1), close = k.group_end(open) - 1, body = k.nx(close + 1);
                for (std::size_t d : declared_at(k, k.nx(open + 1), close))
                    declarations.push_back({d, k.statement_last(body)});
            }
            if (k.is(t, '{')) blocks.push_back(t);
            if (k.is(t, '}') && blocks.size() > 1) blocks.pop_back();
            if (k.boundary(t)) statement_start = k.nx(t + 1);
        }

        std::set<std::string> seen;
        for (const auto& [b, e] : k.split_commas(params_open + 1, params_close)) {
            const std::size_t last = k.pv(e);
            if (last != npos && last >= b && k.id(last)) seen.insert(k.s.spelling(last));
        }
        auto in_macros = [&](const std::string& n) {
            for (const auto& [macro, words] : macros)
                if (words.count(n)) return true;
            return false;
        };
        std::map<std::size_t, std::string> replace;
        int renamed = 0;
        for (const Declaration& d : declarations) {
            const std::string n = k.s.spelling(d.token);
            if (seen.insert(n).second) continue;
            // Declared before: this one and what names it in its scope get a
            // name of their own, where that is certain.
            if (in_macros(n)) return kernel;
            for (const Declaration& other : declarations)
                if (other.token > d.token && other.token < d.scope_end && k.s.spelling(other.token) == n)
                    return kernel;  // declared again inside: not followed here
            const std::string fresh = n + "__cuemu_r" + std::to_string(++renamed);
            for (std::size_t u = d.token; u <= d.scope_end; u = k.nx(u + 1))
                if (k.id(u) && !k.s[u].in_directive && !k.qualified(u) && k.s.spelling(u) == n) replace[u] = fresh;
        }
        if (replace.empty()) return kernel;
        std::string out;
        for (std::size_t t = 0; t < k.s.size(); ++t) {
            const auto r = replace.find(t);
            out += r != replace.end() ? r->second : k.s.spelling(t);
        }
        return out;
    } catch (const NotInlined&) {
        return kernel;
    }
}

InlinedKernel inline_barrier_calls(const std::string& kernel, std::size_t name_offset, int first_line,
                                   const std::map<std::string, DeviceFunctionText>& callees,
                                   const std::set<std::string>& barrier_names, const MacroWords& macros) {
    if (callees.empty()) return InlinedKernel{kernel, {}, {}};
    try {
        return Inliner(kernel, name_offset, first_line, callees, barrier_names, macros).run();
    } catch (const NotInlined&) {
        return InlinedKernel{kernel, {}, {}};
    }
}

}  // namespace cuemu_rewrite::internal
