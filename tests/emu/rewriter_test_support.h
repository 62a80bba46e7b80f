// rewriter_test_support.h - what the rewriter's unit tests share: run a
// rewrite that must succeed (or fail), and look at lines of its output.
#ifndef CUEMU_REWRITER_TEST_SUPPORT_H
#define CUEMU_REWRITER_TEST_SUPPORT_H

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "rewrite.h"

namespace rewriter_test {

using cuemu_rewrite::Diagnostic;
using cuemu_rewrite::Result;

inline const char* const kName = "/src/t.cu";
inline const std::string kHeader = "#line 1 \"/src/t.cu\"\n";

inline std::string describe(const std::vector<Diagnostic>& errors) {
    std::string all;
    for (const Diagnostic& d : errors) {
        all += std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message + "\n";
    }
    return all;
}

inline std::string without_twins(std::string out);

// The rewritten source without the #line header and without the kernels'
// uninstrumented twins (body_with_twins keeps them); the rewrite must succeed.
inline std::string body_with_twins(const std::string& source, const cuemu_rewrite::Options& options = {}) {
    const Result r = cuemu_rewrite::rewrite(source, kName, options);
    INFO("errors:\n" << describe(r.errors));
    REQUIRE(r.errors.empty());
    REQUIRE(r.output.compare(0, kHeader.size(), kHeader) == 0);
    return r.output.substr(kHeader.size());
}
inline std::string body(const std::string& source, const cuemu_rewrite::Options& options = {}) {
    return without_twins(body_with_twins(source, options));
}

// The errors of a rewrite that must fail.
inline std::vector<Diagnostic> errors_of(const std::string& source, const cuemu_rewrite::Options& options = {}) {
    const Result r = cuemu_rewrite::rewrite(source, kName, options);
    REQUIRE_FALSE(r.errors.empty());
    return r.errors;
}

inline std::size_t count_lines(const std::string& s) {
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

// 1-based line on which `needle` starts in `text` (0 when absent).
inline int line_of(const std::string& text, const std::string& needle) {
    const std::size_t at = text.find(needle);
    if (at == std::string::npos) return 0;
    return static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 1;
}

// The second lambda of a launch: the kernel's address (cuemu/launch.h); then,
// for a kernel named by one identifier, its uninstrumented twin.
inline std::string ref_of(const std::string& callee) {
    const bool plain_name = !callee.empty() && std::all_of(callee.begin(), callee.end(), [](char c) {
        return c == '_' || std::isalnum(static_cast<unsigned char>(c));
    });
    return ", ::cuemu::kernel_ref{[=](auto cuemu_fp_) -> decltype(static_cast<typename "
           "decltype(cuemu_fp_)::type>(" + callee + ")) { return static_cast<typename "
           "decltype(cuemu_fp_)::type>(" + callee + "); }}" +
           (plain_name ? ", CUEMU_FAST_BODY(__cuemu_fast_" + callee + ")" : "");
}

// The same for a launch in a macro, which never names a twin (rewrite.cpp: may_offer_twin).
inline std::string ref_in_macro(const std::string& callee) {
    std::string ref = ref_of(callee);
    const std::size_t twin = ref.find(", CUEMU_FAST_BODY(");
    return twin == std::string::npos ? ref : ref.substr(0, twin);
}

inline std::string launch_of(const std::string& callee, const std::string& cfg, const std::string& args) {
    return "::cuemu::launch(::cuemu::launch_site{\"" + callee +
           "\", __FILE__, __LINE__}, ::cuemu::launch_config(" + cfg +
           "), [=](auto&&... cuemu_args_) CUEMU_BODY_ATTRIBUTES -> decltype(" + callee + "(cuemu_args_...)) { " + callee + "(cuemu_args_...); }" + ref_of(callee) +
           (args.empty() ? "" : ", " + args) + ")";
}

// The output without the kernels' twins (rewrite.cpp, find_twins): each is
// "\n#if defined(__SANITIZE_THREAD__)\n#line A \"file\"\n" + copy +
// "\n#endif\nCUEMU_KNOWN_KERNEL(k)\n#line B \"file\"\n" right after a kernel's '}'
// (a template kernel's twin registers nothing: "\n#endif\n#line B ...").
inline std::string without_twins(std::string out) {
    for (std::size_t at; (at = out.find("\n#if defined(__SANITIZE_THREAD__)\n#line ")) != std::string::npos;) {
        const std::size_t known = out.find("\n#endif\nCUEMU_KNOWN_KERNEL(", at + 1);
        const std::size_t bare = out.find("\n#endif\n#line ", at + 1);
        const std::size_t back = std::min(known, bare);
        REQUIRE(back != std::string::npos);
        // The #line after the registration, or right after #endif.
        const std::size_t line = back == bare ? back + 7 : out.find("\n#line ", back + 8);
        REQUIRE(line != std::string::npos);
        const std::size_t end = out.find('\n', line + 1);  // the end of the #line
        REQUIRE(end != std::string::npos);
        out.erase(at, end + 1 - at);
    }
    return out;
}

inline bool contains(const std::string& text, const std::string& needle) {
    return text.find(needle) != std::string::npos;
}

// Just enough of the emulator's header for rewritten code to compile with
// g++ -fsyntax-only.
inline const char* const kEmulatorStub = R"(// as in a source built with the instrumentation: the kernels' twins compile too
#define __SANITIZE_THREAD__ 1
#include <cstddef>
#include <type_traits>
#define __global__
#define __device__
#define __host__
#define __shared__ static thread_local
#define __align__(n) alignas(n)
#define CUEMU_KNOWN_KERNEL(name)  // the registry (cuemu/kernel_registry.h) is not needed here
#define CUEMU_KNOWN_TEMPLATE_KERNEL(name, ...) (void)&name<__VA_ARGS__>;  // names the instantiation
// Only that the sizeof resolves where the line is placed.
#define CUEMU_STATIC_SHARED(name, part, bytes) static_assert((bytes) > 0 && part >= 0, "");
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
using cudaStream_t = struct CUstream_st*;
namespace cuemu {
struct shared_memory_free {};
struct aligned_tag {};
struct alignment_probe { bool aligned = true; };
template <class T>
bool aligned_for(T*) { return true; }
struct launch_site { const char* kernel; const char* file; int line; };
struct launch_config {
    launch_config(dim3, dim3, std::size_t = 0, cudaStream_t = nullptr) {}
};
template <class R>
struct kernel_ref { R resolve; };
template <class R>
kernel_ref(R) -> kernel_ref<R>;
template <class P>
struct kernel_pointer_request { using type = P; };
template <typename F, typename R, typename... A>
void launch(launch_site, launch_config, F&& f, kernel_ref<R> ref, A&&... a) {
    using pointer = void (*)(std::decay_t<A>...);
    (void)ref.resolve(kernel_pointer_request<pointer>{});  // the kernel's address resolves
    f(a...);
}
// As in an instrumented source: the twin, where one is declared, is called.
// A kernel that cannot reach shared memory answers the probe.
template <class Fast, class Probe>
struct fast_body { Fast body; Probe probe; };
template <class Fast, class Probe>
fast_body(Fast, Probe) -> fast_body<Fast, Probe>;
#define CUEMU_BODY_ATTRIBUTES __attribute__((no_sanitize("thread")))
#define CUEMU_FAST_BODY(twin) ::cuemu::fast_body{[=](auto&&... cuemu_args_) \
    __attribute__((no_sanitize("thread"))) -> decltype(twin(cuemu_args_...)) { twin(cuemu_args_...); }, \
    [](auto cuemu_mark_) -> decltype(twin(cuemu_mark_)) {}}
template <typename F, typename R, typename Fast, typename Probe, typename... A>
void launch(launch_site s, launch_config c, F&& f, kernel_ref<R> ref, fast_body<Fast, Probe> fast, A&&... a) {
    if constexpr (std::is_invocable_v<const Fast&, std::decay_t<A>&...>) {
        static_assert(std::is_invocable_v<const Probe&, shared_memory_free> || true);
        fast.body(a...);
    }
    launch(s, c, f, ref, a...);
}
inline void* dynamic_shared_memory() { return nullptr; }
inline bool in_device_branch() { return false; }
}
)";


// What g++ says about `rewritten` compiled against kEmulatorStub: "" when it
// compiles (or when there is no g++ to ask).
inline std::string gxx_syntax_errors(const std::string& rewritten) {
    if (std::system("g++ --version > /dev/null 2>&1") != 0) {
        MESSAGE("g++ not found; compile check skipped");
        return "";
    }
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() /
                         ("cuemu_rewrite_test_" + std::to_string(std::random_device{}()));
    fs::create_directories(dir);
    std::ofstream(dir / "stub.h") << kEmulatorStub;
    std::ofstream(dir / "out.cpp") << rewritten;
    const std::string command = "g++ -std=c++17 -fsyntax-only -Wall -Wextra -include " +
                                (dir / "stub.h").string() + " " + (dir / "out.cpp").string() + " > " +
                                (dir / "log.txt").string() + " 2>&1";
    const int status = std::system(command.c_str());
    std::ifstream log(dir / "log.txt");
    std::string messages((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    fs::remove_all(dir);
    if (status == 0) return "";
    return messages.empty() ? "g++ failed" : messages + "\noutput:\n" + rewritten;
}

}  // namespace rewriter_test

#endif
