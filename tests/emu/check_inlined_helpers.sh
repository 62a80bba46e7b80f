#!/usr/bin/env bash
# check_inlined_helpers.sh PROGRAM - the twins and split versions of PROGRAM's
# kernels (built from test_inlined_helpers.cu) call none of the emulator's small
# device helpers out of line, nor <cmath>'s float overloads, nor the profiler's
# flop counter: cuemu/device_inline.h marks the helpers always_inline (and
# cuemu/cmath_float.h the overloads), and the flop plugin strips its counting
# calls from uninstrumented functions. A helper left out of line costs a twin a call
# per use (Black-Scholes spent 28 % of its time in calls of __fdividef).
set -euo pipefail
program=$1
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }

helpers='__fdividef|__expf|__exp10f|__logf|__log2f|__powf|__sinf|__cosf|__sincosf|__saturatef|rsqrtf|__fmaf_rn|__fsqrt_rn|__frcp_rn|min|max|umin|__umulhi|make_float2|__popc|__clz|__ffs|__brev|__float_as_int|__int_as_float|__cuemu_count_flops|std::(sqrt|exp|fabs|floor|abs|pow|sin|cos|log|tanh|ceil|fmod|fmax|fmin|round|trunc|log2|hypot|cbrt|copysign|isnan|isfinite|signbit)'
listing=$(objdump -d --no-show-raw-insn -C "$program")
grep -qE '^[0-9a-f]+ <([a-z ()]+::)?__cuemu_fast_helpers_kernel' <<<"$listing" ||
    fail "no twin of helpers_kernel in $program: has the rewriter stopped making twins?"
# Each function of the program with the targets of its calls: "FUNCTION -> TARGET".
calls=$(awk '
    /^[0-9a-f]+ <.*>:$/ { name = $0; sub(/^[0-9a-f]+ </, "", name); sub(/>:$/, "", name); next }
    /\tcall / { target = $0; sub(/.*</, "", target); sub(/>.*/, "", target); print name " -> " target }' <<<"$listing")
twin_calls=$(grep -E '^([a-z ()]+::)?__cuemu_fast_' <<<"$calls" || true)
bad=$(grep -E -- "-> ($helpers)(\(|$)" <<<"$twin_calls" || true)
[ -z "$bad" ] || fail "a twin (of a kernel or a __device__ function) calls a helper out of line:
$bad"
# The instrumented kernel still counts its flops for the profiler.
grep -qE '^([a-z ()]+::)?helpers_(of|kernel)\(.* -> __cuemu_count_flops' <<<"$calls" ||
    fail "the instrumented kernel no longer calls __cuemu_count_flops: the profiler would count no flops"
echo "PASS: the twins call no helper out of line ($(grep -c . <<<"$twin_calls" || true) calls of other functions in all)"
