// test_rewriter_static_shared.cpp - unit tests of the CUEMU_STATIC_SHARED lines
// cuemu-rewrite adds after a kernel's own __shared__ declarations
// (static_shared.h): where they go, what they sum, and every declaration left
// uncounted because a count too high would refuse a launch a GPU accepts.
#include <doctest/doctest.h>

#include <string>

#include "rewriter_test_support.h"

using namespace rewriter_test;

namespace {

bool counts_nothing(const std::string& source) {
    return !contains(body_with_twins(source), "CUEMU_STATIC_SHARED");
}

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_SUITE("cuemu-rewrite") {

TEST_CASE("a kernel's __shared__ declaration is followed, on its line, by its sizeof") {
    const std::string source =
        "__global__ void k(float* out) {\n"
        "    __shared__ float tile[16][17];  // padded\n"
        "    out[0] = tile[0][0];\n"
        "}\n";
    const std::string out = body(source);
    CHECK(contains(out, "\n    __shared__ float tile[16][17]; CUEMU_STATIC_SHARED(k, 0, sizeof(tile))  // padded\n"));
    CHECK(count_lines(out) == count_lines(source));
    CHECK(gxx_syntax_errors(kHeader + out) == "");
}

TEST_CASE("declarations are numbered within the kernel; one with several names sums them") {
    const std::string out = body(
        "__global__ void k(int* out) {\n"
        "    typedef float row[8];\n"
        "    static __shared__ row rows[4];\n"
        "    __shared__ int a[8], *p, b[24];\n"
        "    if (out) {\n"
        "        __shared__ union { float f[4]; int i[4]; } either;\n"
        "        out[0] = either.i[0];\n"
        "    }\n"
        "    out[1] = rows[0][0] + a[0] + b[0] + *p;\n"
        "}\n"
        "__global__ void other(int* out) { __shared__ int w[4]; out[0] = w[0]; }\n");
    CHECK(contains(out, "__shared__ row rows[4]; CUEMU_STATIC_SHARED(k, 0, sizeof(rows))\n"));
    CHECK(contains(out, "b[24]; CUEMU_STATIC_SHARED(k, 1, sizeof(a) + sizeof(p) + sizeof(b))\n"));
    CHECK(contains(out, "} either; CUEMU_STATIC_SHARED(k, 2, sizeof(either))\n"));
    CHECK(contains(out, "int w[4]; CUEMU_STATIC_SHARED(other, 0, sizeof(w)) out[0]"));
}

TEST_CASE("the twin's copy repeats the lines under the same numbers") {
    const std::string out = body_with_twins(
        "__global__ void k(int* out) {\n"
        "    __shared__ int w[4];\n"
        "    out[0] = w[0];\n"
        "}\n");
    CHECK(contains(out, "__cuemu_fast_k"));
    // The kernel, its twin and its aligned twin (its accesses are out[0] and w[0]).
    CHECK(occurrences(out, "CUEMU_STATIC_SHARED(k, 0, sizeof(w))") == 3);
    CHECK(occurrences(out, "CUEMU_STATIC_SHARED(") == 3);
}

TEST_CASE("declarations left uncounted") {
    const char* const sources[] = {
        // dynamic shared memory is the launch's
        "__global__ void k(int* o) { extern __shared__ int d[]; o[0] = d[0]; }\n",
        // a template's sizes may depend on its parameters, and its name is no address
        "template <int N>\n__global__ void k(int* o) { __shared__ int w[N]; o[0] = w[0]; }\n",
        // a __device__ function's: the kernel that calls it is not known here
        "__device__ int f() { __shared__ int w[4]; return w[0]; }\n",
        // in a lambda or a class inside the kernel: maybe never called
        "__global__ void k(int* o) { auto f = [] { __shared__ int w[4]; return w[0]; }; o[0] = f(); }\n",
        "__global__ void k(int* o) { struct s { static int g() { __shared__ int w[4]; return w[0]; } }; o[0] = 0; }\n",
        // the emulator's own library types need not have the GPU's size
        "__global__ void k(int* o) { __shared__ cuda::barrier<cuda::thread_scope_block> b; o[0] = sizeof b; }\n",
        "__global__ void k(int* o) { __shared__ Storage<int> s; o[0] = s.x; }\n",
        // never mentioned again: nvcc drops it
        "__global__ void k(int* o) { __shared__ int unused[4]; o[0] = 0; }\n",
        // behind an if without braces, a probe after its ';' would not see it
        "__global__ void k(int* o) { if (o) __shared__ int w[4]; o[0] = w[0]; }\n",
        // a parenthesized declarator the scan cannot read
        "__global__ void k(int* o) { __shared__ int (*rows)[4]; o[0] = rows[0][0]; }\n",
        // in a macro's definition
        "#define DECLARE __shared__ int w[4];\n__global__ void k(int* o) { DECLARE o[0] = w[0]; }\n",
    };
    for (const std::string source : sources) {
        CAPTURE(source);
        CHECK(counts_nothing(source));
    }
}

TEST_CASE("alignment words and #if around a declaration do not hide it") {
    const std::string out = body(
        "__global__ void k(float* o) {\n"
        "#if TILE > 8\n"
        "    __shared__ __align__(16) float a[32];\n"
        "#else\n"
        "    __shared__ alignas(16) float a[8];\n"
        "#endif\n"
        "    o[0] = a[0];\n"
        "}\n");
    CHECK(contains(out, "float a[32]; CUEMU_STATIC_SHARED(k, 0, sizeof(a))\n"));
    CHECK(contains(out, "float a[8]; CUEMU_STATIC_SHARED(k, 1, sizeof(a))\n"));
}

}  // TEST_SUITE
