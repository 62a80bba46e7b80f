// test_rewriter_fidelity.cpp - unit tests of what the rewriter does so that
// CUDA written elsewhere builds unmodified: launch forms found in the wild,
// #if branches the compiler skips, __CUDA_ARCH__ per function, the
// execution-space check following name lookup, throw/exit in device code
// refused as nvcc refuses them, and the headers of the user's own tree.
#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <string>

#include "conditionals.h"
#include "rewrite.h"
#include "rewriter_test_support.h"

using namespace rewriter_test;
using cuemu_rewrite::Diagnostic;
using cuemu_rewrite::Options;
using cuemu_rewrite::Result;

namespace {

Options defining(const std::string& name, const std::string& value = "1") {
    Options o;
    o.defines[name] = value;
    return o;
}

std::string only_message(const std::string& source) {
    const auto errors = errors_of(source);
    INFO(describe(errors));
    REQUIRE(errors.size() == 1);
    return std::to_string(errors[0].line) + ": " + errors[0].message;
}

}  // namespace

TEST_SUITE("cuemu-rewrite fidelity") {

// ---- launch forms ----------------------------------------------------------------

TEST_CASE("a launch macro used with no variadic arguments leaves no trailing comma") {
    const std::string source =
        "#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)\n"
        "__global__ void none() {}\n"
        "__global__ void fill(float* p, int n) { p[0] = n; }\n"
        "void host(float* p) {\n"
        "    LAUNCH(none, 1, 1);\n"
        "    LAUNCH(fill, 1, 32, p, 3);\n"
        "}\n";
    const std::string out = body(source);
    CHECK(contains(out, "{ k(cuemu_args_...); }" + ref_in_macro("k") + " __VA_OPT__(,) __VA_ARGS__)"));
    CHECK(gxx_syntax_errors(kHeader + out) == "");
}

TEST_CASE("a launch through a kernel pointer or an array of kernels") {
    CHECK(body("(*kp)<<<1, 32>>>(p);") == launch_of("(*kp)", "1, 32", "p") + ";");
    CHECK(body("if (x) (*table.k)<<<g, b>>>();") == "if (x) " + launch_of("(*table.k)", "g, b", "") + ";");
    CHECK(body("kernels[i]<<<1, 1>>>(p);") == launch_of("kernels[i]", "1, 1", "p") + ";");
    const std::string program =
        "__global__ void twice(int* p) { p[0] *= 2; }\n"
        "void host(int* p) {\n"
        "    void (*kp)(int*) = twice;\n"
        "    void (*table[2])(int*) = {twice, twice};\n"
        "    (*kp)<<<1, 1>>>(p);\n"
        "    table[1]<<<1, 1>>>(p);\n"
        "}\n";
    CHECK(gxx_syntax_errors(kHeader + body(program)) == "");
}

TEST_CASE("a backslash-newline inside <<< or >>> splices, as the compiler splices it") {
    const std::string source = "k<\\\n<<1, 32>>\\\n>(p);\nint after;\n";
    const std::string out = body(source);
    CHECK(contains(out, "::cuemu::launch_config(\n1, 32)"));
    CHECK(line_of(out, "int after;") == 4);
    CHECK(count_lines(out) == count_lines(source));
}

TEST_CASE("templated kernels with expressions in their arguments") {
    CHECK(body("k<T, (N > 2)><<<1, 1>>>(p);") == launch_of("k<T, (N > 2)>", "1, 1", "p") + ";");
}

// ---- branches the compiler skips --------------------------------------------------

TEST_CASE("launches in #if 0, in #else of a taken branch, and in undefined #ifdef are ignored") {
    for (const std::string source : {
             "#if 0\n  k<<<>>>(p);\n#endif\n",
             "#if 1\nint a;\n#else\n  k<<<>>>(p);\n#endif\n",
             "#define USE_NEW 1\n#if USE_NEW\nint a;\n#elif 1\n  k<<<1>>>;\n#endif\n",
             "#if 0\n#if 1\n  k<<<>>>(p);\n#endif\n#endif\n",
             "#if defined(X) && 0\n  obj.k<<<1, 1>>>(p);\n#endif\n",
         }) {
        INFO(source);
        CHECK(body(source) == source);  // copied untouched, not parsed
    }
    // -U on the command line makes #ifdef certain.
    Options undefined;
    undefined.undefines.push_back("OLD_API");
    CHECK(body("#ifdef OLD_API\n  k<<<>>>(p);\n#endif\n", undefined) == "#ifdef OLD_API\n  k<<<>>>(p);\n#endif\n");
}

TEST_CASE("the #if evaluator: C's operators, defined, and unknown where it must be") {
    using cuemu_rewrite::internal::ArchSide;
    using cuemu_rewrite::internal::evaluate_condition;
    cuemu_rewrite::internal::MacroTable macros;
    macros.known["LEVEL"] = std::string("3");
    macros.known["GONE"] = std::nullopt;
    macros.known["TWICE"] = std::string("(LEVEL * 2)");
    auto eval = [&](const std::string& e, ArchSide side = ArchSide::unknown) {
        return evaluate_condition(e, macros, side);
    };
    CHECK(eval("(1 << 2) + 3 == 7 && LEVEL >= 3") == 1);
    CHECK(eval("TWICE == 6 ? 10 : 20") == 10);
    CHECK(eval("defined(GONE) || defined LEVEL") == 1);
    CHECK(eval("GONE") == 0);
    CHECK(eval("0x10 + 010 + 1'000 + 2ul") == 16 + 8 + 1000 + 2);
    CHECK(eval("-1 << 3") == -8);
    CHECK(eval("1 / 0") == std::nullopt);
    CHECK(eval("SOMETHING > 2") == std::nullopt);       // unknown: may come from a system header
    CHECK(eval("0 && SOMETHING") == 0);                 // ... unless the known side decides
    CHECK(eval("1 || FUNCTION_LIKE(2)") == 1);
    CHECK(eval("__CUDA_ARCH__ >= 700", ArchSide::device) == 1);
    CHECK(eval("defined(__CUDA_ARCH__)", ArchSide::host) == 0);
    CHECK(eval("__CUDA_ARCH__ >= 700") == std::nullopt);
}

TEST_CASE("a header's include guard counts as taken: its contents are checked") {
    const auto errors = errors_of("#ifndef KERN_CUH\n#define KERN_CUH\n__global__ void k() { throw 1; }\n#endif\n");
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].line == 3);
    CHECK(errors_of("#ifdef __cplusplus\n__global__ void k() { throw 1; }\n#endif\n").size() == 1);
}

TEST_CASE("a branch the command line takes is parsed as usual") {
    const auto errors = errors_of("#ifdef OLD_API\n  k<<<>>>(p);\n#endif\n", defining("OLD_API"));
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].line == 2);
    CHECK(body("#if LEVEL > 2\n k<<<1, 1>>>(p);\n#endif\n", defining("LEVEL", "3")) ==
          "#if LEVEL > 2\n " + launch_of("k", "1, 1", "p") + ";\n#endif\n");
}

TEST_CASE("in a branch the rewriter cannot decide, launches are rewritten and errors left to the compiler") {
    // SOME_LIBRARY_MACRO may come from a system header: the compiler decides.
    const std::string out = body("#ifdef SOME_LIBRARY_MACRO\n k<<<1, 1>>>(p);\n k<<<>>>(p);\n#endif\n");
    CHECK(contains(out, launch_of("k", "1, 1", "p")));
    CHECK(contains(out, "_Pragma(\"GCC error \\\"kernel launch: empty launch configuration"));
    CHECK(line_of(out, "_Pragma") == 3);
    // The execution-space check stays silent there.
    CHECK(body("float relu(float x) { return x; }\n__global__ void k(float* p) {\n#ifdef FAST\n  p[0] = relu(p[0]);\n#endif\n}\n")
              .find("relu(p[0])") != std::string::npos);
}

// ---- __CUDA_ARCH__ -----------------------------------------------------------------

TEST_CASE("__CUDA_ARCH__ in a __device__ or __global__ function has the emulated device's value") {
    const std::string source =
        "__device__ float fast(float x) {\n"
        "#if __CUDA_ARCH__ >= 600\n"
        "    return x * 2;\n"
        "#else\n"
        "    return x;\n"
        "#endif\n"
        "}\n"
        "__global__ void arch(int* out) { out[0] = __CUDA_ARCH__; }\n";
    const std::string out = body(source);
    CHECK(line_of(out, "#if 750 >= 600") == 2);
    CHECK(line_of(out, "#else") == 4);
    CHECK(contains(out, "out[0] = 750;"));
    CHECK(count_lines(out) == count_lines(source));
}

TEST_CASE("__CUDA_ARCH__ in a host function is undefined") {
    const std::string out = body("void host() {\n#ifdef __CUDA_ARCH__\n  device_path();\n#else\n  host_path();\n#endif\n}\n");
    CHECK(line_of(out, "#if 0") == 2);
    CHECK(contains(out, "host_path();"));
}

TEST_CASE("a file-scope test that both sides answer alike is decided") {
    const std::string atomic_fallback =
        "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600\n"
        "#else\n"
        "__device__ double atomicAdd(double* a, double v) { return *a; }\n"
        "#endif\n";
    const std::string out = body(atomic_fallback);
    CHECK(line_of(out, "#if 1") == 1);
    CHECK(line_of(out, "__device__ double atomicAdd") == 3);  // kept, but in the #else the compiler skips
    const std::string guard = "#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 700)\n#error needs sm_70\n#endif\n";
    CHECK(line_of(body(guard), "#if 0") == 1);
    // Declarations only one side has: the other side's code never uses them.
    CHECK(line_of(body("#ifndef __CUDA_ARCH__\n#include <vector>\n#endif\n"), "#if 1") == 1);
    CHECK(line_of(body("#ifdef __CUDA_ARCH__\n__device__ int fast();\n#endif\n"), "#if 1") == 1);
    // Branches that differ only in __host__/__device__ are the same to the emulator.
    const std::string qualifiers =
        "#ifdef __CUDA_ARCH__\n#define HD __host__ __device__\n#else\n#define HD\n#endif\nHD int f();\n";
    CHECK(line_of(body(qualifiers), "#if 1") == 1);
    // A guard the emulated device fails stops the build, as nvcc -arch=sm_75 would.
    const std::string failing = "#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 800)\n#error needs sm_80\n#endif\n";
    CHECK(line_of(body(failing), "#if 1") == 1);
}

TEST_CASE("nvcc's version macros decide a file-scope test beside __CUDA_ARCH__") {
    // llm.c's common.h: its own __ldcs for bfloat16, only for nvcc before 12
    // on old devices. ENABLE_BF16 is unknown here, nvcc's version is not.
    const std::string llmc =
        "#if defined(ENABLE_BF16) && (__CUDACC_VER_MAJOR__ < 12) && !((__CUDA_ARCH__ >= 800) || !defined(__CUDA_ARCH__))\n"
        "__device__ float __ldcs(const float* address) { return *address; }\n"
        "#endif\n";
    CHECK(line_of(body(llmc), "#if 0") == 1);
    // CUDA 13.0 (nvcc 13.0.88), as cuemu/cuemu.h defines them; the command line wins.
    CHECK(line_of(body("#if CUDART_VERSION >= 12000 && __CUDACC_VER_MAJOR__ * 10 + __CUDACC_VER_MINOR__ == 130 "
                       "&& __CUDACC_VER_BUILD__ == 88 && defined(__CUDA_ARCH__)\n__device__ int f();\n#endif\n"),
                  "#if 1") == 1);
    CHECK(line_of(body("#if __CUDACC_VER_MAJOR__ < 12 && defined(__CUDA_ARCH__)\n__device__ int f();\n#endif\n",
                       defining("__CUDACC_VER_MAJOR__", "11")),
                  "#if 1") == 1);
}

TEST_CASE("a __host__ __device__ function gets each side's branch, chosen at run time") {
    const std::string source =
        "__host__ __device__ int where() {\n"
        "#ifdef __CUDA_ARCH__\n"
        "    return __CUDA_ARCH__;\n"
        "#else\n"
        "    return -1;\n"
        "#endif\n"
        "}\n"
        "__host__ __device__ void note(int* p) {\n"
        "#if __CUDA_ARCH__ >= 700\n"
        "    p[0] = 1;\n"
        "#endif\n"
        "}\n";
    const std::string out = body(source);
    CHECK(line_of(out, "if (::cuemu::in_device_branch()) {") == 2);
    CHECK(line_of(out, "    return 750;") == 3);
    CHECK(line_of(out, "} else {") == 4);
    CHECK(line_of(out, "    return -1;") == 5);
    CHECK(line_of(out, "}\n}") == 6);
    CHECK(line_of(out, "    p[0] = 1;") == 10);
    CHECK(count_lines(out) == count_lines(source));
    CHECK(gxx_syntax_errors(kHeader + out) == "");
}

TEST_CASE("a variable both branches declare alike is declared once, before the run-time choice") {
    const std::string source =
        "__host__ __device__ unsigned pick(unsigned i, int* count) {\n"
        "#ifdef __CUDA_ARCH__\n"
        "    unsigned seed = i + 1;\n"
        "    *count += 1;\n"
        "    float* scratch;\n"
        "#else\n"
        "    unsigned seed = 0;\n"
        "    float* scratch;\n"
        "#endif\n"
        "    scratch = nullptr; return seed * 2 + (scratch == nullptr);\n"
        "}\n";
    const std::string out = body(source);
    CHECK(line_of(out, "unsigned seed; float * scratch; if (::cuemu::in_device_branch()) {") == 2);
    CHECK(line_of(out, "    seed = i + 1;") == 3);
    CHECK(line_of(out, "    *count += 1;") == 4);
    CHECK(line_of(out, "} else {") == 6);
    CHECK(line_of(out, "    seed = 0;") == 7);
    CHECK(line_of(out, "    scratch = nullptr; return seed * 2") == 10);
    CHECK_FALSE(contains(out, "unsigned seed ="));
    CHECK(count_lines(out) == count_lines(source));
    CHECK(gxx_syntax_errors(kHeader + out) == "");
}

TEST_CASE("where host and device cannot each get their branch, the build stops and says why") {
    SUBCASE("at file scope, the sides take different branches") {
        const std::string message =
            only_message("#ifdef __CUDA_ARCH__\n#define LOG(x)\n#else\n#define LOG(x) printf(x)\n#endif\n");
        CHECK(message.rfind("1: this #if takes one branch in host code", 0) == 0);
        CHECK(contains(message, "cannot give each side its own branch"));
    }
    SUBCASE("in a __host__ __device__ function, a branch declares what follows uses") {
        // Declared with another type on the other side (or not at all), the
        // variable cannot be declared once before the if.
        const std::string message = only_message(
            "__host__ __device__ int f() {\n#ifdef __CUDA_ARCH__\n  int v = 1;\n#else\n  long v = 2;\n#endif\n  return v;\n}\n");
        CHECK(message.rfind("2: ", 0) == 0);
        CHECK(contains(message, "declares 'v'"));
        CHECK(contains(only_message("__host__ __device__ int f() {\n#ifdef __CUDA_ARCH__\n  const int v = 1;\n#else\n"
                                    "  const int v = 2;\n#endif\n  return v;\n}\n"),
                       "cannot be chosen at run time"));
    }
    SUBCASE("a kernel whose whole body needs a newer device than the emulated one") {
        const std::string message = only_message(
            "__global__ void k(int* p) {\n#if __CUDA_ARCH__ >= 800\n  p[0] = 1;\n#endif\n}\n");
        CHECK(message.rfind("1: the whole body of this kernel is in #if branches on __CUDA_ARCH__", 0) == 0);
        CHECK(contains(message, "silently do nothing"));
        // With a branch the emulator takes, it builds.
        CHECK(contains(body("__global__ void k(int* p) {\n#if __CUDA_ARCH__ >= 800 || defined(CUEMU)\n  p[0] = 1;\n#endif\n}\n"),
                       "#if 750 >= 800 || defined(CUEMU)"));
    }
    SUBCASE("an #if on __CUDA_ARCH__ without #endif is left to the compiler") {
        CHECK(body("__host__ __device__ int f() {\n#ifdef __CUDA_ARCH__\n return 1;\n}\n") ==
              "__host__ __device__ int f() {\n#ifdef __CUDA_ARCH__\n return 1;\n}\n");
    }
    SUBCASE("a macro whose body names __CUDA_ARCH__") {
        CHECK(contains(only_message("#define ARCH __CUDA_ARCH__\n"), "cannot tell where the macro expands"));
    }
}

// ---- the execution-space check follows name lookup --------------------------------

TEST_CASE("a lambda, parameter or local named like a function of the other space is not that function") {
    const std::string source =
        "__device__ float op(float x) { return x * 2; }\n"
        "float host_lambda(float v) { auto op = [](float x) { return x + 1; }; return op(v); }\n"
        "int host_parameter(int (*op)(int), int x) { return op(x); }\n"
        "template <typename Op> float host_functor(Op op, float x) { return op(x); }\n"
        "void device_lambda(float* p) { auto f = [] __device__ (float x) { return op(x); }; (void)f; }\n";
    CHECK(body(source) == source);
    // The function itself is still checked.
    CHECK(contains(only_message("__device__ float op(float x) { return x; }\nfloat h(float v) { return op(v); }\n"),
                   "calling a __device__ function(\"op\") from a __host__ function(\"h\") is not allowed"));
}

// ---- throw and exit() in device code ------------------------------------------------

TEST_CASE("throw and try in device code are refused with nvcc's words") {
    const auto errors = errors_of(
        "__global__ void k(int* p) {\n  if (!p) throw 1;\n}\n__device__ void d() {\n  try { } catch (...) { }\n}\n"
        "__host__ __device__ int hd(int x) { if (x < 0) throw x; return x; }\n");
    INFO(describe(errors));
    REQUIRE(errors.size() == 3);
    CHECK(errors[0].line == 2);
    CHECK(errors[0].column == 11);
    CHECK(errors[1].line == 5);
    CHECK(errors[2].line == 7);
    for (const Diagnostic& d : errors) CHECK(d.message.rfind("device code does not support exception handling", 0) == 0);
}

TEST_CASE("exit() and abort() in device code are refused with nvcc's words") {
    const auto errors = errors_of(
        "#include <cstdlib>\n__global__ void k(int* p) {\n  if (!p) exit(1);\n}\n"
        "__device__ void d() { std::abort(); }\n__device__ void e() { ::exit(2); }\n");
    INFO(describe(errors));
    REQUIRE(errors.size() == 3);
    CHECK(errors[0].line == 3);
    CHECK(errors[0].column == 11);
    CHECK(errors[0].message.rfind("calling a __host__ function(\"exit\") from a __global__ function(\"k\") is not allowed", 0) == 0);
    CHECK(contains(errors[1].message, "function(\"abort\") from a __device__ function(\"d\")"));
    CHECK(errors[2].line == 6);
}

// ---- the host runtime in device code (nvcc 13 refuses these; the device runtime's own stay)

TEST_CASE("host-only runtime calls in device code are refused with nvcc's words") {
    const auto errors = errors_of(
        "__global__ void child(int* p) { }\n"
        "__global__ void k(int* p) {\n  child<<<1, 1>>>(p);\n  cudaDeviceSynchronize();\n}\n"
        "__device__ void d(int* p) { cudaMemcpy(p, p + 1, 4, cudaMemcpyDeviceToDevice); }\n"
        "__global__ void ok(int* p) {\n  cudaStream_t s;\n  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);\n"
        "  child<<<1, 1, 0, s>>>(p);\n  cudaStreamDestroy(s);\n  cudaGetLastError();\n"
        "  int* q; cudaMalloc(&q, 4); cudaFree(q);\n  cudaMemcpyAsync(p, p + 1, 4, cudaMemcpyDeviceToDevice, 0);\n}\n"
        "__host__ __device__ void hd() { cudaDeviceSynchronize(); }\n"
        "void host() { cudaDeviceSynchronize(); }\n");
    INFO(describe(errors));
    REQUIRE(errors.size() == 2);
    CHECK(errors[0].line == 4);
    CHECK(errors[0].message.rfind("calling a __host__ function(\"cudaDeviceSynchronize\") from a __global__ "
                                  "function(\"k\") is not allowed (nvcc refuses it: since CUDA 12 a kernel cannot "
                                  "wait for the grids it launches",
                                  0) == 0);
    CHECK(errors[1].line == 6);
    CHECK(contains(errors[1].message, "function(\"cudaMemcpy\") from a __device__ function(\"d\")"));
    CHECK(contains(errors[1].message, "the device runtime has no cudaMemcpy"));
}

TEST_CASE("a kernel with __cluster_dims__ is refused in one error naming clusters") {
    const auto errors = errors_of(
        "__global__ void __cluster_dims__(2, 1, 1) k(int* p) { p[0] = 1; }\n"
        "#if 0\n__global__ void __cluster_dims__(4, 1, 1) never(int* p) { }\n#endif\n");
    INFO(describe(errors));
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].line == 1);
    CHECK(errors[0].message.rfind("cuemu does not emulate thread block clusters (__cluster_dims__)", 0) == 0);
}

TEST_CASE("what nvcc allows stays allowed: assert in kernels, throw and exit in host code") {
    const std::string source =
        "#include <cassert>\n#include <cstdlib>\n"
        "__global__ void k(int* p) { assert(p != nullptr); }\n"
        "void host(int* p) { if (!p) throw 1; if (p[0] < 0) exit(2); }\n"
        "struct S { __device__ void exit(int) {} };\n"
        "__device__ void d(S s) { s.exit(1); }\n"
        "__global__ void k2(int* p) {\n#if 0\n  throw 1;\n#endif\n}\n";
    CHECK(body(source) == source);
}

// ---- the headers of the user's own tree ----------------------------------------------

TEST_CASE("rewrite_tree rewrites the project headers a .cu reaches and redirects its #include lines") {
    const std::map<std::string, std::string> files = {
        {"/p/main.cu", "#include \"kern.cuh\"\n#include <lib/util.cuh>\n#include <cuda_runtime.h>\n#include <vector>\n"},
        {"/p/kern.cuh", "#pragma once\n#include \"../p/kern.cuh\"\ninline void go(int* p) { k<<<1, 1>>>(p); }\n"},
        {"/p/include/lib/util.cuh", "#include \"detail.h\"\n"},
        {"/p/include/lib/detail.h", "extern __shared__ float tile[];\n"},
        {"/emu/cuda_runtime.h", "// the emulator's own\n"},
        {"/p/include/cuda_runtime.h", "// a project file shadowed by the system folder before it\n"},
    };
    const cuemu_rewrite::FileReader reader = [&](const std::string& path) -> std::optional<std::string> {
        const auto it = files.find(path);
        if (it == files.end()) return std::nullopt;
        return it->second;
    };
    const cuemu_rewrite::TreeResult r = cuemu_rewrite::rewrite_tree(
        "/p/main.cu", "/b/main.cpp", "/b/h", {{"/emu", true}, {"/p/include", false}}, Options{}, reader);
    REQUIRE(r.errors.empty());
    std::map<std::string, std::string> out;
    for (const auto& f : r.files) out[f.output] = f.text;
    REQUIRE(out.size() == 4);
    CHECK(r.files[0].output == "/b/main.cpp");
    CHECK(line_of(out["/b/main.cpp"], "#include \"/b/h/p/kern.cuh\"") == 2);
    CHECK(line_of(out["/b/main.cpp"], "#include \"/b/h/p/include/lib/util.cuh\"") == 3);
    CHECK(line_of(out["/b/main.cpp"], "#include <cuda_runtime.h>") == 4);
    CHECK(out["/b/h/p/kern.cuh"].rfind("#line 1 \"/p/kern.cuh\"\n", 0) == 0);
    CHECK(contains(out["/b/h/p/kern.cuh"], "#include \"/b/h/p/kern.cuh\""));
    CHECK(contains(out["/b/h/p/kern.cuh"], "::cuemu::launch("));
    CHECK(contains(out["/b/h/p/include/lib/detail.h"], "#define tile"));

    // An error inside a header names the header.
    const std::map<std::string, std::string> bad = {{"/q/a.cu", "#include \"b.cuh\"\n"},
                                                    {"/q/b.cuh", "\nvoid f() { k<<<>>>(); }\n"}};
    const cuemu_rewrite::FileReader bad_reader = [&](const std::string& path) -> std::optional<std::string> {
        const auto it = bad.find(path);
        if (it == bad.end()) return std::nullopt;
        return it->second;
    };
    const cuemu_rewrite::TreeResult failed =
        cuemu_rewrite::rewrite_tree("/q/a.cu", "/b/a.cpp", "/b/h", {}, Options{}, bad_reader);
    REQUIRE(failed.errors.size() == 1);
    CHECK(failed.errors[0].file == "/q/b.cuh");
    CHECK(failed.errors[0].where.line == 2);
}

// ---- inline PTX -------------------------------------------------------------------

TEST_CASE("a special register read in inline PTX becomes a call, on the same lines") {
    const std::string source =
        "__global__ void k(unsigned* out) {\n"
        "    unsigned lane;\n"
        "    asm volatile(\"mov.u32 %0, %%laneid;\"\n"
        "                 : \"=r\"(lane));\n"
        "    unsigned long long t;\n"
        "    __asm__(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t) : : \"memory\");\n"
        "    out[lane] = t;\n"
        "}\n";
    const std::string out = body(source);
    CHECK(contains(out, "    (lane) = ::cuemu::ptx::laneid()\n;\n"));
    CHECK(contains(out, "    (t) = ::cuemu::ptx::globaltimer();\n"));
    // Every line keeps its number: as many newlines as the input.
    CHECK(count_lines(out) == count_lines(source));
}

TEST_CASE("other inline PTX in device code is refused, naming it; host code's asm is left alone") {
    const std::string message = only_message(
        "__device__ int load(const int* p) {\n"
        "    int v;\n"
        "    asm(\"ld.global.nc.s32 %0, [%1];\" : \"=r\"(v) : \"l\"(p));\n"
        "    return v;\n"
        "}\n");
    CHECK(contains(message, "3: inline PTX is not emulated: 'asm(\"ld.global.nc.s32 %0, [%1];\""));
    CHECK(contains(message, "build this program with nvcc for a GPU"));
    // A read with an input operand is not a plain read either.
    CHECK(contains(only_message("__global__ void k(int x) { int y; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(y) : \"r\"(x)); }\n"),
                   "inline PTX is not emulated"));
    CHECK(contains(body("void host() { asm volatile(\"pause\"); }\n"), "asm volatile(\"pause\")"));
    // bfind with a second input, or a memory operand, is not the form read.
    CHECK(contains(only_message("__device__ unsigned f(unsigned a, unsigned b) { unsigned r;\n"
                                "  asm(\"bfind.u32 %0, %1;\" : \"=r\"(r) : \"r\"(a), \"r\"(b)); return r; }\n"),
                   "inline PTX is not emulated"));
}

TEST_CASE("host variables named like the built-in variables are renamed, members and device code not") {
    const std::string source =
        "__global__ void k(unsigned* out) { out[0] = blockDim.x * gridDim.x; }\n"
        "void go(dim3 gridDim, unsigned* out) {\n"
        "    dim3 blockDim;\n"
        "    blockDim.x = 4;\n"
        "    cudaKernelNodeParams params;\n"
        "    params.gridDim = gridDim;\n"
        "    k<<<gridDim, blockDim>>>(out);\n"
        "}\n";
    const std::string out = body(source);
    CHECK(line_of(out, "out[0] = blockDim.x * gridDim.x;") == 1);
    CHECK(line_of(out, "void go(dim3 cuemu_host_gridDim, unsigned* out) {") == 2);
    CHECK(line_of(out, "    dim3 cuemu_host_blockDim;") == 3);
    CHECK(line_of(out, "    cuemu_host_blockDim.x = 4;") == 4);
    CHECK(line_of(out, "    params.gridDim = cuemu_host_gridDim;") == 6);
    CHECK(contains(out, "launch_config(cuemu_host_gridDim, cuemu_host_blockDim)"));
    CHECK(count_lines(out) == count_lines(source));
}

TEST_CASE("bfind in inline PTX becomes a call with its input, on the same lines") {
    const std::string source =
        "__device__ unsigned top(unsigned word, long long wide) {\n"
        "    unsigned ret, amount;\n"
        "    asm volatile(\"bfind.u32 %0, %1;\" : \"=r\"(ret) : \"r\"(word));\n"
        "    asm(\"bfind.shiftamt.s64 %0, %1;\"\n"
        "        : \"=r\"(amount) : \"l\"(wide - 1));\n"
        "    return ret + amount;\n"
        "}\n";
    const std::string out = body(source);
    CHECK(contains(out, "    (ret) = ::cuemu::ptx::bfind_u32(word);\n"));
    CHECK(contains(out, "    (amount) = ::cuemu::ptx::bfind_shiftamt_s64(wide - 1)\n;\n"));
    CHECK(count_lines(out) == count_lines(source));
}

}  // TEST_SUITE
