// shared_reach.h - which names of a source may lead a kernel to shared memory,
// so that a kernel that cannot reach it may run its uninstrumented twin even
// under the race check (cuemu/launch.h, "a kernel's uninstrumented twin").
//
// Not an analysis of the program: a list of names, by spelling. A name is on
// it when it declares a __shared__ variable at namespace scope, names a
// function whose body uses __shared__ or another name on the list, or names a
// macro whose replacement does. A kernel whose own text mentions neither
// __shared__ nor any name on the list (the list of every file of its tree)
// touches no shared memory itself: what it calls is instrumented anyway.
// Anything the list cannot say (a __shared__ in a function without a name, in
// a class body) makes it unsure, and then no kernel counts as free of it.
#ifndef CUEMU_REWRITE_SHARED_REACH_H
#define CUEMU_REWRITE_SHARED_REACH_H

#include <cstddef>
#include <set>
#include <string>

#include "rewrite.h"
#include "scopes.h"
#include "source.h"

namespace cuemu_rewrite::internal {

using SharedReach = ::cuemu_rewrite::SharedNames;

// The list of one source (its #define lines included).
SharedReach find_shared_reach(const Source& src, const Scopes& scopes);

// Whether tokens [begin, end] mention __shared__ or a name on the list.
bool mentions_shared(const Source& src, std::size_t begin, std::size_t end, const SharedReach& reach);

}  // namespace cuemu_rewrite::internal

#endif
