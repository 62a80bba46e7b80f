#!/usr/bin/env bash
# rewriter_cli.sh CUEMU_REWRITE - the command-line contract of cuemu-rewrite:
# a launch it cannot parse is an error at file:line:col (gcc style) with exit
# code 1 and no output file; the project headers a .cu includes are
# rewritten too (-I, --depfile); -D/-U decide #if branches; a call across
# host and device that nvcc refuses is refused too; wrong
# usage is exit 2; a good file is rewritten with its #line header.
set -u
rewrite=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
expect() {  # expect DESCRIPTION CONDITION...
    local what=$1; shift
    if "$@"; then echo "ok:   $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}

printf '__global__ void k(int* p) {}\nint main() {\n  int* p = 0;\n  k<<<1, 32>>> p;\n}\n' >"$work/bad.cu"
"$rewrite" "$work/bad.cu" "$work/bad.cpp" 2>"$work/err.txt"
rc=$?
expect "malformed launch exits 1" test "$rc" -eq 1
expect "error names file:line:col" grep -q "bad.cu:4:[0-9]*: error: kernel launch" "$work/err.txt"
expect "no output file after an error" test ! -e "$work/bad.cpp"

# A project header is rewritten like the .cu, into OUTPUT.headers/<its path>,
# and the #include names the copy; -I folders count, errors name the header.
mkdir -p "$work/inc/lib"
printf '#pragma once\ninline void go(int* p) { k<<<1, 1>>>(p); }\n#include <lib/more.cuh>\n' >"$work/launcher.cuh"
printf '#pragma once\ninline void more(int* p) { k<<<2, 1>>>(p); }\n' >"$work/inc/lib/more.cuh"
printf '__global__ void k(int* p) {}\n#include "launcher.cuh"\n' >"$work/uses_header.cu"
"$rewrite" -I "$work/inc" --depfile "$work/uses_header.d" "$work/uses_header.cu" "$work/uses_header.cpp" 2>"$work/err2.txt"
rc=$?
copy="$work/uses_header.cpp.headers$work/launcher.cuh"
nested="$work/uses_header.cpp.headers$work/inc/lib/more.cuh"
expect "a launch inside an included header is rewritten (exit 0)" test "$rc" -eq 0
expect "the #include names the rewritten copy" grep -q "^#include \"$copy\"" "$work/uses_header.cpp"
expect "the copy starts with #line naming the original" grep -q "^#line 1 \"$work/launcher.cuh\"" "$copy"
expect "the copy's launch is rewritten" grep -q "::cuemu::launch(" "$copy"
expect "an <include> found through -I is rewritten too" grep -q "::cuemu::launch(" "$nested"
expect "the depfile lists the headers" grep -q "inc/lib/more.cuh" "$work/uses_header.d"
printf '#pragma once\ninline void go(int* p) {\n  k<<<>>>(p);\n}\n' >"$work/bad_header.cuh"
printf '#include "bad_header.cuh"\n' >"$work/uses_bad.cu"
"$rewrite" "$work/uses_bad.cu" "$work/uses_bad.cpp" 2>"$work/err4.txt"
rc=$?
expect "an error in a header exits 1" test "$rc" -eq 1
expect "the error names the header's own file:line" grep -q "^$work/bad_header.cuh:3:[0-9]*: error: kernel launch" "$work/err4.txt"

# Branches the compiler skips are skipped: with -D, #ifdef is decided too.
printf '#if 0\n  k<<<>>>(p);\n#endif\n#ifdef OLD_API\n  k<<<>>>(p);\n#endif\n' >"$work/skipped.cu"
"$rewrite" -U OLD_API "$work/skipped.cu" "$work/skipped.cpp" 2>"$work/err5.txt"
expect "a bad launch in #if 0 and an undefined #ifdef is ignored" test $? -eq 0
"$rewrite" -DOLD_API "$work/skipped.cu" "$work/skipped.cpp" 2>"$work/err5.txt"
expect "... and refused when -D takes the branch" grep -q "skipped.cu:5:" "$work/err5.txt"

printf 'float relu(float x) { return x > 0 ? x : 0; }\n__global__ void k(float* p) {\n  p[0] = relu(p[0]);\n}\n' >"$work/host_call.cu"
"$rewrite" "$work/host_call.cu" "$work/host_call.cpp" 2>"$work/err3.txt"
rc=$?
expect "a host function called from a kernel exits 1" test "$rc" -eq 1
expect "nvcc's words at file:line:col" grep -q 'host_call.cu:3:10: error: calling a __host__ function("relu") from a __global__ function("k") is not allowed' "$work/err3.txt"

"$rewrite" >/dev/null 2>&1
expect "no arguments exits 2" test $? -eq 2

printf '__global__ void k(int* p) {}\nvoid go(int* p) {\n  k<<<1,\n      32>>>(p);\n}\n' >"$work/good.cu"
"$rewrite" "$work/good.cu" "$work/good.cpp"
expect "good file exits 0" test $? -eq 0
expect "output starts with #line 1 and the absolute path" grep -q "^#line 1 \"$work/good.cu\"" "$work/good.cpp"
# k's uninstrumented twin (cuemu/launch.h) follows it in #if
# defined(__SANITIZE_THREAD__) under #line 1, then #endif, the kernel's
# registration (cuemu/kernel_registry.h), #line 1 again (k ends on line 1)
# and the rest of line 1; k cannot reach shared memory, which its twin's
# overload says on one more line: eight lines more.
expect "the kernel's twin follows it" test "$(sed -n 5p "$work/good.cpp")" = '__global__ void __attribute__((no_sanitize("thread"))) __cuemu_fast_k(int* p) {}'
expect "#line directives number the twin and what follows it" test "$(grep -c "^#line 1 \"$work/good.cu\"\$" "$work/good.cpp")" -eq 3
expect "output keeps the line count (+1 for #line, +8 for the twin)" test "$(wc -l <"$work/good.cpp")" -eq $(($(wc -l <"$work/good.cu") + 9))
expect "launch rewritten on its own line" test "$(sed -n 12p "$work/good.cpp" | grep -c '::cuemu::launch(')" -eq 1
[ "$failures" -eq 0 ]
