// static_shared.h - the __shared__ variables a kernel's body declares itself,
// so that the rewritten kernel can tell the runtime how many static shared
// bytes it needs (CUEMU_STATIC_SHARED, cuemu/kernel_registry.h): a GPU adds
// them to a launch's dynamic shared memory before comparing with the limit.
//
// The rewriter does not size anything: it only finds the names, and the C++
// compiler computes sizeof(name) where the name is visible. Whatever is not
// certain is left out, because a count too high would refuse a launch a GPU
// accepts, while one too low only misses a refusal:
//   - extern __shared__ (dynamic), and declarations inside a lambda or a
//     class in the body, or behind if/else/case without braces;
//   - a type written with '::' or '<' (cuda::barrier, a CUB TempStorage):
//     the emulator's own library types need not have the GPU's size;
//   - a variable the body never mentions after declaring it (nvcc drops it);
//   - a declarator the scan cannot read (a parenthesized one: (*p)[4]).
#ifndef CUEMU_REWRITE_STATIC_SHARED_H
#define CUEMU_REWRITE_STATIC_SHARED_H

#include <cstddef>
#include <string>
#include <vector>

#include "scopes.h"
#include "source.h"

namespace cuemu_rewrite::internal {

struct StaticSharedDeclaration {
    std::size_t semicolon;           // the ';' that ends it: the probe goes right after
    std::vector<std::string> names;  // the variables it declares that count
};

// The countable declarations in the kernel body that opens at `open` and
// closes at `close`.
std::vector<StaticSharedDeclaration> find_static_shared(const Source& src, const Scopes& scopes,
                                                        std::size_t open, std::size_t close);

}  // namespace cuemu_rewrite::internal

#endif
