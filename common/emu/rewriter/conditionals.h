// conditionals.h - which parts of a file the compiler will see.
//
// The rewriter runs before the preprocessor, so it meets every branch of every
// #if. A branch the compiler certainly skips (#if 0, #ifdef of a macro
// undefined on the command line, the #else of a taken branch) must not be
// parsed at all: its launches are ignored, as the compiler ignores them. A
// branch the rewriter cannot decide (a macro defined in some system header)
// is rewritten anyway, which is right whichever way the compiler goes, and
// any error found in it is left to the compiler (see Activity::unknown).
//
// Conditions are evaluated the preprocessor's way with what the rewriter
// knows: -D/-U from the command line, the #define/#undef lines of this file
// in order, and __CUDACC__. Anything else is "unknown", never guessed.
// __CUDA_ARCH__ has two values at once (undefined for host code, the emulated
// device's for device code); arch.cpp decides per place which one applies.
#ifndef CUEMU_REWRITE_CONDITIONALS_H
#define CUEMU_REWRITE_CONDITIONALS_H

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "source.h"

namespace cuemu_rewrite::internal {

// The value the emulated device reports: compute capability 7.5 in
// common/emu/src/device.cpp. tests/emu/programs/arch_guards.cu checks that
// the two agree.
constexpr long long kEmulatedArch = 750;

enum class Activity { active, unknown, inactive };

// Macros as far as the rewriter knows them. A name missing from `known` is
// unknown; a known name maps to its body, or to nullopt when it is undefined.
struct MacroTable {
    std::map<std::string, std::optional<std::string>> known;
};

// Which value __CUDA_ARCH__ has while a condition is evaluated.
enum class ArchSide { host, device, unknown };

// The value of a #if expression: nullopt when it depends on something unknown.
std::optional<long long> evaluate_condition(const std::string& expression, const MacroTable& macros,
                                            ArchSide side);

// One #if/#ifdef/#ifndef/#elif/#else line of a group.
struct Branch {
    std::string directive;       // "if", "ifdef", "ifndef", "elif", "else", "elifdef", "elifndef"
    std::size_t hash;            // the '#'
    std::size_t name;            // the directive's name token
    std::size_t line_end;        // the newline that ends the directive (or size())
    std::string condition;       // the text after the name, continuations joined
    bool mentions_arch = false;  // the condition names __CUDA_ARCH__
    // The condition evaluated for host and device code (for #else: 1).
    std::optional<long long> host_value, device_value;
};

// #if ... #endif with everything between.
struct Group {
    std::vector<Branch> branches;
    std::size_t endif_hash = 0, endif_line_end = 0;
    Activity outer = Activity::active;  // the activity around the group
    bool mentions_arch() const {
        for (const Branch& b : branches) {
            if (b.mentions_arch) return true;
        }
        return false;
    }
    // The first token of branch k's body, and one past its last token.
    std::size_t body_begin(std::size_t k) const { return branches[k].line_end; }
    std::size_t body_end(std::size_t k) const {
        return k + 1 < branches.size() ? branches[k + 1].hash : endif_hash;
    }
};

struct ConditionalAnalysis {
    std::vector<Activity> activity;  // per token; directive lines take the activity around them
    std::vector<Group> groups;       // in source order, nested ones after their parents
    // #define lines whose body names __CUDA_ARCH__: the '#' of each.
    std::vector<std::size_t> arch_in_macro;
};

// Analyses `src` (tokens of inactive branches are not yet marked: see
// Source::mark_inactive). `macros` holds the command line's -D/-U.
ConditionalAnalysis analyse_conditionals(const Source& src, MacroTable macros);

}  // namespace cuemu_rewrite::internal

#endif
