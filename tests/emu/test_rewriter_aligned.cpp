// test_rewriter_aligned.cpp - which kernels get the twin without the
// misaligned-access check (common/emu/rewriter/aligned_twin.h): those whose
// every access of their own text is a pointer parameter indexed, and no other.
// Each rewrite must also compile (the probe and the twin, against the stub).
#include <doctest/doctest.h>

#include <string>

#include "rewriter_test_support.h"

using namespace rewriter_test;

namespace {

const std::string kAlignedMark = "::cuemu::aligned_tag";

// Whether the kernel `k` in `source` got the aligned twin; the rewrite must
// compile either way.
bool has_aligned_twin(const std::string& source, bool compiles = true) {
    const std::string out = body_with_twins(source);
    if (compiles) CHECK(gxx_syntax_errors(kHeader + out) == "");
    return out.find("__cuemu_fast_k(" + kAlignedMark) != std::string::npos;
}

}  // namespace

TEST_CASE("aligned twin: kernels whose accesses are their pointer parameters indexed get one") {
    CHECK(has_aligned_twin("__global__ void k(const float* a, const float* b, float* c, int n, int i) {\n"
                           "    if (i < n) c[i] = a[i] + b[i];\n"
                           "}\n"));
    // A scalar times an element, qualifiers, compound assignment, a shared array.
    CHECK(has_aligned_twin("__global__ void k(float alpha, const float* __restrict__ x, float* __restrict__ y,\n"
                           "                  int n, int i) {\n"
                           "    __shared__ float partial[4];\n"
                           "    partial[i & 3] = alpha * x[i];\n"
                           "    y[i] *= 2.0f;\n"
                           "    y[i] += partial[i & 3] * x[i] + (n > 0 && i < n ? 1.0f : 0.0f);\n"
                           "}\n"));
    // Not an element's address, nor a pointer passed to a call (aligned_twin.h says why).
    CHECK_FALSE(has_aligned_twin("__device__ float atomicAdd(float* a, float v) { float old = a[0]; a[0] = old + v; "
                                 "return old; }\n"
                                 "__global__ void k(float* sum, const float* x, int i) { atomicAdd(&sum[0], x[i]); }\n"));
    CHECK_FALSE(has_aligned_twin("__device__ float first(const float* p) { return p[0]; }\n"
                                 "__global__ void k(float* sum, const float* x) { sum[0] = first(x); }\n"));
    // An element's value may go to a call.
    CHECK(has_aligned_twin("__device__ float twice(float v) { return 2 * v; }\n"
                           "__global__ void k(float* y, const float* x, int i) { y[i] = twice(x[i]); }\n"));
    // A pointer to a struct: its members are as aligned as the element.
    CHECK(has_aligned_twin("struct particle { float x, y; };\n"
                           "__global__ void k(particle* p, int n, int i) {\n"
                           "    if (i < n) p[i].x = p[i].x + p[i].y;\n"
                           "}\n"));
}

TEST_CASE("aligned twin: no twin where an access is anything else") {
    const char* const bodies[] = {
        "*p = 1;",                                // a dereference
        "p[1] = *(p + 1);",                       // pointer arithmetic
        "(p + 1)[0] = 2;",                        // an index after a parenthesis
        "float* q = p + 1; q[0] = 1;",            // a local pointer
        "float* q = p; q[0] = 1;",                // the parameter copied
        "reinterpret_cast<float4*>(p)[0].x = 1;", // a cast
        "((float4*)p)[0].x = 1;",                 // a C cast
        "float v = (float) *p; p[1] = v;",        // a cast before a dereference
        "if (p) p[0] = 1;",                       // the pointer as a condition
        "g[i] = p[0];",                 // an array the kernel does not declare
        "[=] { p[0] = 1; }();",                   // a lambda
    };
    for (const char* body : bodies) {
        INFO(body);
        CHECK_FALSE(has_aligned_twin(std::string("__device__ float g[32];\nstruct float4 { float x, y, z, w; };\n"
                                                 "__global__ void k(float* p, unsigned i) {\n    ") +
                                     body + "\n}\n"));
    }
    // A pointer to pointers, a reference, an array parameter, a member's array.
    CHECK_FALSE(has_aligned_twin("__global__ void k(float** p) { p[0][0] = 1; }\n"));
    CHECK_FALSE(has_aligned_twin("__global__ void k(float& r, float* p) { p[0] = r; }\n"));
    CHECK_FALSE(has_aligned_twin("__global__ void k(float p[]) { p[0] = 1; }\n"));
    CHECK_FALSE(has_aligned_twin("struct view { float* data; };\n"
                                 "__global__ void k(view v) { v.data[0] = 1; }\n"));
    // A local array (the twin is inlined into the launch's loop: a stack
    // overflow would be reported there), a class defined in the kernel.
    CHECK_FALSE(has_aligned_twin("__global__ void k(float* p, int i) { float t[4] = {}; p[i] = t[i & 3]; }\n"));
    CHECK_FALSE(has_aligned_twin("__global__ void k(float* p, int i) { struct pair { float a, b; }; pair q{p[i], 1};"
                                 " p[i] = q.a + q.b; }\n"));
    CHECK_FALSE(has_aligned_twin("struct node { float x; node* next; };\n"
                                 "__global__ void k(node* n) { n[0].next->x = 1; }\n"));
}

TEST_CASE("aligned twin: macros") {
    // A macro of the file that forms an address: no twin; one that only computes: a twin.
    CHECK_FALSE(has_aligned_twin("#define AT(p, i) (*((p) + (i)))\n"
                                 "__global__ void k(float* p) { float v = AT(p, 1); p[0] = v; }\n"));
    CHECK_FALSE(has_aligned_twin("#define SECOND (*(p + 1))\n"
                                 "__global__ void k(float* p) { p[0] = SECOND; }\n"));
    CHECK(has_aligned_twin("#define IDX(row, col, width) ((row) * (width) + (col))\n"
                           "#define N 64\n"
                           "__global__ void k(float* p, int x, int y) { p[IDX(y, x, N)] = 1; }\n"));
    // A function-like macro in capitals from elsewhere: its text is unknown here.
    CHECK_FALSE(has_aligned_twin("__global__ void k(float* p) { p[0] = LOAD_SECOND(p[1]); }\n",
                                 false));
}

TEST_CASE("aligned twin: an empty asm after a statement that indexes keeps its accesses on its line") {
    const std::string out = body_with_twins("__global__ void k(float* z, const float* b, int i, int n) {\n"
                                            "    for (int k = 0; k < n; ++k) z[k] = 0;\n"
                                            "    float bias = b[i];\n"
                                            "    int next = i + 1;\n"
                                            "    if (i < n) z[i] += bias; else z[0] = 1;\n"
                                            "    do z[i] -= next; while (z[i] > 0);\n"
                                            "    z[i] = 0;\n"
                                            "}\n");
    const std::string barrier = " __asm__ __volatile__(\"\" ::: \"memory\");";
    CHECK(out.find("for (int k = 0; k < n; ++k) z[k] = 0;" + barrier + "\n") != std::string::npos);
    CHECK(out.find("float bias = b[i];" + barrier + "\n") != std::string::npos);
    CHECK(out.find("int next = i + 1;\n") != std::string::npos);  // nothing indexed
    CHECK(out.find("if (i < n) z[i] += bias; else z[0] = 1;" + barrier + "\n") != std::string::npos);
    CHECK(out.find("do z[i] -= next; while (z[i] > 0);" + barrier + "\n") != std::string::npos);
    CHECK(out.find("z[i] = 0;\n}") != std::string::npos);  // the last statement
    CHECK(gxx_syntax_errors(kHeader + out) == "");
}

TEST_CASE("aligned twin: barriers and templates") {
    // A kernel split at its barriers runs its split version instead: no aligned twin.
    const std::string split = body_with_twins("__global__ void k(float* p) {\n"
                                              "    __shared__ float s[32];\n"
                                              "    s[threadIdx.x] = p[threadIdx.x];\n"
                                              "    __syncthreads();\n"
                                              "    p[threadIdx.x] = s[31 - threadIdx.x];\n"
                                              "}\n");
    CHECK(split.find("::cuemu::split_tag") != std::string::npos);
    CHECK(split.find(kAlignedMark) == std::string::npos);
    // A template kernel's aligned twin and probe are templates too.
    const std::string out = body_with_twins("template <class T>\n"
                                            "__global__ void k(T* p, T v, int i) { p[i] = v; }\n");
    CHECK(out.find("template <class T>\n__global__ void __attribute__((no_sanitize(\"thread\", \"alignment\"), "
                   "always_inline)) inline __cuemu_fast_k(::cuemu::aligned_tag, T* p, T v, int i)") != std::string::npos);
    CHECK(gxx_syntax_errors(kHeader + out) == "");
}
