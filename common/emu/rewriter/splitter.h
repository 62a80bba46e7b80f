// splitter.h - the Splitter, which cuts one kernel at its __syncthreads into
// loops over the block's threads (split_regions.h says which kernels), and
// what the three files of its work share: its reading of the kernel's
// statements (split_regions.cpp, with split_kernel, which runs it; its
// warp shuffles, split_shuffle.cpp, and the ifs around them and the checks
// before a block, split_guards.cpp), its
// declarations and which variables live across a barrier
// (split_declarations.cpp), loops the same for every thread and the block's
// cooperative group (split_uniform.cpp), and the text of the split version
// (split_output.cpp). The token helpers every part uses are here.
#ifndef CUEMU_REWRITE_SPLITTER_H
#define CUEMU_REWRITE_SPLITTER_H

#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "split_regions.h"

namespace cuemu_rewrite::internal::split_detail {

// Thrown by the Splitter's files: the kernel keeps the fiber path. `file`
// and `line` say where it was refused (CUEMU_SPLIT_EXPLAIN=1 prints them):
// __builtin_FILE() in a member's initializer names the file of the braces
// that make the Unsplittable, as __LINE__ there names their line.
struct Unsplittable {
    int line;
    std::string word{};  // the word that refused it, where one did
    const char* file = __builtin_FILE();
};
#define UNSPLITTABLE Unsplittable{__LINE__}

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
    enum class Kind { plain, barrier, hoisted, dropped, loop, shuffle, branch, warp_sync } kind = Kind::plain;
    std::size_t begin = 0, end = 0;  // tokens [begin, end), a #pragma before it included
    std::size_t head = npos;         // its first token after such a #pragma
    std::vector<int> declares;       // variables it declares
    bool array_declaration = false;
    bool add_semicolon = false;      // a for-loop's init or increment, as a statement
    // A statement that calls a shuffle (Kind::shuffle, split_shuffle.cpp): a
    // plain statement whose region starts after a pass publishing the
    // value it passes: its number, and that value's text and tokens.
    int shuffle = -1;
    int branch = -1;  // an if around shuffles (Kind::branch, split_guards.cpp): its number
    std::string shuffle_value;
    std::size_t shuffle_value_begin = 0, shuffle_value_end = 0;
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

    std::string run(std::size_t name_token, const std::string& head_name);

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
    int shuffles_ = 0;          // statements with a shuffle or a vote (split_shuffle.cpp)
    int warp_syncs_ = 0;        // `__syncwarp();` statements
    bool warp_cuts() const { return shuffles_ + warp_syncs_ > 0; }
    int nonuniform_loops_ = 0;  // the loops not the same for every thread around the statement read now
    // The checks before a block with shuffles starts (split_guards.cpp): the
    // index variables' values written out, the conditions of the ifs around
    // shuffles, the conditions under which a call whose order could show is made.
    std::map<std::string, std::string> index_values_;
    std::vector<std::string> branch_checks_;
    std::vector<std::string> ordered_guards_;
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
    // Token u, an '=', is part of == != <= >= (not an assignment).
    bool in_comparison(std::size_t u) const {
        return (u + 1 < s_.size() && is(u + 1, '=')) || (u > 0 && is(u - 1, '=')) || (u > 0 && is(u - 1, '!')) ||
               (u > 0 && (is(u - 1, '<') || is(u - 1, '>')) &&
                !(u > 1 && (pair(u - 2, '<', '<') || pair(u - 2, '>', '>'))));
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
    void read_parameters(std::size_t open, std::size_t close);
    void read_template_types(std::size_t name_token);
    void screen(std::size_t b, std::size_t e);
    // ---- statements -----------------------------------------------------------------
    std::size_t statement_end(std::size_t i) const;
    std::size_t barrier_token(const Statement& st) const;
    bool has_barrier(std::size_t b, std::size_t e) const;
    bool is_barrier_statement(std::size_t i, std::size_t e) const;
    void check_no_loose_jumps(std::size_t b, std::size_t e) const;
    std::vector<Statement> parse_list(std::size_t b, std::size_t e, int depth, std::size_t scope_begin,
                                      std::size_t scope_end);
    void read_guarded_barrier(Statement& st, std::size_t keyword);
    void parse_loop(Statement& st, std::size_t keyword, int depth);
    Statement* loop_part(std::size_t begin, std::size_t end);
    void hoist(Statement& st);
    std::size_t first_of(const Statement& st) const;

    // ---- loops the same for every thread, the block's group (split_uniform.cpp) ----------
    bool uniform_loop(Statement& st);
    bool never_changed(const std::string& name, std::size_t b, std::size_t e) const;
    bool uniform_expression(std::size_t b, std::size_t e, const std::set<std::string>& loop_vars) const;
    bool uniform_name(std::size_t u, const std::set<std::string>& loop_vars) const;
    bool uniform_macro(const std::string& macro, const std::set<std::string>& loop_vars, int depth) const;
    bool uniform_increment(std::size_t b, std::size_t e, const std::string& var,
                           const std::set<std::string>& loop_vars) const;
    bool is_group_namespace(std::size_t i) const;
    std::size_t block_group_use(std::size_t t);
    std::size_t group_handle_of(std::size_t i) const;
    std::size_t auto_block_group_call(std::size_t t) const;
    bool auto_block_group(std::size_t t);
    bool is_block_group_declaration(std::size_t i, std::size_t e) const;

    // ---- shuffles (split_shuffle.cpp) ---------------------------------------------------
    bool is_shuffle_call(std::size_t t) const;
    bool has_shuffle(std::size_t b, std::size_t e) const;
    bool shuffle_argument(std::size_t t) const;
    bool pure_expression(std::size_t b, std::size_t e) const;
    void read_shuffle(Statement& st);
    static bool is_pure_call(const std::string& name);
    void emit_publish(const Statement& st, const std::vector<int>& visible, std::string& out) const;

    // ---- checks before a block with shuffles (split_guards.cpp) ----------------------------
    bool index_text(std::size_t b, std::size_t e, std::string& out) const;
    void note_index_variable(const std::string& name, const std::string& type, std::size_t b, std::size_t e);
    void read_branch(Statement& st, std::size_t keyword, int depth);
    void find_ordered_calls(std::size_t b, std::size_t e, std::vector<std::string>& guards);
    void note_ordered_calls(std::size_t b, std::size_t e, const std::vector<std::string>& guards);
    std::string block_check() const;
    void emit_branch(const Statement& st, const std::vector<int>& visible, int depth, std::string& out);

    // ---- declarations ---------------------------------------------------------------
    // A built-in type's word (int, unsigned, float4 ...): its arrays need no constructor.
    static bool is_scalar_word(const std::string& word);
    bool looks_like_declaration(std::size_t i) const;
    void read_declaration(Statement& st, std::size_t scope_begin, std::size_t scope_end, bool loop_init);
    bool zero_initializer(std::size_t b, std::size_t e) const;
    int var_named(const std::string& name) const;
    void note_name(const std::string& name);
    // ---- which variables live across regions ----------------------------------------------
    void decide_kept(std::vector<Statement>& list);
    void check_outside_names() const;
    void check_kept_types() const;
    void check_parameters_unchanged() const;
    void check_addresses();

    // ---- the output ------------------------------------------------------------------
    bool modified_in(const std::string& name, std::size_t b, std::size_t e) const;
    std::string copy_in(const std::vector<int>& visible, std::size_t b, std::size_t e) const;
    std::string copy_out(const std::vector<int>& vars, std::size_t b, std::size_t e, bool declared_here) const;
    std::string statement_text(const Statement& st) const;
    void emit_region(const std::vector<const Statement*>& region, std::vector<int>& visible, std::string& out);
    void emit_list(const std::vector<Statement>& list, std::vector<int> visible, int depth, std::string& out);
    void emit_loop(const Statement& loop, const std::vector<int>& outer, int depth, std::string& out);
};

}  // namespace cuemu_rewrite::internal::split_detail

#endif
