// split_guards.cpp - what a split version with shuffles checks before its
// block starts (split_regions.h): an `if` around shuffles whose condition is
// the same for a whole warp, and the calls whose order between threads
// could show, made by one thread of the block at most. Both are decided by
// conditions of the thread's index only ("index expressions": threadIdx,
// blockIdx, blockDim, gridDim, parameters, constants, and the variables
// initialized from them and never changed, written out), which the version
// evaluates for every thread before anything runs; where a block fails the
// check, the version declines it and the fiber path runs it
// (cuemu/split_block.h: check_block).
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "splitter.h"

namespace cuemu_rewrite::internal::split_detail {
namespace {

// Calls that change nothing and whose order cannot show (split_shuffle.cpp
// has the same list for a shuffle's value).
bool order_free_call(const std::string& name) {
    static const std::set<std::string> words = {"__syncthreads", "sync", "this_thread_block", "if",
                                                "for",           "while", "switch",            "return"};
    return words.count(name) != 0;
}

}  // namespace

// Tokens [b, e) as an index expression, written out into `out` (an index
// variable's name becomes its value); false where they are not one.
bool Splitter::index_text(std::size_t b, std::size_t e, std::string& out) const {
    static const std::set<std::string> index_words = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
                                                      "sizeof"};
    out.clear();
    if (nx(b) >= e) return false;
    for (std::size_t u = b; u < e; ++u) {
        if (nx(u) != u) {  // whitespace, a comment
            out += " ";
            continue;
        }
        if (s_[u].in_directive || is(u, '[') || is(u, '{') || is(u, ';') || is(u, ',') || pair(u, '-', '>'))
            return false;
        if (pair(u, '+', '+') || pair(u, '-', '-')) return false;
        if (is(u, '=') && !in_comparison(u)) return false;  // only within == != <= >=
        if (is(u, '*') || (is(u, '&') && !pair(u, '&', '&') && !(u > 0 && is(u - 1, '&')))) {
            const std::size_t before = s_.prev_code(u);  // a unary one follows no operand
            if (before == npos || before < b ||
                !(s_.is_ident(before) || s_[before].kind == Kind::Number || is(before, ')')))
                return false;
        }
        if (is(u, '/') || is(u, '%')) {
            // A divisor fixed when the program is built (a number, a macro, a
            // template parameter, a constant from outside the kernel), so
            // that the check before the block cannot divide by zero where
            // the kernel would not.
            const std::size_t d = nx(u + 1);
            static const std::set<std::string> runtime = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
            const bool fixed = d < e && (s_[d].kind == Kind::Number ||
                                         (s_.is_ident(d) && !runtime.count(s_.spelling(d)) &&
                                          !params_.count(s_.spelling(d)) && !hoisted_names_.count(s_.spelling(d)) &&
                                          !index_values_.count(s_.spelling(d)) && var_named(s_.spelling(d)) < 0 &&
                                          !declared_names_.count(s_.spelling(d))));
            if (!fixed) return false;
        }
        if (!s_.is_ident(u)) {
            out += s_.spelling(u);
            continue;
        }
        const std::string w = s_.spelling(u);
        const std::size_t before = s_.prev_code(u);
        if (is(before, '.')) {  // threadIdx.x's x
            out += w;
            continue;
        }
        if (is(nx(u + 1), '(') && w != "sizeof" && !is_scalar_word(w)) return false;  // a call
        if (auto v = index_values_.find(w); v != index_values_.end()) {
            out += v->second;
            continue;
        }
        if (index_words.count(w) || is_scalar_word(w) || params_.count(w) || template_params_.count(w) ||
            hoisted_names_.count(w)) {
            out += w;
            continue;
        }
        if (var_named(w) >= 0 || declared_names_.count(w) || uniform_vars_.count(w)) return false;
        for (const auto& [hb, he] : hoisted_)  // a __shared__ variable's name: it changes
            for (std::size_t h = hb; h < he; ++h)
                if (names(h, w) && (is(nx(h + 1), '[') || is(nx(h + 1), ';') || is(nx(h + 1), '=') ||
                                    is(nx(h + 1), ',')))
                    return false;
        if (macros_.count(w) ? !uniform_macro(w, {}, 0) : !never_changed(w, body_open_, body_close_)) return false;
        out += w;  // a constant from outside the kernel
    }
    return true;
}

// A scalar declared `T name = value;` whose value is an index expression
// and that nothing changes afterwards: an index variable.
void Splitter::note_index_variable(const std::string& name, const std::string& type, std::size_t b, std::size_t e) {
    std::string value;
    if (is(b, '{') || !index_text(b, e, value)) return;
    index_values_[name] = "(static_cast<" + type + ">(" + value + "))";
}

// `if (C) S` (no else) around statements with shuffles: C an index
// expression, the same for each warp's lanes (checked before the block
// starts), so that a warp takes the branch whole or not at all; no
// __syncthreads inside.
void Splitter::read_branch(Statement& st, std::size_t keyword, int depth) {
    const std::size_t open = nx(keyword + 1);
    if (!is(open, '(')) throw Unsplittable{__LINE__, "(a shuffle under if constexpr)"};
    const std::size_t close = group_end(open) - 1;
    st.cond_begin = nx(open + 1);
    st.cond_end = close;
    std::string check;
    if (!index_text(st.cond_begin, st.cond_end, check))
        throw Unsplittable{__LINE__, "(a shuffle under an if whose condition is not of the thread's index only)"};
    st.body_open = nx(close + 1);
    std::size_t body_end = 0;
    if (is(st.body_open, '{')) {
        st.body_close = group_end(st.body_open) - 1;
        body_end = st.body_close + 1;
    } else {
        st.body_close = body_end = statement_end(st.body_open);
        st.body_open = close;
    }
    if (body_end != st.end) throw Unsplittable{__LINE__, "(a shuffle under an if with an else)"};
    if (has_barrier(st.cond_begin, st.end)) throw UNSPLITTABLE;
    if (branch_checks_.size() >= 31) throw Unsplittable{__LINE__, "(too many ifs around shuffles)"};
    st.kind = Statement::Kind::branch;
    st.branch = static_cast<int>(branch_checks_.size());
    branch_checks_.push_back(check);
    st.body = parse_list(st.body_open + 1, st.body_close, depth, st.body_open, st.body_close);
}

// ---- calls whose order could show -------------------------------------------------
// The conditions of the ifs around each call the fiber path may run in
// another order between threads (any call but of a pure function): each
// must be an index expression ("" where one is not).
void Splitter::find_ordered_calls(std::size_t b, std::size_t e, std::vector<std::string>& guards) {
    for (std::size_t i = nx(b); i < e;) {
        if (s_[i].in_directive) {
            i = nx(s_.directive_end(i));
            continue;
        }
        if (is_rewriter_note(i)) {
            i = nx(group_end(nx(i + 1)));
            continue;
        }
        if (is(i, '{')) {
            const std::size_t end = group_end(i);
            find_ordered_calls(i + 1, end - 1, guards);
            i = nx(end);
            continue;
        }
        const std::size_t end = statement_end(i);
        if (id(i, "if") && is(nx(i + 1), '(')) {
            const std::size_t open = nx(i + 1), close = group_end(open) - 1;
            note_ordered_calls(open, close + 1, guards);
            std::string cond;
            const bool known = index_text(nx(open + 1), close, cond);
            const std::size_t then = nx(close + 1);
            const std::size_t then_end = is(then, '{') ? group_end(then) : statement_end(then);
            guards.push_back(known ? "(" + cond + ")" : "");
            find_ordered_calls(close + 1, then_end, guards);
            guards.pop_back();
            if (id(nx(then_end), "else")) {
                guards.push_back(known ? "!(" + cond + ")" : "");
                find_ordered_calls(nx(then_end) + 1, end, guards);
                guards.pop_back();
            }
        } else if (id(i, "for") || id(i, "while") || id(i, "do") || id(i, "switch") || id(i, "if")) {
            // A loop's calls are one thread's, in its order, as often as it
            // goes round; a switch's case is no index condition known here.
            const bool sw = id(i, "switch");
            if (sw) guards.push_back("");
            note_ordered_calls(i, end, guards);
            if (sw) guards.pop_back();
        } else {
            note_ordered_calls(i, end, guards);
        }
        i = nx(end);
    }
}

void Splitter::note_ordered_calls(std::size_t b, std::size_t e, const std::vector<std::string>& guards) {
    for (std::size_t u = b; u < e; ++u) {
        if (!s_.is_ident(u) || !is(nx(u + 1), '(')) continue;
        if (is_rewriter_note(u)) {
            u = group_end(nx(u + 1)) - 1;
            continue;
        }
        const std::string name = s_.spelling(u);
        if (is_shuffle_call(u) || is_pure_call(name) || is_scalar_word(name) || order_free_call(name)) continue;
        std::string all;
        for (const std::string& g : guards) {
            if (g.empty()) throw Unsplittable{__LINE__, name + " (with shuffles, a call whose order might show, "
                                                                "under a condition not of the thread's index)"};
            all += (all.empty() ? "" : " && ") + g;
        }
        if (all.empty()) throw Unsplittable{__LINE__, name + " (with shuffles, a call every thread makes)"};
        ordered_guards_.push_back(all);
    }
}

// The check before the block starts (split_block.h: check_block): bit k of
// each thread's word, the condition of the k-th if around shuffles; bit 31,
// whether the thread may make a call whose order could show.
std::string Splitter::block_check() const {
    if (branch_checks_.empty() && ordered_guards_.empty()) return "";
    std::string bits;
    for (std::size_t k = 0; k < branch_checks_.size(); ++k)
        bits += " | (static_cast<bool>(" + branch_checks_[k] + ") ? " + std::to_string(1u << k) + "u : 0u)";
    if (!ordered_guards_.empty()) {
        std::string any;
        for (const std::string& g : ordered_guards_) any += (any.empty() ? "(" : " || (") + g + ")";
        bits += " | ((" + any + ") ? 0x80000000u : 0u)";
    }
    return "if (__cuemu_sb.declined_block([&]() __attribute__((no_sanitize(\"thread\"), always_inline)) -> "
           "unsigned { return 0u" + bits + "; })) return;\n";
}

// The branch: its condition for every running thread, a thread for which
// it is false waits ("parked") until the branch is over for all.
void Splitter::emit_branch(const Statement& st, const std::vector<int>& visible, int depth, std::string& out) {
    out += "{\n";
    out += "for (__cuemu_sb.first(); __cuemu_sb.more(); __cuemu_sb.next())\n";
    out += "if (__cuemu_sb.enter() && ![&]() __attribute__((no_sanitize(\"thread\"), always_inline)) -> bool {\n";
    out += copy_in(visible, st.cond_begin, st.cond_end);
    out += "return static_cast<bool>(\n" + at_line(st.cond_begin) + text(st.cond_begin, st.cond_end) + ");\n";
    out += "}()) __cuemu_sb.park(" + std::to_string(depth) + ");\n";
    out += "__cuemu_sb.region_end();\nif (__cuemu_sb.running()) {\n";
    emit_list(st.body, visible, depth, out);
    out += "}\n__cuemu_sb.unpark(" + std::to_string(depth) + ");\n}\n";
}

}  // namespace cuemu_rewrite::internal::split_detail
