// flop_plugin.cpp - a GCC plugin that makes instrumented kernels count their
// floating-point arithmetic for the profiler (CUEMU_PROFILE).
//
// Loaded into the compiler for kernel translation units (the ones built with
// -fsanitize=thread, see common/emu/CMakeLists.txt). In every function that
// ThreadSanitizer instruments (not a kernel's uninstrumented twin, which has
// no_sanitize("thread")), it counts, per basic block, the float and double
// additions, multiplications and multiply-adds, and puts at the top of the
// block one call __cuemu_count_flops(packed counts). The call is cheap and
// returns at once unless the profiler runs the kernel (profiler/flops.cpp).
//
// Counted as nvcc would compile the source, before GCC's own optimisations:
//   a + b, a - b            -> add  (FADD / DADD)
//   a * b                   -> mul  (FMUL / DMUL)
//   a * b + c, c - a * b,
//   -(a * b) + c            -> fma  (FFMA / DFMA): nvcc contracts a product whose
//                              only use is an addition (its default
//                              -fmad=true); each addition takes one product
//   fma(a, b, c), fmaf(...) -> fma
// Division, square roots, conversions and comparisons are not counted (on a
// GPU they become other instructions or sequences); half precision is not
// counted. docs/profiler.md says so. A second pass (flop_strip_pass) takes the
// calls out of uninstrumented functions again where inlining brought them in.
#include "gcc-plugin.h"
#include "plugin-version.h"

#include "tree.h"
#include "stringpool.h"
#include "attribs.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "ssa.h"
#include "asan.h"
#include "cgraph.h"
#include "builtins.h"
#include "internal-fn.h"

int plugin_is_GPL_compatible;  // GCC loads only plugins that say this

namespace {

// The packed argument: six 10-bit counts (see profiler/flops.cpp).
enum flop_kind { fadd, fmul, ffma, dadd, dmul, dfma, kinds };
constexpr unsigned field_bits = 10, field_max = (1u << field_bits) - 1;

tree counter_function() {
    static tree fn;
    if (!fn) {
        tree type = build_function_type_list(void_type_node, long_long_unsigned_type_node, NULL_TREE);
        fn = build_fn_decl("__cuemu_count_flops", type);
        TREE_NOTHROW(fn) = 1;
        // It touches no memory the kernel can see: the optimisers may keep
        // values in registers across it, but must keep the call.
        DECL_IS_NOVOPS(fn) = 1;
        DECL_ATTRIBUTES(fn) = tree_cons(get_identifier("leaf"), NULL_TREE, NULL_TREE);
    }
    return fn;
}

// float or double arithmetic; anything else (half, long double, vectors) is -1.
int precision_of(tree type) {
    type = TYPE_MAIN_VARIANT(type);
    if (type == float_type_node) return 0;
    if (type == double_type_node) return 1;
    return -1;
}

bool is_add(gimple* s) {
    if (!is_gimple_assign(s)) return false;
    const tree_code code = gimple_assign_rhs_code(s);
    return code == PLUS_EXPR || code == MINUS_EXPR;
}

// A product nvcc contracts into a multiply-add: its value is used once, by
// an addition in the same block, and that addition has taken no other product.
bool fuses(gimple* mul, basic_block bb, hash_set<gimple*>& fused_adds) {
    tree product = gimple_assign_lhs(mul);
    if (TREE_CODE(product) != SSA_NAME) return false;
    use_operand_p use;
    gimple* user;
    if (!single_imm_use(product, &use, &user) || gimple_bb(user) != bb) return false;
    // -(a * b) + c: nvcc folds the negation into the multiply-add.
    if (is_gimple_assign(user) && gimple_assign_rhs_code(user) == NEGATE_EXPR) {
        tree negated = gimple_assign_lhs(user);
        if (TREE_CODE(negated) != SSA_NAME || !single_imm_use(negated, &use, &user) ||
            gimple_bb(user) != bb)
            return false;
    }
    if (!is_add(user)) return false;
    if (precision_of(TREE_TYPE(gimple_assign_lhs(user))) != precision_of(TREE_TYPE(product))) return false;
    if (fused_adds.contains(user)) return false;
    fused_adds.add(user);
    return true;
}

int kind_of_call(gimple* s) {
    if (gimple_call_internal_p(s))
        return gimple_call_internal_fn(s) == IFN_FMA ? 0 : -1;  // precision from the result
    tree fn = gimple_call_fndecl(s);
    if (!fn || !fndecl_built_in_p(fn, BUILT_IN_NORMAL)) return -1;
    switch (DECL_FUNCTION_CODE(fn)) {
    case BUILT_IN_FMA:
    case BUILT_IN_FMAF:
        return 0;
    default:
        return -1;
    }
}

// An instrumented function keeps its aggregates' loads and stores whole: a
// float4 copied is one 16-byte access, one request as on a GPU, not four
// 4-byte ones. So scalar replacement of aggregates (SRA, which runs after
// this pass) is off for it; its uninstrumented twin, which the emulator runs
// when neither the profiler nor the race check is on, keeps SRA and its speed.
void keep_aggregate_accesses_whole(tree fndecl) {
    cl_optimization saved;
    cl_optimization_save(&saved, &global_options, &global_options_set);
    global_options.x_flag_tree_sra = 0;
    global_options.x_flag_ipa_sra = 0;
    DECL_FUNCTION_SPECIFIC_OPTIMIZATION(fndecl) = build_optimization_node(&global_options, &global_options_set);
    cl_optimization_restore(&global_options, &global_options_set, &saved);
}

const pass_data flop_pass_data = {
    GIMPLE_PASS, "cuemu_flops", OPTGROUP_NONE, TV_NONE, PROP_ssa | PROP_cfg, 0, 0, 0, 0,
};

struct flop_pass : gimple_opt_pass {
    explicit flop_pass(gcc::context* ctx) : gimple_opt_pass(flop_pass_data, ctx) {}
    opt_pass* clone() override { return new flop_pass(m_ctxt); }

    bool gate(function* fun) override { return sanitize_flags_p(SANITIZE_THREAD, fun->decl); }

    // The emulator's own code (namespace cuemu: the compare-and-swap loop of a
    // float atomicAdd, conversions of narrow floats) is not the program's
    // arithmetic: a GPU does it in other instructions (an atomic, a convert),
    // and a retried loop would count a different number each run.
    static bool emulator_code(tree fndecl) {
        for (tree scope = DECL_CONTEXT(fndecl); scope; ) {
            if (TREE_CODE(scope) == NAMESPACE_DECL) {
                if (DECL_NAME(scope) && strcmp(IDENTIFIER_POINTER(DECL_NAME(scope)), "cuemu") == 0) return true;
                scope = DECL_CONTEXT(scope);
            } else if (TYPE_P(scope)) {
                scope = TYPE_CONTEXT(scope);
            } else if (TREE_CODE(scope) == FUNCTION_DECL || TREE_CODE(scope) == BLOCK) {
                scope = TREE_CODE(scope) == BLOCK ? BLOCK_SUPERCONTEXT(scope) : DECL_CONTEXT(scope);
            } else {
                break;
            }
        }
        return false;
    }

    unsigned int execute(function* fun) override {
        keep_aggregate_accesses_whole(fun->decl);
        if (emulator_code(fun->decl)) return 0;
        bool inserted = false;
        basic_block bb;
        FOR_EACH_BB_FN(bb, fun) {
            unsigned count[kinds] = {};
            hash_set<gimple*> fused_adds;
            for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
                gimple* s = gsi_stmt(gsi);
                if (is_gimple_call(s)) {
                    tree result = gimple_call_lhs(s);
                    if (kind_of_call(s) < 0 || !result) continue;
                    const int p = precision_of(TREE_TYPE(result));
                    if (p >= 0) ++count[p ? dfma : ffma];
                    continue;
                }
                if (!is_gimple_assign(s)) continue;
                const int p = precision_of(TREE_TYPE(gimple_assign_lhs(s)));
                if (p < 0) continue;
                switch (gimple_assign_rhs_code(s)) {
                case PLUS_EXPR:
                case MINUS_EXPR:
                    if (!fused_adds.contains(s)) ++count[p ? dadd : fadd];
                    break;
                case MULT_EXPR:
                    if (fuses(s, bb, fused_adds))
                        ++count[p ? dfma : ffma];
                    else
                        ++count[p ? dmul : fmul];
                    break;
                default:
                    break;
                }
            }
            // One call per block; a block with more than field_max of a kind
            // (a long unrolled stretch) gets several.
            for (;;) {
                unsigned long long packed = 0;
                bool any = false;
                for (int k = 0; k < kinds; ++k) {
                    const unsigned take = count[k] < field_max ? count[k] : field_max;
                    count[k] -= take;
                    any |= take != 0;
                    packed |= (unsigned long long)take << (field_bits * k);
                }
                if (!any) break;
                gcall* call = gimple_build_call(counter_function(), 1,
                                                build_int_cst(long_long_unsigned_type_node, packed));
                gimple_stmt_iterator at = gsi_after_labels(bb);
                gsi_insert_before(&at, call, GSI_SAME_STMT);
                inserted = true;
            }
        }
        if (inserted) cgraph_edge::rebuild_edges();
        return 0;
    }
};

// Strips the counting calls from an uninstrumented function, a kernel's twin
// or split version, once the early inliner has run: the emulator's small
// helpers (__fdividef, __fmaf_rn ...) are always_inline (cuemu/device_inline.h),
// so they arrive in a twin with the calls flop_pass put in their own bodies.
// Twins never run under the profiler, and a call per helper would cost them
// the vectorisation of their loops.
const pass_data flop_strip_pass_data = {
    GIMPLE_PASS, "cuemu_flops_strip", OPTGROUP_NONE, TV_NONE, PROP_ssa | PROP_cfg, 0, 0, 0, 0,
};

struct flop_strip_pass : gimple_opt_pass {
    explicit flop_strip_pass(gcc::context* ctx) : gimple_opt_pass(flop_strip_pass_data, ctx) {}
    opt_pass* clone() override { return new flop_strip_pass(m_ctxt); }

    bool gate(function* fun) override { return !sanitize_flags_p(SANITIZE_THREAD, fun->decl); }

    static bool counting_call(gimple* s) {
        if (!is_gimple_call(s)) return false;
        tree fn = gimple_call_fndecl(s);
        return fn && DECL_NAME(fn) && strcmp(IDENTIFIER_POINTER(DECL_NAME(fn)), "__cuemu_count_flops") == 0;
    }

    unsigned int execute(function* fun) override {
        bool removed = false;
        basic_block bb;
        FOR_EACH_BB_FN(bb, fun) {
            for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);) {
                if (counting_call(gsi_stmt(gsi))) {
                    gsi_remove(&gsi, true);
                    removed = true;
                } else {
                    gsi_next(&gsi);
                }
            }
        }
        if (removed) cgraph_edge::rebuild_edges();
        return 0;
    }
};

}  // namespace

int plugin_init(struct plugin_name_args* info, struct plugin_gcc_version* version) {
    if (!plugin_default_version_check(version, &gcc_version)) {
        fprintf(stderr, "cuemu flop counter: built for GCC %s, loaded into another GCC: rebuild the emulator\n",
                gcc_version.basever);
        return 1;
    }
    // Each pass runs right after the first instance of the pass named.
    const auto insert_after = [&](opt_pass* pass, const char* reference) {
        register_pass_info where;
        where.pass = pass;
        where.reference_pass_name = reference;
        where.ref_pass_instance_number = 1;
        where.pos_op = PASS_POS_INSERT_AFTER;
        register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, nullptr, &where);
    };
    insert_after(new flop_pass(g), "ssa");
    insert_after(new flop_strip_pass(g), "einline");
    return 0;
}
