// split_regions.cpp - a kernel cut at its __syncthreads into loops over the
// block's threads (split_regions.h says which kernels, and why): split_kernel,
// the Splitter's run, and its reading of the kernel (what it may contain; its
// statements, loops and barriers). The Splitter's declarations and which
// variables live across a barrier are split_declarations.cpp, the text of the
// split version (its shape is described there) split_output.cpp; what the
// three share is splitter.h.
#include "split_regions.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "splitter.h"

namespace cuemu_rewrite::internal::split_detail {
namespace {

// Words that make a kernel too hard to cut with certainty.
const std::set<std::string> refused_words = {
    "goto",     "asm",      "__asm__",  "__asm",    "volatile", "struct",       "class",    "union",
    "enum",     "typedef",  "using",    "template", "static",   "thread_local", "extern",   "co_await",
    "co_yield", "co_return", "throw",   "try",      "catch",    "operator",     "this",     "decltype",
    "auto",     "register", "mutable",  "friend",   "namespace", "__syncthreads_count",
    "__syncthreads_and", "__syncthreads_or", "typeid", "alignas"};

}  // namespace

std::string Splitter::run(std::size_t name_token, const std::string& head_name) {
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
    if (barriers_ == 0 && !warp_cuts()) return "";
    if (warp_cuts()) {
        std::vector<std::string> guards;
        find_ordered_calls(body_open + 1, body_close, guards);
    }
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
    if (warp_cuts()) out += "if (__cuemu_sb.declined_partial_warp()) return;\n";
    for (const auto& [b, e] : hoisted_) out += at_line(b) + text(b, e) + "\n";
    out += block_check();
    std::string bytes;
    int kept = 0;
    for (std::size_t v = 0; v < vars_.size(); ++v) {
        if (!vars_[v].kept) continue;
        ++kept;
        out += "using __cuemu_ty_" + vars_[v].name + " = " + vars_[v].type + ";\n";
        bytes += " + sizeof(::std::remove_cv_t<__cuemu_ty_" + vars_[v].name + ">)";
    }
    for (int n = 0; n < shuffles_; ++n) bytes += " + sizeof(::std::uint64_t) + sizeof(unsigned)";
    out += "__cuemu_sb.begin(" + std::to_string(kept + 2 * shuffles_) + ", 0" + bytes + ");\n";
    for (int n = 0; n < shuffles_; ++n)
        out += "auto* __cuemu_shv_" + std::to_string(n) + " = __cuemu_sb.storage<::std::uint64_t>();\nauto* __cuemu_shl_" +
               std::to_string(n) + " = __cuemu_sb.storage<unsigned>();\n";
    for (std::size_t v = 0; v < vars_.size(); ++v) {
        if (!vars_[v].kept) continue;
        out += "auto* __cuemu_pt_" + vars_[v].name + " = __cuemu_sb.storage<::std::remove_cv_t<__cuemu_ty_" +
               vars_[v].name + ">>();\n";
    }
    emit_list(top, {}, 0, out);
    out += "__cuemu_sb.finish();\n}\n";
    return out;
}

// ---- what the kernel may contain ----------------------------------------------------
void Splitter::read_parameters(std::size_t open, std::size_t close) {
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
void Splitter::read_template_types(std::size_t name_token) {
    for (std::size_t t = nx(0); t < name_token; t = nx(t + 1)) {
        const std::size_t after = nx(t + 1);
        if (!s_.is_ident(t) || !(is(after, ',') || is(after, '>') || is(after, '='))) continue;
        template_params_.insert(s_.spelling(t));
        const std::size_t before = s_.prev_code(t);
        if (id(before, "typename") || id(before, "class")) template_types_.insert(s_.spelling(t));
    }
}

void Splitter::screen(std::size_t b, std::size_t e) {
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
        // `auto block = cg::this_thread_block();` only (is_block_group_declaration).
        if (name == "auto" && auto_block_group(t)) continue;
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
        if (is_shuffle_call(t) && is(nx(t + 1), '(')) continue;  // read as a cut (split_shuffle.cpp)
        if (name != "__syncthreads" && base != kernel_name_ && (reach_.names.count(base) || is_barrier_seed(base)))
            throw Unsplittable{__LINE__, base};
        if (name == "return") {
            if (!is(nx(t + 1), ';')) throw UNSPLITTABLE;
            replace_[t] = "return true";
        }
    }
}

// ---- statements -----------------------------------------------------------------
std::size_t Splitter::statement_end(std::size_t i) const {
    const std::size_t end = s_.statement_end(i, body_close_, StatementGrammar::full);
    if (end == npos) throw UNSPLITTABLE;
    return end;
}

// The __syncthreads (or the group's sync) of a barrier statement (inside its guard, if any).
std::size_t Splitter::barrier_token(const Statement& st) const {
    for (std::size_t t = first_of(st); t < st.end; t = nx(t + 1))
        if (id(t, "__syncthreads") || id(t, "sync")) return t;
    return first_of(st);
}

// A __syncthreads, or the sync of the block's group (the only `sync`
// screen lets through, member or not).
bool Splitter::has_barrier(std::size_t b, std::size_t e) const {
    for (std::size_t t = b; t < e; ++t)
        if (id(t, "__syncthreads") || id(t, "sync")) return true;
    return false;
}

// `__syncthreads();`, or the block's group waiting: `cg::sync(block);`,
// `block.sync();`, `cg::this_thread_block().sync();`.
bool Splitter::is_barrier_statement(std::size_t i, std::size_t e) const {
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

// break or continue outside any loop or switch of the statement itself:
// it would leave the region's lambda.
void Splitter::check_no_loose_jumps(std::size_t b, std::size_t e) const {
    if (id(b, "for") || id(b, "while") || id(b, "do") || id(b, "switch")) return;
    if (mentions(b, e, "break") || mentions(b, e, "continue")) throw UNSPLITTABLE;
}

std::vector<Statement> Splitter::parse_list(std::size_t b, std::size_t e, int depth, std::size_t scope_begin,
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
            const bool barrier = has_barrier(i, st.end), shuffle = has_shuffle(i, st.end);
            if (barrier && is_barrier_statement(i, st.end)) {
                st.kind = Statement::Kind::barrier;
                ++barriers_;
            } else if (barrier && id(i, "if") && id(nx(i + 1), "constexpr")) {
                read_guarded_barrier(st, i);
            } else if ((barrier || shuffle) && (id(i, "for") || id(i, "while"))) {
                parse_loop(st, i, depth + 1);
            } else if (barrier) {
                throw UNSPLITTABLE;
            } else if (shuffle && id(i, "if")) {
                read_branch(st, i, depth + 1);
            } else if (shuffle && (id(i, "__shared__") || is_block_group_declaration(i, st.end))) {
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
                if (shuffle) read_shuffle(st);
            }
        }
        list.push_back(std::move(st));
        i = nx(list.back().end);
    }
    return list;
}

// `if constexpr (C) __syncthreads();`, or the barrier in braces, with no
// else (lesson 09 leaves its second barrier out this way, for a race demo).
void Splitter::read_guarded_barrier(Statement& st, std::size_t keyword) {
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

void Splitter::parse_loop(Statement& st, std::size_t keyword, int depth) {
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
    if (has_barrier(st.cond_begin, st.cond_end) || has_shuffle(open, close)) throw UNSPLITTABLE;
    st.body_open = nx(close + 1);
    if (is(st.body_open, '{')) {
        st.body_close = group_end(st.body_open) - 1;
    } else {  // one statement with a shuffle, without braces: its list is [after the ')', its end)
        st.body_close = statement_end(st.body_open);
        st.body_open = close;
        if (has_barrier(st.body_open, st.body_close)) throw UNSPLITTABLE;
    }
    if (st.init && uniform_loop(st)) {
        note_name(st.loop_var);
        uniform_vars_.insert(st.loop_var);
    } else if (st.init && looks_like_declaration(st.init->begin)) {
        read_declaration(*st.init, keyword, st.end, true);
    }
    if (!st.uniform) ++nonuniform_loops_;
    st.body = parse_list(st.body_open + 1, st.body_close, depth, st.body_open, st.body_close);
    if (!st.uniform) --nonuniform_loops_;
}

// A for-loop's init or increment [begin, end), as a statement of its own.
Statement* Splitter::loop_part(std::size_t begin, std::size_t end) {
    loop_parts_.push_back(std::make_unique<Statement>());
    Statement* part = loop_parts_.back().get();
    part->begin = begin;
    part->end = end;
    part->add_semicolon = true;
    return part;
}

// A __shared__ declaration: the block's, declared once before the regions.
void Splitter::hoist(Statement& st) {
    for (std::size_t t = first_of(st); t < st.end; ++t)
        if (id(t, "threadIdx") || (s_.is_ident(t) && var_named(s_.spelling(t)) >= 0)) throw UNSPLITTABLE;
    hoisted_.push_back({st.begin, st.end});
    st.kind = Statement::Kind::hoisted;
}
std::size_t Splitter::first_of(const Statement& st) const { return st.head == npos ? st.begin : st.head; }

}  // namespace cuemu_rewrite::internal::split_detail

namespace cuemu_rewrite::internal {

std::string split_kernel(const std::string& kernel, std::size_t name_offset, const std::string& name,
                         int first_line, const std::string& file_literal, const SharedNames& barrier_names,
                         const std::map<std::string, DeviceFunctionText>& callees, const MacroWords& macros) {
    InlinedKernel inlined = inline_barrier_calls(kernel, name_offset, first_line, callees, barrier_names.names, macros);
    inlined.text = rename_redeclared(inlined.text, name_offset, macros);
    const Source src(inlined.text);
    const std::size_t name_token = src.token_at(name_offset);
    if (name_token == npos || !src.is_ident(name_token, name.c_str())) return "";
    try {
        return split_detail::Splitter(src, barrier_names, first_line, file_literal, inlined, macros).run(name_token, name);
    } catch (const split_detail::Unsplittable& why) {
        if (const char* explain = std::getenv("CUEMU_SPLIT_EXPLAIN"); explain && *explain == '1') {
            const char* file = std::strrchr(why.file, '/');
            std::fprintf(stderr, "cuemu-rewrite: %s is not split (%s:%d%s%s)\n", name.c_str(),
                         file ? file + 1 : why.file, why.line, why.word.empty() ? "" : ": ",
                         why.word.c_str());
        }
        return "";
    }
}

}  // namespace cuemu_rewrite::internal
