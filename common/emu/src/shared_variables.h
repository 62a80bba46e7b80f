// shared_variables.h - the calling worker's __shared__ variables: where they
// lie and what they are called (shared_variables.cpp).
#ifndef CUEMU_SHARED_VARIABLES_H
#define CUEMU_SHARED_VARIABLES_H

#include <cstdint>
#include <string>
#include <vector>

namespace cuemu::detail {

struct shared_layout {
    std::uintptr_t begin = 0, end = 0;  // covers every __shared__ variable
    struct range {
        std::uintptr_t begin, end;
    };
    std::vector<range> variables;  // each variable's bytes (the gaps are not shared memory)
};
// The calling thread's copies of the program's __shared__ variables; false
// when the program has none (or no symbol table).
bool shared_variable_layout(shared_layout* out);
// The demangled name of the __shared__ variable holding address (in the
// calling thread's copies), "kernel(float*)::tile"; "" when none does.
std::string shared_variable_name(std::uintptr_t address, std::uintptr_t* variable_start);

}  // namespace cuemu::detail

#endif
