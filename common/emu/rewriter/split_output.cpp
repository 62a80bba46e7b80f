// split_output.cpp - the text of a kernel's split version, as the Splitter
// (splitter.h) writes it once it has read the kernel: each region an inlined
// lambda run for every thread, the copies of kept variables in and out, the
// loops whose bodies have barriers.
//
// The output, for a body "A; __syncthreads(); for (init; cond; inc) { B;
// __syncthreads(); } C;":
//   ::cuemu::split_block __cuemu_sb;                 // the block (cuemu/split_block.h)
//   __shared__ ... and uniform constants, once
//   storage: one array per variable kept across a barrier
//   REGION(A)  barrier-check  { REGION(init) for (;;) { COND-PASS REGION(B)
//   barrier-check REGION(inc) } unpark }  REGION(C)  __cuemu_sb.finish();
// where REGION(X) runs X for every running thread, in threadIdx order, as an
// inlined lambda: a kept variable is copied in from its array at the start
// and out at the end, `return;` ends the thread (`return true`).
#include <cstddef>
#include <string>
#include <vector>

#include "splitter.h"

namespace cuemu_rewrite::internal::split_detail {
namespace {

constexpr const char* lambda_head =
    "[&]() __attribute__((no_sanitize(\"thread\"), always_inline)) -> bool {\n";
constexpr const char* each_thread =
    "for (__cuemu_sb.first(); __cuemu_sb.more(); __cuemu_sb.next())\n";

}  // namespace

// ---- the output ------------------------------------------------------------------

// Written in tokens [b, e): assigned, incremented, or passed alone as a
// call's argument (a reference parameter may change it; a shuffle's are values).
bool Splitter::modified_in(const std::string& name, std::size_t b, std::size_t e) const {
    for (std::size_t t = b; t < e; ++t) {
        if (!names(t, name)) continue;
        if (written_at(t, true)) return true;  // v.x = ... too
        const std::size_t before = s_.prev_code(t), after = nx(t + 1);
        if ((is(before, '(') || is(before, ',')) && (is(after, ')') || is(after, ',')) && !shuffle_argument(t))
            return true;
    }
    return false;
}

std::string Splitter::copy_in(const std::vector<int>& visible, std::size_t b, std::size_t e) const {
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
std::string Splitter::copy_out(const std::vector<int>& vars, std::size_t b, std::size_t e, bool declared_here) const {
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

std::string Splitter::statement_text(const Statement& st) const {
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
void Splitter::emit_region(const std::vector<const Statement*>& region, std::vector<int>& visible, std::string& out) {
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

void Splitter::emit_list(const std::vector<Statement>& list, std::vector<int> visible, int depth, std::string& out) {
    std::vector<const Statement*> region;
    auto flush = [&] {
        if (!region.empty()) emit_region(region, visible, out);
        region.clear();
    };
    for (const Statement& st : list) {
        switch (st.kind) {
            case Statement::Kind::plain: region.push_back(&st); break;
            case Statement::Kind::shuffle:  // every thread publishes its value, then a region starts
                flush();
                emit_publish(st, visible, out);
                region.push_back(&st);
                break;
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
            case Statement::Kind::warp_sync:  // the warp's lanes all finish the region before
                flush();
                break;
            case Statement::Kind::branch:
                flush();
                emit_branch(st, visible, depth + 1, out);
                break;
        }
    }
    flush();
}

void Splitter::emit_loop(const Statement& loop, const std::vector<int>& outer, int depth, std::string& out) {
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

}  // namespace cuemu_rewrite::internal::split_detail
