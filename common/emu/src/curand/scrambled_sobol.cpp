// scrambled_sobol.cpp - the tables of cuRAND's scrambled Sobol generators:
// their direction vectors (CURAND_SCRAMBLED_DIRECTION_VECTORS_32/64_JOEKUO6)
// and scramble constants (curandGetScrambleConstants32/64), 20000 dimensions.
//
// They are cuRAND's own numbers (its scrambling is random, not derivable
// from Joe and Kuo's table), so they are read, not copied: where CMake finds
// a CUDA toolkit's libcurand, it builds dump_scrambled_sobol.cpp, which asks
// libcurand for them (no GPU needed) and writes them to a file in the build
// directory, and this file embeds that file (CUEMU_SCRAMBLED_SOBOL_TABLE
// names it). Without a toolkit the scrambled generators are refused, each
// call with a line saying why.
#include "scrambled_sobol.h"

#include <cstdio>
#include <cstdlib>

namespace {

constexpr unsigned long dimensions = 20000;

#ifdef CUEMU_SCRAMBLED_SOBOL_TABLE
// The file's bytes, in a writable section as libcurand's tables are.
asm(".pushsection .data.cuemu_scrambled_sobol,\"aw\"\n"
    ".balign 64\n"
    ".globl cuemu_scrambled_sobol_table\n"
    ".hidden cuemu_scrambled_sobol_table\n"
    "cuemu_scrambled_sobol_table:\n"
    ".incbin \"" CUEMU_SCRAMBLED_SOBOL_TABLE "\"\n"
    ".globl cuemu_scrambled_sobol_table_end\n"
    ".hidden cuemu_scrambled_sobol_table_end\n"
    "cuemu_scrambled_sobol_table_end:\n"
    ".popsection\n");
extern "C" unsigned char cuemu_scrambled_sobol_table[], cuemu_scrambled_sobol_table_end[];

// The layout dump_scrambled_sobol.cpp writes.
struct tables {
    curandDirectionVectors64_t vectors64[dimensions];
    unsigned long long constants64[dimensions];
    curandDirectionVectors32_t vectors32[dimensions];
    unsigned int constants32[dimensions];
};

tables* embedded() {
    static tables* t = [] {
        const auto bytes = static_cast<std::size_t>(cuemu_scrambled_sobol_table_end -
                                                     cuemu_scrambled_sobol_table);
        if (bytes != sizeof(tables)) {
            std::fprintf(stderr,
                         "cuemu: cuRAND: the scrambled Sobol tables embedded at build time have %zu "
                         "bytes, not %zu: rebuild the emulator\n",
                         bytes, sizeof(tables));
            std::abort();
        }
        return reinterpret_cast<tables*>(cuemu_scrambled_sobol_table);
    }();
    return t;
}
#endif

}  // namespace

namespace cuemu::curand_host {

#ifdef CUEMU_SCRAMBLED_SOBOL_TABLE
bool scrambled_sobol_available() { return true; }
const curandDirectionVectors32_t* scrambled_directions32() { return embedded()->vectors32; }
const curandDirectionVectors64_t* scrambled_directions64() { return embedded()->vectors64; }
const unsigned int* scramble_constants32() { return embedded()->constants32; }
const unsigned long long* scramble_constants64() { return embedded()->constants64; }
#else
bool scrambled_sobol_available() { return false; }
const curandDirectionVectors32_t* scrambled_directions32() { return nullptr; }
const curandDirectionVectors64_t* scrambled_directions64() { return nullptr; }
const unsigned int* scramble_constants32() { return nullptr; }
const unsigned long long* scramble_constants64() { return nullptr; }
#endif

void report_no_scrambled_tables(const char* call, const char* what, const char* returned) {
    std::fprintf(stderr,
                 "cuemu: %s: the emulator has no %s: it reads cuRAND's scrambled Sobol tables "
                 "from a CUDA toolkit's libcurand when it is built, and none was found then "
                 "(install a CUDA toolkit and build again); the call returns %s\n",
                 call, what, returned);
}

}  // namespace cuemu::curand_host

using namespace cuemu::curand_host;

// As libcurand's: the table itself, for all 20000 dimensions.
curandStatus_t curandGetScrambleConstants32(unsigned int** constants) {
    if (!scrambled_sobol_available()) {
        report_no_scrambled_tables("curandGetScrambleConstants32", "scramble constants",
                                   "CURAND_STATUS_OUT_OF_RANGE");
        return CURAND_STATUS_OUT_OF_RANGE;
    }
    *constants = const_cast<unsigned int*>(scramble_constants32());
    return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGetScrambleConstants64(unsigned long long** constants) {
    if (!scrambled_sobol_available()) {
        report_no_scrambled_tables("curandGetScrambleConstants64", "scramble constants",
                                   "CURAND_STATUS_OUT_OF_RANGE");
        return CURAND_STATUS_OUT_OF_RANGE;
    }
    *constants = const_cast<unsigned long long*>(scramble_constants64());
    return CURAND_STATUS_SUCCESS;
}
