// cuemu/launch.h - what a rewritten launch calls.
//
// cuemu-rewrite turns   k<<<grid, block, shmem, stream>>>(a, b)   into
//   ::cuemu::launch(::cuemu::launch_site{"k", __FILE__, __LINE__},
//                   ::cuemu::launch_config(grid, block, shmem, stream),
//                   [=](auto&&... cuemu_args_) CUEMU_BODY_ATTRIBUTES -> decltype(k(cuemu_args_...)) { k(cuemu_args_...); },
//                   ::cuemu::kernel_ref([=](auto cuemu_fp_) -> decltype(...) {...}), a, b)
// The launch returns before the kernel runs: launches are asynchronous, as on
// a GPU. Pointers into host memory among the arguments are screened (below).
//
// Kernel parameters are passed as CUDA passes them (CUDA C++ Programming
// Guide, "__global__ function argument processing"): the host makes its copy
// of each argument (copy constructors run on the host, as nvcc's launch stub
// copies them by value), then the copy's BYTES become the kernel's parameter
// memory, and the host copies are destroyed on the host, possibly before the
// kernel has run. On the device no constructor or destructor of a parameter
// ever runs: every CUDA thread gets the bytes. The kernel is called through
// its address with each parameter that is not trivially copyable handed over
// as a stand-in of the same size whose destructor does nothing; the
// platform's C++ ABI (Itanium: x86-64, AArch64) passes both by the address of
// a caller-owned object and leaves destroying it to the caller, so the kernel
// reads the bytes and nothing destroys them.
//
// A reference parameter (`__global__ void k(Record& r)`, as in the managed
// memory examples) is passed as the address of the caller's object, as nvcc
// passes it: the kernel works on the object itself, and no copy is made. The
// address is screened as a pointer argument is: an object in host memory
// faults where the kernel uses it, as on a GPU.
//
// The kernel_ref lambda gives the kernel's address when the argument types,
// decayed, are exactly its parameter types (overloads and templates resolve
// as for a call), or when they are with lvalues taken as references, or (for
// a kernel with a reference parameter) as launch_by_signature below.
// Otherwise (a float* passed for a const float*, an int for
// a size_t) the first lambda calls the kernel as C++ would: right for every
// trivially copyable argument, which is all a mismatch can involve in
// practice; only then a parameter's copy constructor and destructor run for
// each CUDA thread.
#ifndef CUEMU_LAUNCH_H
#define CUEMU_LAUNCH_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include "null_arguments.h"
#include "split_block.h"
#include "thread_loop.h"
#include "types.h"

namespace cuemu {

struct launch_site {
    const char* kernel;  // as written at the launch, e.g. "vector_add<float>"
    const char* file;
    int line;
};

struct launch_config {
    dim3 grid, block;
    std::size_t shared_bytes;
    cudaStream_t stream;
    bool cooperative = false;  // cudaLaunchCooperativeKernel: every block at once
    // The launch's own loop over a block's threads (thread_loop.h), when it
    // has one; the scheduler otherwise calls run_thread once per thread.
    void (*thread_loop)(void* ctx) = nullptr;
    // The kernel's address where the launch can tell it (the profiler names
    // a kernel launched through a pointer by it); nullptr otherwise.
    const void* kernel = nullptr;
    // The launch runs the kernel's uninstrumented twin because the race check
    // leaves it out (race_check_of_launch): the functions the twin calls keep
    // their instrumentation, and their accesses are not looked at either.
    bool race_check_left_out = false;
    // The race check looks at some of the launch's blocks (race_samples_block)
    // and leaves the others out, as above (sampled_blocks_body below).
    bool race_check_some_blocks = false;
    launch_config(dim3 g, dim3 b, std::size_t shmem = 0, cudaStream_t s = 0)
        : grid(g), block(b), shared_bytes(shmem), stream(s) {}
};

// Checks the configuration at once (an error is recorded for the next
// cudaGetLastError, as on a GPU) and queues the launch for the device thread
// (queue.cpp), which later calls run_thread(ctx) for every CUDA thread. The
// queue owns ctx from here on and calls destroy(ctx) when the launch is done
// or refused.
void enqueue_launch(const launch_site& site, const launch_config& config,
                    void (*run_thread)(void*), void* ctx, void (*destroy)(void*));

// A GPU cannot reach host memory. A pointer argument that points into it (the
// stack, the heap: not device, managed or cudaMallocHost memory, and not a
// global variable) is swapped for an address in a reserved, inaccessible
// window, so a kernel that dereferences it faults and the report names the
// argument (kernel_pointers.cpp). argument counts from 1.
void* screen_pointer_argument(void* p, int argument, const launch_site& site);
// The same for a reference parameter's address (the caller's object): the
// report of a fault then speaks of the object the reference names.
void* screen_reference_argument(void* p, int argument, const launch_site& site);

template <class T>
void screen_argument(T&, int, const launch_site&) {}
template <class T>
void screen_argument(T*& p, int argument, const launch_site& site) {
    if constexpr (!std::is_function_v<T>) {
        void* raw = const_cast<void*>(static_cast<const volatile void*>(p));
        p = static_cast<T*>(screen_pointer_argument(raw, argument, site));
    }
}
template <class Tuple, std::size_t... I>
void screen_arguments(Tuple& args, const launch_site& site, std::index_sequence<I...>) {
    (screen_argument(std::get<I>(args), static_cast<int>(I) + 1, site), ...);
}

// Runs destroy(ctx) now on a host thread; called on the device's own threads
// (an engine letting go of a launch's arguments), later on the host thread
// that next launches or waits for the device (queue.cpp). So the destructor
// of a kernel argument never runs on the device: it may call cudaFree.
void destroy_on_host(void* ctx, void (*destroy)(void*));

// As enqueue_launch, returning the launch's own error instead of leaving it
// for cudaGetLastError alone (cudaLaunchKernel, cudaLaunchCooperativeKernel;
// src/cooperative.cpp). A cooperative launch is checked against what the
// device holds at once here too.
cudaError_t enqueue_launch_returning(const launch_site& site, const launch_config& config,
                                     void (*run_thread)(void*), void* ctx, void (*destroy)(void*));

// The grid-wide barrier of a cooperative launch (src/cooperative.cpp), for
// this_grid() in cooperative_groups.h.
bool grid_is_cooperative();
enum class grid_wait { passed, launch_failed, blocks_ended };
grid_wait grid_barrier_wait();

// ---- parameters as bytes (see the top comment) -------------------------------------
template <class P>
struct param_bytes {
    alignas(P) unsigned char bytes[sizeof(P)];
};
// A reference parameter (`__global__ void k(Record& r)`) is passed as the
// address of the caller's object, as nvcc passes it: the kernel works on that
// object itself (in managed memory, say), never on a copy.
template <class T>
struct param_bytes<T&> {
    T* address;
};

// True when the ABI passes P itself in registers or on the stack: its
// copying and destruction are trivial, so a byte copy IS a copy.
template <class P>
constexpr bool trivial_for_calls =
    std::is_trivially_destructible_v<P> && std::is_trivially_copy_constructible_v<P> &&
    std::is_trivially_move_constructible_v<P>;

// The stand-in for a parameter that is not trivial_for_calls: same size and
// alignment, made from the bytes, and (having a user-provided destructor)
// passed by address like P, whose destructor is never called.
template <class P>
struct opaque_param {
    param_bytes<P> storage;
    explicit opaque_param(const param_bytes<P>& b) { std::memcpy(&storage, &b, sizeof(P)); }
    opaque_param(const opaque_param& o) { std::memcpy(&storage, &o.storage, sizeof(P)); }
    ~opaque_param() {}
};

template <class P>
using abi_param_t = std::conditional_t<trivial_for_calls<P>, P, opaque_param<P>>;

template <class P>
abi_param_t<P> param_from_bytes(const param_bytes<P>& b) {
    if constexpr (std::is_reference_v<P>) {
        return *b.address;
    } else if constexpr (trivial_for_calls<P>) {
        // The bytes are a P: its copying is trivial (it may have no default
        // constructor, as a lambda has none).
        return *std::launder(reinterpret_cast<const P*>(&b));
    } else {
        return opaque_param<P>(b);
    }
}

template <class... P>
void call_with_param_bytes(void (*kernel)(P...), const std::tuple<param_bytes<P>...>& params) {
    auto call = reinterpret_cast<void (*)(abi_param_t<P>...)>(kernel);
    std::apply([call](const auto&... bytes) { call(param_from_bytes(bytes)...); }, params);
}

// The parameter memory of P from the host object at source.
template <class P>
void fill_param_bytes(param_bytes<P>& b, const void* source) {
    if constexpr (std::is_reference_v<P>) {
        b.address = static_cast<std::remove_reference_t<P>*>(const_cast<void*>(source));
    } else {
        std::memcpy(&b, source, sizeof(P));
    }
}

// A pointer parameter is screened in parameter memory (pointers are trivially
// copyable: their bytes are their value); so is a reference's address.
template <class P>
void screen_param_bytes(param_bytes<P>& b, int argument, const launch_site& site) {
    if constexpr (std::is_reference_v<P>) {
        using object = std::remove_reference_t<P>;
        void* raw = const_cast<void*>(static_cast<const volatile void*>(b.address));
        b.address = static_cast<object*>(screen_reference_argument(raw, argument, site));
    } else if constexpr (std::is_pointer_v<P>) {
        P p;
        std::memcpy(&p, &b, sizeof p);
        screen_argument(p, argument, site);
        std::memcpy(&b, &p, sizeof p);
    }
}

// Queues a launch of kernel with parameter memory copied from sources[i],
// the address of a host object of the i-th parameter's type.
template <class... P, std::size_t... I>
cudaError_t launch_with_param_bytes(const launch_site& site, const launch_config& config,
                                    void (*kernel)(P...), bool returning,
                                    const void* const* sources, std::index_sequence<I...>) {
    struct context {
        void (*kernel)(P...);
        std::tuple<param_bytes<P>...> params;
    };
    auto* ctx = new context{kernel, {}};
    (fill_param_bytes<P>(std::get<I>(ctx->params), sources[I]), ...);
    // Screened here, at the launch, so the report names the argument as the
    // program passed it.
    (screen_param_bytes(std::get<I>(ctx->params), static_cast<int>(I) + 1, site), ...);
    auto run = [](void* p) {
        auto* c = static_cast<context*>(p);
        call_with_param_bytes(c->kernel, c->params);
    };
    auto destroy = [](void* p) { delete static_cast<context*>(p); };
    if (returning) return enqueue_launch_returning(site, config, run, ctx, destroy);
    enqueue_launch(site, config, run, ctx, destroy);
    return cudaSuccess;
}

// cudaLaunchKernel's way in: args[i] points at the i-th argument, which is
// copied as bytes, with no constructor, as the real call does.
template <class... P>
cudaError_t launch_kernel_pointer(const launch_site& site, const launch_config& config,
                                  void (*kernel)(P...), void** args) {
    if (!kernel) return cudaErrorInvalidDeviceFunction;
    if (sizeof...(P) > 0 && !args) return cudaErrorInvalidValue;
    return launch_with_param_bytes(site, config, kernel, true,
                                   const_cast<const void* const*>(args),
                                   std::index_sequence_for<P...>{});
}

// The second lambda of a rewritten launch: called with a
// kernel_pointer_request<void (*)(A...)>, it returns the kernel's address as
// that type when it can (SFINAE in its return type when it cannot).
template <class FunctionPointer>
struct kernel_pointer_request {
    using type = FunctionPointer;
};
// Asked for this, the lambda gives the address of the one kernel its name
// names, whatever its parameter types, where the name is neither overloaded
// nor a template whose arguments the launch deduces: what a launch whose
// arguments convert to the parameters (a float* for a const float*) needs
// to find the kernel's __launch_bounds__, static __shared__ bytes and
// cudaFuncSetAttribute settings (kernel_facts.cpp).
struct any_kernel_address {
    const void* address;
    template <class... P>
    any_kernel_address(void (*kernel)(P...)) : address(reinterpret_cast<const void*>(kernel)) {}
};
template <class Resolver>
struct kernel_ref {
    Resolver resolve;
};
template <class Resolver>
kernel_ref(Resolver) -> kernel_ref<Resolver>;

// ---- the race check's default ----------------------------------------------------
// cuemu-rewrite ends a source that uses __shared__ as written (extern
// __shared__ included, or in a project header it includes) with
// CUEMU_SOURCE_USES_SHARED_MEMORY: a program with such a source has the
// shared-memory race check on unless CUEMU_CHECK=none (race_detector.cpp).
bool note_source_uses_shared_memory();
#define CUEMU_SOURCE_USES_SHARED_MEMORY                                                    \
    namespace {                                                                            \
    [[maybe_unused]] const bool cuemu_source_uses_shared_memory_ =                         \
        ::cuemu::note_source_uses_shared_memory();                                         \
    }

// ---- a kernel's uninstrumented twin ----------------------------------------------
// In a source compiled with the race check's instrumentation (every kernel
// source is), every load and store of a kernel calls a hook (tsan_hooks.cpp),
// which costs even when the race check is off: the calls spill the running
// values around every shared-memory access. So cuemu-rewrite follows each
// kernel it can copy safely with a twin, __cuemu_fast_NAME: the same rewritten
// body under the same #line numbers, built without the instrumentation. A
// launch of NAME passes CUEMU_FAST_BODY(__cuemu_fast_NAME), and the launch runs
// the twin unless the race check is on for this launch (twins_allowed()); a
// template's twin is a template, named with the launch's template arguments
// where it names them. Where no twin exists
// (a specialized template kernel, a kernel defined after the launch or in another file, a
// kernel with volatile accesses, which must reach the hooks to run warp by
// warp) the lambda's return type fails to form, and the instrumented kernel runs.
// A kernel whose text cannot reach shared memory (cuemu-rewrite's
// shared_reach.h) also declares __cuemu_fast_NAME(shared_memory_free); its twin
// runs under the race check too, which has nothing to look at in it (the
// functions it calls keep their instrumentation).
// What the race check looks at in a launch (src/race_detector.cpp): none of
// its blocks (the twin runs), every block (the instrumented kernel runs), or
// some of them (each block runs one or the other).
enum class race_blocks { none, every, sampled };
race_blocks race_check_of_launch(const launch_site& site, const launch_config& config);
// Whether the race check looks at the block this worker runs now (set when a
// block starts, src/block_loop.cpp), for a launch that samples its blocks.
extern __thread bool tls_block_race_checked;
bool shared_memory_free_twins_allowed();
struct shared_memory_free {};
struct no_fast_body_part {};
// A kernel that cuemu-rewrite could cut at its barriers (rewriter/
// split_regions.h) also has __cuemu_fast_NAME(split_tag, ...), run once per
// block (split_block.h); the launches the race check leaves out run it.
// A barrier-free kernel whose checked accesses are all its pointer
// parameters indexed (cuemu-rewrite's aligned_twin.h) also has
// __cuemu_fast_NAME(aligned_tag, ...), the twin without the misaligned-access
// check, and __cuemu_fast_NAME(alignment_probe&, ...), which sets `aligned`
// when every pointer parameter the kernel uses is aligned for its type: then
// no access of the kernel's own text can be misaligned, and a launch that
// would run the twin runs the aligned one (src/aligned_twins.cpp).
struct aligned_tag {};
struct alignment_probe {
    bool aligned = true;
};
template <class T>
__attribute__((no_sanitize("thread"))) inline bool aligned_for(T* p) {
    if constexpr (std::is_void_v<T> || std::is_function_v<T>)
        return true;
    else
        return reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0;
}
// Whether launches may run aligned twins now (CUEMU_ALIGNED_TWINS), and how
// many launches have (for tests).
bool aligned_twins_allowed();
void count_aligned_twin_launch();
std::uint64_t aligned_twin_launches();

template <class Fast, class Probe, class Split, class Aligned = no_fast_body_part,
          class AlignmentProbe = no_fast_body_part>
struct fast_body {
    Fast body;
    Probe probe;  // callable with shared_memory_free when the kernel cannot reach shared memory
    Split split;  // callable with split_tag when the kernel has a split version
    Aligned aligned;                 // the aligned twin, where there is one
    AlignmentProbe alignment_probe;  // callable with alignment_probe& where there is one
};
template <class Fast, class Probe, class Split, class Aligned, class AlignmentProbe>
fast_body(Fast, Probe, Split, Aligned, AlignmentProbe) -> fast_body<Fast, Probe, Split, Aligned, AlignmentProbe>;
struct no_fast_body {};
#if defined(__SANITIZE_THREAD__)
#define CUEMU_FAST_BODY(twin)                                                              \
    ::cuemu::fast_body {                                                                   \
        [=](auto&&... cuemu_args_) __attribute__((no_sanitize("thread")))                  \
            -> decltype(twin(cuemu_args_...)) { twin(cuemu_args_...); },                   \
        [](auto cuemu_mark_) -> decltype(twin(cuemu_mark_)) {},                            \
        [=](::cuemu::split_tag cuemu_tag_, auto&&... cuemu_args_) __attribute__((          \
            no_sanitize("thread"))) -> decltype(twin(cuemu_tag_, cuemu_args_...)) {        \
            twin(cuemu_tag_, cuemu_args_...);                                              \
        },                                                                                 \
        [=](auto&&... cuemu_args_) __attribute__((no_sanitize("thread")))                  \
            -> decltype(twin(::cuemu::aligned_tag{}, cuemu_args_...)) {                    \
            twin(::cuemu::aligned_tag{}, cuemu_args_...);                                  \
        },                                                                                 \
        [=](::cuemu::alignment_probe& cuemu_probe_, auto&&... cuemu_args_) __attribute__(( \
            no_sanitize("thread"))) -> decltype(twin(cuemu_probe_, cuemu_args_...)) {      \
            twin(cuemu_probe_, cuemu_args_...);                                            \
        }                                                                                  \
    }
#else
#define CUEMU_FAST_BODY(twin) ::cuemu::no_fast_body{}
#endif
// The launch's own lambda, which calls the instrumented kernel: left
// uninstrumented itself, so that GCC calls the kernel instead of inlining it
// (it inlines nothing across a difference in sanitizer attributes) and the
// kernel's parameters reach it as values, not as loads through the lambda's
// references that would each call a hook (the race check, the profiler).
#if defined(__SANITIZE_THREAD__)
#define CUEMU_BODY_ATTRIBUTES __attribute__((no_sanitize("thread")))
#else
#define CUEMU_BODY_ATTRIBUTES
#endif

template <class Body, class Resolver, class... Args>
void launch(const launch_site& site, const launch_config& config, Body body,
            kernel_ref<Resolver> ref, Args&&... args);

// The twin as a launch's body, carrying the kernel's split version along to
// the launch's loop (split_loop_of).
template <class Fast, class Split>
struct split_body {
    Fast body;
    Split split;
    template <class... A>
    __attribute__((no_sanitize("thread"))) auto operator()(A&&... a) const
        -> decltype(body(std::forward<A>(a)...)) {
        body(std::forward<A>(a)...);
    }
};
template <class T>
struct is_split_body : std::false_type {};
template <class Fast, class Split>
struct is_split_body<split_body<Fast, Split>> : std::true_type {};

// A launch whose blocks the race check samples: each block runs the
// instrumented kernel (`checked`, the launch's own body) or the twin, or its
// split version (`unchecked`), as the block's start decided
// (tls_block_race_checked); the launch's loop chooses once a block
// (sampled_loop_of), this once a thread where the scheduler starts threads
// one by one (CUEMU_SCHEDULE).
template <class Checked, class Unchecked>
struct sampled_blocks_body {
    Checked checked;
    Unchecked unchecked;
    template <class... A>
    __attribute__((no_sanitize("thread"))) void operator()(A&&... a) const {
        if (tls_block_race_checked)
            checked(std::forward<A>(a)...);
        else
            unchecked(std::forward<A>(a)...);
    }
};
template <class T>
struct is_sampled_blocks_body : std::false_type {};
template <class Checked, class Unchecked>
struct is_sampled_blocks_body<sampled_blocks_body<Checked, Unchecked>> : std::true_type {};

// Runs the launch on the aligned twin and returns true where `fast` has one
// and the probe passes for these arguments; else returns false.
template <class Resolver, class Fast, class Probe, class Split, class Aligned, class AlignmentProbe,
          class... Args>
bool launch_aligned_twin(const launch_site& site, const launch_config& config, kernel_ref<Resolver> ref,
                         const fast_body<Fast, Probe, Split, Aligned, AlignmentProbe>& fast, Args&&... args) {
    if constexpr (std::is_invocable_v<const AlignmentProbe&, alignment_probe&, std::decay_t<Args>&...> &&
                  std::is_invocable_v<const Aligned&, std::decay_t<Args>&...>) {
        if (!aligned_twins_allowed()) return false;
        alignment_probe probe;
        fast.alignment_probe(probe, args...);
        if (!probe.aligned) return false;
        count_aligned_twin_launch();
        launch(site, config, fast.aligned, ref, std::forward<Args>(args)...);
        return true;
    } else {
        return false;
    }
}

template <class Body, class Resolver, class Fast, class Probe, class Split, class Aligned, class AlignmentProbe,
          class... Args>
void launch(const launch_site& site, const launch_config& config, Body body, kernel_ref<Resolver> ref,
            fast_body<Fast, Probe, Split, Aligned, AlignmentProbe> fast, Args&&... args) {
    if constexpr (needs_integer_marks<Body, Args...>) {
        // 0 or NULL for a pointer parameter (null_arguments.h).
        launch(site, config, body, ref, fast, mark_integer(std::forward<Args>(args))...);
        return;
    } else if constexpr (std::is_invocable_v<const Fast&, std::decay_t<Args>&...>) {
        constexpr bool shared_free = std::is_invocable_v<const Probe&, shared_memory_free>;
        const race_blocks checked = race_check_of_launch(site, config);
        if (checked == race_blocks::none) {
            launch_config left_out = config;
            left_out.race_check_left_out = true;
            if constexpr (std::is_invocable_v<const Split&, split_tag, std::decay_t<Args>&...>) {
                if (split_blocks_allowed()) {
                    launch(site, left_out, split_body<Fast, Split>{fast.body, fast.split}, ref,
                           std::forward<Args>(args)...);
                    return;
                }
            }
            if (launch_aligned_twin(site, left_out, ref, fast, std::forward<Args>(args)...)) return;
            launch(site, left_out, fast.body, ref, std::forward<Args>(args)...);
            return;
        }
        if (checked == race_blocks::sampled && !shared_free) {
            launch_config some = config;
            some.race_check_some_blocks = true;
            if constexpr (std::is_invocable_v<const Split&, split_tag, std::decay_t<Args>&...>) {
                if (split_blocks_allowed()) {
                    using unchecked = split_body<Fast, Split>;
                    launch(site, some, sampled_blocks_body<Body, unchecked>{body, unchecked{fast.body, fast.split}},
                           ref, std::forward<Args>(args)...);
                    return;
                }
            }
            launch(site, some, sampled_blocks_body<Body, Fast>{body, fast.body}, ref, std::forward<Args>(args)...);
            return;
        }
        if (shared_free && shared_memory_free_twins_allowed()) {
            if (launch_aligned_twin(site, config, ref, fast, std::forward<Args>(args)...)) return;
            launch(site, config, fast.body, ref, std::forward<Args>(args)...);
            return;
        }
    }
    launch(site, config, body, ref, std::forward<Args>(args)...);
}
template <class Body, class Resolver, class... Args>
void launch(const launch_site& site, const launch_config& config, Body body,
            kernel_ref<Resolver> ref, no_fast_body, Args&&... args) {
    launch(site, config, body, ref, std::forward<Args>(args)...);
}

// The host's copies of the by-value parameters, made with the arguments'
// copy constructors, as nvcc's stub makes them, and destroyed on the host when
// this returns; a reference parameter refers to the caller's object.
template <class... P, class... Args>
void launch_with_host_copies(const launch_site& site, const launch_config& config,
                             void (*kernel)(P...), Args&&... args) {
    std::tuple<P...> host_copies(std::forward<Args>(args)...);
    const void* sources[sizeof...(P) + 1] = {};
    std::apply(
        [&](auto&... held) {
            int i = 0;
            ((sources[i++] = static_cast<const void*>(std::addressof(held))), ...);
        },
        host_copies);
    launch_config named = config;
    if (!named.kernel) named.kernel = reinterpret_cast<const void*>(kernel);
    launch_with_param_bytes(site, named, kernel, false, sources, std::index_sequence_for<P...>{});
}

// The kernel's parameter types, tried in turn when the arguments' decayed
// types are not them: a class lvalue for a reference parameter (T&, then
// const T&), then any lvalue for one (`int& counter`).
template <class A>
using class_as_reference_t =
    std::conditional_t<std::is_lvalue_reference_v<A> && std::is_class_v<std::remove_reference_t<A>>, A,
                       std::decay_t<A>>;
template <class A>
using class_as_const_reference_t =
    std::conditional_t<std::is_class_v<std::remove_reference_t<A>>, const std::remove_reference_t<A>&,
                       std::decay_t<A>>;
template <class A>
using lvalue_as_reference_t = std::conditional_t<std::is_lvalue_reference_v<A>, A, std::decay_t<A>>;

// A kernel with a reference parameter whose arguments are none of the types
// above (a derived object for a `const Base&`, a float* for a const float*
// beside it): asked for as this class, the resolver deduces the kernel's own
// parameter types P from its address (a kernel that is neither overloaded nor
// a template deduced at the launch), and the launch makes the host copies of
// the by-value parameters from the arguments A and passes each reference as
// the address of the object it binds to, as nvcc's stub does: no copy.
template <class... A>
struct launch_by_signature {
    using erased_kernel = void (*)();
    void (*run)(const launch_site&, const launch_config&, erased_kernel, void* const*) = nullptr;
    erased_kernel kernel = nullptr;

    template <class... P, std::enable_if_t<sizeof...(P) == sizeof...(A) &&
                                                (std::is_reference_v<P> || ...) &&
                                                std::is_constructible_v<std::tuple<P...>, A...>,
                                            int> = 0>
    launch_by_signature(void (*k)(P...))
        : run(&run_as<P...>), kernel(reinterpret_cast<erased_kernel>(k)) {}

    template <class... P>
    static void run_as(const launch_site& site, const launch_config& config, erased_kernel k,
                       void* const* args) {
        run_as_indexed<P...>(site, config, reinterpret_cast<void (*)(P...)>(k), args,
                             std::index_sequence_for<A...>{});
    }
    template <class... P, std::size_t... I>
    static void run_as_indexed(const launch_site& site, const launch_config& config,
                               void (*k)(P...), void* const* args, std::index_sequence<I...>) {
        launch_with_host_copies(
            site, config, k,
            std::forward<A>(*static_cast<std::remove_reference_t<A>*>(args[I]))...);
    }
    // a: the launch's own arguments, alive until the launch returns.
    template <class... Same>
    void operator()(const launch_site& site, const launch_config& config, Same&&... a) const {
        void* args[sizeof...(A) + 1] = {
            const_cast<void*>(static_cast<const volatile void*>(std::addressof(a)))...};
        run(site, config, kernel, args);
    }
};

template <class Body, class Resolver, class... Args>
void launch_resolved(const launch_site& site, const launch_config& config, Body body,
                     kernel_ref<Resolver> ref, Args&&... args);

template <class Body, class Resolver, class... Args>
void launch(const launch_site& site, const launch_config& config, Body body,
            kernel_ref<Resolver> ref, Args&&... args) {
    if constexpr (needs_integer_marks<Body, Args...>)
        // 0 or NULL for a pointer parameter (null_arguments.h).
        launch_resolved(site, config, body, ref, mark_integer(std::forward<Args>(args))...);
    else
        launch_resolved(site, config, body, ref, std::forward<Args>(args)...);
}

template <class Body, class Resolver, class... Args>
void launch_resolved(const launch_site& site, const launch_config& config, Body body,
                     kernel_ref<Resolver> ref, Args&&... args) {
    using pointer = void (*)(std::decay_t<Args>...);
    using class_reference_pointer = void (*)(class_as_reference_t<Args&&>...);
    using const_class_reference_pointer = void (*)(class_as_const_reference_t<Args&&>...);
    using lvalue_reference_pointer = void (*)(lvalue_as_reference_t<Args&&>...);
    using by_signature = launch_by_signature<Args&&...>;
    constexpr bool by_value = std::is_invocable_r_v<pointer, Resolver, kernel_pointer_request<pointer>>;
    // Where every argument is trivial_for_calls, its bytes are its value, and
    // calling the kernel as C++ does (below) is the same as calling it with
    // parameter bytes; that way the kernel is called directly, not through
    // its address, and the loop over a block's threads can inline it.
    constexpr bool all_trivial = (trivial_for_calls<std::decay_t<Args>> && ...);
    if constexpr (by_value) {
        if (!config.kernel) {
            launch_config named = config;
            named.kernel = reinterpret_cast<const void*>(ref.resolve(kernel_pointer_request<pointer>{}));
            launch(site, named, body, ref, std::forward<Args>(args)...);
            return;
        }
    }
    if constexpr (by_value && !all_trivial) {
        launch_with_host_copies(site, config, ref.resolve(kernel_pointer_request<pointer>{}),
                                std::forward<Args>(args)...);
    } else if constexpr (by_value) {
        launch(site, config, body, std::forward<Args>(args)...);
    } else if constexpr (std::is_invocable_r_v<class_reference_pointer, Resolver,
                                               kernel_pointer_request<class_reference_pointer>>) {
        launch_with_host_copies(site, config,
                                ref.resolve(kernel_pointer_request<class_reference_pointer>{}),
                                std::forward<Args>(args)...);
    } else if constexpr (std::is_invocable_r_v<const_class_reference_pointer, Resolver,
                                               kernel_pointer_request<const_class_reference_pointer>>) {
        launch_with_host_copies(site, config,
                                ref.resolve(kernel_pointer_request<const_class_reference_pointer>{}),
                                std::forward<Args>(args)...);
    } else if constexpr (std::is_invocable_r_v<lvalue_reference_pointer, Resolver,
                                               kernel_pointer_request<lvalue_reference_pointer>>) {
        launch_with_host_copies(site, config,
                                ref.resolve(kernel_pointer_request<lvalue_reference_pointer>{}),
                                std::forward<Args>(args)...);
    } else if constexpr (std::is_invocable_r_v<by_signature, Resolver,
                                               kernel_pointer_request<by_signature>>) {
        ref.resolve(kernel_pointer_request<by_signature>{})(site, config, std::forward<Args>(args)...);
    } else {
        // Arguments that convert to the parameters: the kernel is called as
        // C++ calls it (launch.h's top), and known by its name's one address.
        if constexpr (std::is_invocable_v<Resolver, kernel_pointer_request<any_kernel_address>>) {
            if (!config.kernel) {
                launch_config named = config;
                named.kernel = ref.resolve(kernel_pointer_request<any_kernel_address>{}).address;
                launch(site, named, body, std::forward<Args>(args)...);
                return;
            }
        }
        launch(site, config, body, std::forward<Args>(args)...);
    }
}

// The loop over a block's threads for a launch whose context holds `body`
// and `args` (thread_loop.h). The loop's own code is not instrumented (its
// memory is the emulator's, not the kernel's); the kernel keeps its
// instrumentation wherever it is inlined.
template <class Tuple>
struct elements_trivially_copyable;
template <class... T>
struct elements_trivially_copyable<std::tuple<T...>>
    : std::bool_constant<(std::is_trivially_copyable_v<T> && ...)> {};

template <class Context>
__attribute__((no_sanitize("thread", "alignment"))) void thread_loop_of(void* p) {
    auto* c = static_cast<Context*>(p);
    if constexpr (elements_trivially_copyable<decltype(c->args)>::value) {
        // The arguments as local values: the compiler keeps them in registers
        // across the loop (every thread still gets its own copies from them).
        std::apply([c](auto... args) { run_threads(c->body, args...); }, c->args);
    } else {
        run_threads([c] { std::apply(c->body, c->args); });
    }
}

// A block's threads, for a launch whose arguments are trivially copyable
// (as local values, as in thread_loop_of): `body` runs each thread, or, where
// it carries a split version (split_body), the version runs the block's
// threads itself (split_block.h), unless it declines the block (a split
// version with shuffles, for a block with a partial warp). Where a fiber takes the loop up again
// after a thread of the block started, which no split block does, the
// twin's loop goes on instead.
template <class Body, class Tuple>
__attribute__((no_sanitize("thread", "alignment"))) void run_block_with(const Body& body, const Tuple& args) {
    if constexpr (is_split_body<Body>::value) {
        if (tls_thread_cursor.next == 0) {
            detail::tls_split_declined = false;
            std::apply([&body](auto... a) { body.split(split_tag{}, a...); }, args);
            if (!detail::tls_split_declined) return;  // else a partial warp: on fibers
        }
    }
    std::apply([&body](auto... a) { run_threads(body, a...); }, args);
}

// A block of a kernel with a split version (run_block_with).
template <class Context>
__attribute__((no_sanitize("thread", "alignment"))) void split_loop_of(void* p) {
    auto* c = static_cast<Context*>(p);
    run_block_with(c->body, c->args);
}

// A block of a launch whose blocks the race check samples: the instrumented
// kernel's loop, or the twin's (its split version's, where it has one).
template <class Context>
__attribute__((no_sanitize("thread", "alignment"))) void sampled_loop_of(void* p) {
    auto* c = static_cast<Context*>(p);
    if (tls_block_race_checked)
        run_block_with(c->body.checked, c->args);
    else
        run_block_with(c->body.unchecked, c->args);
}

template <class Body, class... Args>
void launch(const launch_site& site, const launch_config& config, Body body, Args&&... args) {
    // The kernel runs after this call returns, so the arguments live on the
    // heap, copied once by value, as a GPU copies them into parameter memory.
    struct context {
        Body body;
        std::tuple<std::decay_t<Args>...> args;
    };
    auto* ctx = new context{body, std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...)};
    // Screened here, at the launch, so the report names the argument as the
    // program passed it.
    screen_arguments(ctx->args, site, std::index_sequence_for<Args...>{});
    launch_config with_loop = config;
    with_loop.thread_loop = thread_loop_of<context>;
    if constexpr (is_split_body<Body>::value &&
                  elements_trivially_copyable<std::tuple<std::decay_t<Args>...>>::value)
        with_loop.thread_loop = split_loop_of<context>;
    if constexpr (is_sampled_blocks_body<Body>::value &&
                  elements_trivially_copyable<std::tuple<std::decay_t<Args>...>>::value)
        with_loop.thread_loop = sampled_loop_of<context>;
    enqueue_launch(site, with_loop,
                   [](void* p) {
                       auto* c = static_cast<context*>(p);
                       std::apply(c->body, c->args);
                   },
                   ctx, [](void* p) {
                       // The engine that ran the kernel lets go of ctx; an
                       // argument's destructor (cudaFree in it, say) runs on
                       // the host, as a host copy's does on CUDA.
                       if constexpr (std::is_trivially_destructible_v<context>)
                           delete static_cast<context*>(p);
                       else
                           destroy_on_host(p, [](void* q) { delete static_cast<context*>(q); });
                   });
}

}  // namespace cuemu

#endif
