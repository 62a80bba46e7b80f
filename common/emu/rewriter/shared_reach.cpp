// shared_reach.cpp - the names that may lead a kernel to shared memory
// (shared_reach.h says what the list means and what it is for), and by the
// same walk the names that may lead it to wait for other threads
// (split_regions.h).
#include "shared_reach.h"

#include <functional>
#include <vector>

#include "split_regions.h"

namespace cuemu_rewrite::internal {
namespace {

using Seed = std::function<bool(const Source&, std::size_t)>;

bool is_shared_keyword(const Source& src, std::size_t t) { return src.is_ident(t, "__shared__"); }

bool mentions(const Source& src, std::size_t t, const SharedReach& reach, const Seed& seed) {
    return src.is_ident(t) && (seed(src, t) || reach.names.count(src.spelling(t)) != 0);
}

struct Macro {
    std::size_t name, end;  // the name, and the end of its #define line
};

std::vector<Macro> macros_of(const Source& src) {
    std::vector<Macro> found;
    for (std::size_t i = 0; i < src.size(); ++i) {
        if (!src[i].in_directive || !src.is_punct(i, '#')) continue;
        const std::size_t word = src.next_code(i + 1);
        if (!src.is_ident(word, "define")) continue;
        const std::size_t name = src.next_code(word + 1);
        if (!src.is_ident(name)) continue;
        std::size_t end = name + 1;
        while (end < src.size() && src[end].in_directive && !src.is_punct(end, '#')) ++end;
        found.push_back(Macro{name, end});
        i = end - 1;
    }
    return found;
}

// The names a namespace-scope declaration starting at its __shared__ token
// declares: each identifier just before a '[', '=', ',', ';' or '{' outside
// parentheses (more than it declares, at worst: the list may only grow).
void add_declared_names(const Source& src, std::size_t shared, SharedReach& reach, bool& grew) {
    int depth = 0;
    for (std::size_t t = src.next_code(shared + 1); t < src.size(); t = src.next_code(t + 1)) {
        if (src.is_punct(t, '(')) ++depth;
        if (src.is_punct(t, ')')) --depth;
        const bool ends_name = src.is_punct(t, '[') || src.is_punct(t, '=') || src.is_punct(t, ',') ||
                               src.is_punct(t, ';') || src.is_punct(t, '{');
        if (ends_name && depth == 0) {
            const std::size_t name = src.prev_code(t);
            if (src.is_ident(name) && reach.names.insert(src.spelling(name)).second) grew = true;
        }
        if (depth == 0 && (src.is_punct(t, ';') || src.is_punct(t, '{'))) return;
    }
}

// The names that reach a token `seed` accepts: macros and named functions
// whose text mentions one, until the list stops growing. With
// `shared_declarations`, a namespace-scope __shared__ variable's names too.
SharedReach find_reach(const Source& src, const Scopes& scopes, const Seed& seed, bool shared_declarations) {
    SharedReach reach;
    const std::vector<Macro> macros = macros_of(src);
    for (bool grew = true; grew;) {
        grew = false;
        auto add = [&](const std::string& name) {
            if (reach.names.insert(name).second) grew = true;
        };
        for (const Macro& m : macros)
            for (std::size_t t = m.name + 1; t < m.end; ++t)
                if (mentions(src, t, reach, seed)) {
                    add(src.spelling(m.name));
                    break;
                }
        for (std::size_t t = 0; t < src.size(); ++t) {
            if (src[t].in_directive || !mentions(src, t, reach, seed)) continue;
            bool in_function = false;
            for (std::size_t b = scopes.enclosing(t); b != npos; b = scopes.parent(b)) {
                const BraceInfo& info = scopes.info(b);
                // A __shared__ member: not CUDA, and nothing this list can follow.
                // (A data member named like a barrier seed, `sync`, is harmless;
                // a member function's body counts below, by the function's name.)
                if (shared_declarations && info.kind == BraceKind::class_body && !in_function && seed(src, t))
                    reach.unsure = true;
                if (info.kind != BraceKind::function_body) continue;
                in_function = true;
                const std::size_t name =
                    info.params_open == npos ? npos : src.prev_code(info.params_open);
                if (name != npos && src.is_ident(name)) add(src.spelling(name));
                else reach.unsure = true;  // an operator, or a head the scopes could not read
            }
            if (shared_declarations && !in_function && is_shared_keyword(src, t))
                add_declared_names(src, t, reach, grew);
        }
        // For the barrier names, a function whose parameters mention one
        // (`void last_warp(volatile int* p)`) counts too.
        if (shared_declarations) continue;
        for (std::size_t b = 0; b < src.size(); ++b) {
            if (!src.is_punct(b, '{') || src[b].in_directive) continue;
            const BraceInfo& info = scopes.info(b);
            if (info.kind != BraceKind::function_body || info.params_open == npos || info.params_close == npos)
                continue;
            const std::size_t name = src.prev_code(info.params_open);
            if (name == npos || !src.is_ident(name) || reach.names.count(src.spelling(name))) continue;
            for (std::size_t t = info.params_open; t < info.params_close; ++t)
                if (mentions(src, t, reach, seed)) {
                    add(src.spelling(name));
                    break;
                }
        }
    }
    return reach;
}

}  // namespace

SharedReach find_shared_reach(const Source& src, const Scopes& scopes) {
    return find_reach(src, scopes, is_shared_keyword, true);
}

bool mentions_shared(const Source& src, std::size_t begin, std::size_t end, const SharedReach& reach) {
    for (std::size_t t = begin; t <= end && t < src.size(); ++t)
        if (mentions(src, t, reach, is_shared_keyword)) return true;
    return false;
}

// The seeds: what waits for other threads of the block or warp (or may: a
// name of a library that has such functions). By spelling, so a variable
// named `sync` counts too: the list may only be too long.
bool is_barrier_seed(const std::string& name) {
    static const char* const words[] = {
        "sync", "arrive", "wait", "arrive_and_wait", "arrive_and_drop", "barrier", "pipeline",
        "memcpy_async", "cooperative_groups", "cg", "this_thread_block", "this_grid", "this_cluster",
        "tiled_partition", "coalesced_threads", "wmma", "nvcuda", "cub", "thrust", "cuda", "volatile",
        "asm", "__asm", "__asm__", "load_matrix_sync", "store_matrix_sync", "mma_sync"};
    static const char* const prefixes[] = {"__sync", "__shfl", "__ballot", "__any", "__all", "__uni",
                                           "__match", "__reduce_", "__activemask", "__nanosleep",
                                           "__pipeline", "__cluster", "__barrier"};
    for (const char* w : words)
        if (name == w) return true;
    for (const char* p : prefixes)
        if (name.rfind(p, 0) == 0) return true;
    return false;
}

SharedNames find_barrier_reach(const Source& src, const Scopes& scopes) {
    auto seed = [](const Source& s, std::size_t t) { return s.is_ident(t) && is_barrier_seed(s.spelling(t)); };
    return find_reach(src, scopes, seed, false);
}

}  // namespace cuemu_rewrite::internal
