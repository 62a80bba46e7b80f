// split_shuffle.cpp - warp shuffles and votes as cut points of a kernel's
// split version (split_regions.h says which): the Splitter's reading of a
// statement that calls __shfl_sync, __shfl_up_sync, __shfl_down_sync,
// __shfl_xor_sync, __ballot_sync, __any_sync, __all_sync or __syncwarp, and
// the pass that publishes every thread's value before
// that statement (cuemu/split_block.h reads it back). What else a kernel with
// shuffles must hold is split_guards.cpp's.
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "splitter.h"

namespace cuemu_rewrite::internal::split_detail {
namespace {

// The warp functions that may cut a split version, numbered here in the
// order of cuemu/builtins.h's warp_op (the votes, 5 to 7, last); the split
// version names the runtime's own enumerator (runtime_op), so these numbers
// never reach it. __syncwarp is a cut without a value (syncwarp_op).
constexpr int syncwarp_op = 100;
int shuffle_op(const std::string& name) {
    if (name == "__shfl_sync") return 1;
    if (name == "__shfl_up_sync") return 2;
    if (name == "__shfl_down_sync") return 3;
    if (name == "__shfl_xor_sync") return 4;
    if (name == "__ballot_sync") return 5;
    if (name == "__any_sync") return 6;
    if (name == "__all_sync") return 7;
    if (name == "__syncwarp") return syncwarp_op;
    return 0;
}
std::string runtime_op(int op) {
    static const char* const names[] = {"warp_shfl_idx", "warp_shfl_up", "warp_shfl_down", "warp_shfl_xor",
                                        "warp_ballot",   "warp_any",     "warp_all"};
    return std::string("::cuemu::") + names[op - 1];
}
bool all_ones(const std::string& mask) {
    static const std::set<std::string> words = {"0xffffffff", "0xffffffffu", "0xffffffffU", "0xFFFFFFFF",
                                                "0xFFFFFFFFu", "0xFFFFFFFFU", "~0u", "~0U", "~0"};
    return words.count(mask) != 0;
}

// Calls a kernel with shuffles may make: functions of one value that change
// nothing and whose order cannot show (no output, no atomic, no clock).
const std::set<std::string> pure_calls = {
    "min", "max", "fminf", "fmaxf", "fmin", "fmax", "abs", "fabs", "fabsf", "sqrt", "sqrtf", "rsqrtf",
    "exp", "expf", "exp2f", "__expf", "log", "logf", "log2f", "__logf", "__fdividef", "pow", "powf",
    "sin", "sinf", "cos", "cosf", "tanh", "tanhf", "floor", "floorf", "ceil", "ceilf", "rintf", "roundf",
    "truncf", "fma", "fmaf", "__ldg", "__popc", "__clz", "__ffs", "__brev", "make_float2", "make_float4",
    "make_int2", "make_int4", "static_cast", "reinterpret_cast", "const_cast", "sizeof", "alignof"};
const std::set<std::string> statement_words = {"if", "for", "while", "switch", "return"};

}  // namespace

bool Splitter::is_shuffle_call(std::size_t t) const {
    return s_.is_ident(t) && shuffle_op(s_.spelling(t)) != 0 && names(t, s_.spelling(t));
}

bool Splitter::has_shuffle(std::size_t b, std::size_t e) const {
    for (std::size_t t = b; t < e; ++t)
        if (is_shuffle_call(t)) return true;
    return false;
}

// Token t is an argument of a shuffle's call, which takes every argument by
// value: passing a variable there changes nothing (modified_in).
bool Splitter::shuffle_argument(std::size_t t) const {
    int depth = 0;
    for (std::size_t u = s_.prev_code(t); u != npos; u = s_.prev_code(u)) {
        if (is(u, ')') || is(u, ']')) {
            ++depth;
        } else if (is(u, '(') || is(u, '[')) {
            if (depth-- > 0) continue;
            const std::size_t name = s_.prev_code(u);
            return is(u, '(') && name != npos && is_shuffle_call(name);
        } else if (is(u, ';') || is(u, '{') || is(u, '}')) {
            return false;
        }
    }
    return false;
}

// Tokens [b, e) compute a value and change nothing: no assignment, ++ or --,
// no call but of pure_calls or a built-in type's conversion.
bool Splitter::pure_expression(std::size_t b, std::size_t e) const {
    if (b >= e) return false;
    for (std::size_t u = nx(b); u < e; u = nx(u + 1)) {
        if (s_[u].in_directive || is(u, '{') || is(u, ';')) return false;
        if (pair(u, '+', '+') || pair(u, '-', '-')) return false;
        if (is(u, '=') && !in_comparison(u)) return false;  // only within == != <= >=
        if (s_.is_ident(u) && is(nx(u + 1), '(') && !pure_calls.count(s_.spelling(u)) &&
            !is_scalar_word(s_.spelling(u)))
            return false;
    }
    return true;
}

// `x = __shfl_down_sync(0xffffffff, v, offset);` and the like: a statement
// of its own (no if, loop or return around the call), one shuffle, called
// for certain (no ?:, && or || around it), the mask all ones, the value and
// the parameter changing nothing, the width absent or a power of two. The
// votes (`__ballot_sync(0xffffffff, p)`, __any_sync, __all_sync) the same
// way, their predicate published; `__syncwarp();` alone is a cut only.
void Splitter::read_shuffle(Statement& st) {
    const std::size_t head = first_of(st);
    if (nonuniform_loops_ > 0) throw Unsplittable{__LINE__, "(a shuffle in a loop not the same for every thread)"};
    if (is(head, '{') || (s_.is_ident(head) && statement_words.count(s_.spelling(head))))
        throw Unsplittable{__LINE__, "(a shuffle not in a statement of its own)"};
    std::size_t call = npos;
    for (std::size_t t = head; t < st.end; ++t) {
        if (!is_shuffle_call(t)) continue;
        if (call != npos) throw Unsplittable{__LINE__, "(two shuffles in one statement)"};
        call = t;
    }
    const std::size_t open = nx(call + 1);
    if (!is(open, '(')) throw Unsplittable{__LINE__, s_.spelling(call)};  // template arguments, or no call
    const std::size_t close = group_end(open) - 1;
    for (std::size_t t = head; t < st.end; ++t) {
        if (t == open) t = close;
        else if (is(t, '?') || pair(t, '&', '&') || pair(t, '|', '|'))
            throw Unsplittable{__LINE__, "(a shuffle called only where a condition holds)"};
    }
    std::vector<std::size_t> commas;  // the arguments: [open, c1), [c1, c2) ...
    for (std::size_t t = nx(open + 1); t < close; t = nx(t + 1)) {
        if (is(t, '(') || is(t, '[') || is(t, '{')) t = group_end(t) - 1;
        else if (is(t, ',')) commas.push_back(t);
    }
    const int op = shuffle_op(s_.spelling(call));
    if (op == syncwarp_op) {  // `__syncwarp();` or with the full mask, alone: a cut and nothing else
        const std::string mask = s_.joined(open + 1, close);
        if (call != head || !is(nx(close + 1), ';') || nx(close + 1) + 1 != st.end || !commas.empty() ||
            !(mask.empty() || all_ones(mask)))
            throw Unsplittable{__LINE__, "(a __syncwarp not alone, or with a mask not a literal 0xffffffff)"};
        st.kind = Statement::Kind::warp_sync;
        ++warp_syncs_;
        return;
    }
    const bool vote = op >= 5;
    if (vote ? commas.size() != 1 : commas.size() != 2 && commas.size() != 3)
        throw Unsplittable{__LINE__, "(a warp function's arguments)"};
    // The mask: a literal of all ones.
    if (!all_ones(s_.joined(open + 1, commas[0])))
        throw Unsplittable{__LINE__, "(a warp function's mask is not a literal 0xffffffff)"};
    const std::size_t value_end = vote ? close : commas[1], param_end = commas.size() == 3 ? commas[2] : close;
    if (!pure_expression(commas[0] + 1, value_end) || (!vote && !pure_expression(commas[1] + 1, param_end)))
        throw Unsplittable{__LINE__, "(a warp function's value or parameter may change something)"};
    st.kind = Statement::Kind::shuffle;
    st.shuffle = shuffles_++;
    st.shuffle_value_begin = commas[0] + 1;
    st.shuffle_value_end = value_end;
    const std::string n = std::to_string(st.shuffle);
    if (vote) {
        // The predicate as the fiber path's `int predicate` takes it; the
        // votes' answers from the lanes that published (split_block.h).
        st.shuffle_value = "(static_cast<int>(" + text(commas[0] + 1, value_end) + ") != 0)";
        const std::string read = "__cuemu_sb.vote(" + runtime_op(op) + ", __cuemu_shv_" + n + ", __cuemu_shl_" + n + ")";
        replace_[call] = op == 5 ? read : "static_cast<int>(" + read + ")";
        for (std::size_t t = call + 1; t <= close; ++t) replace_[t] = "";
        return;
    }
    std::string width = "32";
    if (commas.size() == 3) {
        width = s_.joined(commas[2] + 1, close);
        static const std::set<std::string> widths = {"1", "2", "4", "8", "16", "32", "warpSize"};
        if (!widths.count(width)) throw Unsplittable{__LINE__, "(a shuffle's width is not a literal power of two)"};
        if (width == "warpSize") width = "32";
    }
    st.shuffle_value = text(commas[0] + 1, value_end);
    const std::string param = text(commas[1] + 1, param_end);
    // As the fiber path's overloads take it: a delta as unsigned int, a lane as int.
    const std::string param_int = op == 2 || op == 3
                                      ? "static_cast<int>(static_cast<unsigned int>(" + param + "))"
                                      : "static_cast<int>(" + param + ")";
    replace_[call] = "__cuemu_sb.shuffle<::std::decay_t<decltype(" + st.shuffle_value + ")>>(" +
                     runtime_op(op) + ", __cuemu_shv_" + n + ", __cuemu_shl_" + n + ", " + param_int + ", " +
                     width + ")";
    for (std::size_t t = call + 1; t <= close; ++t) replace_[t] = "";
}

bool Splitter::is_pure_call(const std::string& name) { return pure_calls.count(name) != 0; }

// The pass before a shuffle's statement: each running thread publishes the
// value it passes.
void Splitter::emit_publish(const Statement& st, const std::vector<int>& visible, std::string& out) const {
    const std::string n = std::to_string(st.shuffle);
    out += "__cuemu_sb.clear_lanes(__cuemu_shl_" + n + ");\n";
    out += "for (__cuemu_sb.first(); __cuemu_sb.more(); __cuemu_sb.next())\n";
    out += "if (__cuemu_sb.enter() && [&]() __attribute__((no_sanitize(\"thread\"), always_inline)) -> bool {\n";
    out += copy_in(visible, st.shuffle_value_begin, st.shuffle_value_end);
    out += at_line(st.shuffle_value_begin) + "__cuemu_sb.publish(__cuemu_shv_" + n + ", __cuemu_shl_" + n +
           ", ::cuemu::to_warp_bits(static_cast<::std::decay_t<decltype(" + st.shuffle_value + ")>>(" +
           st.shuffle_value + ")));\n";
    out += "return false;\n}()) __cuemu_sb.exit();\n__cuemu_sb.region_end();\n";
}

}  // namespace cuemu_rewrite::internal::split_detail
