// scrambled_sobol.h - cuRAND's tables for the scrambled Sobol generators
// (scrambled_sobol.cpp): the scrambled direction vectors
// (CURAND_SCRAMBLED_DIRECTION_VECTORS_32/64_JOEKUO6) and the scramble
// constants (curandGetScrambleConstants32/64), read from a CUDA toolkit's
// libcurand when the emulator was built.
#ifndef CUEMU_CURAND_SCRAMBLED_SOBOL_H
#define CUEMU_CURAND_SCRAMBLED_SOBOL_H

#include "curand.h"

namespace cuemu::curand_host {

// Whether the build found a toolkit's libcurand and embedded its tables.
bool scrambled_sobol_available();

// 20000 dimensions each; only when scrambled_sobol_available().
const curandDirectionVectors32_t* scrambled_directions32();
const curandDirectionVectors64_t* scrambled_directions64();
const unsigned int* scramble_constants32();
const unsigned long long* scramble_constants64();

// The line saying the build had no toolkit's libcurand, for `call` asking for `what`.
void report_no_scrambled_tables(const char* call, const char* what, const char* returned);

}  // namespace cuemu::curand_host

#endif
