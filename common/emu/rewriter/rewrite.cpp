// rewrite.cpp - the core of cuemu-rewrite: CUDA-only syntax in a .cu file
// becomes plain C++ for the CPU emulator, with every line kept in place.
//
// The tokens come from source.h; branches the compiler skips are marked
// there first (conditionals.h) and #if on __CUDA_ARCH__ is resolved
// (arch.h); launches and extern __shared__ are read by launch_syntax.h.
// This file is the emitter, which copies tokens to the output and replaces
// the constructs, re-emitting any newline it had to remove so that the next
// source line keeps its line number.
#include "rewrite.h"

#include "aligned_twin.h"
#include "arch.h"
#include "checks.h"
#include "conditionals.h"
#include "host_builtin_names.h"
#include "inline_ptx.h"
#include "launch_syntax.h"
#include "scopes.h"
#include "shared_reach.h"
#include "split_regions.h"
#include "static_shared.h"
#include "source.h"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>
#include <utility>

namespace cuemu_rewrite {
namespace {

using namespace internal;

class Rewriter {
public:
    Rewriter(const Source& src, const std::vector<Activity>& activity, const Edits& edits,
             const Options& options, const Scopes& braces)
        : src_(src), activity_(activity), edits_(edits), options_(options), braces_(braces),
          drop_(src.size(), false) {}

    Result run(const std::string& display_name) {
        display_name_ = display_name;
        find_launches();
        mark_static_shared();
        Result result;
        result.shared_names = find_shared_reach(src_, braces_);
        result.barrier_names = find_barrier_reach(src_, braces_);
        barrier_names_ = options_.tree_barrier_names ? *options_.tree_barrier_names : result.barrier_names;
        find_twins(options_.tree_shared_names ? *options_.tree_shared_names : result.shared_names);
        result.output = "#line 1 \"" + escape_for_string_literal(display_name) + "\"\n";
        emit(0, src_.size(), result.output);
        result.errors = std::move(errors_);
        // Decided on the source as written, before extern __shared__ and the
        // rest become plain C++: the emulator's default race check (cuemu/launch.h).
        for (std::size_t i = 0; i < src_.size() && !result.uses_shared_memory; ++i)
            result.uses_shared_memory = src_.is_ident(i, "__shared__");
        return result;
    }

private:
    const Source& src_;
    const std::vector<Activity>& activity_;
    const Edits& edits_;
    const Options& options_;
    const Scopes& braces_;
    std::string display_name_;
    std::map<std::size_t, Launch> launches_;  // keyed by the first token of the kernel name
    std::vector<bool> drop_;                  // tokens left out of the output
    std::vector<bool> scopes_;                // open braces: true for namespace-like ones
    std::map<std::string, std::string> file_scope_shared_;  // name -> type, for redeclarations
    std::map<std::size_t, std::string> deferred_;           // token -> error for the compiler
    std::vector<Diagnostic> errors_;

    // A kernel definition that gets an uninstrumented twin (cuemu/launch.h):
    // the twin is the rewritten text of tokens copy_begin .. close, with the
    // name renamed, emitted after the close brace under #line directives, in
    // #if defined(__SANITIZE_THREAD__) (a source built without the
    // instrumentation does not compile it).
    struct Twin {
        std::size_t copy_begin;  // first token of the copy (after any extern "C")
        std::size_t name;        // the kernel's name
        std::size_t close;       // the '}' that ends the body
        std::size_t out_begin = npos, out_name = npos;  // where they went in the output
        bool shared_free = false;  // its text cannot reach shared memory (shared_reach.h)
        std::string max_threads{};  // __launch_bounds__'s first argument, as written; or ""
        std::size_t open = npos;   // the '{' that opens the body
        bool is_template = false;  // its twin is a template too; no address is registered
        bool is_device = false;    // a __device__ function's: only other twins call it
    };
    std::set<std::string> device_twins_emitted_;  // __device__ functions whose twin is out already
    // Their twins' text, for the split kernels that call them (split_inline.h),
    // with the brace they are defined in; a name defined twice has none.
    std::map<std::string, std::pair<DeviceFunctionText, std::size_t>> device_texts_;
    std::set<std::string> device_defined_twice_;
    std::optional<MacroWords> macros_;  // the file's, once a kernel is split
    std::optional<std::map<std::string, bool>> file_macros_;  // for the aligned twins (aligned_twin.h)
    std::map<std::string, std::size_t> template_twins_;  // a template kernel's name -> its '}' 
    std::map<std::size_t, Twin> twins_;  // keyed by copy_begin
    SharedNames barrier_names_;          // the tree's, for the split kernels (split_regions.h)
    std::map<std::size_t, std::string> after_;  // text emitted right after a token
    Twin* twin_in_progress_ = nullptr;

    // An error at `token`. In a branch the rewriter cannot decide, the
    // compiler may skip the code; then only the compiler can tell, so the
    // error goes into the output as _Pragma("GCC error ..."), which stops the
    // build only where the branch is compiled.
    void report(std::size_t token, const std::string& message) {
        if (activity_[token] == Activity::active) {
            errors_.push_back(src_.diagnostic_at(token, message));
            return;
        }
        std::string text;
        for (const char c : message) {
            if (c == '"') text += '\'';
            else if (c != '\\') text += c;
        }
        deferred_[token] = "_Pragma(\"GCC error \\\"" + text + "\\\"\") ";
    }

    void find_launches() {
        for (std::size_t i = 0; i < src_.size(); ++i) {
            if (!src_.is_launch_open(i)) continue;
            Parsed<Launch> parsed = parse_launch(src_, i);
            if (parsed.value) {
                launches_[parsed.value->callee_begin] = *parsed.value;
            } else if (!parsed.error.empty()) {
                report(i, parsed.error);
            }
            i = src_.triple_end(i, '<') - 1;
        }
    }

    // The emulator header defines __shared__ as 'static thread_local', so a
    // 'static' next to __shared__ would say static twice.
    void mark_static_shared() {
        // Qualifiers that may sit between the two.
        auto skip_qualifiers = [&](std::size_t t) {
            while (src_.is_ident(t, "volatile") || src_.is_ident(t, "__device__")) {
                t = src_.next_code(t + 1);
            }
            return t;
        };
        auto is_blank = [&](std::size_t t) {
            return t < src_.size() && src_[t].kind == Kind::Whitespace &&
                   count_newlines(src_.text(), src_[t].begin, src_[t].end) == 0;
        };
        for (std::size_t i = 0; i < src_.size(); ++i) {
            if (src_[i].in_include) continue;
            if (src_.is_ident(i, "static") &&
                src_.is_ident(skip_qualifiers(src_.next_code(i + 1)), "__shared__")) {
                drop_[i] = true;  // 'static __shared__ int x' -> '__shared__ int x'
                if (is_blank(i + 1)) drop_[i + 1] = true;
            } else if (src_.is_ident(i, "__shared__")) {
                const std::size_t s = skip_qualifiers(src_.next_code(i + 1));
                if (src_.is_ident(s, "static")) {
                    drop_[s] = true;  // '__shared__ static int x' -> '__shared__ int x'
                    if (s > 0 && is_blank(s - 1)) drop_[s - 1] = true;
                }
            }
        }
    }

    // The first token of the declaration `token` is part of: the walk back stops
    // at a ';', a brace or a preprocessor line.
    std::size_t declaration_start(std::size_t token) const {
        for (std::size_t t = src_.prev_code(token); t != npos; t = src_.prev_code(t)) {
            if (src_[t].in_directive || src_.is_punct(t, ';') || src_.is_punct(t, '}') || src_.is_punct(t, '{'))
                break;
            token = t;
        }
        return token;
    }

    // Whether the declaration that declaration_start(token) begins at `head`
    // really starts before a preprocessor line: `template <class T>`, then
    // `#ifdef __CUDACC__ __host__ __device__ #endif`, then the function (NVIDIA's
    // samples write their helpers so). The code before the directives is then
    // not the end of a declaration.
    bool head_crosses_directive(std::size_t head) const {
        std::size_t t = src_.prev_code(head);
        if (t == npos || !src_[t].in_directive) return false;
        while (t != npos && src_[t].in_directive) t = src_.prev_code(t);
        return t != npos && !src_.is_punct(t, ';') && !src_.is_punct(t, '}') && !src_.is_punct(t, '{');
    }

    // The kernels that get a twin: a __global__ function (or function
    // template, not specialized) defined
    // at namespace scope, in code the compiler may see, whose name is
    // defined only once in this file (so a launch's call of the twin resolves
    // as its call of the kernel does), whose head crosses no preprocessor
    // line, and whose body has no volatile access
    // (those must reach the hooks for the warp lockstep) and no #if that
    // opens before it or closes after it.
    void find_twins(const SharedNames& shared) {
        std::map<std::string, int> definitions;
        std::vector<Twin> found;
        for (std::size_t i = 0; i < src_.size(); ++i) {
            if (!src_.is_punct(i, '{') || src_[i].in_directive || src_[i].in_include) continue;
            const BraceInfo& info = braces_.info(i);
            // __device__ functions get a twin too, which the twins of the
            // kernels (and functions) below them call instead (redirect_calls).
            const bool is_device = info.space == Space::device || info.space == Space::host_device;
            if (info.kind != BraceKind::function_body || (info.space != Space::global && !is_device) ||
                !info.annotated)
                continue;
            const std::size_t name = src_.prev_code(info.params_open);
            if (name != npos && src_.is_punct(name, '>')) {
                // An explicit specialization, k<float>(...): another definition of k.
                int depth = 0;
                for (std::size_t t = name; t != npos; t = src_.prev_code(t)) {
                    if (src_.is_punct(t, '>')) ++depth;
                    if (src_.is_punct(t, '<') && --depth == 0) {
                        const std::size_t base = src_.prev_code(t);
                        if (base != npos && src_.is_ident(base)) ++definitions[src_.spelling(base)];
                        break;
                    }
                }
                continue;
            }
            if (name == npos || !src_.is_ident(name)) continue;
            const std::string spelling = src_.spelling(name);
            ++definitions[spelling];  // every definition, twinned or not
            const std::size_t parent = braces_.parent(i);
            const bool namespace_level = parent == npos || braces_.info(parent).kind == BraceKind::namespace_scope;
            // In an #if the rewriter cannot decide, the twin follows the kernel
            // into the same branch (the head crosses no directive, the body
            // closes every #if it opens).
            if (!info.certain || !namespace_level || activity_[i] == Activity::inactive) continue;
            const std::size_t close = matching_brace(src_, i);
            std::size_t head = declaration_start(name);
            bool plain = close != npos && !src_.is_punct(src_.prev_code(name), ':') &&
                         !src_.is_punct(src_.prev_code(name), '~') && !head_crosses_directive(head);
            // A template kernel's twin is a template too (its head first);
            // one template head only, and no specialization.
            const bool is_template = src_.is_ident(head, "template");
            for (std::size_t t = head; plain && t < name; ++t)
                if ((src_.is_ident(t, "template") && t != head) || src_.is_ident(t, "friend") ||
                    src_.is_ident(t, "operator"))
                    plain = false;
            if (is_template && src_.is_punct(src_.next_code(src_.next_code(head + 1) + 1), '>'))
                plain = false;  // template <>
            if (is_device && (is_template || src_.is_ident(head, "constexpr"))) plain = false;
            int open_conditionals = 0;
            for (std::size_t t = head; plain && t <= close; ++t) {
                if (src_.is_ident(t, "volatile")) plain = false;  // a parameter's, too
                if (src_[t].in_directive && src_.is_punct(t, '#')) {
                    const std::size_t word = src_.next_code(t + 1);
                    if (src_.is_ident(word, "if") || src_.is_ident(word, "ifdef") || src_.is_ident(word, "ifndef"))
                        ++open_conditionals;
                    if (src_.is_ident(word, "endif") && --open_conditionals < 0) plain = false;
                }
                if (src_[t].in_include) plain = false;
            }
            for (const auto& [start, edit] : edits_)
                if (start <= close && edit.end > close) plain = false;  // an edit across the '}'
            if (!plain || open_conditionals != 0) continue;
            if (src_.is_ident(head, "extern") && src_[src_.next_code(head + 1)].kind == Kind::String)
                head = src_.next_code(src_.next_code(head + 1) + 1);  // the twin needs no C linkage
            Twin twin{head, name, close};
            twin.open = i;
            twin.is_template = is_template;
            twin.is_device = is_device;
            twin.shared_free = !shared.unsure && !mentions_shared(src_, head, close, shared);
            twin.max_threads = launch_bounds_max_threads(head, name);
            found.push_back(twin);
        }
        for (const Twin& twin : found) {
            if (definitions[src_.spelling(twin.name)] != 1) continue;
            twins_[twin.copy_begin] = twin;
            if (twin.is_device) continue;
            if (twin.is_template) {
                template_twins_[src_.spelling(twin.name)] = twin.close;
                note_template_kernel(twin);
            } else {
                note_static_shared(twin);  // a template's address needs its arguments
            }
        }
    }

    // A template kernel's body starts with CUEMU_KNOWN_TEMPLATE_KERNEL(name,
    // its own template arguments) (cuemu/kernel_registry.h): each
    // instantiation the program makes registers its address, so that
    // cudaLaunchKernel((void*)kernel<T>, ...) and a graph's kernel node find
    // it as they find a plain kernel. Not where a template parameter has no
    // name to pass on.
    void note_template_kernel(const Twin& twin) {
        const std::string arguments = own_template_arguments(twin.copy_begin);
        if (!arguments.empty())
            after_[twin.open] = " CUEMU_KNOWN_TEMPLATE_KERNEL(" + src_.spelling(twin.name) + ", " + arguments + ")";
    }

    // The arguments that name a template's own instantiation inside it ("T, N,
    // Ts..."), from its head `template <...>` at `head`: each parameter's name,
    // a pack's expanded; "" when a parameter has none (template <class>,
    // template <std::size_t>) or the head is not read to its end.
    std::string own_template_arguments(std::size_t head) const {
        const std::size_t open = src_.next_code(head + 1);
        if (!src_.is_punct(open, '<')) return "";
        static const std::set<std::string> not_names = {"class", "typename", "int", "unsigned", "signed",
                                                        "long", "short", "char", "bool", "auto", "template"};
        std::string arguments, name;
        int words = 0;  // identifiers of the parameter at its own level, before any default
        bool pack = false, in_default = false, qualified = false;
        int depth = 0, angles = 0;  // brackets, and template argument lists outside them
        for (std::size_t t = src_.next_code(open + 1); t < src_.size(); t = src_.next_code(t + 1)) {
            if (src_[t].in_directive) return "";
            const bool end = depth == 0 && angles == 0 && src_.is_punct(t, '>');
            if (end || (depth == 0 && angles == 0 && src_.is_punct(t, ','))) {
                if (words < 2 || qualified || not_names.count(name)) return "";  // no name
                arguments += (arguments.empty() ? "" : ", ") + name + (pack ? "..." : "");
                words = 0;
                pack = in_default = qualified = false;
                if (end) return arguments;
                continue;
            }
            if (src_.is_punct(t, '(') || src_.is_punct(t, '[') || src_.is_punct(t, '{'))
                ++depth;
            else if (src_.is_punct(t, ')') || src_.is_punct(t, ']') || src_.is_punct(t, '}'))
                --depth;
            else if (depth == 0 && src_.is_punct(t, '<'))
                ++angles;
            else if (depth == 0 && src_.is_punct(t, '>'))
                --angles;
            else if (depth == 0 && angles == 0 && src_.is_punct(t, '='))
                in_default = true;
            if (in_default || depth != 0 || angles != 0) continue;
            if (src_.is_punct(t, '.')) pack = true;
            if (src_.is_ident(t)) {
                ++words;
                name = src_.spelling(t);
                qualified = src_.is_punct(src_.prev_code(t), ':');
            }
        }
        return "";
    }

    // Each __shared__ declaration of a twinned kernel's own body that counts
    // (static_shared.h) is followed, on its line, by CUEMU_STATIC_SHARED
    // (cuemu/kernel_registry.h): placed there, sizeof sees the names and the
    // types they were declared with, local typedefs and constants included.
    // Only these kernels: their name alone names their address. A twin's
    // copy repeats the lines, under the same numbers, which the runtime
    // counts once.
    void note_static_shared(const Twin& twin) {
        int number = 0;
        for (const StaticSharedDeclaration& d : find_static_shared(src_, braces_, twin.open, twin.close)) {
            std::string bytes;
            for (const std::string& name : d.names) bytes += (bytes.empty() ? "sizeof(" : " + sizeof(") + name + ")";
            after_[d.semicolon] = " CUEMU_STATIC_SHARED(" + src_.spelling(twin.name) + ", " +
                                  std::to_string(number++) + ", " + bytes + ")";
        }
    }

    // The first argument of a __launch_bounds__(max_threads, ...) among tokens
    // [head, name), as written; "" where there is none.
    std::string launch_bounds_max_threads(std::size_t head, std::size_t name) const {
        for (std::size_t t = head; t < name; ++t) {
            if (!src_.is_ident(t, "__launch_bounds__")) continue;
            const std::size_t open = src_.next_code(t + 1);
            if (open >= name || !src_.is_punct(open, '(')) return "";
            int depth = 0;
            for (std::size_t u = open + 1; u < name; ++u) {
                if (src_.is_punct(u, '(')) ++depth;
                if (src_.is_punct(u, ')') && depth-- == 0) return src_.joined(open + 1, u);
                if (src_.is_punct(u, ',') && depth == 0) return src_.joined(open + 1, u);
            }
            return "";
        }
        return "";
    }

    // Whether a launch may name the twin of the kernel its name names: the
    // launch must not run the twin of a kernel the name does not stand for
    // here. So the name is one identifier, outside a macro (where it may be a
    // parameter), in a function that is not a class's member (a member could
    // hold a kernel's address under that name) and that nowhere mentions the
    // name before the launch, from its template head on (a parameter, a
    // local variable, a template parameter named like a kernel).
    bool may_offer_twin(const Launch& launch) const {
        const std::size_t callee = launch.callee_begin;
        if (launch.callee_end != callee + 1 || !src_.is_ident(callee) || src_[callee].in_directive) return false;
        for (std::size_t b = braces_.enclosing(callee); b != npos; b = braces_.parent(b))
            if (braces_.info(b).kind == BraceKind::class_body) return false;
        const std::size_t function = braces_.outermost_function(callee);
        if (function == npos) return true;  // an initializer at namespace scope
        const BraceInfo& info = braces_.info(function);
        std::size_t head = function;  // a lambda without parameters: from its captures on
        if (info.params_open != npos) {
            head = src_.prev_code(info.params_open);
            if (head == npos || src_.is_punct(src_.prev_code(head), ':')) return false;  // C::f
        }
        head = declaration_start(head);
        if (head_crosses_directive(head)) return false;  // its template head is not all in view
        const std::string spelling = src_.spelling(callee);
        for (std::size_t t = head; t < callee; ++t)  // earlier launches of it are fine
            if (src_.is_ident(t) && src_.spelling(t) == spelling && !launches_.count(t)) return false;
        return true;
    }

    // `text` with each call f(...) of a name in `twinned` made a call of
    // __cuemu_fast_f (not a member's call, a qualified one or a declaration).
    // A name the text also uses otherwise (a parameter or variable named f,
    // a function pointer) is left alone everywhere in it.
    static std::string redirect_calls(const std::string& text, const std::set<std::string>& twinned) {
        if (twinned.empty()) return text;
        const Source part(text);
        std::set<std::string> other_uses;
        for (std::size_t t = 0; t < part.size(); ++t)
            if (part.is_ident(t) && twinned.count(part.spelling(t)) && !part.is_punct(part.next_code(t + 1), '('))
                other_uses.insert(part.spelling(t));
        std::string out;
        std::size_t copied = 0;
        for (std::size_t t = 0; t < part.size(); ++t) {
            if (!part.is_ident(t) || !twinned.count(part.spelling(t)) || part[t].in_directive) continue;
            if (other_uses.count(part.spelling(t)) || !part.is_punct(part.next_code(t + 1), '(')) continue;
            const std::size_t before = part.prev_code(t);
            const bool keyword_before = before != npos && (part.is_ident(before, "return") || part.is_ident(before, "else") ||
                                                           part.is_ident(before, "do") || part.is_ident(before, "case"));
            if (before != npos && !keyword_before &&
                (part.is_punct(before, '.') || part.is_punct(before, '>') || part.is_punct(before, ':') ||
                 part.is_ident(before) || part.is_punct(before, '~')))
                continue;  // obj.f(, p->f(, ns::f(, `float f(` (a declaration), ~f(
            out += text.substr(copied, part[t].begin - copied) + "__cuemu_fast_";
            copied = part[t].begin;
        }
        return out + text.substr(copied);
    }

    // k<ARGS><<<...>>>: a template kernel with its arguments written out, whose
    // twin this file defines before the launch (a twin named with arguments
    // must exist: no SFINAE spares a template-id that names nothing), under
    // may_offer_twin's conditions for the name.
    bool may_offer_template_twin(const Launch& launch) const {
        const std::size_t name = launch.callee_begin;
        if (!src_.is_ident(name) || !src_.is_punct(src_.next_code(name + 1), '<')) return false;
        if (launch.callee_end == 0 || !src_.is_punct(src_.prev_code(launch.callee_end), '>')) return false;
        const auto twin = template_twins_.find(src_.spelling(name));
        if (twin == template_twins_.end() || twin->second > name) return false;
        Launch bare = launch;
        bare.callee_end = name + 1;
        return may_offer_twin(bare);
    }

    // Called by emit() before token i; appends a finished twin after its '}'.
    void track_twins(std::size_t i, std::string& out) {
        if (twin_in_progress_ && i > twin_in_progress_->close) {
            Twin& twin = *twin_in_progress_;
            twin_in_progress_ = nullptr;
            const std::string name = src_.spelling(twin.name);
            if (twin.out_name == npos || out.compare(twin.out_name, name.size(), name) != 0) return;
            std::string copy = out.substr(twin.out_begin);
            if (twin.is_device) device_twins_emitted_.insert(name);  // its own recursive calls too
            {
                // Calls of __device__ functions whose twins are out go to the twins:
                // no instrumentation, and GCC may inline them again.
                const std::size_t name_end = twin.out_name - twin.out_begin + name.size();
                copy = copy.substr(0, name_end) + redirect_calls(copy.substr(name_end), device_twins_emitted_);
            }
            const std::string quoted_file = "\"" + escape_for_string_literal(display_name_) + "\"";
            const std::string file = quoted_file + "\n";
            const std::size_t name_at = twin.out_name - twin.out_begin;
            // The kernel cut at its barriers into loops over its threads,
            // where its shape allows (split_regions.h): an overload of the twin.
            if (twin.is_device && !twin.is_template && !device_defined_twice_.count(name)) {
                if (device_texts_.erase(name)) device_defined_twice_.insert(name);
                else
                    device_texts_[name] = {DeviceFunctionText{copy, name_at, src_.location(twin.copy_begin).first},
                                           braces_.enclosing(twin.name)};
            }
            std::string split;
            if (!twin.is_device && options_.split_kernels) {
                // Only functions of the kernel's own scope: their names mean the same there.
                std::map<std::string, DeviceFunctionText> callees;
                for (const auto& [callee, text] : device_texts_)
                    if (text.second == braces_.enclosing(twin.name)) callees.emplace(callee, text.first);
                if (!macros_) macros_ = macro_words(src_);
                split = split_kernel(copy, name_at, name, src_.location(twin.copy_begin).first, quoted_file,
                                     barrier_names_, callees, *macros_);
            }
            // A barrier-free kernel whose accesses are its pointer parameters
            // indexed: a twin without the misaligned-access check (aligned_twin.h).
            std::string aligned;
            if (!twin.is_device && split.empty()) {
                if (!file_macros_) file_macros_ = file_macros(src_);
                aligned = aligned_twin(copy, name_at, name, src_.location(twin.copy_begin).first, quoted_file,
                                       *file_macros_);
            }
            copy.replace(name_at, name.size(), "__attribute__((no_sanitize(\"thread\"))) __cuemu_fast_" + name);
            if (twin.is_device) {
                out += "\n#if defined(__SANITIZE_THREAD__)\n#line " +
                       std::to_string(src_.location(twin.copy_begin).first) + " " + file + copy + "\n#endif\n#line " +
                       std::to_string(src_.location(twin.close).first) + " " + file;
                return;
            }
            // Only a build with the instrumentation has a use for it (launch.h).
            // Every build registers the kernel's address, so that a graph's
            // kernel node can name it by a void* (cuemu/kernel_registry.h),
            // and its __launch_bounds__, which its launches are checked against.
            // A kernel that cannot reach shared memory says so with an
            // overload of its twin that is only ever asked about, never called:
            // its twin may run under the race check too.
            const std::string free_mark =
                twin.shared_free ? "\nvoid __cuemu_fast_" + name + "(::cuemu::shared_memory_free);" : "";
            out += "\n#if defined(__SANITIZE_THREAD__)\n#line " +
                   std::to_string(src_.location(twin.copy_begin).first) + " " + file + copy + free_mark +
                   (split.empty() ? "" : "\n" + split) + (aligned.empty() ? "" : "\n" + aligned) + "\n#endif\n" +
                   (twin.is_template ? "" : "CUEMU_KNOWN_KERNEL(" + name + ")\n") +
                   (twin.max_threads.empty() || twin.is_template
                        ? ""
                        : "CUEMU_LAUNCH_BOUNDS(" + name + ", " + twin.max_threads + ")\n") +
                   "#line " +
                   std::to_string(src_.location(twin.close).first) + " " + file;
        }
        if (auto twin = twins_.find(i); twin != twins_.end() && !twin_in_progress_) {
            twin_in_progress_ = &twin->second;
            twin_in_progress_->out_begin = out.size();
        }
        if (twin_in_progress_ && i == twin_in_progress_->name) twin_in_progress_->out_name = out.size();
    }

    // Copies tokens [begin, end) to out, rewriting the constructs on the way.
    // Launch configurations and arguments go through here again, so a launch
    // inside a lambda argument is rewritten too.
    void emit(std::size_t begin, std::size_t end, std::string& out) {
        for (std::size_t i = begin; i < end;) {
            const Token& token = src_[i];
            track_twins(i, out);
            if (auto edit = edits_.find(i); edit != edits_.end()) {
                out += edit->second.text;
                i = edit->second.end;
                continue;
            }
            if (auto error = deferred_.find(i); error != deferred_.end()) out += error->second;
            if (token.in_include) {
                emit_include_token(i, out);
                ++i;
                continue;
            }
            if (drop_[i]) {
                ++i;
                continue;
            }
            if (auto launch = launches_.find(i); launch != launches_.end()) {
                emit_launch(launch->second, out);
                i = launch->second.paren_close + 1;
                continue;
            }
            if (src_.is_ident(i, "extern")) {
                if (const std::size_t after = emit_dynamic_shared(i, out)) {
                    i = after;
                    continue;
                }
            }
            if (src_.is_ident(i, "__shared__") && !token.in_directive) {
                if (const std::size_t after = emit_shared_alignas(i, out)) {
                    i = after;
                    continue;
                }
            }
            if (src_.is_ident(i, "__noinline__")) {
                // Not a macro in the header: libstdc++ writes
                // __attribute__((__noinline__)) and a macro would break it.
                out += "__attribute__((noinline))";
                ++i;
                continue;
            }
            if (!token.in_directive && src_.is_punct(i, '{')) scopes_.push_back(opens_namespace_scope(src_, i));
            if (!token.in_directive && src_.is_punct(i, '}') && !scopes_.empty()) scopes_.pop_back();
            out.append(src_.text(), token.begin, token.end - token.begin);
            if (auto after = after_.find(i); after != after_.end()) out += after->second;
            ++i;
        }
        if (end == src_.size()) track_twins(end, out);
    }

    // __shared__ alignas(N) T x;  ->  alignas(N) __shared__ T x;
    // __shared__ is 'static thread_local' here, and C++ allows alignas before
    // the decl-specifiers, not among them (nvcc takes both orders; the CUDA
    // samples write the first). Returns the token after the alignas(...), or 0
    // when no alignas follows. Newlines stay where they were.
    std::size_t emit_shared_alignas(std::size_t shared, std::string& out) {
        const std::size_t alignas_at = src_.next_code(shared + 1);
        if (!src_.is_ident(alignas_at, "alignas")) return 0;
        const std::size_t open = src_.next_code(alignas_at + 1);
        if (!src_.is_punct(open, '(')) return 0;
        std::size_t close = open;
        for (int depth = 0; close < src_.size(); ++close) {
            if (src_.is_punct(close, '(')) ++depth;
            if (src_.is_punct(close, ')') && --depth == 0) break;
        }
        if (close >= src_.size()) return 0;
        const std::string& text = src_.text();
        out.append(text, src_[alignas_at].begin, src_[close].end - src_[alignas_at].begin);
        out.append(text, src_[shared].end, src_[alignas_at].begin - src_[shared].end);  // the space between
        out += "__shared__";
        return close + 1;
    }

    // The file name of an #include of a project header points at its rewritten copy.
    void emit_include_token(std::size_t i, std::string& out) {
        const Token& token = src_[i];
        const std::string spelling = src_.spelling(i);
        const bool quoted = token.kind == Kind::String && spelling.size() >= 2 && spelling.front() == '"';
        const bool angled = token.kind == Kind::HeaderName && spelling.size() >= 2 && spelling.back() == '>';
        if ((quoted || angled) && options_.redirect_include) {
            if (const std::optional<std::string> target =
                    options_.redirect_include(spelling.substr(1, spelling.size() - 2), angled)) {
                out += "\"" + escape_for_string_literal(*target) + "\"";
                return;
            }
        }
        out += spelling;
    }

    //   k<<<CFG>>>(ARGS)  ->
    //   ::cuemu::launch(::cuemu::launch_site{"k", __FILE__, __LINE__},
    //                   ::cuemu::launch_config(CFG),
    //                   [=](auto&&... cuemu_args_) CUEMU_BODY_ATTRIBUTES
    //                       -> decltype(k(cuemu_args_...)) { k(cuemu_args_...); },
    //                   ::cuemu::kernel_ref{RESOLVER}, CUEMU_FAST_BODY(__cuemu_fast_k), ARGS)
    // all on the line of 'k' (the twin only where the kernel is a plain name). CFG and ARGS keep their own newlines; the ones
    // inside a multi-line kernel name (and before <<<) come back right after
    // 'launch_config(', those between >>> and '(' right after its ')'.
    void emit_launch(const Launch& launch, std::string& out) {
        const bool in_directive = src_[launch.open].in_directive;
        const std::string callee = src_.joined(launch.callee_begin, launch.callee_end);
        out += "::cuemu::launch(::cuemu::launch_site{\"" + escape_for_string_literal(callee) +
               "\", __FILE__, __LINE__}, ::cuemu::launch_config(";
        out += newlines(src_.newlines_between(launch.callee_begin, launch.open_end - 1), in_directive);
        emit(launch.open_end, launch.close, out);
        out += ")";
        out += newlines(src_.newlines_between(launch.close, launch.paren_open), in_directive);
        // The return type names the call, so that a launch can ask whether the
        // arguments fit as they are (0 or NULL for a pointer do not: null_arguments.h).
        out += ", [=](auto&&... cuemu_args_) CUEMU_BODY_ATTRIBUTES -> decltype(" + callee +
               "(cuemu_args_...)) { " + callee + "(cuemu_args_...); }";
        // The kernel's address for the parameters-as-bytes launch (launch.h).
        out += ", ::cuemu::kernel_ref{[=](auto cuemu_fp_) -> decltype(static_cast<typename "
               "decltype(cuemu_fp_)::type>(" + callee + ")) { return static_cast<typename "
               "decltype(cuemu_fp_)::type>(" + callee + "); }}";
        // The kernel's uninstrumented twin, where one is declared (launch.h).
        if (may_offer_twin(launch)) {
            out += ", CUEMU_FAST_BODY(__cuemu_fast_" + callee + ")";
        } else if (may_offer_template_twin(launch)) {
            // k<32><<<...>>>: the twin's specialization, in parentheses (one
            // macro argument, whatever commas its arguments have).
            out += ", CUEMU_FAST_BODY((__cuemu_fast_" + callee + "))";
        }
        const std::size_t first_arg = src_.next_code(launch.paren_open + 1);
        if (first_arg < launch.paren_close && src_.is_ident(first_arg, "__VA_ARGS__") && in_directive) {
            // A launch macro's arguments may be empty: then no comma either.
            out += " __VA_OPT__(,) ";
        } else if (first_arg < launch.paren_close) {
            out += ", ";
        }
        emit(launch.paren_open + 1, launch.paren_close, out);
        out += ")";
    }

    // extern __shared__ T name[];  ->  T* name = reinterpret_cast<T*>(::cuemu::dynamic_shared_memory());
    // At file scope (where CUDA lets every kernel of the file use the name)
    // it becomes a macro for the same pointer, on the declaration's line.
    // Returns the index after the ';', or 0 when the 'extern' at `at` was left as it is.
    std::size_t emit_dynamic_shared(std::size_t at, std::string& out) {
        Parsed<DynamicShared> parsed = parse_dynamic_shared(src_, at);
        if (!parsed.value) {
            if (!parsed.error.empty()) report(at, parsed.error);
            return 0;
        }
        const bool in_directive = src_[at].in_directive;
        const DynamicShared& decl = *parsed.value;
        const std::string pointer =
            "reinterpret_cast<" + decl.pointer_type() + ">(::cuemu::dynamic_shared_memory())";
        const bool file_scope =
            !in_directive && std::all_of(scopes_.begin(), scopes_.end(), [](bool ns) { return ns; });
        if (file_scope) {
            if (!alone_on_its_lines(at, decl.semicolon)) {
                report(at, "extern __shared__ at file scope: the emulator needs the declaration on a line "
                           "of its own");
                return 0;
            }
            file_scope_shared_[decl.name] = decl.pointer_type();
            out += "#define " + decl.name + " (" + pointer + ")";
            out += newlines(src_.newlines_between(at, decl.semicolon), true);
            return decl.semicolon + 1;
        }
        if (const auto earlier = file_scope_shared_.find(decl.name); earlier != file_scope_shared_.end()) {
            // The same array again, inside a kernel: the file-scope one already names it.
            if (earlier->second != decl.pointer_type()) {
                report(at, "extern __shared__ " + decl.name + " was declared at file scope as " +
                               earlier->second + "; the emulator cannot redeclare it here as " +
                               decl.pointer_type() + " (give this one another name)");
                return 0;
            }
            out += newlines(src_.newlines_between(at, decl.semicolon), in_directive);
            return decl.semicolon + 1;
        }
        out += decl.declarator() + " = " + pointer + ";";
        out += newlines(src_.newlines_between(at, decl.semicolon), in_directive);
        return decl.semicolon + 1;
    }

    // Only blanks and comments share the lines of tokens [first, last].
    bool alone_on_its_lines(std::size_t first, std::size_t last) const {
        for (std::size_t t = first; t-- > 0 && src_[t].kind != Kind::Newline;) {
            if (!is_trivia(src_[t])) return false;
        }
        for (std::size_t t = last + 1; t < src_.size() && src_[t].kind != Kind::Newline; ++t) {
            if (!is_trivia(src_[t]) || src_[t].kind == Kind::BlockComment) return false;
        }
        return true;
    }
};

MacroTable command_line_macros(const Options& options) {
    MacroTable macros;
    for (const auto& [name, value] : options.defines) macros.known[name] = value;
    for (const std::string& name : options.undefines) macros.known[name] = std::nullopt;
    return macros;
}

}  // namespace

Result rewrite(const std::string& original, const std::string& display_name, const Options& options) {
    // A UTF-8 byte order mark would end up after our #line, where g++ rejects it.
    const bool bom = original.compare(0, 3, "\xEF\xBB\xBF") == 0;
    const std::string text = bom ? original.substr(3) : original;
    Source src(text);

    // Branches the compiler skips are not looked at; then __CUDA_ARCH__ is
    // resolved per place, which may drop more branches.
    ConditionalAnalysis conditionals = analyse_conditionals(src, command_line_macros(options));
    for (std::size_t t = 0; t < src.size(); ++t) {
        if (conditionals.activity[t] == Activity::inactive) src.mark_inactive(t);
    }
    const ArchPlan arch = resolve_arch(src, conditionals, Scopes(src));
    for (std::size_t t : arch.inactive) {
        src.mark_inactive(t);
        conditionals.activity[t] = Activity::inactive;
    }
    const Scopes scopes(src);
    // Special-register reads in inline PTX become calls (inline_ptx.h).
    InlinePtxPlan ptx = translate_inline_ptx(src, scopes);
    Edits edits = arch.edits;
    for (auto& [first, edit] : ptx.edits) edits.emplace(first, std::move(edit));
    // Host variables named like the built-in variables (host_builtin_names.h).
    for (auto& [first, edit] : rename_host_builtin_names(src, scopes)) edits.emplace(first, std::move(edit));

    Result result = Rewriter(src, conditionals.activity, edits, options, scopes).run(display_name);
    for (const Diagnostic& d : arch.errors) result.errors.push_back(d);
    for (const Diagnostic& d : ptx.errors) result.errors.push_back(d);
    for (Diagnostic& d : check_device_code(src, conditionals.activity, scopes)) result.errors.push_back(std::move(d));
    std::stable_sort(result.errors.begin(), result.errors.end(),
                     [](const Diagnostic& a, const Diagnostic& b) {
                         return std::make_pair(a.line, a.column) < std::make_pair(b.line, b.column);
                     });
    return result;
}

}  // namespace cuemu_rewrite
