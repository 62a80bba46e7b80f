// call_chain.cpp - unwinding the running stack when a report is printed, and
// choosing the learner's line from it (call_chain.h). The race check's hooks
// and the kernels pay nothing for it: the unwind tables GCC writes for every
// function are read only here.
#include "call_chain.h"

#include <unwind.h>

#include <string>

#include "diagnostics.h"

namespace cuemu::detail {
namespace {

struct unwind_walk {
    const void* from = nullptr;
    bool found = false;
    call_chain chain;
    int frames = 0;
};

_Unwind_Reason_Code note_frame(_Unwind_Context* context, void* arg) {
    auto& walk = *static_cast<unwind_walk*>(arg);
    // A stack deeper than this without `from` is not the one we were asked
    // about; the bound also ends a walk that the unwind tables cannot.
    if (++walk.frames > 256) return _URC_END_OF_STACK;
    const void* ip = reinterpret_cast<const void*>(_Unwind_GetIP(context));
    if (!ip) return _URC_END_OF_STACK;
    if (!walk.found) {
        walk.found = ip == walk.from;
        return _URC_NO_REASON;
    }
    walk.chain.pc[walk.chain.size++] = ip;
    return walk.chain.size == call_chain::capacity ? _URC_END_OF_STACK : _URC_NO_REASON;
}

// "file" of "file:line in function(...)".
std::string file_of(const std::string& text) {
    std::string where = text.substr(0, text.find(" in "));
    return where.substr(0, where.rfind(':'));
}

}  // namespace

call_chain callers_of(const void* pc) {
    unwind_walk walk;
    walk.from = pc;
    _Unwind_Backtrace(note_frame, &walk);
    return walk.found ? walk.chain : call_chain{};
}

learner_position learner_position_of(const void* pc, const call_chain* callers) {
    learner_position p;
    if (!pc) return p;
    // A return address: the call itself is the byte before it.
    p.text = source_line_of(static_cast<const char*>(pc) - 1);
    if (p.text.empty() || !is_library_file(file_of(p.text)) || !callers) return p;
    for (int i = 0; i < callers->size; ++i) {
        const std::string caller = source_line_of(static_cast<const char*>(callers->pc[i]) - 1);
        if (caller.empty() || is_library_file(file_of(caller))) continue;
        const std::size_t in = p.text.find(" in ");
        p.context = in == std::string::npos
                        ? p.text
                        : without_parameters(p.text.substr(in + 4)) + " at " + p.text.substr(0, in);
        p.text = caller;
        return p;
    }
    return p;
}

}  // namespace cuemu::detail
