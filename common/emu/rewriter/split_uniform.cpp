// split_uniform.cpp - two things the Splitter (splitter.h) lets a kernel keep
// and still be split: a `for` loop the same for every thread, which runs once
// for the block around its regions (uniform_loop), and the block's cooperative
// group (cooperative_groups' thread_block), whose sync is a barrier
// (block_group_use).
#include <set>
#include <string>

#include "splitter.h"

namespace cuemu_rewrite::internal::split_detail {

// ---- loops the same for every thread ----------------------------------------------
// `for (int t = U; C; ++t)` where U and C name no thread's own value (no
// threadIdx, no variable of the kernel but earlier such loops' ones) and
// read no memory through a pointer, and the body never changes t: every
// running thread goes round as often as every other, so the loop runs
// once for the block, around its regions, with t a single variable,
// instead of as a region for the condition (with parking) and one for
// the increment, each a pass over the threads.
bool Splitter::uniform_loop(Statement& st) {
    const std::size_t end = st.init->end;
    std::size_t t = st.init->begin;
    std::string type;
    for (; t < end && s_.is_ident(t) && is_scalar_word(s_.spelling(t)); t = nx(t + 1)) {
        if (id(t, "const")) return false;
        type += (type.empty() ? "" : " ") + s_.spelling(t);
    }
    if (type.empty() || !s_.is_ident(t) || is_scalar_word(s_.spelling(t))) return false;
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
    if (!never_changed(var, st.body_open, st.body_close)) return false;
    st.uniform = true;
    st.loop_var = var;
    st.loop_type = type;
    st.loop_value_begin = value;
    return true;
}

// Nothing in tokens [b, e) assigns to the variable `name`, increments it,
// takes its address or passes it alone to a function (which may take it by
// reference).
bool Splitter::never_changed(const std::string& name, std::size_t b, std::size_t e) const {
    for (std::size_t u = b; u < e && u < s_.size(); ++u)
        if (names(u, name) && (written_at(u, true) || address_taken_at(u) || modified_in(name, u, u + 1)))
            return false;
    return true;
}

// Tokens [b, e) compute the same value for every thread of the block, and
// change nothing: see uniform_loop. `loop_vars`: the variables of the
// uniform loops around it (and its own).
bool Splitter::uniform_expression(std::size_t b, std::size_t e, const std::set<std::string>& loop_vars) const {
    if (b >= e) return false;
    for (std::size_t u = b; u < e; u = nx(u + 1)) {
        if (s_[u].in_directive) return false;
        if (is(u, '[') || is(u, '{') || is(u, ',') || is(u, ';') || pair(u, '-', '>')) return false;
        if (pair(u, '+', '+') || pair(u, '-', '-')) return false;
        if (is(u, '=')) {  // only as part of == != <= >=, never an assignment
            if (!in_comparison(u)) return false;
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

bool Splitter::uniform_name(std::size_t u, const std::set<std::string>& loop_vars) const {
    const std::string w = s_.spelling(u);
    const std::size_t after = nx(u + 1);
    if (is(after, '(')) return w == "sizeof" || is_scalar_word(w);  // a call: maybe not the same for all
    if (is(after, '<') && !loop_vars.count(w) && !params_.count(w) && !hoisted_names_.count(w) &&
        !template_params_.count(w))
        return false;  // a template's arguments, or a comparison: not certain which
    if (loop_vars.count(w) || params_.count(w) || template_params_.count(w) || hoisted_names_.count(w) ||
        is_scalar_word(w))
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
bool Splitter::uniform_macro(const std::string& macro, const std::set<std::string>& loop_vars, int depth) const {
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
              is_scalar_word(w) || block_words.count(w)))
            return false;
    }
    return true;
}

// `++t`, `t++`, `--t`, `t--`, `t = U`, `t op= U`.
bool Splitter::uniform_increment(std::size_t b, std::size_t e, const std::string& var,
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

// ---- the block's own group (cooperative groups) -------------------------------------
// `cg::` or `cooperative_groups::` at token i.
bool Splitter::is_group_namespace(std::size_t i) const {
    return (id(i, "cg") || id(i, "cooperative_groups")) && is(nx(i + 1), ':') && is(nx(nx(i + 1) + 1), ':');
}

// A use of the block's group at token t that the split version can keep,
// and its last token: the type and this_thread_block() (with or without
// the namespace), the group's sync (a barrier: parse_list checks its form)
// and its members that only read threadIdx, blockIdx or blockDim.
// npos: not one (screen refuses what is a barrier seed).
std::size_t Splitter::block_group_use(std::size_t t) {
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

// The variable a `[const] [cg::]thread_block block = ...;` declares.
std::size_t Splitter::group_handle_of(std::size_t i) const {
    std::size_t t = id(i, "const") ? nx(i + 1) : i;
    if (id(t, "auto")) return auto_block_group_call(t) != npos ? nx(t + 1) : npos;
    if (is_group_namespace(t)) t = nx(nx(nx(t + 1) + 1) + 1);
    return id(t, "thread_block") ? nx(t + 1) : npos;
}
// At `auto` (token t): `auto block = [cg::]this_thread_block()`, and then
// the token of this_thread_block; npos if it is anything else.
std::size_t Splitter::auto_block_group_call(std::size_t t) const {
    const std::size_t handle = nx(t + 1), assign = nx(handle + 1);
    if (!s_.is_ident(handle) || !is(assign, '=')) return npos;
    std::size_t call = nx(assign + 1);
    if (is_group_namespace(call)) call = nx(nx(nx(call + 1) + 1) + 1);
    return id(call, "this_thread_block") && is(nx(call + 1), '(') && is(nx(nx(call + 1) + 1), ')') ? call : npos;
}
// screen's view of `auto`: the block's group declared by auto is one, and
// its variable holds the group from here on.
bool Splitter::auto_block_group(std::size_t t) {
    if (auto_block_group_call(t) == npos) return false;
    block_handles_.insert(s_.spelling(nx(t + 1)));
    return true;
}

// `[const] [cg::]thread_block block = [cg::]this_thread_block();`, or `= other_block;`
bool Splitter::is_block_group_declaration(std::size_t i, std::size_t e) const {
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

}  // namespace cuemu_rewrite::internal::split_detail
