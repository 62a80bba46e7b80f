// test_rewriter.cpp - unit tests of cuemu-rewrite's core (common/emu/rewriter).
//
// What matters most, and is checked throughout: launches become the exact
// ::cuemu::launch(...) call, nothing inside comments or literals is touched,
// every output line after the #line header is the same line of the input,
// and whatever cannot be parsed is an error at the <<<, never a silent change.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "rewrite.h"
#include "rewriter_test_support.h"

using namespace rewriter_test;
using cuemu_rewrite::Diagnostic;
using cuemu_rewrite::Result;

TEST_SUITE("cuemu-rewrite") {

TEST_CASE("a simple launch becomes a call to ::cuemu::launch") {
    CHECK(body("    add<<<1, 256>>>(a, b, n);\n") ==
          "    " + launch_of("add", "1, 256", "a, b, n") + ";\n");
}

TEST_CASE("the output starts with #line naming the file, with quotes and backslashes escaped") {
    const Result r = cuemu_rewrite::rewrite("int x;\n", "/tmp/we\"ird\\dir/a.cu");
    CHECK(r.errors.empty());
    CHECK(r.output == "#line 1 \"/tmp/we\\\"ird\\\\dir/a.cu\"\nint x;\n");
}

TEST_CASE("source without kernel launches is copied byte for byte") {
    const std::string source =
        "#include <cstdio>\n"
        "int main() {\r\n"
        "    int a = 5, b = 2;\n"
        "    int c = a << 3 >> 1;\n"
        "    a <<= 1; b >>= 1; bool lt = a < b, gt = a > b;\n"
        "    std::vector<std::vector<int>> v;\n"
        "    std::map<int, std::vector<std::vector<int>>> m;\n"
        "    return c; }";
    CHECK(body(source) == source);
}

TEST_CASE("launch with shared memory size and stream") {
    CHECK(body("k<<<grid, block, 1024 * sizeof(float), stream>>>(x);") ==
          launch_of("k", "grid, block, 1024 * sizeof(float), stream", "x") + ";");
}

TEST_CASE("configuration with parentheses and commas") {
    CHECK(body("k<<<dim3(a, b), dim3(16, 16), 0, s>>>(p);") ==
          launch_of("k", "dim3(a, b), dim3(16, 16), 0, s", "p") + ";");
    CHECK(body("k<<<(n + 255) / 256, 256>>>(p, n);") ==
          launch_of("k", "(n + 255) / 256, 256", "p, n") + ";");
    CHECK(body("k<<<cfg[0], std::max(a, b)>>>(p);") ==
          launch_of("k", "cfg[0], std::max(a, b)", "p") + ";");
}

TEST_CASE("templated kernels") {
    CHECK(body("k<float, 4><<<1, 32>>>(p);") == launch_of("k<float, 4>", "1, 32", "p") + ";");
    CHECK(body("k<T, BLOCK * 2><<<g, b>>>(p);") == launch_of("k<T, BLOCK * 2>", "g, b", "p") + ";");
    CHECK(body("ns::k<Tile<4>><<<g, b>>>(p);") == launch_of("ns::k<Tile<4>>", "g, b", "p") + ";");
    CHECK(body("k<Pair<Tile<2>, int>, (4 > 2)><<<g, b>>>(p);") ==
          launch_of("k<Pair<Tile<2>, int>, (4 > 2)>", "g, b", "p") + ";");
    CHECK(body("k<decltype(x)> <<<g, b>>>(p);") == launch_of("k<decltype(x)>", "g, b", "p") + ";");
}

TEST_CASE("qualified kernel names") {
    CHECK(body("ns::k<<<1, 1>>>(p);") == launch_of("ns::k", "1, 1", "p") + ";");
    CHECK(body("::k<<<1, 1>>>(p);") == launch_of("::k", "1, 1", "p") + ";");
    CHECK(body("x = 1; ::a::b::k<<<1, 1>>>(p);") == "x = 1; " + launch_of("::a::b::k", "1, 1", "p") + ";");
}

TEST_CASE("a launch without arguments has no trailing comma") {
    CHECK(body("k<<<1,1>>>();") == launch_of("k", "1,1", "") + ";");
    CHECK(body("k<<<1,1>>>( /* none */ );") ==
          "::cuemu::launch(::cuemu::launch_site{\"k\", __FILE__, __LINE__}, ::cuemu::launch_config(1,1), "
          "[=](auto&&... cuemu_args_) CUEMU_BODY_ATTRIBUTES -> decltype(k(cuemu_args_...)) { k(cuemu_args_...); }" + ref_of("k") + " /* none */ );");
}

TEST_CASE("spaces around <<< and >>> are allowed") {
    CHECK(body("k <<< 1, 2 >>> (a);") == launch_of("k", " 1, 2 ", "a") + ";");
}

TEST_CASE("a launch over several lines keeps every line number") {
    const std::string source =
        "void host() {\n"                  // 1
        "    scale<float,\n"               // 2  the kernel name starts here
        "          4>\n"                   // 3
        "        <<<(n + 255) / 256,\n"    // 4
        "           256>>>\n"              // 5
        "        (data, // the input\n"    // 6
        "         n);\n"                   // 7
        "    int after_launch = 1;\n"      // 8
        "}\n";
    const std::string out = body(source);
    CHECK(count_lines(cuemu_rewrite::rewrite(source, kName).output) == count_lines(source) + 1);
    CHECK(count_lines(out) == count_lines(source));
    CHECK(line_of(out, "int after_launch") == 8);
    CHECK(line_of(out, "__LINE__") == 2);            // the line of the kernel name
    CHECK(line_of(out, "::cuemu::launch_config(") == 2);
    CHECK(line_of(out, "(n + 255) / 256") == 4);
    CHECK(line_of(out, "256)") == 5);
    CHECK(line_of(out, "(data, // the input") == 0);  // the '(' itself is gone ...
    CHECK(line_of(out, "data, // the input") == 6);  // ... its contents stay
    CHECK(line_of(out, "n);") == 7);
    CHECK(contains(out, "launch_site{\"scale<float, 4>\""));
    CHECK(contains(out, "{ scale<float, 4>(cuemu_args_...); }"));
}

TEST_CASE("a three-line launch in the common layout") {
    const std::string source =
        "k<<<blocks,\n"
        "    threads>>>(a,\n"
        "               b);\n"
        "next();\n";
    const std::string out = body(source);
    CHECK(out == "::cuemu::launch(::cuemu::launch_site{\"k\", __FILE__, __LINE__}, ::cuemu::launch_config(blocks,\n"
                 "    threads), [=](auto&&... cuemu_args_) CUEMU_BODY_ATTRIBUTES -> decltype(k(cuemu_args_...)) { k(cuemu_args_...); }" + ref_of("k") + ", a,\n"
                 "               b);\n"
                 "next();\n");
}

TEST_CASE("launch-like text in comments, strings and char literals is untouched") {
    const std::string source =
        "// k<<<1, 1>>>(x);\n"
        "/* k<<<1, 1>>>(x);\n"
        "   extern __shared__ float s[]; static __shared__ int t; __noinline__ */\n"
        "const char* a = \"k<<<1, 1>>>(x); __noinline__\";\n"
        "const char* b = \"escaped \\\" k<<<1,1>>>(x)\";\n"
        "char c = '<'; char d = '\\'';\n"
        "const wchar_t* w = L\"k<<<1,1>>>()\";\n"
        "// a comment continued \\\n"
        "   k<<<1,1>>>(still_comment);\n";
    CHECK(body(source) == source);
}

TEST_CASE("raw strings are skipped whole") {
    const std::string source =
        "const char* r = R\"x(k<<<1,1>>>(a) \" )\" still inside\n"
        "  extern __shared__ float s[]; )x\";\n"
        "auto u = u8R\"(k<<<1,1>>>())\";\n";
    CHECK(body(source) == source);
    CHECK(body("auto r = R\"(<<<)\"; k<<<1,1>>>(r);") ==
          "auto r = R\"(<<<)\"; " + launch_of("k", "1,1", "r") + ";");
}

TEST_CASE("digit separators are part of the number, not char literals") {
    CHECK(body("int n = 1'000'000; k<<<n, 0x1'FF>>>(n);") ==
          "int n = 1'000'000; " + launch_of("k", "n, 0x1'FF", "n") + ";");
    CHECK(body("auto f = 1'0.5e+1'0; k<<<1, 1>>>(f); char q = 'a';") ==
          "auto f = 1'0.5e+1'0; " + launch_of("k", "1, 1", "f") + "; char q = 'a';");
}

TEST_CASE("extern __shared__ becomes a pointer into the emulator's dynamic shared memory") {
    CHECK(body("__global__ void k() {\n    extern __shared__ __align__(16) unsigned char smem[];\n}\n") ==
          "__global__ void k() {\n"
          "    unsigned char* smem = reinterpret_cast<unsigned char*>(::cuemu::dynamic_shared_memory());\n"
          "}\n");
    CHECK(body("template <class T> __global__ void k() { extern __shared__ T buf[]; }") ==
          "template <class T> __global__ void k() { CUEMU_KNOWN_TEMPLATE_KERNEL(k, T) T* buf = "
          "reinterpret_cast<T*>(::cuemu::dynamic_shared_memory()); }");
    CHECK(body("void k() { extern __shared__ float alignas(8) data[]; }") ==
          "void k() { float* data = reinterpret_cast<float*>(::cuemu::dynamic_shared_memory()); }");
    CHECK(body("void k() { extern __shared__ alignas(sizeof(double)) my::Vec<int, 2> v[]; }") ==
          "void k() { my::Vec<int, 2>* v = "
          "reinterpret_cast<my::Vec<int, 2>*>(::cuemu::dynamic_shared_memory()); }");
}

TEST_CASE("extern __shared__ over several lines keeps the line numbers") {
    const std::string source =
        "__global__ void k() {\n"
        "    extern __shared__\n"
        "        float buf[];\n"
        "    buf[0] = 1;\n"
        "}\n";
    const std::string out = body(source);
    CHECK(count_lines(out) == count_lines(source));
    CHECK(line_of(out, "float* buf") == 2);
    CHECK(line_of(out, "buf[0] = 1") == 4);
}

TEST_CASE("extern __shared__ inside a function in a namespace is fine") {
    const std::string out = body("namespace a { namespace b {\n__global__ void k() { extern __shared__ int s[]; }\n} }\n");
    CHECK(contains(out, "int* s = reinterpret_cast<int*>"));
}

TEST_CASE("extern __shared__ at file scope names the launch's dynamic shared memory") {
    const std::string pointer = "(reinterpret_cast<float*>(::cuemu::dynamic_shared_memory()))";
    SUBCASE("global namespace: a macro on the declaration's line") {
        const std::string out = body("#include <x.h>\n\n  extern __shared__ float s[];  // note\n__global__ void k() { s[0] = 1; }\n");
        CHECK(line_of(out, "#define s " + pointer) == 3);
        CHECK(line_of(out, "__global__ void k() { s[0] = 1; }") == 4);
    }
    SUBCASE("over two lines, the macro continues") {
        const std::string out = body("extern __shared__\n  float s[];\nint after;\n");
        CHECK(contains(out, "#define s " + pointer + "\\\n"));
        CHECK(line_of(out, "int after;") == 3);
    }
    SUBCASE("inside a namespace, extern \"C\" and an inline namespace") {
        CHECK(contains(body("namespace ns {\nvoid f() { }\nextern __shared__ float s[];\n}\n"), "#define s"));
        CHECK(contains(body("extern \"C\" {\nextern __shared__ float s[];\n}\n"), "#define s"));
        CHECK(contains(body("inline namespace v1 {\nextern __shared__ float s[];\n}\n"), "#define s"));
    }
    SUBCASE("redeclared inside a kernel with the same type: the file-scope name serves") {
        const std::string out = body("extern __shared__ float s[];\n__global__ void k() {\n  extern __shared__ float s[];\n  s[0] = 1;\n}\n");
        CHECK(line_of(out, "  s[0] = 1;") == 4);
        CHECK_FALSE(contains(out, "float* s ="));
    }
    SUBCASE("what the emulator cannot do is an error at the declaration") {
        const auto shared_line = errors_of("int x; extern __shared__ float s[];\n");
        REQUIRE(shared_line.size() == 1);
        CHECK(contains(shared_line[0].message, "on a line of its own"));
        const auto other_type =
            errors_of("extern __shared__ float s[];\n__global__ void k() {\n  extern __shared__ int s[];\n}\n");
        REQUIRE(other_type.size() == 1);
        CHECK(other_type[0].line == 3);
    }
}

TEST_CASE("extern __shared__ rows of a known width become a pointer to rows") {
    CHECK(body("void k() { extern __shared__ half tile[][N]; }") ==
          "void k() { half (*tile)[N] = reinterpret_cast<half (*)[N]>(::cuemu::dynamic_shared_memory()); }");
    CHECK(body("void k() { extern __shared__ __align__(16) float cube[][4][W + 1]; }") ==
          "void k() { float (*cube)[4][W + 1] = "
          "reinterpret_cast<float (*)[4][W + 1]>(::cuemu::dynamic_shared_memory()); }");
    SUBCASE("at file scope: the macro is that pointer") {
        CHECK(contains(body("extern __shared__ int rows[][8];\n"),
                       "#define rows (reinterpret_cast<int (*)[8]>(::cuemu::dynamic_shared_memory()))"));
    }
    SUBCASE("redeclared with other rows: an error naming both") {
        const auto errors =
            errors_of("extern __shared__ int s[][8];\n__global__ void k() {\n  extern __shared__ int s[][4];\n}\n");
        REQUIRE(errors.size() == 1);
        CHECK(contains(errors[0].message, "int (*)[8]"));
        CHECK(contains(errors[0].message, "int (*)[4]"));
    }
}

TEST_CASE("extern __shared__ that is not an unsized array is an error") {
    const auto errors = errors_of("void k() {\n  extern __shared__ float s[32];\n}\n");
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].line == 2);
    CHECK(contains(errors[0].message, "extern __shared__ float buffer[];"));
    // Something after the dimensions, or a dimension left open.
    CHECK(errors_of("void k() { extern __shared__ float s[][4] x; }").size() == 1);
    CHECK(errors_of("void k() { extern __shared__ float s[][4; }").size() == 1);
}

TEST_CASE("other extern declarations are left alone") {
    const std::string source = "extern \"C\" { int f(); }\nextern int g;\nextern \"C\" __global__ void k(int*);\n";
    CHECK(body(source) == source);
}

TEST_CASE("static next to __shared__ is dropped; plain __shared__ stays") {
    CHECK(body("void k() { static __shared__ float tile[32]; }") == "void k() { __shared__ float tile[32]; }");
    CHECK(body("void k() { __shared__ static int n; }") == "void k() { __shared__ int n; }");
    CHECK(body("void k() { static volatile __shared__ int v; }") == "void k() { volatile __shared__ int v; }");
    CHECK(body("void k() { __shared__ float tile[32]; static int x; }") ==
          "void k() { __shared__ float tile[32]; static int x; }");
    const std::string split = "void k() {\n  static\n  __shared__ int n;\n  int after;\n}\n";
    const std::string out = body(split);
    CHECK(line_of(out, "__shared__ int n") == 3);
    CHECK(line_of(out, "int after") == 4);
}

TEST_CASE("alignas after __shared__ moves in front of it, keeping the lines") {
    CHECK(body("void k() { __shared__ alignas(16) float t[4]; }") ==
          "void k() { alignas(16) __shared__ float t[4]; }");
    CHECK(body("void k() { __shared__ alignas(alignof(float4)) float t[4]; }") ==
          "void k() { alignas(alignof(float4)) __shared__ float t[4]; }");
    CHECK(body("void k() { alignas(8) __shared__ int n; __shared__ int m; }") ==
          "void k() { alignas(8) __shared__ int n; __shared__ int m; }");
    const std::string split = "void k() {\n  __shared__ alignas(\n    alignof(float4)) float t[4];\n  int after;\n}\n";
    const std::string out = body(split);
    CHECK(line_of(out, "__shared__ float t") == 3);
    CHECK(line_of(out, "int after") == 4);
}

TEST_CASE("__noinline__ becomes a GNU attribute") {
    CHECK(body("__noinline__ __device__ int f();") == "__attribute__((noinline)) __device__ int f();");
    CHECK(body("const char* s = \"__noinline__\"; int __noinline__x;") ==
          "const char* s = \"__noinline__\"; int __noinline__x;");
}

TEST_CASE("#include lines are copied untouched") {
    const std::string source =
        "#include <weird'name<<<.h>\n"
        "#  include \"k<<<1,1>>>(x).h\"\n"
        "#include <a.h> // k<<<1,1>>>()\n"
        "k<<<1, 1>>>();\n";
    const std::string out = body(source);
    const std::size_t launch_at = source.find("k<<<1, 1>>>();");
    CHECK(out.substr(0, launch_at) == source.substr(0, launch_at));
    CHECK(line_of(out, "::cuemu::launch(") == 4);
}

TEST_CASE("a launch inside a #define keeps its line continuations") {
    const std::string source =
        "#define LAUNCH(n) k<<<(n), 32>>>( \\\n"
        "    out, (n))\n"
        "#define LAUNCH2 k2 \\\n"
        "    <<<1, 1>>>()\n"
        "int after;\n";
    const std::string out = body(source);
    CHECK(out ==
          "#define LAUNCH(n) ::cuemu::launch(::cuemu::launch_site{\"k\", __FILE__, __LINE__}, "
          "::cuemu::launch_config((n), 32), [=](auto&&... cuemu_args_) CUEMU_BODY_ATTRIBUTES -> decltype(k(cuemu_args_...)) { k(cuemu_args_...); }" + ref_in_macro("k") + ",  \\\n"
          "    out, (n))\n"
          "#define LAUNCH2 ::cuemu::launch(::cuemu::launch_site{\"k2\", __FILE__, __LINE__}, "
          "::cuemu::launch_config(\\\n"
          "1, 1), [=](auto&&... cuemu_args_) CUEMU_BODY_ATTRIBUTES -> decltype(k2(cuemu_args_...)) { k2(cuemu_args_...); }" + ref_in_macro("k2") + ")\n"
          "int after;\n");
}

TEST_CASE("launch arguments may contain lambdas and further launches") {
    CHECK(body("k<<<1, 1>>>([=] __device__ (int i) { return i * 2; }, n);") ==
          launch_of("k", "1, 1", "[=] __device__ (int i) { return i * 2; }, n") + ";");
    CHECK(body("f([&] { k<<<1, 1>>>(a); });") == "f([&] { " + launch_of("k", "1, 1", "a") + "; });");
}

TEST_CASE("preprocessor conditionals inside the arguments stay on their lines") {
    const std::string source =
        "k<<<1, 1>>>(a,\n"
        "#ifdef WITH_B\n"
        "            b,\n"
        "#endif\n"
        "            c);\n"
        "int after;\n";
    const std::string out = body(source);
    CHECK(line_of(out, "#ifdef WITH_B") == 2);
    CHECK(line_of(out, "#endif") == 4);
    CHECK(line_of(out, "int after") == 6);
    CHECK(contains(out, "{ k(cuemu_args_...); }" + ref_of("k") + ", a,\n#ifdef"));
}

TEST_CASE("operator<<<T> is not a launch") {
    const std::string source = "template <> std::ostream& operator<<<int>(std::ostream& o, const X<int>&);\n";
    CHECK(body(source) == source);
}

TEST_CASE("a run of more than three '>' closes the configuration with its last three") {
    CHECK(body("k<<<n, S<4>>>>(p);") == launch_of("k", "n, S<4>", "p") + ";");
}

TEST_CASE("malformed launches are errors at the <<<") {
    auto single_error = [](const std::string& source) {
        const auto errors = errors_of(source);
        INFO(describe(errors));
        REQUIRE(errors.size() == 1);
        return errors[0];
    };
    SUBCASE("no >>>") {
        const Diagnostic d = single_error("void f() {\n\n    k<<<1, 256(x);\n}\n");
        CHECK(d.line == 3);
        CHECK(d.column == 6);
        CHECK(contains(d.message, "missing '>>>'"));
    }
    SUBCASE("no ( after >>>") {
        const Diagnostic d = single_error("void f() {\n  k<<<1, 1>>>;\n}\n");
        CHECK(d.line == 2);
        CHECK(d.column == 4);
        CHECK(contains(d.message, "expected '(' with the kernel's arguments after '>>>'"));
    }
    SUBCASE("unbalanced parentheses in the arguments") {
        const Diagnostic d = single_error("int a;\nvoid f() { k<<<1, 1>>>(a, (b); }\n");
        CHECK(d.line == 2);
        CHECK(d.column == 13);
        CHECK(contains(d.message, "unbalanced parentheses"));
    }
    SUBCASE("unbalanced parentheses in the configuration") {
        const Diagnostic d = single_error("\n\nk<<<(n + 1, 32>>>(a);\n");
        CHECK(d.line == 3);
        CHECK(contains(d.message, "unbalanced"));
        CHECK(single_error("k<<<n + 1), 32>>>(a);").line == 1);
    }
    SUBCASE("no kernel name") {
        const Diagnostic d = single_error("void f() {\n    <<<1, 1>>>(a);\n}\n");
        CHECK(d.line == 2);
        CHECK(d.column == 5);
        CHECK(contains(d.message, "kernel's name"));
        CHECK(single_error("f(x) <<<1, 1>>>(a);").line == 1);
        CHECK(single_error("<<<1,1>>>();").column == 1);
    }
    SUBCASE("empty configuration") {
        const Diagnostic d = single_error("\nk<<<>>>(a);\n");
        CHECK(d.line == 2);
        CHECK(d.column == 2);
        CHECK(contains(d.message, "empty launch configuration"));
        CHECK(single_error("k<<< /* nothing */ >>>(a);").line == 1);
    }
    SUBCASE("launch through a member") {
        CHECK(contains(single_error("obj.k<<<1, 1>>>(a);").message, "free function"));
    }
    SUBCASE("every bad launch is reported, the good ones are not") {
        const auto errors = errors_of("k<<<1,1>>>(a);\nk<<<>>>(a);\nk<<<1,1>>>(b);\nk<<<1,1>>>;\n");
        REQUIRE(errors.size() == 2);
        CHECK(errors[0].line == 2);
        CHECK(errors[1].line == 4);
    }
}

TEST_CASE("calls across execution spaces are nvcc's errors") {
    SUBCASE("a kernel calls a host function") {
        const auto errors = errors_of(
            "float relu(float x) { return x > 0 ? x : 0; }\n"
            "__global__ void relu_kernel(float* y, int n) {\n"
            "    int i = threadIdx.x;\n"
            "    if (i < n) y[i] = relu(y[i]);\n"
            "}\n");
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].line == 4);
        CHECK(errors[0].column == 23);
        CHECK(contains(errors[0].message,
                       "calling a __host__ function(\"relu\") from a __global__ function(\"relu_kernel\") "
                       "is not allowed"));
        CHECK(contains(errors[0].message, "mark relu __device__, or __host__ __device__"));
    }
    SUBCASE("a __device__ function calls a host function, through return") {
        const auto errors = errors_of("int twice(int x) { return 2 * x; }\n"
                                      "__device__ int quadruple(int x) { return twice(twice(x)); }\n");
        REQUIRE(errors.size() == 2);
        CHECK(contains(errors[0].message, "from a __device__ function(\"quadruple\")"));
    }
    SUBCASE("host code calls a __device__ function") {
        const auto errors = errors_of("__device__ float fast(float x) { return x; }\n"
                                      "void on_cpu(float* y) { y[0] = fast(y[0]); }\n");
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].line == 2);
        CHECK(contains(errors[0].message,
                       "calling a __device__ function(\"fast\") from a __host__ function(\"on_cpu\")"));
    }
    SUBCASE("a kernel called without <<<>>>, also after a case label") {
        const auto errors = errors_of("__global__ void k(int* p) { p[0] = 1; }\n"
                                      "int main(int argc, char**) {\n"
                                      "  int* d = nullptr;\n"
                                      "  switch (argc) {\n"
                                      "  case 1: k(d); break;\n"
                                      "  default: k<<<1, 1>>>(d);\n"
                                      "  }\n"
                                      "}\n");
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].line == 5);
        CHECK(contains(errors[0].message, "a __global__ function call must be configured"));
    }
    SUBCASE("in a namespace, with templates and __launch_bounds__") {
        const auto errors = errors_of("namespace lesson {\n"
                                      "float host_only(float x) { return x; }\n"
                                      "template <typename T, int N = 4>\n"
                                      "__global__ void __launch_bounds__(256) k(T* p) { p[0] = host_only(p[0]); }\n"
                                      "}\n");
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].line == 4);
        CHECK(contains(errors[0].message, "from a __global__ function(\"k\")"));
    }
}

TEST_CASE("what the execution-space check leaves alone") {
    // Each of these is valid CUDA, or something the check cannot be sure of:
    // it must never refuse code nvcc accepts.
    const char* const sources[] = {
        // __host__ __device__ on both sides, and a host function the host calls
        "__host__ __device__ float f(float x) { return x; }\n"
        "float g(float x) { return f(x); }\n"
        "__global__ void k(float* p) { p[0] = f(p[0]); }\n"
        "int main() { return static_cast<int>(g(1.0f)); }\n",
        // the qualifiers hidden in a macro
        "#define HD __host__ __device__\n"
        "HD float f(float x) { return x; }\n"
        "__global__ void k(float* p) { p[0] = f(p[0]); }\n",
        // overloads in two spaces: which one is called is the compiler's question
        "float f(float x) { return x; }\n"
        "__device__ float f(double x) { return x; }\n"
        "__global__ void k(float* p) { p[0] = f(1.0); }\n",
        // members, qualified names, explicit template arguments, declarations
        "struct S { float f(float x) { return x; } };\n"
        "float f(float x) { return x; }\n"
        "__global__ void k(float* p, S s) { p[0] = s.f(p[0]); }\n"
        "__device__ float h(S* s) { return s->f(1.0f); }\n"
        "template <typename T> T t(T x) { return x; }\n"
        "__global__ void k2(float* p) { p[0] = t<float>(p[0]); float f(float); }\n",
        // constexpr host functions (nvcc's --expt-relaxed-constexpr allows them)
        "constexpr int square(int x) { return x * x; }\n"
        "__global__ void k(int* p) { p[0] = square(3); }\n",
        // a host function's address, and a kernel passed by name
        "__global__ void k(int* p) { p[0] = 1; }\n"
        "int main() { void (*f)(int*) = k; cudaLaunchKernel((const void*)&k, 1, 1, nullptr, 0, 0);\n"
        "  return f == nullptr; }\n",
        // the program's own host umin beside CUDA's umin(unsigned, unsigned):
        // a kernel's call may be CUDA's (nvcc picks by argument types)
        "int umin(int a, int b) { return a < b ? a : b; }\n"
        "__global__ void k(unsigned* p) { p[0] = umin(p[0], 7u); }\n",
        // a lambda at namespace scope and a class body
        "auto twice = [](int x) { return 2 * x; };\n"
        "struct T { int g() { return 1; } };\n"
        "__global__ void k(int* p) { p[0] = 1; }\n",
    };
    for (const char* source : sources) {
        INFO(source);
        const Result r = cuemu_rewrite::rewrite(source, kName);
        INFO("errors:\n" << describe(r.errors));
        CHECK(r.errors.empty());
    }
}

TEST_CASE("a UTF-8 byte order mark is dropped") {
    CHECK(body("\xEF\xBB\xBFint x;\n") == "int x;\n");
}

TEST_CASE("rewritten output compiles with g++ against a stub of the emulator header") {
    const std::string source = R"(#include <vector>
namespace ns {
template <typename T, int N>
__global__ void scale(T* data, T factor) { data[0] *= factor * N; }
}
__global__ void fill(float* p, int n) {
    extern __shared__ __align__(16) unsigned char smem[];
    static __shared__ float tile[32];
    tile[0] = static_cast<float>(smem[0]);
    p[0] = tile[0] + n;
}
template <typename T>
__global__ void typed(T* p) { extern __shared__ T buf[]; buf[0] = p[0]; }
__global__ void none() {}
__noinline__ __host__ __device__ int helper(int x) { return x; }
void host() {
    float* d = nullptr;
    int n = 1'000;
    cudaStream_t s = nullptr;
    fill<<<(n + 255) / 256, 256>>>(d, n);
    fill<<<dim3(1, 2), dim3(32, 4), 64 * sizeof(float), s>>>(
        d,
        n);
    ns::scale<float, 4><<<1, 1>>>(d, 2.0f);
    typed<float>
        <<<1, 32, 32 * sizeof(float)>>>(d);
    none<<<1,1>>>();
    std::vector<std::vector<int>> v;
    int x = helper(1 << 3 >> 1);
    (void)x; (void)v;
}
)";
    const Result r = cuemu_rewrite::rewrite(source, "/src/input.cu");
    INFO(describe(r.errors));
    REQUIRE(r.errors.empty());
    CHECK(count_lines(without_twins(r.output)) == count_lines(source) + 1);
    CHECK(contains(r.output, "__cuemu_fast_fill("));
    CHECK(gxx_syntax_errors(r.output) == "");
}

// ---- uninstrumented twins (cuemu/launch.h) -------------------------------------------
TEST_CASE("a kernel is followed by its twin, which keeps the kernel's line numbers") {
    // Compiled only with the instrumentation (__SANITIZE_THREAD__, -fsanitize=thread).
    const std::string source =
        "__global__ void k(float* p) {\n"  // 1
        "    p[0] = 1;\n"                  // 2
        "} // end\n"                       // 3
        "int after;\n";                    // 4
    CHECK(body_with_twins(source) ==
          "__global__ void k(float* p) {\n"
          "    p[0] = 1;\n"
          "}\n#if defined(__SANITIZE_THREAD__)\n#line 1 \"/src/t.cu\"\n"
          "__global__ void __attribute__((no_sanitize(\"thread\"))) __cuemu_fast_k(float* p) {\n"
          "    p[0] = 1;\n"
          "}\nvoid __cuemu_fast_k(::cuemu::shared_memory_free);\n"  // it cannot reach shared memory
          // its only access is p[0]: the twin without the misaligned-access check (aligned_twin.h)
          "#line 1 \"/src/t.cu\"\n"
          "__global__ void __attribute__((no_sanitize(\"thread\", \"alignment\"), always_inline)) inline "
          "__cuemu_fast_k(::cuemu::aligned_tag, float* p) {\n"
          "    p[0] = 1;\n"
          "}\n#line 1 \"/src/t.cu\"\n"
          "__global__ void __attribute__((no_sanitize(\"thread\"))) __cuemu_fast_k(::cuemu::alignment_probe& "
          "__cuemu_probe, float* p) {\n"
          "__cuemu_probe.aligned = true && ::cuemu::aligned_for(p);\n"
          "}\n"
          "#endif\nCUEMU_KNOWN_KERNEL(k)\n#line 3 \"/src/t.cu\"\n"
          " // end\n"
          "int after;\n");
}

TEST_CASE("the twin is the rewritten kernel, in its namespace, without C linkage") {
    const std::string out = body_with_twins(
        "namespace ns {\n"
        "extern \"C\" __global__ void __launch_bounds__(64) k(int n) {\n"
        "    extern __shared__ float buf[];\n"
        "    child<<<1, n>>>(buf);\n"
        "}\n"
        "}\n");
    const std::size_t twin = out.find("__cuemu_fast_k");
    REQUIRE(twin != std::string::npos);
    CHECK(contains(out, "\n__global__ void __launch_bounds__(64) __attribute__((no_sanitize(\"thread\"))) "
                        "__cuemu_fast_k(int n) {"));
    CHECK(out.find("::cuemu::dynamic_shared_memory()", twin) != std::string::npos);
    CHECK(out.find(launch_of("child", "1, n", "buf"), twin) != std::string::npos);
    CHECK(out.rfind("\n}\n") == out.size() - 3);  // the namespace closes after the twin
    CHECK(out.rfind("\n}\n", out.size() - 4) > twin);
}

TEST_CASE("kernels that get no twin") {
    const char* const sources[] = {
        // a template with an explicit specialization: the twin would miss it
        "template <typename T>\n__global__ void k(T* p) { p[0] = 1; }\n"
        "template <>\n__global__ void k<int>(int* p) { p[0] = 2; }\n",
        // a volatile access must reach the hooks (warp lockstep)
        "__global__ void k(volatile float* p) { p[0] = 1; }\n",
        "__global__ void k(float* p) { volatile float* q = p; q[0] = 1; }\n",
        // overloads: a call of the twin might resolve differently
        "__global__ void k(float* p) { p[0] = 1; }\n__global__ void k(int* p) { p[0] = 1; }\n",
        // defined out of its namespace, or under a macro that may hide what it is
        "namespace ns { __global__ void k(float*); }\n__global__ void ns::k(float* p) { p[0] = 1; }\n",
        "#define KERNEL __global__\nKERNEL void k(float* p) { p[0] = 1; }\n",
        // not a kernel nor a __device__ function
        "void k(float* p) { p[0] = 1; }\n__host__ void h() {}\nvoid g() {}\n",
        // an #if that the body does not close
        "__global__ void k(float* p) {\n#if A\n p[0] = 1; }\n#else\n p[0] = 2; }\n#endif\n",
        // a head cut by a conditional (NVIDIA's samples): the twin would lose
        // its template head
        "template <class T>\n#ifdef __CUDACC__\n__host__ __device__\n#endif\n"
        "T smaller(const T& a, const T& b) { return a < b ? a : b; }\n",
        "template <int N>\n#if A\n__launch_bounds__(N)\n#endif\n__global__ void k(float* p) { p[0] = N; }\n",
    };
    for (const char* source : sources) {
        INFO(std::string(source));
        CHECK_FALSE(contains(body_with_twins(source), "__cuemu_fast_"));
    }
}

TEST_CASE("a __device__ function's twin is what the twins below it call") {
    const std::string out = body_with_twins(
        "__device__ float twice(float x) { return 2 * x; }\n"
        "__global__ void k(float* p) { p[0] = twice(p[1]); }\n"
        "__host__ __device__ float later(float x) { return x + twice(x); }\n");
    CHECK(contains(out, "__device__ float __attribute__((no_sanitize(\"thread\"))) __cuemu_fast_twice(float x) "
                        "{ return 2 * x; }"));
    CHECK(contains(out, "__cuemu_fast_k(float* p) { p[0] = __cuemu_fast_twice(p[1]); }"));
    CHECK(contains(out, "__global__ void k(float* p) { p[0] = twice(p[1]); }"));  // the kernel itself: as written
    CHECK(contains(out, "__cuemu_fast_later(float x) { return x + __cuemu_fast_twice(x); }"));
    CHECK(without_twins(out) == "__device__ float twice(float x) { return 2 * x; }\n"
                                "__global__ void k(float* p) { p[0] = twice(p[1]); }\n"
                                "__host__ __device__ float later(float x) { return x + twice(x); }\n");
    // Defined after the kernel, or a name the kernel also uses otherwise: left alone.
    const std::string after = body_with_twins(
        "__device__ float twice(float x);\n__global__ void k(float* p) { p[0] = twice(p[1]); }\n"
        "__device__ float twice(float x) { return 2 * x; }\n");
    CHECK(contains(after, "__cuemu_fast_k(float* p) { p[0] = twice(p[1]); }"));
    const std::string shadowed = body_with_twins(
        "__device__ float twice(float x) { return 2 * x; }\n"
        "__global__ void k(float* p, float (*twice)(float)) { p[0] = twice(p[1]); }\n");
    CHECK(contains(shadowed, "__cuemu_fast_k(float* p, float (*twice)(float)) { p[0] = twice(p[1]); }"));
}

TEST_CASE("a template kernel names its own instantiation for the registry of kernel addresses") {
    const char* note = "CUEMU_KNOWN_TEMPLATE_KERNEL";
    CHECK(contains(body("template <class... Ts>\n__global__ void k(Ts... a) {}\n"),
                   "{ CUEMU_KNOWN_TEMPLATE_KERNEL(k, Ts...)}"));
    CHECK(contains(body("template <typename T = int, int N = (3 > 2), class U = std::pair<int, int>>\n"
                        "__global__ void k(T* p) {}\n"),
                   "CUEMU_KNOWN_TEMPLATE_KERNEL(k, T, N, U)"));
    CHECK(contains(body("template <std::integral T>\n__global__ void k(T* p) {}\n"),
                   "CUEMU_KNOWN_TEMPLATE_KERNEL(k, T)"));
    // A parameter without a name cannot be passed on: not registered.
    CHECK_FALSE(contains(body("template <class>\n__global__ void k(int* p) {}\n"), note));
    CHECK_FALSE(contains(body("template <std::size_t>\n__global__ void k(int* p) {}\n"), note));
    CHECK_FALSE(contains(body("template <unsigned int, class T>\n__global__ void k(T* p) {}\n"), note));
    CHECK_FALSE(contains(body("__global__ void k(int* p) {}\n"), note));  // CUEMU_KNOWN_KERNEL's
}

TEST_CASE("a template kernel's twin is a template, named with the launch's arguments") {
    const std::string out = body_with_twins(
        "template <typename T, int N>\n__global__ void k(T* p) { p[N] = 1; }\n"
        "void run(float* p) { k<float, 3><<<1, 1>>>(p); k<<<1, 1>>>(p); }\n");
    CHECK(contains(out, "template <typename T, int N>\n__global__ void __attribute__((no_sanitize(\"thread\"))) "
                        "__cuemu_fast_k(T* p) { CUEMU_KNOWN_TEMPLATE_KERNEL(k, T, N) p[N] = 1; }"));
    // Each instantiation registers its address from inside the kernel's body
    // (cuemu/kernel_registry.h): a template has no address of its own.
    CHECK(contains(out, "template <typename T, int N>\n__global__ void k(T* p) { CUEMU_KNOWN_TEMPLATE_KERNEL(k, T, N) "
                        "p[N] = 1; }"));
    CHECK_FALSE(contains(out, "CUEMU_KNOWN_KERNEL(k)"));
    CHECK(contains(out, ", CUEMU_FAST_BODY((__cuemu_fast_k<float, 3>)), p)"));
    CHECK(contains(out, ", CUEMU_FAST_BODY(__cuemu_fast_k), p)"));  // deduced, as for the kernel
    // Launched before its definition: a template-id of no declared twin would not compile.
    const std::string early = body_with_twins(
        "template <int N> __global__ void k(float* p);\nvoid run(float* p) { k<3><<<1, 1>>>(p); }\n"
        "template <int N>\n__global__ void k(float* p) { p[N] = 1; }\n");
    CHECK_FALSE(contains(early, "CUEMU_FAST_BODY((__cuemu_fast_k<3>))"));
}

TEST_CASE("a launch offers no twin where its name may stand for another kernel") {
    const char* const sources[] = {
        // a parameter, a local variable, a template parameter named like a kernel
        "__global__ void k(float* p) { p[0] = 1; }\n"
        "void run(void (*k)(float*), float* d) { k<<<1, 1>>>(d); }\n",
        "__global__ void k(float* p) { p[0] = 1; }\n"
        "void run(float* d) { auto k = &other; k<<<1, 1>>>(d); }\n",
        "__global__ void k(float* p) { p[0] = 1; }\n"
        "template <void (*k)(float*)> void run(float* d) { k<<<1, 1>>>(d); }\n",
        "__global__ void k(float* p) { p[0] = 1; }\n"
        "void run(float* d) { [&](auto k) { k<<<1, 1>>>(d); }(&other); }\n",
        // a member of a class
        "__global__ void k(float* p) { p[0] = 1; }\n"
        "struct Runner { void (*k)(float*); void run(float* d) { k<<<1, 1>>>(d); } };\n",
        "__global__ void k(float* p) { p[0] = 1; }\n"
        "void Runner::run(float* d) { k<<<1, 1>>>(d); }\n",
        // a macro's parameter
        "__global__ void kernel(float* p) { p[0] = 1; }\n"
        "#define RUN(kernel, d) kernel<<<1, 1>>>(d)\n",
    };
    for (const char* source : sources) {
        INFO(std::string(source));
        CHECK_FALSE(contains(body_with_twins(source), "CUEMU_FAST_BODY"));
    }
    // The same kernel launched twice in one function: both launches offer it.
    const std::string twice = body_with_twins(
        "__global__ void k(float* p) { p[0] = 1; }\n"
        "void run(float* d) { k<<<1, 1>>>(d); cudaDeviceSynchronize(); k<<<2, 1>>>(d); }\n");
    const std::size_t first = twice.find("CUEMU_FAST_BODY(__cuemu_fast_k)");
    REQUIRE(first != std::string::npos);
    CHECK(twice.find("CUEMU_FAST_BODY(__cuemu_fast_k)", first + 1) != std::string::npos);
}

TEST_CASE("a launch of a kernel by its plain name offers the twin") {
    CHECK(contains(body_with_twins("k<<<1, 1>>>(p);"), ", CUEMU_FAST_BODY(__cuemu_fast_k), p)"));
    CHECK_FALSE(contains(body_with_twins("ns::k<<<1, 1>>>(p);"), "CUEMU_FAST_BODY"));
    CHECK_FALSE(contains(body_with_twins("k<float><<<1, 1>>>(p);"), "CUEMU_FAST_BODY"));
    // With or without a twin declared before it, the launch compiles: the
    // lambda of CUEMU_FAST_BODY is only called where the twin exists.
    const std::string source = R"(__global__ void later(float* p);
__global__ void before(float* p, int n) { __shared__ float s[4]; s[0] = p[0]; p[n] = s[0]; }
void host(float* d) {
    before<<<1, 4>>>(d, 3);
    later<<<1, 4>>>(d);
}
__global__ void later(float* p) { p[0] = 2; }
)";
    const std::string out = body_with_twins(source);
    CHECK(contains(out, "__cuemu_fast_before(float* p, int n)"));
    CHECK(contains(out, "__cuemu_fast_later(float* p)"));
    CHECK(gxx_syntax_errors(kHeader + out) == "");
}

// ---- kernels that cannot reach shared memory (shared_reach.h) ------------------------
const std::string kFreeMark = "void __cuemu_fast_k(::cuemu::shared_memory_free);";

TEST_CASE("a kernel that cannot reach shared memory says so next to its twin") {
    const std::string out = body_with_twins(
        "__global__ void other(float* p) { __shared__ float s[4]; s[0] = p[0]; p[1] = s[0]; }\n"
        "__device__ float twice(float x) { return 2 * x; }\n"
        "__global__ void k(float* p) { p[0] = twice(p[0]); }\n");
    CHECK(contains(out, kFreeMark));
    CHECK_FALSE(contains(out, "void __cuemu_fast_other(::cuemu::shared_memory_free);"));
    CHECK(gxx_syntax_errors(kHeader + out) == "");
}

TEST_CASE("a kernel that may reach shared memory gets no such mark") {
    const char* const sources[] = {
        // its own __shared__, dynamic or static
        "__global__ void k(float* p) { extern __shared__ float s[]; s[0] = p[0]; }\n",
        // a namespace-scope shared array
        "extern __shared__ float buffer[];\n__global__ void k(float* p) { buffer[0] = p[0]; }\n",
        "__shared__ int a, b[4];\n__global__ void k(int* p) { b[1] = p[0]; }\n",
        // a function that hands out shared memory, directly or through another
        "__device__ float* scratch() { extern __shared__ float s[]; return s; }\n"
        "__global__ void k(float* p) { scratch()[0] = p[0]; }\n",
        "__device__ float* scratch() { extern __shared__ float s[]; return s; }\n"
        "__device__ float* row(int r) { return scratch() + 16 * r; }\n"
        "__global__ void k(float* p) { row(1)[0] = p[0]; }\n",
        // a macro that declares it, or names it
        "#define TILE __shared__ float tile[16]\n__global__ void k(float* p) { TILE; tile[0] = p[0]; }\n",
        "extern __shared__ float buffer[];\n#define AT(i) buffer[i]\n"
        "__global__ void k(float* p) { AT(0) = p[0]; }\n",
        // a __shared__ the list cannot follow: then no kernel of the file is free of it
        "struct S { __shared__ int x; };\n__global__ void k(float* p) { p[0] = 1; }\n",
    };
    for (const char* source : sources) {
        INFO(std::string(source));
        const std::string out = body_with_twins(source);
        CHECK_FALSE(contains(out, kFreeMark));
    }
}

TEST_CASE("rewrite_tree decides on the names of every file of the tree") {
    const std::map<std::string, std::string> files = {
        {"/t/main.cu", "#include \"smem.cuh\"\n__global__ void k(float* p) { staging[0] = p[0]; }\n"
                       "__global__ void plain(float* p) { p[0] = 1; }\n"},
        {"/t/smem.cuh", "extern __shared__ float staging[];\n"},
    };
    const cuemu_rewrite::FileReader reader = [&](const std::string& path) -> std::optional<std::string> {
        const auto it = files.find(path);
        if (it == files.end()) return std::nullopt;
        return it->second;
    };
    const cuemu_rewrite::TreeResult r =
        cuemu_rewrite::rewrite_tree("/t/main.cu", "/b/main.cpp", "/b/h", {}, cuemu_rewrite::Options{}, reader);
    REQUIRE(r.errors.empty());
    REQUIRE(r.files.size() == 2);
    CHECK_FALSE(contains(r.files[0].text, kFreeMark));
    CHECK(contains(r.files[0].text, "void __cuemu_fast_plain(::cuemu::shared_memory_free);"));
}

}  // TEST_SUITE
