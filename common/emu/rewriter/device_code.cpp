// device_code.cpp - the checks nvcc makes on device code, made here before
// the emulator compiles everything as host code (see checks.h).
#include "checks.h"
#include "cuda_names.h"

#include <map>
#include <optional>
#include <set>
#include <string>

#include "scopes.h"

namespace cuemu_rewrite::internal {
namespace {

// ---- the execution-space check ------------------------------------------------------
// nvcc refuses a kernel or __device__ function that calls a host function,
// host code that calls a __device__ function, and a __global__ function
// called like an ordinary function (without <<<...>>>). The emulator compiles
// __host__ and __device__ as nothing, so without this check those mistakes
// would build and run here and fail only on a machine with nvcc. The messages
// are nvcc's words.
//
// It is not a C++ parser: it knows the functions defined at namespace scope
// in this file, by name, and looks for calls of those names. Whatever it
// cannot be sure of is left alone, because refusing good code is worse than
// missing a bug nvcc will still catch: a name defined with different
// qualifiers (overloads), members, explicit template arguments, constexpr
// functions, qualifiers hidden in a macro (a head with an ALL_CAPS name),
// calls inside __host__ __device__ functions, and code inside #define.

struct FunctionDefinition {
    std::string name;
    Space space;
    bool certain;  // false: the qualifiers may hide in a macro, or it is constexpr
    std::size_t body_open, body_close;  // its '{' and '}'
    std::size_t name_token;
};

// Names that may come right before a '(' in a function's head without being
// its name.
bool is_head_keyword(const std::string& name) {
    static const std::set<std::string> words = {
        "__launch_bounds__", "__align__", "alignas", "__attribute__", "__declspec", "decltype",
        "noexcept", "sizeof", "alignof", "requires", "throw", "__cluster_dims__"};
    return words.count(name) != 0;
}

// If the tokens [begin, brace) are the head of a function definition at
// namespace scope, the function (body still to be filled in).
std::optional<FunctionDefinition> function_head(const Source& src, std::size_t begin, std::size_t brace) {
    std::size_t first = src.next_code(begin);
    if (first >= brace) return std::nullopt;
    for (const char* word : {"class", "struct", "union", "enum", "namespace", "extern"}) {
        if (src.is_ident(first, word)) return std::nullopt;
    }
    // Skip a template parameter list: its '=' and '(' belong to the parameters.
    std::size_t i = first;
    if (src.is_ident(i, "template")) {
        i = src.next_code(i + 1);
        int angle = 0;
        for (; i < brace; ++i) {
            if (src.is_punct(i, '<')) ++angle;
            if (src.is_punct(i, '>') && --angle == 0) break;
        }
        if (i >= brace) return std::nullopt;
        ++i;
    }
    const std::size_t head_start = i;
    int parens = 0;
    std::size_t name = npos;
    for (; i < brace; ++i) {
        if (src[i].in_directive || is_trivia(src[i])) continue;
        if (parens == 0 && (src.is_punct(i, '=') || src.is_punct(i, ';'))) return std::nullopt;
        if (src.is_punct(i, '(')) {
            if (parens == 0 && name == npos) {
                std::size_t before = src.prev_code(i);
                if (before == npos || before < head_start || !src.is_ident(before)) return std::nullopt;
                if (!is_head_keyword(src.spelling(before))) {
                    name = before;
                    break;
                }
            }
            ++parens;
        }
        if (src.is_punct(i, ')')) --parens;
    }
    if (name == npos) return std::nullopt;
    // A member defined outside its class (S::f), an operator or a destructor.
    const std::size_t before_name = src.prev_code(name);
    if (before_name != npos && before_name >= head_start &&
        (src.is_punct(before_name, ':') || src.is_punct(before_name, '~') ||
         src.is_ident(before_name, "operator"))) {
        return std::nullopt;
    }
    FunctionDefinition f{src.spelling(name), Space::host, true, brace, npos, name};
    bool global = false, device = false, host = false;
    for (std::size_t t = first; t < name; ++t) {
        if (!src.is_ident(t) || src[t].in_directive) continue;
        const std::string word = src.spelling(t);
        if (word == "__global__") global = true;
        if (word == "__device__") device = true;
        if (word == "__host__") host = true;
        if (word == "constexpr" || word == "consteval" || looks_like_macro(word)) f.certain = false;
    }
    f.space = global ? Space::global : device ? (host ? Space::host_device : Space::device) : Space::host;
    return f;
}

// Every function defined at namespace scope, with its body.
std::vector<FunctionDefinition> function_definitions(const Source& src) {
    std::vector<FunctionDefinition> found;
    std::size_t declaration_start = 0;
    for (std::size_t i = 0; i < src.size(); ++i) {
        if (src[i].in_directive || src[i].in_include || is_trivia(src[i])) continue;
        if (src.is_punct(i, ';') || src.is_punct(i, '}')) {
            declaration_start = i + 1;  // a '}' here closes a namespace
        } else if (src.is_punct(i, '{')) {
            if (opens_namespace_scope(src, i)) {
                declaration_start = i + 1;
                continue;
            }
            const std::size_t close = matching_brace(src, i);
            if (close == npos) return {};  // unbalanced (#if branches?): check nothing
            if (std::optional<FunctionDefinition> f = function_head(src, declaration_start, i)) {
                f->body_close = close;
                found.push_back(*f);
            }
            i = close;  // a class body or an initializer: nothing to look at inside
            declaration_start = close + 1;
        }
    }
    return found;
}

// Words after which `name(` is still a call: `return f(x)` is a call,
// `float f(float)` a declaration.
bool may_precede_call(const std::string& word) {
    static const std::set<std::string> words = {"return", "else", "do", "case", "throw",
                                                "co_return", "co_yield", "co_await"};
    return words.count(word) != 0;
}

// Names the caller declares itself: its parameters, and locals such as
// `auto op = [](float x) {...};` or `float op;`. C++ name lookup finds these
// before any function at namespace scope, so a call of one is not a call of
// that function.
std::set<std::string> local_names(const Source& src, const FunctionDefinition& f) {
    std::set<std::string> names;
    for (std::size_t i = f.name_token + 1; i < f.body_open; ++i) {
        if (src.is_ident(i)) names.insert(src.spelling(i));
    }
    for (std::size_t i = f.body_open + 1; i < f.body_close; ++i) {
        if (!src.is_ident(i) || src[i].in_directive) continue;
        const std::size_t before = src.prev_code(i);
        const std::size_t after = src.next_code(i + 1);
        const bool declarator_before =
            (src.is_ident(before) && !may_precede_call(src.spelling(before))) || src.is_punct(before, '*') ||
            src.is_punct(before, '&') || src.is_punct(before, '>');
        const bool declarator_after = src.is_punct(after, '=') || src.is_punct(after, ';') ||
                                      src.is_punct(after, ',') || src.is_punct(after, '{') ||
                                      src.is_punct(after, '[') || src.is_punct(after, ')') ||
                                      src.is_punct(after, ':');
        if (declarator_before && declarator_after) names.insert(src.spelling(i));
    }
    return names;
}

// True when token i sits in a lambda inside the function whose body opens
// at `body_open`: the lambda may be a __device__ one in host code (or the
// other way round), so what it calls is not checked.
bool inside_lambda(const Scopes& scopes, std::size_t i, std::size_t body_open) {
    for (std::size_t b = scopes.enclosing(i); b != npos && b != body_open; b = scopes.parent(b)) {
        if (scopes.info(b).kind == BraceKind::lambda_body) return true;
    }
    return false;
}

const char* const kNoExceptions =
    "device code does not support exception handling (nvcc refuses throw and try in "
    "__global__, __device__ and __host__ __device__ functions; report a problem through an "
    "error flag in device memory, or stop the kernel with assert())";

// Functions of the C library that end the process. nvcc refuses them in
// device code: a kernel cannot end the program.
bool ends_the_process(const std::string& name) {
    return name == "exit" || name == "abort" || name == "quick_exit" || name == "_Exit" || name == "_exit";
}

// CUDA runtime functions that exist for host code only: nvcc 13 refuses each
// in a kernel or __device__ function (checked with nvcc 13.0, -rdc=true,
// sm_90), where the device runtime has its own cudaMalloc, cudaMemcpyAsync,
// cudaStreamCreateWithFlags, cudaGetLastError and the like. The emulator's
// versions would run there, so this check stands in for nvcc's.
bool host_only_runtime_function(const std::string& name) {
    static const std::set<std::string> names = {
        "cudaDeviceSynchronize", "cudaDeviceReset", "cudaSetDevice", "cudaDeviceSetLimit",
        "cudaDriverGetVersion", "cudaGetDeviceProperties", "cudaMemGetInfo",
        "cudaDeviceEnablePeerAccess", "cudaFuncSetCacheConfig",
        "cudaMemcpy", "cudaMemcpy2D", "cudaMemcpyPeer", "cudaMemcpyToSymbol",
        "cudaMemcpyFromSymbol", "cudaMemset", "cudaMallocManaged", "cudaMallocHost",
        "cudaHostAlloc", "cudaFreeHost", "cudaHostGetDevicePointer", "cudaMallocPitch",
        "cudaMallocAsync", "cudaFreeAsync", "cudaStreamCreate", "cudaStreamSynchronize",
        "cudaStreamQuery", "cudaStreamBeginCapture", "cudaLaunchHostFunc", "cudaEventCreate",
        "cudaEventSynchronize", "cudaEventQuery", "cudaEventElapsedTime"};
    return names.count(name) != 0;
}

std::string host_only_runtime_message(const std::string& name, Space caller_space,
                                      const std::string& caller) {
    std::string message = "calling a __host__ function(\"" + name + "\") from a " +
                          space_word(caller_space) + " function(\"" + caller +
                          "\") is not allowed (nvcc refuses it: ";
    if (name == "cudaDeviceSynchronize")
        return message +
               "since CUDA 12 a kernel cannot wait for the grids it launches; launch what needs "
               "their results with cudaStreamTailLaunch, or from the host after a synchronize)";
    return message + "the device runtime has no " + name + ")";
}

}  // namespace

std::vector<Diagnostic> check_device_code(const Source& src, const std::vector<Activity>& activity,
                                          const Scopes& scopes) {
    const std::vector<FunctionDefinition> functions = function_definitions(src);
    std::map<std::string, std::set<Space>> spaces;  // every space each name is defined in
    std::set<std::string> uncertain;
    for (const FunctionDefinition& f : functions) {
        spaces[f.name].insert(f.space);
        if (!f.certain || is_cuda_header_function(f.name)) uncertain.insert(f.name);
    }
    std::vector<Diagnostic> errors;
    // Thread block clusters: a kernel head's __cluster_dims__ would otherwise
    // be a cascade of the host compiler's errors (cooperative_groups.h
    // refuses this_cluster() the same way).
    for (std::size_t i = 0; i < src.size(); ++i) {
        if (src.is_ident(i, "__cluster_dims__") && !src[i].in_directive && activity[i] == Activity::active)
            errors.push_back(src.diagnostic_at(
                i, "cuemu does not emulate thread block clusters (__cluster_dims__): build this "
                   "program with nvcc for a GPU of compute capability 9.0"));
    }
    for (const FunctionDefinition& caller : functions) {
        if (!caller.certain) continue;
        const bool device_side = caller.space != Space::host;
        const std::set<std::string> locals = local_names(src, caller);
        for (std::size_t i = caller.body_open + 1; i < caller.body_close; ++i) {
            if (!src.is_ident(i) || src[i].in_directive) continue;
            if (activity[i] != Activity::active) continue;  // the compiler may never see it
            const std::string name = src.spelling(i);
            if (device_side && (name == "throw" || name == "try") && !inside_lambda(scopes, i, caller.body_open)) {
                errors.push_back(src.diagnostic_at(i, kNoExceptions));
                continue;
            }
            if (locals.count(name) || inside_lambda(scopes, i, caller.body_open)) continue;
            if (!src.is_punct(src.next_code(i + 1), '(')) continue;  // not a call (or f<T>(...))
            const std::size_t before = src.prev_code(i);
            const bool qualified = src.is_punct(before, ':') && src.is_punct(src.prev_code(before), ':');
            const std::size_t scope = qualified ? src.prev_code(src.prev_code(before)) : npos;
            const bool std_or_global = qualified && (src.is_ident(scope, "std") || !src.is_ident(scope));
            if (src.is_punct(before, '.') || src.is_punct(before, '>') || src.is_punct(before, '&') ||
                (qualified && !std_or_global) ||
                (src.is_ident(before) && !may_precede_call(src.spelling(before)))) {
                continue;  // a member, a qualified name, a declaration, an address
            }
            const auto known = spaces.find(name);
            if (known == spaces.end() && device_side && caller.space != Space::host_device &&
                ends_the_process(name)) {
                errors.push_back(src.diagnostic_at(
                    i, "calling a __host__ function(\"" + name + "\") from a " + space_word(caller.space) +
                           " function(\"" + caller.name +
                           "\") is not allowed (nvcc refuses it: a kernel cannot end the program; "
                           "return from the kernel, or stop it with assert())"));
                continue;
            }
            if (known == spaces.end() && device_side && caller.space != Space::host_device &&
                host_only_runtime_function(name)) {
                errors.push_back(src.diagnostic_at(i, host_only_runtime_message(name, caller.space, caller.name)));
                continue;
            }
            if (qualified || caller.space == Space::host_device) continue;
            if (known == spaces.end() || known->second.size() != 1 || uncertain.count(name)) continue;
            const Space callee = *known->second.begin();
            std::string message;
            if (callee == Space::global) {
                message = "a __global__ function call must be configured: launch " + name +
                          " with <<<blocks, threads_per_block>>>(...), not like an ordinary function";
            } else if ((callee == Space::host && caller.space != Space::host) ||
                       (callee == Space::device && caller.space == Space::host)) {
                message = std::string("calling a ") + space_word(callee) + " function(\"" + name +
                          "\") from a " + space_word(caller.space) + " function(\"" + caller.name +
                          "\") is not allowed";
                message += callee == Space::host
                               ? " (nvcc refuses it: mark " + name +
                                     " __device__, or __host__ __device__ to call it from both sides)"
                               : " (nvcc refuses it: a __device__ function runs only on the GPU; mark " +
                                     name + " __host__ __device__ to call it from both sides)";
            } else {
                continue;
            }
            errors.push_back(src.diagnostic_at(i, message));
        }
    }
    return errors;
}

}  // namespace cuemu_rewrite::internal
