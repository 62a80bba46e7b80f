// dump_scrambled_sobol.cpp - a build-time tool, not part of the emulator:
// asks a CUDA toolkit's libcurand for the scrambled Sobol generators' tables
// and writes them, as raw bytes, to the file named on its command line (in
// the build directory; common/emu/CMakeLists.txt runs it and
// scrambled_sobol.cpp embeds the file). The tables are cuRAND's own numbers,
// so they are read from the library, never stored in the sources.
//
// libcurand's host functions run on the CPU: no GPU is needed here. The four
// calls are declared by hand (the emulator's <curand.h> must not meet the
// toolkit's); the set numbers are the toolkit's curandDirectionVectorSet_t.
//
// File layout, each table of 20000 dimensions in turn:
//   64-bit scrambled direction vectors (64 a dimension), 64-bit scramble
//   constants, 32-bit scrambled direction vectors (32 a dimension), 32-bit
//   scramble constants.
#include <cstdio>

extern "C" {
int curandGetDirectionVectors32(unsigned int (**vectors)[32], int set);
int curandGetDirectionVectors64(unsigned long long (**vectors)[64], int set);
int curandGetScrambleConstants32(unsigned int** constants);
int curandGetScrambleConstants64(unsigned long long** constants);
}

namespace {
constexpr int scrambled_32 = 102, scrambled_64 = 104;  // CURAND_SCRAMBLED_DIRECTION_VECTORS_*_JOEKUO6
constexpr unsigned long dimensions = 20000;
}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUTPUT_FILE\n", argv[0]);
        return 2;
    }
    unsigned int(*v32)[32] = nullptr;
    unsigned long long(*v64)[64] = nullptr;
    unsigned int* c32 = nullptr;
    unsigned long long* c64 = nullptr;
    const int statuses[] = {curandGetDirectionVectors64(&v64, scrambled_64),
                            curandGetScrambleConstants64(&c64),
                            curandGetDirectionVectors32(&v32, scrambled_32),
                            curandGetScrambleConstants32(&c32)};
    for (int status : statuses)
        if (status != 0 || !v64 || !c64 || !v32 || !c32) {
            std::fprintf(stderr, "%s: libcurand did not give its scrambled Sobol tables (status %d)\n",
                         argv[0], status);
            return 1;
        }
    std::FILE* out = std::fopen(argv[1], "wb");
    if (!out) {
        std::perror(argv[1]);
        return 1;
    }
    const bool written = std::fwrite(v64, sizeof v64[0], dimensions, out) == dimensions &&
                         std::fwrite(c64, sizeof c64[0], dimensions, out) == dimensions &&
                         std::fwrite(v32, sizeof v32[0], dimensions, out) == dimensions &&
                         std::fwrite(c32, sizeof c32[0], dimensions, out) == dimensions;
    if (std::fclose(out) != 0 || !written) {
        std::fprintf(stderr, "%s: could not write %s\n", argv[0], argv[1]);
        std::remove(argv[1]);
        return 1;
    }
    return 0;
}
