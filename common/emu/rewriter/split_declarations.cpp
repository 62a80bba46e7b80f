// split_declarations.cpp - the Splitter's (splitter.h) reading of a kernel's
// declarations: each declarator a variable, or a constant the same for every
// thread hoisted above the regions; which variables live across a barrier
// (kept: an array of their own, one element per thread); and the checks on
// them that refuse a kernel the split version would get wrong.
#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "splitter.h"

namespace cuemu_rewrite::internal::split_detail {
namespace {

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

}  // namespace

bool Splitter::is_scalar_word(const std::string& word) { return scalar_words.count(word) != 0; }

// ---- declarations ---------------------------------------------------------------
bool Splitter::looks_like_declaration(std::size_t i) const {
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
void Splitter::read_declaration(Statement& st, std::size_t scope_begin, std::size_t scope_end, bool loop_init) {
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
    // A scalar that is not const but that nothing changes after its
    // declaration is as constant (a __device__ function's parameter written
    // into the kernel, `int k__cuemu_in1 = (k);`, is one).
    bool unchanged = all_scalar && !is_const;
    for (const Declarator& d : declarators)
        unchanged = unchanged && never_changed(s_.spelling(d.name), st.end, scope_end);
    // A scalar of the thread's index only (split_guards.cpp: index_text).
    if (!loop_init && all_scalar && star == npos)
        for (const Declarator& d : declarators)
            if (d.dims.empty() && d.init_begin != npos && never_changed(s_.spelling(d.name), st.end, scope_end))
                note_index_variable(s_.spelling(d.name), spec, d.init_begin, d.init_end);
    bool hoistable = !loop_init && (is_constexpr || is_const || unchanged) && star == npos;
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
bool Splitter::zero_initializer(std::size_t b, std::size_t e) const {
    if (!is(b, '{')) return false;
    const std::size_t inner = nx(b + 1);
    if (is(inner, '}')) return nx(inner + 1) >= e;
    if (s_[inner].kind != Kind::Number || !is(nx(inner + 1), '}') || nx(nx(inner + 1) + 1) < e) return false;
    const std::string n = s_.spelling(inner);
    return n.find_first_not_of("0.fFlLuU") == std::string::npos;
}

int Splitter::var_named(const std::string& name) const {
    for (std::size_t v = 0; v < vars_.size(); ++v)
        if (vars_[v].name == name) return static_cast<int>(v);
    return -1;
}
// Every name the split version declares is one name: no shadowing.
void Splitter::note_name(const std::string& name) {
    if (params_.count(name) || declared_names_.count(name) || var_named(name) >= 0) throw UNSPLITTABLE;
    declared_names_.insert(name);
}

// ---- which variables live across regions ----------------------------------------------
// A variable is kept (has an array) when it is mentioned outside the
// region that declares it. Regions: runs of plain statements of one list.
void Splitter::decide_kept(std::vector<Statement>& list) {
    for (std::size_t k = 0; k < list.size();) {
        if (list[k].kind == Statement::Kind::branch) {
            decide_kept(list[k].body);
            ++k;
            continue;
        }
        if (list[k].kind == Statement::Kind::loop) {
            Statement& loop = list[k];
            if (loop.init)
                for (int v : loop.init->declares) vars_[v].kept = true;  // the condition reads it
            decide_kept(loop.body);
            ++k;
            continue;
        }
        if (list[k].kind != Statement::Kind::plain && list[k].kind != Statement::Kind::shuffle) {
            ++k;
            continue;
        }
        // A region: from here to the next cut (a shuffle's statement starts one).
        std::size_t j = k + 1;
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
void Splitter::check_outside_names() const {
    for (const std::string& name : inlined_.outside_names)
        if (params_.count(name) || declared_names_.count(name)) throw Unsplittable{__LINE__, name};
}

// A variable of a class type kept across a barrier: its member functions
// may change it where the copy back out cannot see it.
void Splitter::check_kept_types() const {
    for (const Var& v : vars_)
        if (v.kept && v.class_object) throw Unsplittable{__LINE__, v.name};
}

void Splitter::check_parameters_unchanged() const {
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
void Splitter::check_addresses() {
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

}  // namespace cuemu_rewrite::internal::split_detail
