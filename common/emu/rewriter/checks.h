// checks.h - what nvcc refuses in device code, refused here too.
//
// The emulator compiles __host__ and __device__ as nothing, so without these
// checks some mistakes would build and run here and fail only on a machine
// with nvcc: a kernel calling a host function (exit() included), host code
// calling a __device__ function, a __global__ function called without
// <<<...>>>, throw/try in device code. The messages are nvcc's words.
// Whatever the checks cannot be sure of they leave alone (refusing good code
// is worse than missing a bug nvcc will still catch): see device_code.cpp.
#ifndef CUEMU_REWRITE_CHECKS_H
#define CUEMU_REWRITE_CHECKS_H

#include <vector>

#include "conditionals.h"
#include "scopes.h"
#include "source.h"

namespace cuemu_rewrite::internal {

// Only tokens the compiler certainly sees (Activity::active) are checked.
std::vector<Diagnostic> check_device_code(const Source& src, const std::vector<Activity>& activity,
                                          const Scopes& scopes);

}  // namespace cuemu_rewrite::internal

#endif
