// test_rewriter_split.cpp - which kernels cuemu-rewrite cuts at their
// barriers into loops over a block's threads (rewriter/split_regions.h), and
// which it leaves to the fiber path: a split version is only made where the
// cut is certain. tests/emu/test_split_blocks.cu runs them.
#include <doctest/doctest.h>

#include <string>

#include "rewrite.h"
#include "rewriter_test_support.h"

using namespace rewriter_test;

namespace {
const std::string kSplitHead = "__cuemu_fast_k(::cuemu::split_tag";

std::string rewritten(const std::string& source, const cuemu_rewrite::Options& options = {}) {
    const cuemu_rewrite::Result r = cuemu_rewrite::rewrite(source, kName, options);
    REQUIRE_MESSAGE(r.errors.empty(), describe(r.errors));
    return r.output;
}
bool split(const std::string& source) { return contains(rewritten(source), kSplitHead); }

const std::string kTiled =
    "__global__ void k(const float* a, float* c, int n) {\n"
    "    __shared__ float t[16][16];\n"
    "    int row = blockIdx.y * 16 + threadIdx.y, col = threadIdx.x;\n"
    "    float sum = 0.0f;\n"
    "    for (int i = 0; i < n / 16; ++i) {\n"
    "        t[threadIdx.y][threadIdx.x] = a[row * n + i * 16 + col];\n"
    "        __syncthreads();\n"
    "        for (int k = 0; k < 16; ++k) sum += t[threadIdx.y][k];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    c[row * n + col] = sum;\n"
    "}\n";
}  // namespace

TEST_SUITE("cuemu-rewrite: kernels split at their barriers") {

TEST_CASE("a tiled kernel gets a split version, with #line back to its own lines") {
    const std::string out = rewritten(kTiled);
    REQUIRE(contains(out, kSplitHead + ", const float* a, float* c, int n) {"));
    // Shared memory once per block; what lives across a barrier in arrays.
    CHECK(contains(out, "#line 2 \"/src/t.cu\"\n__shared__ float t[16][16];"));
    CHECK(contains(out, "auto* __cuemu_pt_sum = __cuemu_sb.storage<"));
    CHECK(contains(out, "__cuemu_sb.barrier(\"/src/t.cu\", 7);"));
    CHECK(contains(out, "__cuemu_sb.barrier(\"/src/t.cu\", 9);"));
    CHECK(contains(out, "#line 8 \"/src/t.cu\"\nfor (int k = 0; k < 16; ++k) sum += t[threadIdx.y][k];"));
    // The line after the kernel is the next line of the source again.
    CHECK(contains(out, "CUEMU_KNOWN_KERNEL(k)\n#line 12 \"/src/t.cu\""));
    cuemu_rewrite::Options off;
    off.split_kernels = false;
    CHECK_FALSE(contains(rewritten(kTiled, off), "split_tag"));
}

TEST_CASE("a loop the same for every thread runs once for the block, around its regions") {
    const std::string uniform_head =
        "for (int i = __cuemu_sb.running() ? (__cuemu_sb.lead(), static_cast<int>(0)) : static_cast<int>(0); "
        "__cuemu_sb.running() && (__cuemu_sb.lead(), static_cast<bool>(i < n / 16)); "
        "static_cast<void>(__cuemu_sb.running() && (__cuemu_sb.lead(), static_cast<void>(++i), true))) {";
    const std::string out = rewritten(kTiled);
    CHECK(contains(out, "#line 5 \"/src/t.cu\"\n" + uniform_head));
    // No array for i, no pass over the threads for the condition or the step.
    CHECK_FALSE(contains(out, "__cuemu_pt_i"));
    CHECK_FALSE(contains(out, "__cuemu_sb.park("));

    // Each of these may differ between threads, or change i in the body:
    // the condition is a pass over the threads, which park where it is false.
    const std::string head = "__global__ void k(float* p, int n, const int* limits) {\n"
                             "    __shared__ float s[64];\n    int mine = n + threadIdx.x;\n";
    auto loop = [&](const std::string& for_head, const std::string& body) {
        return head + "    " + for_head + " {\n        s[threadIdx.x] += p[i];\n        __syncthreads();\n" + body +
               "    }\n    p[threadIdx.x] = s[threadIdx.x] + mine;\n}\n";
    };
    for (const std::string& for_head :
         {"for (int i = threadIdx.x; i < n; i += blockDim.x)", "for (int i = 0; i < mine; ++i)",
          "for (int i = 0; i < limits[0]; ++i)", "for (int i = 0; i < *limits; ++i)",
          "for (int i = 0; i < n; i += mine)", "for (int i = 0; i < clamp(n); ++i)",
          "for (int i = 0; i < n; i = i + 1, ++mine)", "for (int i = 0; i < LIMIT; ++i)",
          "for (int i = 0; (i = i + 1) < n;)"}) {
        CAPTURE(for_head);
        const std::string text = rewritten("#define LIMIT (threadIdx.x + 1)\n" + loop(for_head, ""));
        CHECK(contains(text, kSplitHead));
        CHECK(contains(text, "__cuemu_sb.park("));
    }
    for (const std::string& body : {"        if (s[0] > 0) ++i;\n", "        bump(i);\n", "        int* pi = &i; *pi += 0;\n"}) {
        CAPTURE(body);
        const std::string text = rewritten(loop("for (int i = 0; i < n; ++i)", body));
        CHECK_FALSE(contains(text, "__cuemu_sb.running() && (__cuemu_sb.lead()"));
    }
    // Constants of the kernel, of the file, macros of numbers, blockDim, an
    // enclosing uniform loop's variable, steps of every form: one loop.
    for (const std::string& for_head :
         {"for (int i = 0; i < TILES; ++i)", "for (unsigned i = blockDim.x / 2; i > 0; i >>= 1)",
          "for (int i = 1; i <= kCount; i *= 2)", "for (long i = n - 1; i >= 0; i--)",
          "for (int i = 0; i != (int)sizeof(float) * n; i += 4)", "for (int i = 0; i < half; i = i + 2)"}) {
        CAPTURE(for_head);
        const std::string text =
            rewritten("#define TILES (4 * 2)\nconstexpr int kCount = 8;\n" +
                      loop(for_head, "").insert(head.size() - 1, "\n    const int half = n / 2;"));
        CHECK(contains(text, "__cuemu_sb.running() && (__cuemu_sb.lead(), static_cast<bool>("));
        CHECK_FALSE(contains(text, "__cuemu_sb.park("));
    }
    // A scalar nothing changes after its declaration is a constant: declared
    // once above the regions, and a loop bounded by it is the same for every
    // thread (a __device__ function's parameter, written in, is one).
    const std::string counted = head + "    int count = n / 2;\n";
    const std::string rest = loop("for (int i = 0; i < count; ++i)", "").substr(head.size());
    const std::string unchanged = rewritten(counted + rest);
    CHECK(contains(unchanged, "__shared__ float s[64];\n#line 4 \"/src/t.cu\"\nint count = n / 2;"));
    CHECK_FALSE(contains(unchanged, "__cuemu_sb.park("));
    for (const std::string& change : {"    count += 1;\n", "    bump(count);\n", "    int* pc = &count; *pc = 1;\n"}) {
        CAPTURE(change);
        const std::string changed = rewritten(counted + change + rest);
        CHECK_FALSE(contains(changed, "__shared__ float s[64];\n#line 4 \"/src/t.cu\"\nint count = n / 2;"));
        CHECK_FALSE(contains(changed, "static_cast<bool>(i < count)"));
    }
    const std::string nested = rewritten(loop("for (int i = 0; i < n; ++i)",
                                              "        for (int j = i; j < 4; ++j) {\n"
                                              "            s[j] += 1.0f;\n            __syncthreads();\n        }\n"));
    CHECK(contains(nested, "static_cast<bool>(j < 4)"));
    CHECK_FALSE(contains(nested, "__cuemu_sb.park("));
}

TEST_CASE("the block's cooperative group: its sync is a barrier, the rest of cooperative groups is not split") {
    const std::string head = "__global__ void k(float* p) {\n    cg::thread_block block = cg::this_thread_block();\n"
                             "    __shared__ float s[64];\n    s[block.thread_rank()] = p[threadIdx.x];\n";
    const std::string tail = "    p[threadIdx.x] = s[63 - threadIdx.x];\n}\n";
    for (const std::string& wait :
         {"    cg::sync(block);\n", "    block.sync();\n", "    cg::this_thread_block().sync();\n",
          "    cooperative_groups::sync(block);\n", "    __syncthreads();\n"}) {
        CAPTURE(wait);
        const std::string out = rewritten(head + wait + tail);
        REQUIRE(contains(out, kSplitHead));
        // The group holds nothing of a thread's: declared once, above the regions.
        CHECK(contains(out, "__cuemu_sb;\n#line 2 \"/src/t.cu\"\ncg::thread_block block = cg::this_thread_block();"));
        CHECK(contains(out, "__cuemu_sb.barrier(\"/src/t.cu\", 5);"));
    }
    CHECK(split("__global__ void k(float* p) {\n    const cooperative_groups::thread_block b = "
                "cooperative_groups::this_thread_block();\n    p[b.thread_rank()] = 1;\n    b.sync();\n"
                "    p[b.size() - 1] += 1;\n}\n"));
    // A __device__ function given the group, written into the kernel.
    const std::string called = rewritten(
        "__device__ void stage(float* s, const float* p, cg::thread_block group) {\n"
        "    s[group.thread_rank()] = p[threadIdx.x];\n    group.sync();\n}\n" + head +
        "    stage(s, p, block);\n" + tail);
    CHECK(contains(called, kSplitHead));
    // Declared by auto, as learners often write it.
    CHECK(split("__global__ void k(float* p) {\n    auto block = cg::this_thread_block();\n"
                "    p[block.thread_rank()] = 1;\n    block.sync();\n    p[0] += 1;\n}\n"));
    // Tiles, the grid, another group's sync, the group in an expression or
    // passed on, auto for anything else: the fiber path.
    for (const std::string& other :
         {"    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);\n    tile.sync();\n",
          "    cg::grid_group grid = cg::this_grid();\n    grid.sync();\n",
          "    cg::sync(cg::tiled_partition(block, 32));\n", "    if (p[0] > 0) block.sync();\n",
          "    p[0] = cg::reduce(block, 1.0f, cg::plus<float>());\n    block.sync();\n",
          "    auto warp = cg::tiled_partition<32>(block);\n    warp.sync();\n"}) {
        CAPTURE(other);
        CHECK_FALSE(split(head + "    __syncthreads();\n" + other + tail));
    }
}

TEST_CASE("an array kept across barriers is a local copy in each region, unless a pointer is kept") {
    const std::string head = "__global__ void k(float* p) {\n    __shared__ float s[64];\n"
                             "    float acc[4] = {};\n";
    const std::string body = "    __syncthreads();\n    for (int i = 0; i < 4; ++i) acc[i] += s[i];\n"
                             "    __syncthreads();\n    p[threadIdx.x] = acc[0] + acc[3];\n";
    // A local array GCC can keep in registers, copied in and out by its bytes.
    const std::string copied = rewritten(head + body + "}\n");
    CHECK(contains(copied, "__cuemu_ty_acc acc{}; "));
    CHECK(contains(copied, "__cuemu_ty_acc acc; ::std::memcpy(&acc, &__cuemu_pt_acc[__cuemu_sb.t], sizeof acc);"));
    CHECK(contains(copied, "::std::memcpy(&__cuemu_pt_acc[__cuemu_sb.t], &acc, sizeof acc);"));
    // A kept pointer may point into it: the region uses the array of arrays.
    const std::string aliased = rewritten(head + "    float* last = &acc[3];\n" + body + "    p[0] = *last;\n}\n");
    CHECK(contains(aliased, "auto& acc = __cuemu_pt_acc[__cuemu_sb.t];"));
    CHECK_FALSE(contains(aliased, "::std::memcpy(&acc"));
}

TEST_CASE("a kernel without a barrier has no split version") {
    CHECK_FALSE(split("__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n"));
}

TEST_CASE("what the rewriter cannot cut with certainty keeps the fiber path") {
    const std::string head = "__global__ void k(float* p, int n) {\n    __shared__ float s[64];\n";
    const std::string wait = "    s[threadIdx.x] = p[threadIdx.x];\n    __syncthreads();\n";
    const std::string tail = "    p[threadIdx.x] = s[63 - threadIdx.x];\n}\n";
    CHECK(split(head + wait + tail));
    // A barrier in an if, in a do loop, in a nested block.
    CHECK_FALSE(split(head + "    if (n > 0) { __syncthreads(); }\n" + tail));
    CHECK_FALSE(split(head + "    do { __syncthreads(); } while (--n > 0);\n" + tail));
    CHECK_FALSE(split(head + "    { s[0] = 1; __syncthreads(); }\n" + tail));
    // A loop with a barrier left by break or continue.
    CHECK_FALSE(split(head + "    for (int i = 0; i < n; ++i) { if (i == 3) break; __syncthreads(); }\n" + tail));
    // Warp functions (a shuffle writing a parameter, a __syncwarp of a computed mask), other barriers, volatile, asm.
    CHECK_FALSE(split(head + wait + "    n = __shfl_sync(0xffffffffu, n, 0);\n" + tail));
    CHECK_FALSE(split(head + wait + "    n = __syncthreads_count(n);\n" + tail));
    CHECK_FALSE(split(head + wait + "    __syncwarp(n > 0 ? ~0u : 1u);\n" + tail));
    CHECK_FALSE(split(head + wait + "    volatile float* v = s; v[0] = 1;\n" + tail));
    // A lambda, a goto, a local class.
    CHECK_FALSE(split(head + wait + "    auto f = [&](int i) { return s[i]; }; n = f(0);\n" + tail));
    CHECK_FALSE(split(head + wait + "    goto end; end:\n" + tail));
    // Each thread changes its own copy of a parameter.
    CHECK_FALSE(split(head + "    n += threadIdx.x;\n" + wait + tail));
    CHECK_FALSE(split(head + "    ++n;\n" + wait + tail));
    // The address of a variable kept across a barrier.
    CHECK_FALSE(split(head + "    float x = 1;\n    float* px = &x;\n" + wait + "    p[0] = *px;\n" + tail));
    // What is kept across a barrier must be a built-in type (no constructor).
    CHECK_FALSE(split(head + "    Accumulator acc = 0.0f;\n" + wait + "    p[0] = acc.total();\n" + tail));
    // A constant the same for every thread is computed once, above the
    // regions; one that reads memory is not (it would read before the writes).
    CHECK(contains(rewritten(head + wait + "    const int half = n / 2;\n" + tail),
                   "__shared__ float s[64];\n#line 5 \"/src/t.cu\"\nconst int half = n / 2;"));
    CHECK(contains(rewritten(head + wait + "    const int half = n / 2 + blockDim.x;\n" + tail),
                   "__shared__ float s[64];\n#line 5 \"/src/t.cu\"\nconst int half = n / 2 + blockDim.x;"));
    for (const std::string read : {"p[0]", "s[1]", "*p", "2 * *p", "g_total", "n + g_total"})
        CHECK_FALSE(contains(rewritten(head + wait + "    const float first = " + read + ";\n" + tail),
                             "__shared__ float s[64];\n#line 5 \"/src/t.cu\"\nconst float first"));
    // CUDA's vector types are plain structs: fine.
    CHECK(split(head + "    float2 pair = make_float2(1, 2);\n" + wait + "    p[0] = pair.x;\n" + tail));
    // The address of a variable one region alone uses is fine; so is writing
    // through a pointer parameter, and &p[i].
    CHECK(split(head + "    float x = 1;\n    float* px = &x;\n    p[0] = *px;\n" + wait + tail));
    CHECK(split(head + "    p[threadIdx.x] += 1.0f;\n    atomicAdd(&p[0], 1.0f);\n" + wait + tail));
}

TEST_CASE("a barrier under if constexpr: a split version for the condition true only") {
    const std::string head = "template <bool W> __global__ void k(float* p) {\n    __shared__ float s[64];\n"
                             "    s[threadIdx.x] = p[threadIdx.x];\n";
    const std::string tail = "    p[threadIdx.x] = s[63 - threadIdx.x];\n}\n";
    const std::string tag = "__cuemu_fast_k(::std::conditional_t<(W), ::cuemu::split_tag, ::cuemu::split_tag*>";
    const std::string out = rewritten(head + "    if constexpr (W) __syncthreads();\n" + tail);
    CHECK(contains(out, tag));
    CHECK(contains(out, "__cuemu_sb.barrier(\"/src/t.cu\", 4);"));
    CHECK(contains(rewritten(head + "    if constexpr (W) { __syncthreads(); }\n" + tail), tag));
    // Anything more under the condition, or an else, keeps the fiber path.
    CHECK_FALSE(contains(rewritten(head + "    if constexpr (W) { s[0] = 1; __syncthreads(); }\n" + tail), "split_tag"));
    CHECK_FALSE(contains(rewritten(head + "    if constexpr (W) __syncthreads(); else s[0] = 1;\n" + tail), "split_tag"));
    CHECK_FALSE(contains(rewritten(head + "    if (W) __syncthreads();\n" + tail), "split_tag"));
}

TEST_CASE("a template type kept across a barrier: a split version for arithmetic types only") {
    const std::string kernel = "template <typename T, int N> __global__ void k(T* p) {\n"
                               "    __shared__ T s[64];\n    T mine = p[threadIdx.x];\n    s[threadIdx.x] = mine;\n"
                               "    __syncthreads();\n    p[threadIdx.x] = mine + s[N];\n}\n";
    CHECK(contains(rewritten(kernel),
                   "__cuemu_fast_k(::std::conditional_t<(::std::is_arithmetic_v<T>), ::cuemu::split_tag, "
                   "::cuemu::split_tag*>, T* p)"));
    // A class type kept across a barrier: split where it is const (nothing
    // changes it) and trivially copyable; within one region, any class type.
    CHECK(contains(rewritten("__global__ void k(float* p) {\n    __shared__ float s[64];\n"
                             "    const geo::Place mine = place_of(threadIdx.x);\n    __syncthreads();\n"
                             "    p[mine.row] = s[mine.col];\n}\n"),
                   "__cuemu_fast_k(::std::conditional_t<(::std::is_trivially_copyable_v<geo::Place>), "
                   "::cuemu::split_tag, ::cuemu::split_tag*>, float* p)"));
    // (destroyed at the end of its stretch, so for a type without a destructor that does anything)
    CHECK(contains(rewritten("__global__ void k(float* p) {\n    __shared__ float s[64];\n    __syncthreads();\n"
                             "    Loads next{};\n    next.fill(p);\n    s[0] = next.total();\n}\n"),
                   "__cuemu_fast_k(::std::conditional_t<(::std::is_trivially_destructible_v<Loads>), "
                   "::cuemu::split_tag, ::cuemu::split_tag*>, float* p)"));
    // A class type by name is not a template parameter: not split.
    CHECK_FALSE(split("__global__ void k(float* p) {\n    __shared__ float s[64];\n    Acc mine = p[0];\n"
                      "    __syncthreads();\n    p[0] = mine.total();\n}\n"));
}

TEST_CASE("a name declared again in another loop is renamed in its own scope") {
    // Lesson 13's Blelloch scan: `stride` and `i` in each of two loops.
    const std::string loops = "__global__ void k(float* p, int n) {\n    __shared__ float s[64];\n"
                              "    for (int stride = 1; stride < n; stride *= 2) {\n"
                              "        __syncthreads();\n        int i = threadIdx.x * stride;\n"
                              "        if (i < 64) s[i] += 1;\n    }\n"
                              "    for (int stride = n; stride > 0; stride /= 2) {\n"
                              "        __syncthreads();\n        int i = threadIdx.x + stride;\n"
                              "        if (i < 64) s[i] += 2;\n    }\n"
                              "    for (int i = 0; i < 2; ++i) p[i] = s[i];\n}\n";
    const std::string out = rewritten(loops);
    REQUIRE(contains(out, kSplitHead));
    CHECK(contains(out, "for (int stride__cuemu_r1 = __cuemu_sb.running() ? (__cuemu_sb.lead(), static_cast<int>(n))"));
    CHECK(contains(out, "int i__cuemu_r2 = threadIdx.x + stride__cuemu_r1;"));
    CHECK(contains(out, "for (int i__cuemu_r3 = 0; i__cuemu_r3 < 2; ++i__cuemu_r3) p[i__cuemu_r3] = s[i__cuemu_r3];"));
    // Declared again inside the second one's scope, or named by a macro: not followed.
    CHECK_FALSE(split("__global__ void k(float* s, int n) {\n"
                      "    for (int i = 0; i < n; ++i) { __syncthreads(); s[i] = 1; }\n"
                      "    for (int i = 0; i < n; ++i) { __syncthreads(); for (int i = 0; i < 2; ++i) s[i] += 1; }\n}\n"));
    CHECK_FALSE(split("#define TWICE (2 * i)\n" + loops));
}

TEST_CASE("a function that reaches a barrier keeps its callers on fibers, across the tree's files") {
    const std::string caller = "__global__ void k(float* p) {\n    __shared__ float s[64];\n"
                               "    s[threadIdx.x] = p[threadIdx.x];\n    __syncthreads();\n"
                               "    p[threadIdx.x] = helper(s);\n}\n";
    CHECK(split("__device__ float helper(float* s) { return s[0]; }\n" + caller));
    CHECK_FALSE(split("__device__ float helper(float* s) { __syncthreads(); return s[0]; }\n" + caller));
    CHECK_FALSE(split("__device__ float inner(float v) { return __shfl_sync(0xffffffffu, v, 0); }\n"
                      "__device__ float helper(float* s) { return inner(s[0]); }\n" + caller));
    // A volatile parameter: its accesses run a warp's lanes in step.
    CHECK_FALSE(split("__device__ float helper(volatile float* s) { return s[0]; }\n" + caller));
    CHECK_FALSE(split("#define WAIT_ALL() __syncwarp()\n"
                      "__device__ float helper(float* s) { WAIT_ALL(); return s[0]; }\n" + caller));
    // A data member named like a barrier function (a timing struct's `sync`)
    // stops nothing; a member function with a barrier is known by its name.
    CHECK(split("struct Times { double sync, wait; };\n__device__ float helper(float* s) { return s[0]; }\n" +
                caller));
    CHECK_FALSE(split("struct Tile { __device__ void helper() { __syncthreads(); } };\n"
                      "__device__ float helper(float* s) { return s[0]; }\n" + caller));
    // The names of every file count: a header's helper with a barrier.
    cuemu_rewrite::Options tree;
    tree.tree_barrier_names = cuemu_rewrite::SharedNames{};
    tree.tree_barrier_names->names.insert("helper");
    CHECK_FALSE(contains(rewritten("__device__ float helper(float* s);\n" + caller, tree), kSplitHead));
}

// rewriter/split_inline.h: a call of a function with barriers, a statement of
// its own, has the function's body written into the split version.
const std::string kDot =
    "__device__ float dot(const float* a, int n, int row) {\n"  // line 1
    "    __shared__ float t[16];\n"
    "    float sum = 0.0f;\n"
    "    for (int i = 0; i < n; i += 16) {\n"
    "        t[threadIdx.x] = a[row * n + i + threadIdx.x];\n"
    "        __syncthreads();\n"  // line 6
    "        for (int k = 0; k < 16; ++k) sum += t[k];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    return sum;\n"  // line 10
    "}\n";
std::string dot_caller(const std::string& call) {
    return "__global__ void k(const float* a, float* c, int n) {\n"  // line 12
           "    int row = blockIdx.x;\n"
           "    " + call + "\n"  // line 14
           "    c[row] = sum;\n"
           "}\n";
}

TEST_CASE("a function with barriers is written into its caller's split version") {
    const std::string out = rewritten(kDot + dot_caller("float sum = dot(a, n, row);"));
    REQUIRE(contains(out, kSplitHead));
    // Its parameters from the arguments, on the call's line; its own names
    // renamed away from the kernel's (sum, row); its lines its own.
    CHECK(contains(out, "#line 14 \"/src/t.cu\"\nfloat sum;"));
    CHECK(contains(out, "#line 14 \"/src/t.cu\"\nint row__cuemu_in1 = (row);"));
    CHECK(contains(out, "#line 3 \"/src/t.cu\"\nfloat sum__cuemu_in1 = 0.0f;"));
    CHECK(contains(out, "__cuemu_sb.barrier(\"/src/t.cu\", 6);"));
    CHECK(contains(out, "__cuemu_sb.barrier(\"/src/t.cu\", 8);"));
    CHECK(contains(out, "#line 10 \"/src/t.cu\"\nsum = (sum__cuemu_in1);"));
    CHECK(contains(out, "#line 15 \"/src/t.cu\"\nc[row] = sum;"));
    // Assigned to a variable declared before, or a const one, or the result unused.
    CHECK(split(kDot + dot_caller("float sum; sum = dot(a, n, row);")));
    CHECK(split(kDot + dot_caller("const float sum = dot(a, n, row);")));
    CHECK(split(kDot + dot_caller("float sum = 0; dot(a, n, row);")));
}

TEST_CASE("a call that cannot be written in with certainty keeps the fiber path") {
    // The result inside an expression, or added to a variable.
    CHECK_FALSE(split(kDot + dot_caller("float sum = 2.0f * dot(a, n, row);")));
    CHECK_FALSE(split(kDot + dot_caller("float sum = 1; sum += dot(a, n, row);")));
    CHECK_FALSE(split(kDot + dot_caller("float sum = 0; if (n > 0) sum = dot(a, n, row);")));
    // A function with __shared__ variables called twice: one copy a block on a GPU.
    CHECK_FALSE(split(kDot + dot_caller("float sum = dot(a, n, row); float again = dot(a, n, row);")));
    // A name the function takes from outside that the kernel declares.
    const std::string scaled = "__device__ float scale_of(int i) { __syncthreads(); return scale * i; }\n";
    CHECK(split("__constant__ float scale;\n" + scaled + dot_caller("float sum = scale_of(row);")));
    CHECK_FALSE(split("__constant__ float scale;\n" + scaled +
                      dot_caller("float scale = 2; float sum = scale_of(row);")));
    // A return before the end, a reference parameter, a template, an
    // overload, a function that calls itself, or one of another namespace.
    CHECK_FALSE(split("__device__ float f(int i) { __syncthreads(); if (i < 0) return 0; return i; }\n" +
                      dot_caller("float sum = f(row);")));
    CHECK_FALSE(split("__device__ float f(const int& i) { __syncthreads(); return i; }\n" +
                      dot_caller("float sum = f(row);")));
    CHECK_FALSE(split("template <class T> __device__ float f(T i) { __syncthreads(); return i; }\n" +
                      dot_caller("float sum = f(row);")));
    CHECK_FALSE(split("__device__ float f(int i) { __syncthreads(); return i; }\n"
                      "__device__ float f(float x) { __syncthreads(); return x; }\n" +
                      dot_caller("float sum = f(row);")));
    CHECK_FALSE(split("__device__ float f(int i) { __syncthreads(); return i > 0 ? f(i - 1) : 0; }\n" +
                      dot_caller("float sum = f(row);")));
    // A macro of the file that names one of the function's own variables
    // would name something else once they are renamed; one that does not is fine.
    const std::string get = "__device__ float get(const float* a, int i) { __syncthreads(); return AT(i); }\n";
    CHECK_FALSE(split("#define AT(i) a[(i) * 2]\n" + get + dot_caller("float sum = get(a, row);")));
    CHECK_FALSE(split("#define BASE a\n#define AT(i) BASE[i]\n" + get + dot_caller("float sum = get(a, row);")));
    CHECK(split("#define AT(i) (i) * 2.0f\n" + get + dot_caller("float sum = get(a, row);")));
    CHECK_FALSE(split("namespace other { __device__ float f(int i) { __syncthreads(); return i; } }\n"
                      "using namespace other;\n" + dot_caller("float sum = f(row);")));
}

TEST_CASE("a shuffle cuts the kernel: a pass publishes each thread's value, the call reads its source's") {
    const std::string sum =
        "__device__ int warp_sum(int v) {\n"
        "    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);\n"
        "    return v;\n"
        "}\n"
        "__global__ void k(const int* x, int* out) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int v = warp_sum(x[i]);\n"
        "    out[i] = __shfl_xor_sync(~0u, v, 1, 16);\n"
        "}\n";
    const std::string out = rewritten(sum);
    REQUIRE(contains(out, kSplitHead));
    // A block with a partial warp goes to the fibers, before anything runs.
    CHECK(contains(out, "if (__cuemu_sb.declined_partial_warp()) return;\n"));
    CHECK(contains(out, "__cuemu_sb.publish(__cuemu_shv_0, __cuemu_shl_0, ::cuemu::to_warp_bits("));
    CHECK(contains(out, "__cuemu_sb.shuffle<::std::decay_t<decltype( v__cuemu_in1)>>(::cuemu::warp_shfl_down, __cuemu_shv_0, "
                        "__cuemu_shl_0, static_cast<int>(static_cast<unsigned int>( offset__cuemu_in1)), 32)"));
    CHECK(contains(out, "__cuemu_sb.shuffle<::std::decay_t<decltype( v)>>(::cuemu::warp_shfl_xor, __cuemu_shv_1, __cuemu_shl_1, "
                        "static_cast<int>( 1), 16)"));
    // The shuffles' loop is the same for every thread: once for the block.
    CHECK(contains(out, "for (int offset__cuemu_in1 = __cuemu_sb.running()"));
}

TEST_CASE("shuffles the rewriter cannot cut with certainty keep the fiber path") {
    const std::string head = "__global__ void k(const float* p, float* q, unsigned m) {\n"
                             "    float v = p[threadIdx.x];\n";
    const std::string tail = "    q[threadIdx.x] = v;\n}\n";
    CHECK(split(head + "    v += __shfl_xor_sync(0xffffffff, v, 1);\n" + tail));
    CHECK(split(head + "    v += __shfl_up_sync(0xFFFFFFFFU, v, 1, warpSize);\n" + tail));
    // A mask it cannot read as all ones, a width not a literal power of two.
    CHECK_FALSE(split(head + "    v += __shfl_xor_sync(m, v, 1);\n" + tail));
    CHECK_FALSE(split(head + "    v += __shfl_xor_sync(0xffff, v, 1);\n" + tail));
    CHECK_FALSE(split(head + "    v += __shfl_xor_sync(0xffffffff, v, 1, 12);\n" + tail));
    CHECK_FALSE(split(head + "    v += __shfl_xor_sync(0xffffffff, v, 1, threadIdx.x);\n" + tail));
    // A value or parameter that changes something, or calls a function.
    CHECK_FALSE(split(head + "    int i = 0;\n    v += __shfl_xor_sync(0xffffffff, v, i++);\n" + tail));
    CHECK_FALSE(split(head + "    v += __shfl_xor_sync(0xffffffff, v = 2, 1);\n" + tail));
    CHECK_FALSE(split("__device__ float f(float x);\n" + head + "    v += __shfl_xor_sync(0xffffffff, f(v), 1);\n" +
                      tail));
    // A shuffle called only where a condition holds, or in an if, or two in one statement.
    CHECK_FALSE(split(head + "    v = v > 0 ? __shfl_xor_sync(0xffffffff, v, 1) : v;\n" + tail));
    CHECK_FALSE(split(head + "    if (v > 0) v = __shfl_xor_sync(0xffffffff, v, 1);\n" + tail));
    CHECK_FALSE(split(head + "    v = __shfl_xor_sync(0xffffffff, v, 1) + __shfl_xor_sync(0xffffffff, v, 2);\n" +
                      tail));
    // In a loop not the same for every thread.
    CHECK_FALSE(split(head + "    for (int i = threadIdx.x; i < 4; ++i) v += __shfl_xor_sync(0xffffffff, v, 1);\n" +
                      tail));
    // Something whose order between threads shows: the fiber path runs a
    // warp's lanes in its own order among other warps' threads.
    CHECK_FALSE(split(head + "    v += __shfl_xor_sync(0xffffffff, v, 1);\n    atomicAdd(q, v);\n" + tail));
    CHECK_FALSE(split(head + "    v += __shfl_xor_sync(0xffffffff, v, 1);\n    printf(\"%f\", v);\n" + tail));
    // Votes and __syncwarp are cut the same way; other warp functions keep the fibers.
    CHECK(split(head + "    v += __ballot_sync(0xffffffff, v > 0);\n" + tail));
    CHECK(split(head + "    q[threadIdx.x] = 1.0f;\n    __syncwarp();\n" + tail));
    CHECK_FALSE(split(head + "    v += __ballot_sync(m, v > 0);\n" + tail));
    CHECK_FALSE(split(head + "    __syncwarp(m);\n" + tail));
    CHECK_FALSE(split(head + "    v += __reduce_add_sync(0xffffffff, 1);\n" + tail));
    CHECK_FALSE(split(head + "    v += __match_any_sync(0xffffffff, v);\n" + tail));
}

TEST_CASE("an if of the thread's index around shuffles: warps take it whole, checked before the block") {
    const std::string head = "constexpr int WARP = 32;\n"
                             "__global__ void k(const int* x, int* total) {\n"
                             "    int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;\n"
                             "    int v = x[threadIdx.x];\n";
    const std::string body = "    if (warp == 0) {\n"
                             "        v += __shfl_down_sync(0xffffffffu, v, 1);\n"
                             "        if (lane == 0) atomicAdd(total, v);\n"
                             "    }\n}\n";
    const std::string out = rewritten(head + body);
    REQUIRE(contains(out, kSplitHead));
    // Bit 0: the if's condition, each index variable written out; bit 31:
    // the thread may call atomicAdd (one thread of the block at most).
    CHECK(contains(out, "if (__cuemu_sb.declined_block("));
    CHECK(contains(out, "return 0u | (static_cast<bool>((static_cast<int>(threadIdx.x / WARP)) == 0) ? 1u : 0u) | "
                        "(((((static_cast<int>(threadIdx.x / WARP)) == 0) && ((static_cast<int>(threadIdx.x % WARP)) "
                        "== 0))) ? 0x80000000u : 0u); })) return;"));
    CHECK(contains(out, "__cuemu_sb.park(1);"));
    CHECK(contains(out, "__cuemu_sb.unpark(1);"));
    // An else; a condition that reads memory or a variable of the thread's
    // own; a barrier inside.
    CHECK_FALSE(split(head + "    if (warp == 0) { v += __shfl_down_sync(0xffffffffu, v, 1); } else { v = 0; }\n"
                             "    total[threadIdx.x] = v;\n}\n"));
    CHECK_FALSE(split(head + "    if (x[0] > 0) { v += __shfl_down_sync(0xffffffffu, v, 1); }\n"
                             "    total[threadIdx.x] = v;\n}\n"));
    CHECK_FALSE(split(head + "    if (v > 0) { v += __shfl_down_sync(0xffffffffu, v, 1); }\n"
                             "    total[threadIdx.x] = v;\n}\n"));
    CHECK_FALSE(split(head + "    if (warp == 0) { v += __shfl_down_sync(0xffffffffu, v, 1); __syncthreads(); }\n"
                             "    total[threadIdx.x] = v;\n}\n"));
    // A call whose order might show, under a condition that is not of the
    // thread's index, or under none.
    CHECK_FALSE(split(head + "    v += __shfl_down_sync(0xffffffffu, v, 1);\n"
                             "    if (v > 0) atomicAdd(total, v);\n}\n"));
    CHECK_FALSE(split(head + "    v += __shfl_down_sync(0xffffffffu, v, 1);\n    atomicAdd(total, v);\n}\n"));
    CHECK(split(head + "    v += __shfl_down_sync(0xffffffffu, v, 1);\n"
                       "    if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(total, v);\n}\n"));
}

}  // TEST_SUITE
