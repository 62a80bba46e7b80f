// split_regions.cpp - a kernel cut at its __syncthreads into loops over the
// block's threads (split_regions.h says which kernels, and why).
//
// The output, for a body "A; __syncthreads(); for (init; cond; inc) { B;
// __syncthreads(); } C;":
//   ::cuemu::split_block __cuemu_sb;                 // the block (cuemu/split_block.h)
//   __shared__ ... and uniform constants, once
//   storage: one array per variable kept across a barrier
//   REGION(A)  barrier-check  { REGION(init) for (;;) { COND-PASS REGION(B)
//   barrier-check REGION(inc) } unpark }  REGION(C)  __cuemu_sb.finish();
// (a loop the same for every thread is instead `for (init; cond; inc) {
// REGION(B) barrier-check }`, computed once for the block) where REGION(X)
// runs X for every running thread, in threadIdx order, as an
// inlined lambda: a kept variable is copied in from its array at the start
// and out at the end, `return;` ends the thread (`return true`).
#include "split_regions.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace cuemu_rewrite::internal {
namespace {

// Thrown within this file: the kernel keeps the fiber path. `line` is this
// file's line that refused it (CUEMU_SPLIT_EXPLAIN=1 prints it).
struct Unsplittable {
    int line;
    std::string word{};  // the word that refused it, where one did
};
#define UNSPLITTABLE Unsplittable{__LINE__}

// Built-in types whose arrays the split version may keep per thread without
// running a constructor: the scalars, and CUDA's vector types (plain structs).
const std::set<std::string> scalar_words = [] {
    std::set<std::string> words = {"const",   "unsigned", "signed",  "int",      "float",    "double",
                                   "char",    "bool",     "long",    "short",    "size_t",   "ptrdiff_t",
                                   "int8_t",  "int16_t",  "int32_t", "int64_t",  "uint8_t",  "uint16_t",
                                   "uint32_t", "uint64_t", "uint",   "ushort",   "uchar",    "ulong"};
    for (const char* base : {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong",
                             "ulonglong", "float", "double"})
        for (const char* n : {"1", "2", "3", "4"}) words.insert(std::string(base) + n);
    return words;
}();

// Words that make a kernel too hard to cut with certainty.
const std::set<std::string> refused_words = {
    "goto",     "asm",      "__asm__",  "__asm",    "volatile", "struct",       "class",    "union",
    "enum",     "typedef",  "using",    "template", "static",   "thread_local", "extern",   "co_await",
    "co_yield", "co_return", "throw",   "try",      "catch",    "operator",     "this",     "decltype",
    "auto",     "register", "mutable",  "friend",   "namespace", "__syncthreads_count",
    "__syncthreads_and", "__syncthreads_or", "typeid", "alignas"};

struct Var {
    std::string name, type;  // type as a type-id: "int", "const float*", "float[4]"
    bool array = false;
    bool initialized = false;                    // declared with an initializer
    bool zeroed = false;                         // an array declared `= {}` or `= {0}`
    bool kept = false;                           // lives across a region: has an array of its own
    bool class_object = false;                   // of a class type that may not be kept (check_kept_types)
    bool const_class = false;                    // a const object of a class type, kept by copying its bytes
    std::size_t scope_begin = 0, scope_end = 0;  // the tokens where it may be mentioned
    std::size_t home_begin = 0, home_end = 0;    // the region that declares it
};

struct Statement {
    enum class Kind { plain, barrier, hoisted, dropped, loop } kind = Kind::plain;
    std::size_t begin = 0, end = 0;  // tokens [begin, end), a #pragma before it included
    std::size_t head = npos;         // its first token after such a #pragma
    std::vector<int> declares;       // variables it declares
    bool array_declaration = false;
    bool add_semicolon = false;      // a for-loop's init or increment, as a statement
    // A loop with barriers in its body.
    std::size_t cond_begin = 0, cond_end = 0;
    Statement* init = nullptr;  // owned by loop_parts
    Statement* inc = nullptr;
    std::size_t body_open = 0, body_close = 0;
    std::vector<Statement> body;
    // A `for` loop the same for every thread (uniform_loop): its variable,
    // that variable's type, and where its initial value starts.
    bool uniform = false;
    std::string loop_var, loop_type;
    std::size_t loop_value_begin = 0;
};

class Splitter {
public:
    Splitter(const Source& src, const SharedNames& reach, int first_line, std::string file,
             const InlinedKernel& inlined, const MacroWords& macros)
        : s_(src),
          reach_(reach),
          first_line_(first_line),
          file_(std::move(file)),
          inlined_(inlined),
          macros_(macros) {}

    std::string run(std::size_t name_token, const std::string& head_name) {
        if (reach_.unsure) throw Unsplittable{__LINE__, "(a name the barrier list cannot follow)"};
        kernel_name_ = head_name;
        const std::size_t params_open = nx(name_token + 1);
        if (!is(params_open, '(')) return "";
        const std::size_t params_close = group_end(params_open) - 1;
        const std::size_t body_open = nx(params_close + 1);
        if (!is(body_open, '{')) return "";
        const std::size_t body_close = group_end(body_open) - 1;
        if (!is(body_close, '}')) return "";
        body_open_ = body_open;
        body_close_ = body_close;
        read_template_types(name_token);
        read_parameters(params_open, params_close);
        screen(body_open + 1, body_close);
        std::vector<Statement> top = parse_list(body_open + 1, body_close, 0, body_open, body_close);
        if (barriers_ == 0) return "";
        decide_kept(top);
        check_outside_names();
        check_kept_types();
        check_parameters_unchanged();
        check_addresses();

        std::string out = "#line " + std::to_string(line_of(0)) + " " + file_ + "\n";
        out += text(0, name_token) + "__attribute__((no_sanitize(\"thread\"))) __cuemu_fast_" + head_name;
        // A barrier under `if constexpr (C)`: the split version is for C true.
        // Where C is false, the fiber path runs each thread on past where the
        // barrier would be, which loops over the threads cannot reproduce; then
        // the tag's type is one a split_tag does not convert to, and launch.h
        // runs the twin instead (cuemu/launch.h, CUEMU_FAST_BODY).
        std::string tag = "::cuemu::split_tag";
        if (!guards_.empty()) {
            std::string all;
            for (const std::string& g : guards_) all += (all.empty() ? "(" : " && (") + g + ")";
            tag = "::std::conditional_t<" + all + ", ::cuemu::split_tag, ::cuemu::split_tag*>";
        }
        out += text(name_token + 1, params_open + 1) + tag;
        const std::string params = s_.joined(params_open + 1, params_close);
        if (!params.empty() && params != "void") out += ", " + text(params_open + 1, params_close);
        out += ") {\n::cuemu::split_block __cuemu_sb;\n";
        for (const auto& [b, e] : hoisted_) out += at_line(b) + text(b, e) + "\n";
        std::string bytes;
        int kept = 0;
        for (std::size_t v = 0; v < vars_.size(); ++v) {
            if (!vars_[v].kept) continue;
            ++kept;
            out += "using __cuemu_ty_" + vars_[v].name + " = " + vars_[v].type + ";\n";
            bytes += " + sizeof(::std::remove_cv_t<__cuemu_ty_" + vars_[v].name + ">)";
        }
        out += "__cuemu_sb.begin(" + std::to_string(kept) + ", 0" + bytes + ");\n";
        for (std::size_t v = 0; v < vars_.size(); ++v) {
            if (!vars_[v].kept) continue;
            out += "auto* __cuemu_pt_" + vars_[v].name + " = __cuemu_sb.storage<::std::remove_cv_t<__cuemu_ty_" +
                   vars_[v].name + ">>();\n";
        }
        emit_list(top, {}, 0, out);
        out += "__cuemu_sb.finish();\n}\n";
        return out;
    }

private:
    const Source& s_;
    const SharedNames& reach_;
    int first_line_;
    std::string file_;
    const InlinedKernel& inlined_;
    const MacroWords& macros_;
    std::size_t body_open_ = 0, body_close_ = 0;
    std::string kernel_name_;
    std::set<std::string> params_;
    std::set<std::string> declared_names_;
    std::vector<std::pair<std::size_t, std::size_t>> hoisted_;
    // What the split version needs to hold at compile time: C of each
    // `if constexpr (C) __syncthreads();`, and that a template type parameter
    // a thread keeps across a barrier is an arithmetic type.
    std::vector<std::string> guards_;
    std::set<std::string> template_types_;   // the kernel's template type parameters
    std::set<std::string> template_params_;  // all its template parameters
    std::set<std::string> hoisted_names_;    // the constants declared once, above the regions
    std::set<std::string> uniform_vars_;     // the variables of uniform loops (uniform_loop)
    std::set<std::string> block_handles_;    // variables holding the block's group (block_group_use)
    std::vector<Var> vars_;
    std::map<std::size_t, std::string> replace_;  // token -> its text in the split version
    std::vector<std::unique_ptr<Statement>> loop_parts_;
    int barriers_ = 0;
    bool arrays_by_copy_ = true;  // check_addresses

    // ---- tokens ---------------------------------------------------------------------
    std::size_t nx(std::size_t i) const { return s_.next_code(i); }
    bool is(std::size_t i, char c) const { return s_.is_punct(i, c); }
    bool id(std::size_t i, const char* w) const { return s_.is_ident(i, w); }
    // The rewriter's notes in a kernel's body (cuemu/kernel_registry.h): a
    // __shared__ variable's size, a template kernel's address.
    bool is_rewriter_note(std::size_t i) const {
        return (id(i, "CUEMU_STATIC_SHARED") || id(i, "CUEMU_KNOWN_TEMPLATE_KERNEL")) && is(nx(i + 1), '(');
    }
    // Adjacent tokens (no space between): the tokenizer splits "+=" in two.
    bool pair(std::size_t i, char a, char b) const {
        return is(i, a) && i + 1 < s_.size() && is(i + 1, b);
    }
    int line_of(std::size_t t) const {
        const int line = s_.location(t).first;
        const std::vector<int>& lines = inlined_.source_line;  // where a function was written in
        if (lines.empty()) return first_line_ + line - 1;
        return line < static_cast<int>(lines.size()) ? lines[line] : lines.back();
    }
    std::string at_line(std::size_t t) const { return "#line " + std::to_string(line_of(t)) + " " + file_ + "\n"; }

    // Source's matching, refusing a kernel whose brackets or statements it cannot follow.
    std::size_t group_end(std::size_t i) const {
        const std::size_t end = s_.group_end(i);
        if (end == npos) throw UNSPLITTABLE;
        return end;
    }

    // The text of tokens [b, e), with the replacements.
    std::string text(std::size_t b, std::size_t e) const {
        std::string out;
        for (std::size_t t = b; t < e && t < s_.size(); ++t) {
            auto r = replace_.find(t);
            out += r != replace_.end() ? r->second : s_.spelling(t);
        }
        return out;
    }

    // Token t names `name` itself, not a member of that name (threadIdx.x).
    bool names(std::size_t t, const std::string& name) const {
        if (!s_.is_ident(t) || s_.spelling(t) != name) return false;
        const std::size_t before = s_.prev_code(t);
        return !(is(before, '.') || (before != npos && before > 0 && pair(before - 1, '-', '>')));
    }
    bool mentions(std::size_t b, std::size_t e, const std::string& name) const {
        for (std::size_t t = b; t < e; ++t)
            if (names(t, name)) return true;
        return false;
    }

    // Token t, a name, is assigned to, incremented, or (with members)
    // one of its members or elements is: name, name.m, name.m[i] ... then = += ++ ...
    bool written_at(std::size_t t, bool through_members) const {
        const std::size_t before = s_.prev_code(t);
        if (is(before, '*')) {
            // *name = ...: what it points to (a binary * has no place before an assignment).
            const std::size_t after = nx(t + 1);
            if (!(pair(after, '+', '+') || pair(after, '-', '-'))) return false;
        }
        if (before != npos && before > 0 && (pair(before - 1, '+', '+') || pair(before - 1, '-', '-'))) return true;
        std::size_t after = nx(t + 1);
        // name.member... is the variable itself (name[i] and name->m, of a
        // pointer, are what it points to).
        if (through_members && is(after, '.')) {
            while (is(after, '.') || is(after, '[')) {
                after = is(after, '.') ? nx(nx(after + 1) + 1) : nx(group_end(after));
            }
        }
        if (is(after, '=')) return !(after + 1 < s_.size() && is(after + 1, '='));
        for (const char op : {'+', '-', '*', '/', '%', '&', '|', '^'})
            if (pair(after, op, '=')) return true;
        if (pair(after, '+', '+') || pair(after, '-', '-')) return true;
        if ((pair(after, '<', '<') || pair(after, '>', '>')) && after + 2 < s_.size() && is(after + 2, '='))
            return true;
        return false;
    }
    // A unary '&' before the variable named at token t (a binary one
    // follows an operand; &name[i] and &name->m take what it points to).
    bool address_taken_at(std::size_t t) const {
        const std::size_t after = nx(t + 1);
        if (is(after, '[') || pair(after, '-', '>')) return false;
        const std::size_t amp = s_.prev_code(t);
        if (!is(amp, '&') || (amp > 0 && is(amp - 1, '&'))) return false;
        const std::size_t before = s_.prev_code(amp);
        if (before == npos) return true;
        const Kind k = s_[before].kind;
        return !(k == Kind::Identifier || k == Kind::Number || is(before, ')') || is(before, ']'));
    }

    // ---- what the kernel may contain ----------------------------------------------------
    void read_parameters(std::size_t open, std::size_t close) {
        std::size_t last_name = npos;
        int depth = 0;
        for (std::size_t t = nx(open + 1); t < close; t = nx(t + 1)) {
            if (is(t, '(') || is(t, '[') || is(t, '<')) ++depth;
            if (is(t, ')') || is(t, ']') || is(t, '>')) --depth;
            if (s_.is_ident(t)) last_name = t;
            if ((is(t, ',') || is(t, '=')) && last_name != npos) params_.insert(s_.spelling(last_name));
        }
        if (last_name != npos) params_.insert(s_.spelling(last_name));
    }

    // `template <typename T, int N>` before the name: T (a type), and T and N.
    void read_template_types(std::size_t name_token) {
        for (std::size_t t = nx(0); t < name_token; t = nx(t + 1)) {
            const std::size_t after = nx(t + 1);
            if (!s_.is_ident(t) || !(is(after, ',') || is(after, '>') || is(after, '='))) continue;
            template_params_.insert(s_.spelling(t));
            const std::size_t before = s_.prev_code(t);
            if (id(before, "typename") || id(before, "class")) template_types_.insert(s_.spelling(t));
        }
    }

    void screen(std::size_t b, std::size_t e) {
        for (std::size_t t = nx(b); t < e; t = nx(t + 1)) {
            if (s_[t].in_directive) {  // #pragma unroll and the like: copied with their statement
                if (!is(t, '#') || !id(nx(t + 1), "pragma")) throw Unsplittable{__LINE__, "#"};
                t = s_.directive_end(t) - 1;
                continue;
            }
            if (is(t, '[')) {  // a lambda's captures
                const std::size_t n = nx(t + 1);
                if (is(n, '&') || is(n, '=') || is(n, ']') || id(n, "this")) throw UNSPLITTABLE;
            }
            if (!s_.is_ident(t)) continue;
            if (is_rewriter_note(t)) {  // names the kernel itself
                t = group_end(nx(t + 1)) - 1;
                continue;
            }
            const std::string name = s_.spelling(t);
            if (refused_words.count(name)) throw Unsplittable{__LINE__, name};
            if (name == "cuemu") {  // only the extern __shared__ pointer's initializer (:: is two tokens)
                if (!id(nx(nx(nx(t + 1) + 1) + 1), "dynamic_shared_memory")) throw Unsplittable{__LINE__, name};
                continue;
            }
            // The block's own group (cooperative_groups' thread_block): its
            // sync() is a __syncthreads(); anything else of cooperative groups
            // (tiles, the grid, reductions) is refused below.
            if (const std::size_t last = block_group_use(t); last != npos) {
                t = last;
                continue;
            }
            // The kernel's own name is on the list (its body has barriers);
            // here it can only be a variable: a launch from a kernel is refused.
            // A call redirected to a __device__ function's twin is a call of the function.
            const std::string base = name.rfind("__cuemu_fast_", 0) == 0 ? name.substr(13) : name;
            if (name != "__syncthreads" && base != kernel_name_ && (reach_.names.count(base) || is_barrier_seed(base)))
                throw Unsplittable{__LINE__, base};
            if (name == "return") {
                if (!is(nx(t + 1), ';')) throw UNSPLITTABLE;
                replace_[t] = "return true";
            }
        }
    }

    // ---- statements -----------------------------------------------------------------
    std::size_t statement_end(std::size_t i) const {
        const std::size_t end = s_.statement_end(i, body_close_, StatementGrammar::full);
        if (end == npos) throw UNSPLITTABLE;
        return end;
    }

    // The __syncthreads (or the group's sync) of a barrier statement (inside its guard, if any).
    std::size_t barrier_token(const Statement& st) const {
        for (std::size_t t = first_of(st); t < st.end; t = nx(t + 1))
            if (id(t, "__syncthreads") || id(t, "sync")) return t;
        return first_of(st);
    }

    // A __syncthreads, or the sync of the block's group (the only `sync`
    // screen lets through, member or not).
    bool has_barrier(std::size_t b, std::size_t e) const {
        for (std::size_t t = b; t < e; ++t)
            if (id(t, "__syncthreads") || id(t, "sync")) return true;
        return false;
    }

    // `__syncthreads();`, or the block's group waiting: `cg::sync(block);`,
    // `block.sync();`, `cg::this_thread_block().sync();`.
    bool is_barrier_statement(std::size_t i, std::size_t e) const {
        std::size_t call = i;
        if (is_group_namespace(i)) call = nx(nx(nx(i + 1) + 1) + 1);
        if (id(call, "sync") && is(nx(call + 1), '(')) {  // cg::sync(block)
            const std::size_t handle = nx(nx(call + 1) + 1), close = nx(handle + 1);
            return block_handles_.count(s_.spelling(handle)) && is(close, ')') && is(nx(close + 1), ';') &&
                   nx(close + 1) + 1 == e;
        }
        if (call == i && s_.is_ident(i) && block_handles_.count(s_.spelling(i))) {
            call = nx(i + 1);  // block.sync()
        } else if (id(call, "this_thread_block") && is(nx(call + 1), '(') && is(nx(nx(call + 1) + 1), ')')) {
            call = nx(nx(nx(call + 1) + 1) + 1);  // cg::this_thread_block().sync()
        } else if (call != i || !id(i, "__syncthreads")) {
            return false;
        }
        if (!id(i, "__syncthreads")) {
            if (!is(call, '.') || !id(nx(call + 1), "sync")) return false;
            call = nx(call + 1);
        }
        const std::size_t open = nx(call + 1), close = nx(open + 1), semi = nx(close + 1);
        return is(open, '(') && is(close, ')') && is(semi, ';') && semi + 1 == e;
    }

    // ---- the block's own group (cooperative groups) -------------------------------------
    // `cg::` or `cooperative_groups::` at token i.
    bool is_group_namespace(std::size_t i) const {
        return (id(i, "cg") || id(i, "cooperative_groups")) && is(nx(i + 1), ':') && is(nx(nx(i + 1) + 1), ':');
    }
    // A use of the block's group at token t that the split version can keep,
    // and its last token: the type and this_thread_block() (with or without
    // the namespace), the group's sync (a barrier: parse_list checks its form)
    // and its members that only read threadIdx, blockIdx or blockDim.
    // npos: not one (screen refuses what is a barrier seed).
    std::size_t block_group_use(std::size_t t) {
        std::size_t name = t;
        if (is_group_namespace(t)) name = nx(nx(nx(t + 1) + 1) + 1);
        else if (is(s_.prev_code(t), ':')) return npos;  // another namespace's
        if (id(name, "thread_block") || id(name, "this_thread_block")) {
            // `[cg::]thread_block block = [cg::]this_thread_block();`: block is the group.
            if (id(name, "thread_block") && s_.is_ident(nx(name + 1)) && is(nx(nx(name + 1) + 1), '='))
                block_handles_.insert(s_.spelling(nx(name + 1)));
            return name;
        }
        if (id(name, "sync") && name != t) return name;  // cg::sync(...): its argument is checked as a statement
        if (id(t, "sync")) {
            const std::size_t dot = s_.prev_code(t), object = s_.prev_code(dot);
            const bool of_group = is(dot, '.') && (is(object, ')') || (s_.is_ident(object) &&
                                                                       block_handles_.count(s_.spelling(object))));
            if (of_group || (is(nx(t + 1), '(') && block_handles_.count(s_.spelling(nx(nx(t + 1) + 1))))) return t;
        }
        return npos;
    }
    // `[const] [cg::]thread_block block = [cg::]this_thread_block();`, or `= other_block;`
    std::size_t group_handle_of(std::size_t i) const {
        std::size_t t = id(i, "const") ? nx(i + 1) : i;
        if (is_group_namespace(t)) t = nx(nx(nx(t + 1) + 1) + 1);
        return id(t, "thread_block") ? nx(t + 1) : npos;
    }
    bool is_block_group_declaration(std::size_t i, std::size_t e) const {
        const std::size_t handle = group_handle_of(i);
        if (handle == npos) return false;
        const std::size_t assign = nx(handle + 1);
        if (!s_.is_ident(handle) || !block_handles_.count(s_.spelling(handle)) || !is(assign, '=')) return false;
        std::size_t call = nx(assign + 1);
        // A copy of the group: a __device__ function's parameter, written in
        // as `= (block);` (split_inline.h).
        const bool parenthesized = is(call, '(');
        const std::size_t other = parenthesized ? nx(call + 1) : call;
        if (s_.is_ident(other) && block_handles_.count(s_.spelling(other))) {
            const std::size_t semi = parenthesized && is(nx(other + 1), ')') ? nx(nx(other + 1) + 1) : nx(other + 1);
            return is(semi, ';') && semi + 1 == e;
        }
        if (is_group_namespace(call)) call = nx(nx(nx(call + 1) + 1) + 1);
        const std::size_t open = nx(call + 1), close = nx(open + 1), semi = nx(close + 1);
        return id(call, "this_thread_block") && is(open, '(') && is(close, ')') && is(semi, ';') && semi + 1 == e;
    }

    // break or continue outside any loop or switch of the statement itself:
    // it would leave the region's lambda.
    void check_no_loose_jumps(std::size_t b, std::size_t e) const {
        if (id(b, "for") || id(b, "while") || id(b, "do") || id(b, "switch")) return;
        if (mentions(b, e, "break") || mentions(b, e, "continue")) throw UNSPLITTABLE;
    }

    std::vector<Statement> parse_list(std::size_t b, std::size_t e, int depth, std::size_t scope_begin,
                                      std::size_t scope_end) {
        if (depth > 200) throw UNSPLITTABLE;
        std::vector<Statement> list;
        for (std::size_t i = nx(b); i < e;) {
            Statement st;
            st.begin = i;
            // A #pragma before a statement (unroll) goes with it.
            while (i < e && s_[i].in_directive) i = nx(s_.directive_end(i));
            if (i >= e) break;
            st.head = i;
            if (is_rewriter_note(i)) {
                st.kind = Statement::Kind::dropped;  // the twin and the kernel note the size or address
                st.end = group_end(nx(i + 1));
            } else {
                st.end = statement_end(i);
                if (st.end > e) throw UNSPLITTABLE;
                const bool barrier = has_barrier(i, st.end);
                if (barrier && is_barrier_statement(i, st.end)) {
                    st.kind = Statement::Kind::barrier;
                    ++barriers_;
                } else if (barrier && id(i, "if") && id(nx(i + 1), "constexpr")) {
                    read_guarded_barrier(st, i);
                } else if (barrier && (id(i, "for") || id(i, "while"))) {
                    parse_loop(st, i, depth + 1);
                } else if (barrier) {
                    throw UNSPLITTABLE;
                } else if (is_block_group_declaration(i, st.end)) {
                    // The group holds nothing of a thread's: declared once, above the regions.
                    note_name(s_.spelling(group_handle_of(i)));
                    hoisted_.push_back({st.begin, st.end});
                    st.kind = Statement::Kind::hoisted;
                } else if (id(i, "__shared__")) {
                    hoist(st);
                } else if (mentions(i, st.end, "__shared__")) {
                    throw UNSPLITTABLE;
                } else {
                    check_no_loose_jumps(i, st.end);
                    if (looks_like_declaration(i)) read_declaration(st, scope_begin, scope_end, false);
                }
            }
            list.push_back(std::move(st));
            i = nx(list.back().end);
        }
        return list;
    }

    // `if constexpr (C) __syncthreads();`, or the barrier in braces, with no
    // else (lesson 09 leaves its second barrier out this way, for a race demo).
    void read_guarded_barrier(Statement& st, std::size_t keyword) {
        const std::size_t open = nx(nx(keyword + 1) + 1);
        const std::size_t close = group_end(open) - 1;
        std::size_t barrier = nx(close + 1), branch_end = 0;
        if (is(barrier, '{')) {
            branch_end = group_end(barrier);
            barrier = nx(barrier + 1);
            if (nx(statement_end(barrier)) != branch_end - 1) throw UNSPLITTABLE;  // more than the barrier
        } else {
            branch_end = statement_end(barrier);
        }
        if (!is_barrier_statement(barrier, statement_end(barrier))) throw UNSPLITTABLE;
        if (branch_end != st.end) throw UNSPLITTABLE;  // an else
        st.kind = Statement::Kind::barrier;
        guards_.push_back(text(nx(open + 1), close));
        ++barriers_;
    }

    void parse_loop(Statement& st, std::size_t keyword, int depth) {
        st.kind = Statement::Kind::loop;
        const std::size_t open = nx(keyword + 1);
        const std::size_t close = group_end(open) - 1;
        if (id(keyword, "for")) {
            std::size_t semi1 = npos, semi2 = npos;
            for (std::size_t t = nx(open + 1); t < close; t = nx(t + 1)) {
                if (is(t, '(') || is(t, '[') || is(t, '{')) t = group_end(t) - 1;
                else if (is(t, ';')) (semi1 == npos ? semi1 : semi2) = t;
            }
            if (semi1 == npos || semi2 == npos) throw UNSPLITTABLE;
            if (nx(open + 1) < semi1) st.init = loop_part(nx(open + 1), semi1);
            st.cond_begin = nx(semi1 + 1);
            st.cond_end = semi2;
            if (nx(semi2 + 1) < close) st.inc = loop_part(nx(semi2 + 1), close);
        } else {
            st.cond_begin = nx(open + 1);
            st.cond_end = close;
        }
        if (st.cond_begin >= st.cond_end) throw UNSPLITTABLE;  // no condition: a break would end it
        if (has_barrier(st.cond_begin, st.cond_end)) throw UNSPLITTABLE;
        st.body_open = nx(close + 1);
        if (!is(st.body_open, '{')) throw UNSPLITTABLE;
        st.body_close = group_end(st.body_open) - 1;
        if (st.init && uniform_loop(st)) {
            note_name(st.loop_var);
            uniform_vars_.insert(st.loop_var);
        } else if (st.init && looks_like_declaration(st.init->begin)) {
            read_declaration(*st.init, keyword, st.end, true);
        }
        st.body = parse_list(st.body_open + 1, st.body_close, depth, st.body_open, st.body_close);
    }

    // A for-loop's init or increment [begin, end), as a statement of its own.
    Statement* loop_part(std::size_t begin, std::size_t end) {
        loop_parts_.push_back(std::make_unique<Statement>());
        Statement* part = loop_parts_.back().get();
        part->begin = begin;
        part->end = end;
        part->add_semicolon = true;
        return part;
    }

    // ---- loops the same for every thread ----------------------------------------------
    // `for (int t = U; C; ++t)` where U and C name no thread's own value (no
    // threadIdx, no variable of the kernel but earlier such loops' ones) and
    // read no memory through a pointer, and the body never changes t: every
    // running thread goes round as often as every other, so the loop runs
    // once for the block, around its regions, with t a single variable,
    // instead of as a region for the condition (with parking) and one for
    // the increment, each a pass over the threads.
    bool uniform_loop(Statement& st) {
        const std::size_t end = st.init->end;
        std::size_t t = st.init->begin;
        std::string type;
        for (; t < end && s_.is_ident(t) && scalar_words.count(s_.spelling(t)); t = nx(t + 1)) {
            if (id(t, "const")) return false;
            type += (type.empty() ? "" : " ") + s_.spelling(t);
        }
        if (type.empty() || !s_.is_ident(t) || scalar_words.count(s_.spelling(t))) return false;
        const std::size_t name = t, assign = nx(name + 1);
        if (!is(assign, '=') || (assign + 1 < s_.size() && is(assign + 1, '='))) return false;
        const std::size_t value = nx(assign + 1);
        const std::string var = s_.spelling(name);
        if (value >= end || params_.count(var) || declared_names_.count(var)) return false;
        std::set<std::string> loop_vars = uniform_vars_;
        if (!uniform_expression(value, end, loop_vars)) return false;
        loop_vars.insert(var);
        if (!uniform_expression(st.cond_begin, st.cond_end, loop_vars)) return false;
        if (!st.inc || !uniform_increment(st.inc->begin, st.inc->end, var, loop_vars)) return false;
        for (std::size_t u = st.body_open; u < st.body_close; ++u) {
            if (!names(u, var)) continue;
            if (written_at(u, true) || address_taken_at(u) || modified_in(var, u, u + 1)) return false;
        }
        st.uniform = true;
        st.loop_var = var;
        st.loop_type = type;
        st.loop_value_begin = value;
        return true;
    }

    // Tokens [b, e) compute the same value for every thread of the block, and
    // change nothing: see uniform_loop. `loop_vars`: the variables of the
    // uniform loops around it (and its own).
    bool uniform_expression(std::size_t b, std::size_t e, const std::set<std::string>& loop_vars) const {
        if (b >= e) return false;
        for (std::size_t u = b; u < e; u = nx(u + 1)) {
            if (s_[u].in_directive) return false;
            if (is(u, '[') || is(u, '{') || is(u, ',') || is(u, ';') || pair(u, '-', '>')) return false;
            if (pair(u, '+', '+') || pair(u, '-', '-')) return false;
            if (is(u, '=')) {  // only as part of == != <= >=, never an assignment
                const bool comparison = (u + 1 < s_.size() && is(u + 1, '=')) ||
                                        (u > 0 && is(u - 1, '=')) || (u > 0 && is(u - 1, '!')) ||
                                        (u > 0 && (is(u - 1, '<') || is(u - 1, '>')) &&
                                         !(u > 1 && (pair(u - 2, '<', '<') || pair(u - 2, '>', '>'))));
                if (!comparison) return false;
                continue;
            }
            if (is(u, '*') || is(u, '&')) {  // unary: a read through a pointer, an address
                const std::size_t before = s_.prev_code(u);
                const bool operand = before != npos && before >= b &&
                                     (s_.is_ident(before) || s_[before].kind == Kind::Number || is(before, ')'));
                if (!operand && !(is(u, '&') && u > b && is(u - 1, '&'))) return false;
                continue;
            }
            if (!s_.is_ident(u)) continue;
            if (is(s_.prev_code(u), '.')) continue;  // a member: blockIdx.x's x
            if (!uniform_name(u, loop_vars)) return false;
        }
        return true;
    }
    bool uniform_name(std::size_t u, const std::set<std::string>& loop_vars) const {
        const std::string w = s_.spelling(u);
        const std::size_t after = nx(u + 1);
        if (is(after, '(')) return w == "sizeof" || scalar_words.count(w);  // a call: maybe not the same for all
        if (is(after, '<') && !loop_vars.count(w) && !params_.count(w) && !hoisted_names_.count(w) &&
            !template_params_.count(w))
            return false;  // a template's arguments, or a comparison: not certain which
        if (loop_vars.count(w) || params_.count(w) || template_params_.count(w) || hoisted_names_.count(w) ||
            scalar_words.count(w))
            return true;
        static const std::set<std::string> block_words = {"blockIdx", "blockDim", "gridDim", "warpSize"};
        if (block_words.count(w)) return true;
        if (w == "threadIdx" || declared_names_.count(w) || var_named(w) >= 0 || uniform_vars_.count(w))
            return false;  // a thread's own value (or a loop's variable outside it)
        if (macros_.count(w)) return uniform_macro(w, loop_vars, 0);
        // A name from outside the kernel: a constant, or a variable of the
        // program that a thread reads as every other does.
        return true;
    }
    // A macro whose words are all such names (a number: no words at all).
    bool uniform_macro(const std::string& macro, const std::set<std::string>& loop_vars, int depth) const {
        if (depth > 8) return false;
        static const std::set<std::string> block_words = {"blockIdx", "blockDim", "gridDim", "warpSize", "x",
                                                          "y",        "z"};
        for (const std::string& w : macros_.at(macro)) {
            if (macros_.count(w)) {
                if (!uniform_macro(w, loop_vars, depth + 1)) return false;
                continue;
            }
            // An unknown word here may be a function the macro calls: refused.
            if (!(loop_vars.count(w) || params_.count(w) || template_params_.count(w) || hoisted_names_.count(w) ||
                  scalar_words.count(w) || block_words.count(w)))
                return false;
        }
        return true;
    }
    // `++t`, `t++`, `--t`, `t--`, `t = U`, `t op= U`.
    bool uniform_increment(std::size_t b, std::size_t e, const std::string& var,
                           const std::set<std::string>& loop_vars) const {
        if (pair(b, '+', '+') || pair(b, '-', '-')) return names(nx(b + 2), var) && nx(nx(b + 2) + 1) >= e;
        if (!names(b, var)) return false;
        std::size_t op = nx(b + 1);
        if (pair(op, '+', '+') || pair(op, '-', '-')) return nx(op + 2) >= e;
        std::size_t u = op;
        if (pair(u, '<', '<') || pair(u, '>', '>')) u += 2;
        else if (!is(u, '=')) ++u;  // + - * / % & | ^
        if (u >= e || !is(u, '=') || u > op + 2 || (u + 1 < s_.size() && is(u + 1, '='))) return false;
        if (u != op && !(is(op, '+') || is(op, '-') || is(op, '*') || is(op, '/') || is(op, '%') || is(op, '&') ||
                         is(op, '|') || is(op, '^') || pair(op, '<', '<') || pair(op, '>', '>')))
            return false;
        return uniform_expression(nx(u + 1), e, loop_vars);
    }

    // A __shared__ declaration: the block's, declared once before the regions.
    void hoist(Statement& st) {
        for (std::size_t t = first_of(st); t < st.end; ++t)
            if (id(t, "threadIdx") || (s_.is_ident(t) && var_named(s_.spelling(t)) >= 0)) throw UNSPLITTABLE;
        hoisted_.push_back({st.begin, st.end});
        st.kind = Statement::Kind::hoisted;
    }
    std::size_t first_of(const Statement& st) const { return st.head == npos ? st.begin : st.head; }

    // ---- declarations ---------------------------------------------------------------
    bool looks_like_declaration(std::size_t i) const {
        if (!s_.is_ident(i)) return false;
        const std::string first = s_.spelling(i);
        if (scalar_words.count(first) || first == "constexpr") return true;
        static const std::set<std::string> statements = {"return", "if", "for", "while", "do", "switch",
                                                         "break", "continue", "case", "default", "else",
                                                         "new", "delete", "sizeof", "__syncthreads"};
        if (statements.count(first)) return false;
        std::size_t t = nx(i + 1);
        while (is(t, ':') && is(nx(t + 1), ':')) t = nx(nx(nx(t + 1) + 1) + 1);  // a qualified name
        if (is(t, '<')) throw UNSPLITTABLE;  // a template's type, or a call: not certain which
        if (s_.is_ident(t)) return true;
        if (!is(t, '*')) return false;
        while (is(t, '*') || id(t, "const") || id(t, "__restrict__")) t = nx(t + 1);
        const std::size_t after = nx(t + 1);
        return s_.is_ident(t) && (is(after, '=') || is(after, ';') || is(after, ',') || is(after, '['));
    }

    // A declaration statement [st.begin, st.end) (its ';' included, except
    // for a for-loop's init): each declarator becomes a variable, or the
    // whole declaration is hoisted out of the regions.
    void read_declaration(Statement& st, std::size_t scope_begin, std::size_t scope_end, bool loop_init) {
        // The first declarator's name: an identifier followed by = , ; [ or
        // a brace initializer (TileLoads next{};).
        const std::size_t first = first_of(st);
        std::size_t name = npos;
        for (std::size_t t = first; t < st.end; t = nx(t + 1)) {
            if (is(t, '(') || is(t, '{') || is(t, '<')) throw UNSPLITTABLE;
            if (!s_.is_ident(t)) continue;
            const std::size_t n = nx(t + 1);
            if (is(n, '=') || is(n, ',') || is(n, ';') || is(n, '[') || n >= st.end || (is(n, '{') && t != first)) {
                name = t;
                break;
            }
        }
        if (name == npos) throw UNSPLITTABLE;
        std::size_t star = npos;
        for (std::size_t t = first; t < name; t = nx(t + 1)) {
            if (is(t, '&')) throw UNSPLITTABLE;
            if (is(t, '*') && star == npos) star = t;
        }
        const std::size_t spec_end = star == npos ? name : star;
        bool is_constexpr = false, is_const = false, all_scalar = true;
        std::string spec;
        for (std::size_t t = first; t < spec_end; t = nx(t + 1)) {
            if (id(t, "constexpr")) {
                is_constexpr = true;
                continue;
            }
            if (id(t, "const")) is_const = true;
            if (!s_.is_ident(t) && !is(t, ':')) throw UNSPLITTABLE;
            if (s_.is_ident(t) && !scalar_words.count(s_.spelling(t))) all_scalar = false;
            const bool glued = is(t, ':') || (!spec.empty() && spec.back() == ':');  // ns::T
            spec += (spec.empty() || glued ? "" : " ") + s_.spelling(t);
        }
        if (spec.empty()) throw UNSPLITTABLE;

        struct Declarator {
            std::size_t name;
            std::string pointer, dims;
            std::size_t init_begin = npos, init_end = npos;
        };
        std::vector<Declarator> declarators;
        std::size_t t = spec_end;
        for (;;) {
            Declarator d;
            while (is(t, '*') || id(t, "const") || id(t, "__restrict__") || id(t, "__restrict")) {
                d.pointer += is(t, '*') ? "*" : " " + s_.spelling(t) + " ";
                t = nx(t + 1);
            }
            if (!s_.is_ident(t)) throw UNSPLITTABLE;
            d.name = t;
            t = nx(t + 1);
            while (is(t, '[')) {
                const std::size_t end = group_end(t);
                d.dims += text(t, end);
                t = nx(end);
            }
            if (is(t, '{')) {  // x{...}
                d.init_begin = t;
                d.init_end = group_end(t);
                t = nx(d.init_end);
            } else if (is(t, '=')) {
                d.init_begin = nx(t + 1);
                for (t = d.init_begin; t < st.end && !is(t, ',') && !is(t, ';'); t = nx(t + 1))
                    if (is(t, '(') || is(t, '[') || is(t, '{')) t = group_end(t) - 1;
                d.init_end = t;
            }
            declarators.push_back(d);
            if (t >= st.end || is(t, ';')) break;
            if (!is(t, ',')) throw UNSPLITTABLE;
            t = nx(t + 1);
        }

        // A constant the same for every thread: declared once, before the regions.
        // It must read no memory either: hoisted above the regions, it would
        // read before the threads' writes that come before it (data[0], s[5],
        // *p, p->n, a __shared__ or __device__ variable by its name). So its
        // names are the kernel's parameters and template parameters, blockIdx,
        // blockDim, gridDim, warpSize, constants hoisted before it, sizeof and
        // the built-in types (casts); any other name may be a variable.
        // (A constexpr one reads nothing that changes.)
        auto uniform = [&](const Declarator& d) {
            if (d.init_begin == npos) return false;
            for (std::size_t u = d.init_begin; u < d.init_end; u = nx(u + 1)) {
                if (is(u, '=') || pair(u, '+', '+') || pair(u, '-', '-')) return false;
                if (is(u, '[') || pair(u, '-', '>')) return false;
                if (is(u, '*')) {  // a unary * follows no operand
                    const std::size_t before = s_.prev_code(u);
                    const bool operand = before != npos && (s_.is_ident(before) || s_[before].kind == Kind::Number ||
                                                           is(before, ')') || is(before, ']'));
                    if (!operand) return false;
                }
                if (!s_.is_ident(u)) continue;
                const std::string w = s_.spelling(u);
                if (w == "threadIdx" || var_named(w) >= 0) return false;
                if (is(nx(u + 1), '(') && w != "sizeof" && !scalar_words.count(w)) return false;
                if (is_constexpr || is(s_.prev_code(u), '.')) continue;  // blockDim.x's x
                static const std::set<std::string> block_words = {"blockIdx", "blockDim", "gridDim", "warpSize",
                                                                  "sizeof"};
                if (!params_.count(w) && !template_params_.count(w) && !hoisted_names_.count(w) &&
                    !block_words.count(w) && !scalar_words.count(w))
                    return false;
            }
            return true;
        };
        bool hoistable = !loop_init && (is_constexpr || is_const) && star == npos;
        for (const Declarator& d : declarators) hoistable = hoistable && d.dims.empty() && uniform(d);
        if (is_constexpr && !hoistable) throw UNSPLITTABLE;
        if (hoistable) {
            for (const Declarator& d : declarators) {
                note_name(s_.spelling(d.name));
                hoisted_names_.insert(s_.spelling(d.name));
            }
            hoisted_.push_back({st.begin, st.end});
            st.kind = Statement::Kind::hoisted;
            return;
        }
        bool arrays = false, plain = false;
        // `T x` of a template type parameter T: as a built-in scalar, where T is
        // one (the split version's guard). `const Place p = ...` of a class
        // type: kept as it is where the type is trivially copyable (the guard);
        // being const, no member function changes it unseen. Any other class
        // type, whose member functions may change it unseen: not split.
        // A class object that lives between two barriers only is destroyed at
        // the end of its stretch, not of its scope: its type must have no
        // destructor that does anything (another guard).
        std::string template_type, const_class, class_name;
        bool class_object = false;
        if (!all_scalar) {
            std::vector<std::string> words;
            for (std::size_t t = first; t < spec_end; t = nx(t + 1)) {
                if (id(t, "const") || id(t, "constexpr")) continue;
                if (s_.is_ident(t)) words.push_back(s_.spelling(t));
                class_name += s_.spelling(t);  // ns::Place has no spaces
            }
            if (words.size() == 1 && template_types_.count(words[0])) template_type = words[0];
            else if (is_const && !is_constexpr) const_class = class_name;
        }
        auto add_guard = [&](const std::string& guard) {
            if (std::find(guards_.begin(), guards_.end(), guard) == guards_.end()) guards_.push_back(guard);
        };
        for (const Declarator& d : declarators) {
            const bool plain_object = d.pointer.find('*') == std::string::npos && d.dims.empty();
            if (!const_class.empty() && plain_object && d.init_begin != npos) {
                add_guard("::std::is_trivially_copyable_v<" + const_class + ">");
            } else if (!all_scalar && template_type.empty() && d.pointer.find('*') == std::string::npos) {
                class_object = true;  // fine in one region; kept across a barrier, not split (check_kept_types)
                add_guard("::std::is_trivially_destructible_v<" + class_name + ">");
            }
            (d.dims.empty() ? plain : arrays) = true;
            const bool zeroed = !d.dims.empty() && d.init_begin != npos && zero_initializer(d.init_begin, d.init_end);
            if (!d.dims.empty() && d.init_begin != npos && !zeroed) throw UNSPLITTABLE;
            if (!template_type.empty() && d.pointer.find('*') == std::string::npos)
                add_guard("::std::is_arithmetic_v<" + template_type + ">");
            Var v;
            v.const_class = !const_class.empty() && plain_object;
            v.class_object = class_object;
            class_object = false;
            v.zeroed = zeroed;
            v.name = s_.spelling(d.name);
            v.type = spec + " " + d.pointer + d.dims;
            v.array = !d.dims.empty();
            v.initialized = d.init_begin != npos;
            v.scope_begin = scope_begin;
            v.scope_end = scope_end;
            note_name(v.name);
            st.declares.push_back(static_cast<int>(vars_.size()));
            vars_.push_back(v);
        }
        if (arrays && plain) throw UNSPLITTABLE;
        st.array_declaration = arrays;
        if (loop_init && arrays) throw UNSPLITTABLE;
    }
    // `{}`, `{0}`, `{0.0f}`: every element zero.
    bool zero_initializer(std::size_t b, std::size_t e) const {
        if (!is(b, '{')) return false;
        const std::size_t inner = nx(b + 1);
        if (is(inner, '}')) return nx(inner + 1) >= e;
        if (s_[inner].kind != Kind::Number || !is(nx(inner + 1), '}') || nx(nx(inner + 1) + 1) < e) return false;
        const std::string n = s_.spelling(inner);
        return n.find_first_not_of("0.fFlLuU") == std::string::npos;
    }

    int var_named(const std::string& name) const {
        for (std::size_t v = 0; v < vars_.size(); ++v)
            if (vars_[v].name == name) return static_cast<int>(v);
        return -1;
    }
    // Every name the split version declares is one name: no shadowing.
    void note_name(const std::string& name) {
        if (params_.count(name) || declared_names_.count(name) || var_named(name) >= 0) throw UNSPLITTABLE;
        declared_names_.insert(name);
    }

    // ---- which variables live across regions ----------------------------------------------
    // A variable is kept (has an array) when it is mentioned outside the
    // region that declares it. Regions: runs of plain statements of one list.
    void decide_kept(std::vector<Statement>& list) {
        for (std::size_t k = 0; k < list.size();) {
            if (list[k].kind == Statement::Kind::loop) {
                Statement& loop = list[k];
                if (loop.init)
                    for (int v : loop.init->declares) vars_[v].kept = true;  // the condition reads it
                decide_kept(loop.body);
                ++k;
                continue;
            }
            if (list[k].kind != Statement::Kind::plain) {
                ++k;
                continue;
            }
            std::size_t j = k;
            while (j < list.size() && (list[j].kind == Statement::Kind::plain ||
                                       list[j].kind == Statement::Kind::hoisted ||
                                       list[j].kind == Statement::Kind::dropped))
                ++j;
            const std::size_t rb = list[k].begin, re = list[j - 1].end;
            for (std::size_t m = k; m < j; ++m)
                for (int v : list[m].declares) {
                    Var& var = vars_[v];
                    var.home_begin = rb;
                    var.home_end = re;
                    var.kept = mentions(var.scope_begin, rb, var.name) || mentions(re, var.scope_end + 1, var.name);
                }
            k = j;
        }
    }

    // A name that a function written into the kernel uses from outside itself
    // must not be one the kernel declares: inside the kernel it would be the
    // kernel's variable, not what the function meant (split_inline.h).
    void check_outside_names() const {
        for (const std::string& name : inlined_.outside_names)
            if (params_.count(name) || declared_names_.count(name)) throw Unsplittable{__LINE__, name};
    }

    // A variable of a class type kept across a barrier: its member functions
    // may change it where the copy back out cannot see it.
    void check_kept_types() const {
        for (const Var& v : vars_)
            if (v.kept && v.class_object) throw Unsplittable{__LINE__, v.name};
    }

    void check_parameters_unchanged() const {
        for (std::size_t t = body_open_; t < body_close_; ++t) {
            if (!s_.is_ident(t) || !params_.count(s_.spelling(t)) || !names(t, s_.spelling(t))) continue;
            if (address_taken_at(t) || written_at(t, true)) throw UNSPLITTABLE;
        }
    }
    // A pointer kept across a barrier must not point at a variable of one
    // region's lambda: so no kept variable's address is taken, and where a
    // pointer is kept, no region's own variable's address is taken either
    // (nor is an array of a region's own there, which decays to one).
    // Where no pointer is kept, a kept array is copied into a local array at
    // the start of each region that names it, and back at its end: GCC keeps
    // a local array in registers (lesson 19's 8 x 8 sums, 3.4 times slower
    // when each += went to the array of arrays). A kept pointer may point into
    // a kept array, so then the region uses the array of arrays itself.
    void check_addresses() {
        bool kept_pointer = false;
        for (const Var& v : vars_) kept_pointer = kept_pointer || (v.kept && v.type.find('*') != std::string::npos);
        arrays_by_copy_ = !kept_pointer;
        for (const Var& v : vars_)
            if (kept_pointer && v.array && !v.kept) throw UNSPLITTABLE;
        for (std::size_t t = body_open_; t < body_close_; ++t) {
            if (!s_.is_ident(t)) continue;
            const int v = var_named(s_.spelling(t));
            if (v < 0 || !names(t, vars_[v].name) || vars_[v].array || !address_taken_at(t)) continue;
            if (vars_[v].kept || kept_pointer) throw UNSPLITTABLE;
        }
    }

    // ---- the output ------------------------------------------------------------------
    static constexpr const char* lambda_head =
        "[&]() __attribute__((no_sanitize(\"thread\"), always_inline)) -> bool {\n";
    static constexpr const char* each_thread =
        "for (__cuemu_sb.first(); __cuemu_sb.more(); __cuemu_sb.next())\n";

    // Written in tokens [b, e): assigned, incremented, or passed alone as a
    // call's argument (a reference parameter may change it).
    bool modified_in(const std::string& name, std::size_t b, std::size_t e) const {
        for (std::size_t t = b; t < e; ++t) {
            if (!names(t, name)) continue;
            if (written_at(t, true)) return true;  // v.x = ... too
            const std::size_t before = s_.prev_code(t), after = nx(t + 1);
            if ((is(before, '(') || is(before, ',')) && (is(after, ')') || is(after, ','))) return true;
        }
        return false;
    }

    std::string copy_in(const std::vector<int>& visible, std::size_t b, std::size_t e) const {
        std::string out;
        for (int v : visible) {
            const Var& var = vars_[v];
            if (!var.kept || !mentions(b, e, var.name)) continue;
            if (var.array && arrays_by_copy_)
                out += "__cuemu_ty_" + var.name + " " + var.name + "; ::std::memcpy(&" + var.name + ", &__cuemu_pt_" +
                       var.name + "[__cuemu_sb.t], sizeof " + var.name + ");\n";
            else
                out += var.array ? "auto& " + var.name + " = __cuemu_pt_" + var.name + "[__cuemu_sb.t];\n"
                                 : "__cuemu_ty_" + var.name + " " + var.name + " = __cuemu_pt_" + var.name +
                                       "[__cuemu_sb.t];\n";
        }
        return out;
    }
    std::string copy_out(const std::vector<int>& vars, std::size_t b, std::size_t e, bool declared_here) const {
        std::string out;
        for (int v : vars) {
            const Var& var = vars_[v];
            if (var.kept && var.array && arrays_by_copy_ && (declared_here || mentions(b, e, var.name))) {
                out += "::std::memcpy(&__cuemu_pt_" + var.name + "[__cuemu_sb.t], &" + var.name + ", sizeof " +
                       var.name + ");\n";
                continue;
            }
            if (!var.kept || var.array) continue;
            if ((!declared_here || !var.initialized) && !modified_in(var.name, b, e)) continue;
            if (var.const_class)  // trivially copyable, but maybe without an assignment (const members)
                out += "::std::memcpy(static_cast<void*>(&__cuemu_pt_" + var.name + "[__cuemu_sb.t]), &" + var.name +
                       ", sizeof " + var.name + ");\n";
            else
                out += "__cuemu_pt_" + var.name + "[__cuemu_sb.t] = " + var.name + ";\n";
        }
        return out;
    }

    std::string statement_text(const Statement& st) const {
        bool any_kept = false;
        for (int v : st.declares) any_kept = any_kept || vars_[v].kept;
        if (!st.array_declaration || !any_kept) return text(st.begin, st.end) + (st.add_semicolon ? ";" : "");
        // An array kept across regions is its row of the array of arrays;
        // one this region alone uses is declared here, through an alias.
        std::string out;
        for (int v : st.declares) {
            const Var& var = vars_[v];
            if (var.kept && arrays_by_copy_) {
                out += "__cuemu_ty_" + var.name + " " + var.name + (var.zeroed ? "{}; " : "; ");
            } else if (var.kept) {
                out += "auto& " + var.name + " = __cuemu_pt_" + var.name + "[__cuemu_sb.t]; ";
                if (var.zeroed) out += "::std::memset(&" + var.name + ", 0, sizeof " + var.name + "); ";
            } else {
                out += "using __cuemu_ty_" + var.name + " = " + var.type + "; __cuemu_ty_" + var.name + " " +
                       var.name + (var.zeroed ? "{}; " : "; ");
            }
        }
        return out;
    }

    // Statements [first, last] of one list, for every running thread.
    void emit_region(const std::vector<const Statement*>& region, std::vector<int>& visible, std::string& out) {
        const std::size_t rb = region.front()->begin, re = region.back()->end;
        out += each_thread;
        out += "if (__cuemu_sb.enter() && ";
        out += lambda_head;
        out += copy_in(visible, rb, re);
        std::vector<int> declared;
        for (const Statement* st : region) {
            out += at_line(st->begin) + statement_text(*st) + "\n";
            declared.insert(declared.end(), st->declares.begin(), st->declares.end());
        }
        out += copy_out(visible, rb, re, false);
        out += copy_out(declared, rb, re, true);
        out += "return false;\n}()) __cuemu_sb.exit();\n__cuemu_sb.region_end();\n";
        visible.insert(visible.end(), declared.begin(), declared.end());
    }

    void emit_list(const std::vector<Statement>& list, std::vector<int> visible, int depth, std::string& out) {
        std::vector<const Statement*> region;
        auto flush = [&] {
            if (!region.empty()) emit_region(region, visible, out);
            region.clear();
        };
        for (const Statement& st : list) {
            switch (st.kind) {
                case Statement::Kind::plain: region.push_back(&st); break;
                case Statement::Kind::hoisted:
                case Statement::Kind::dropped: break;
                case Statement::Kind::barrier:
                    flush();
                    out += "__cuemu_sb.barrier(" + file_ + ", " + std::to_string(line_of(barrier_token(st))) + ");\n";
                    break;
                case Statement::Kind::loop:
                    flush();
                    emit_loop(st, visible, depth + 1, out);
                    break;
            }
        }
        flush();
    }

    void emit_loop(const Statement& loop, const std::vector<int>& outer, int depth, std::string& out) {
        std::vector<int> visible = outer;
        if (loop.uniform) {
            // One loop for the block. Its parts run only while a thread runs
            // (as the regions did), each as the first running thread, which
            // on the fiber path computes them first: a fault there names it.
            const std::string type = loop.loop_type, lead = "__cuemu_sb.running() && (__cuemu_sb.lead(), ";
            out += "{\n" + at_line(loop.head == npos ? loop.begin : loop.head) + "for (" + type + " " + loop.loop_var +
                   " = __cuemu_sb.running() ? (__cuemu_sb.lead(), static_cast<" + type + ">(" +
                   text(loop.loop_value_begin, loop.init->end) + ")) : static_cast<" + type + ">(0); " + lead +
                   "static_cast<bool>(" + text(loop.cond_begin, loop.cond_end) + ")); static_cast<void>(" + lead +
                   "static_cast<void>(" + text(loop.inc->begin, loop.inc->end) + "), true))) {\n";
            emit_list(loop.body, visible, depth, out);
            out += "}\n}\n";
            return;
        }
        out += "{\n";
        if (loop.init) emit_region({loop.init}, visible, out);
        out += "for (;;) {\n";
        // The condition, for every running thread; a thread for which it is
        // false waits ("parked") until the loop ends for every thread.
        out += each_thread;
        out += "if (__cuemu_sb.enter() && !";
        out += lambda_head;
        out += copy_in(visible, loop.cond_begin, loop.cond_end);
        out += "const bool __cuemu_go = static_cast<bool>(\n" + at_line(loop.cond_begin) +
               text(loop.cond_begin, loop.cond_end) + ");\n";
        out += copy_out(visible, loop.cond_begin, loop.cond_end, false);
        out += "return __cuemu_go;\n}()) __cuemu_sb.park(" + std::to_string(depth) + ");\n";
        out += "__cuemu_sb.region_end();\nif (!__cuemu_sb.running()) break;\n";
        emit_list(loop.body, visible, depth, out);
        if (loop.inc) {
            std::vector<int> inc_visible = visible;
            emit_region({loop.inc}, inc_visible, out);
        }
        out += "}\n__cuemu_sb.unpark(" + std::to_string(depth) + ");\n}\n";
    }
};

}  // namespace

std::string split_kernel(const std::string& kernel, std::size_t name_offset, const std::string& name,
                         int first_line, const std::string& file_literal, const SharedNames& barrier_names,
                         const std::map<std::string, DeviceFunctionText>& callees, const MacroWords& macros) {
    InlinedKernel inlined = inline_barrier_calls(kernel, name_offset, first_line, callees, barrier_names.names, macros);
    inlined.text = rename_redeclared(inlined.text, name_offset, macros);
    const Source src(inlined.text);
    const std::size_t name_token = src.token_at(name_offset);
    if (name_token == npos || !src.is_ident(name_token, name.c_str())) return "";
    try {
        return Splitter(src, barrier_names, first_line, file_literal, inlined, macros).run(name_token, name);
    } catch (const Unsplittable& why) {
        if (const char* explain = std::getenv("CUEMU_SPLIT_EXPLAIN"); explain && *explain == '1')
            std::fprintf(stderr, "cuemu-rewrite: %s is not split (split_regions.cpp:%d%s%s)\n", name.c_str(), why.line,
                         why.word.empty() ? "" : ": ", why.word.c_str());
        return "";
    }
}

}  // namespace cuemu_rewrite::internal
