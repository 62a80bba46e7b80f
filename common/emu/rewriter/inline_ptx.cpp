// inline_ptx.cpp - special-register reads and bfind in inline PTX become
// calls of the emulator's functions; other inline PTX in device code is
// refused (see inline_ptx.h).
#include "inline_ptx.h"

#include <map>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace cuemu_rewrite::internal {
namespace {

// PTX's special registers the emulator can answer, and the function that does.
const std::map<std::string, std::string>& special_registers() {
    static const std::map<std::string, std::string> registers = {
        {"laneid", "laneid"},           {"warpid", "warpid"},
        {"nwarpid", "nwarpid"},         {"smid", "smid"},
        {"nsmid", "nsmid"},             {"clock", "clock32"},
        {"clock_hi", "clock_hi"},       {"clock64", "clock64"},
        {"globaltimer", "globaltimer"}, {"globaltimer_lo", "globaltimer_lo"},
        {"globaltimer_hi", "globaltimer_hi"}, {"lanemask_eq", "lanemask_eq"},
        {"lanemask_le", "lanemask_le"}, {"lanemask_lt", "lanemask_lt"},
        {"lanemask_ge", "lanemask_ge"}, {"lanemask_gt", "lanemask_gt"},
    };
    return registers;
}

// The text of a string literal token, without its quotes, escapes undone
// (only those PTX text uses: \n \t \" \\). Empty optional-like: ok = false
// for prefixed or raw strings.
bool literal_text(const std::string& spelling, std::string& out) {
    if (spelling.size() < 2 || spelling.front() != '"' || spelling.back() != '"') return false;
    for (std::size_t k = 1; k + 1 < spelling.size(); ++k) {
        char c = spelling[k];
        if (c == '\\' && k + 2 < spelling.size()) {
            const char e = spelling[++k];
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
        }
        out += c;
    }
    return true;
}

// The ')' that closes the '(' at `open`, or npos.
std::size_t matching_paren(const Source& src, std::size_t open) {
    int depth = 0;
    for (std::size_t i = open; i < src.size(); ++i) {
        if (is_trivia(src[i])) continue;
        if (src.is_punct(i, '(')) ++depth;
        if (src.is_punct(i, ')') && --depth == 0) return i;
    }
    return npos;
}

bool is_asm_keyword(const Source& src, std::size_t i) {
    return src.is_ident(i, "asm") || src.is_ident(i, "__asm__") || src.is_ident(i, "__asm");
}

// The statement's text in one line, shortened for a message.
std::string shown(const Source& src, std::size_t begin, std::size_t end) {
    std::string text = src.joined(begin, end);
    if (text.size() > 100) text = text.substr(0, 97) + "...";
    return text;
}

}  // namespace

InlinePtxPlan translate_inline_ptx(const Source& src, const Scopes& scopes) {
    InlinePtxPlan plan;
    for (std::size_t at = 0; at < src.size(); ++at) {
        if (!is_asm_keyword(src, at) || src[at].in_directive) continue;
        // In a __host__ __device__ function (or one whose space is not sure)
        // the text may be the host's own assembly: translated when it reads a
        // special register, otherwise left to the assembler.
        const CodeContext where = scopes.context_at(at);
        if (where != CodeContext::device && where != CodeContext::both) continue;
        const bool certainly_device = where == CodeContext::device;
        std::size_t open = src.next_code(at + 1);
        while (src.is_ident(open, "volatile") || src.is_ident(open, "__volatile__") || src.is_ident(open, "inline") ||
               src.is_ident(open, "goto"))
            open = src.next_code(open + 1);
        const std::size_t close = src.is_punct(open, '(') ? matching_paren(src, open) : npos;
        if (close == npos) continue;  // not a statement this can read; the compiler will say
        const std::string statement = shown(src, at, close + 1);
        auto refuse = [&] {
            if (!certainly_device) return;
            plan.errors.push_back(src.diagnostic_at(
                at, "inline PTX is not emulated: '" + statement +
                        "'. The emulator compiles device code for the CPU, which has no PTX assembler; "
                        "it reads PTX's special registers (mov of %laneid, %warpid, %smid, %nsmid, %clock, "
                        "%clock64, %globaltimer, %lanemask_*) and runs bfind, nothing else. Write the code in CUDA C++ "
                        "(an intrinsic, or __shfl_sync, atomics, ...), or build this program with nvcc for a GPU"));
        };
        // The PTX text: adjacent string literals up to the first ':'.
        std::string ptx;
        std::size_t i = src.next_code(open + 1);
        bool readable = true;
        for (; i < close && src[i].kind == Kind::String; i = src.next_code(i + 1))
            readable = readable && literal_text(src.spelling(i), ptx);
        if (!readable || !src.is_punct(i, ':')) {
            refuse();
            continue;
        }
        // One output operand, "=r"/"=l"/... (expr), then at most empty
        // inputs and clobbers.
        std::size_t constraint = src.next_code(i + 1);
        std::string constraint_text;
        const std::size_t expr_open = src.next_code(constraint + 1);
        const std::size_t expr_close = src.is_punct(expr_open, '(') ? matching_paren(src, expr_open) : npos;
        if (src[constraint].kind != Kind::String || !literal_text(src.spelling(constraint), constraint_text) ||
            constraint_text.empty() || constraint_text[0] != '=' || expr_close == npos || expr_close >= close) {
            refuse();
            continue;
        }
        // Then the inputs, each "r"/"l"/... (expr), and clobbers (strings).
        std::vector<std::pair<std::size_t, std::size_t>> inputs;  // each input's '(' and ')'
        bool simple = true;
        std::size_t k = src.next_code(expr_close + 1);
        if (k < close && src.is_punct(k, ':')) {
            k = src.next_code(k + 1);
            while (simple && k < close && !src.is_punct(k, ':')) {
                std::string input_constraint;
                const std::size_t in_open = src.next_code(k + 1);
                const std::size_t in_close = src.is_punct(in_open, '(') ? matching_paren(src, in_open) : npos;
                if (src[k].kind != Kind::String || !literal_text(src.spelling(k), input_constraint) ||
                    in_close == npos || in_close >= close) {
                    simple = false;
                    break;
                }
                inputs.emplace_back(in_open, in_close);
                k = src.next_code(in_close + 1);
                if (k < close && src.is_punct(k, ',')) k = src.next_code(k + 1);
            }
        }
        if (simple && k < close && src.is_punct(k, ':')) {
            for (k = src.next_code(k + 1); k < close; k = src.next_code(k + 1))
                if (!(src[k].kind == Kind::String || src.is_punct(k, ','))) simple = false;
        } else if (k < close) {
            simple = false;
        }
        auto text_of = [&](std::size_t first, std::size_t last) {
            return src.text().substr(src[first].begin, src[last].end - src[first].begin);
        };
        // What replaces the statement: the output's expression, assigned.
        std::string call;
        static const std::regex read_register(
            R"(^\s*mov\.[busf](16|32|64)\s+%0\s*,\s*%%([a-z_0-9]+)\s*;?\s*$)");
        static const std::regex find_bit(R"(^\s*bfind(\.shiftamt)?\.([us])(32|64)\s+%0\s*,\s*%1\s*;?\s*$)");
        std::smatch match;
        if (simple && inputs.empty() && std::regex_match(ptx, match, read_register)) {
            const auto known = special_registers().find(match[2].str());
            if (known != special_registers().end()) call = "::cuemu::ptx::" + known->second + "()";
        } else if (simple && inputs.size() == 1 && std::regex_match(ptx, match, find_bit)) {
            // bfind[.shiftamt].{u32,s32,u64,s64} d, a (cuemu/ptx_registers.h)
            call = "::cuemu::ptx::bfind" + std::string(match[1].matched ? "_shiftamt" : "") + "_" +
                   match[2].str() + match[3].str() + text_of(inputs[0].first, inputs[0].second);
        }
        if (call.empty()) {
            refuse();
            continue;
        }
        // (lane) = ::cuemu::ptx::laneid(), with the statement's newlines kept.
        const std::string target = text_of(expr_open, expr_close);
        const std::size_t lines = src.newlines_between(at, close) - count_newlines(call, 0, call.size()) -
                                  count_newlines(target, 0, target.size());
        plan.edits[at] = Edit{close + 1, target + " = " + call + newlines(lines, false)};
    }
    return plan;
}

}  // namespace cuemu_rewrite::internal
