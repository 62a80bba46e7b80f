#!/usr/bin/env bash
# gpu-emu-tests.sh - the emulator's own tests and programs, built with nvcc and
# run on a GPU: the GPU is the truth for what CUDA does, so every difference
# it shows is a difference of the emulator's (or a test that asserts more than
# CUDA promises).
#
#   tools/gpu-emu-tests.sh OUTDIR               build, then run on the GPU
#   tools/gpu-emu-tests.sh --build-only OUTDIR  build only (no GPU needed)
#   tools/gpu-emu-tests.sh --run-only OUTDIR    run what an earlier build left
#
# Builds, several at once:
#  - every tests/emu/test_*.cu that nvcc builds, each linked with
#    tests/emu/doctest_main.cpp (compiled once); left out: test_twin_without_shared
#    and test_inlined_helpers (emulator-only: nvcc cannot build them),
#    test_profiler (the emulator's profiler, not a doctest program), and
#    test_nccl where no nccl.h is found;
#  - the ordinary programs of tests/emu/programs that tests/emu/CMakeLists.txt
#    runs (its emu_driver_program lines, with their arguments), and saxpy,
#    course_cpp14, merge_race --fixed and printf_hello as its other tests run them.
# Runs each test program one test case per process (a case that ends with a
# sticky error cannot fail the next), leaving out the doctest test suite
# "emulator-only" (cases that check the emulator's own reports: see
# tests/emu/README.md), each under a time limit; then each program, which
# passes when it exits 0 and prints its "<name> ... OK" line.
#
# Writes into OUTDIR: emu-build.txt (one line per build), emu-cases.txt (one
# line per test case), emu-verdicts.txt (one line per test program and per
# program: "ok", "FAIL", "TIMEOUT" or "SKIPPED", then the name and why) and
# emu-logs/ (build and run logs). Exit status 0 when everything built and
# (without --build-only) every verdict is ok.
#
# Settings: GPU_EMU_BUILD (where the binaries go; default build-gpu-emu in the
# repository), GPU_EMU_ARCH (nvcc's -arch as sm_NN's NN, or native; default
# GPU_CHECK_ARCH, else native where nvidia-smi sees a GPU, else 90), JOBS
# (builds at once; default the CPU count), GPU_EMU_RUN_JOBS (processes at once
# on the GPU; default 6), GPU_EMU_CASE_TIMEOUT (seconds a test case or program
# may take; default 60), GPU_EMU_BUDGET (seconds for everything; default 1200).
# shellcheck disable=SC2016  # the bash -c scripts below expand their variables themselves
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_only=0 run_only=0
if [ "${1:-}" = --build-only ]; then build_only=1; shift; fi
if [ "${1:-}" = --run-only ]; then run_only=1; shift; fi
OUT="${1:?usage: tools/gpu-emu-tests.sh [--build-only] OUTDIR}"
mkdir -p "$OUT/emu-logs" && OUT=$(cd "$OUT" && pwd)
BIN="${GPU_EMU_BUILD:-$ROOT/build-gpu-emu}"
mkdir -p "$BIN" && BIN=$(cd "$BIN" && pwd)
[ -d /usr/local/cuda/bin ] && PATH="$PATH:/usr/local/cuda/bin"
command -v nvcc >/dev/null || { echo "gpu-emu-tests: nvcc not found" >&2; exit 1; }
arch="${GPU_EMU_ARCH:-${GPU_CHECK_ARCH:-}}"
if [ -z "$arch" ]; then
    if nvidia-smi -L >/dev/null 2>&1; then arch=native; else arch=90; fi
fi
[ "$arch" = native ] && arch_flag=-arch=native || arch_flag=-arch=sm_$arch
JOBS="${JOBS:-$(nproc)}"
RUN_JOBS="${GPU_EMU_RUN_JOBS:-6}"
CASE_TIMEOUT="${GPU_EMU_CASE_TIMEOUT:-60}"
END=$(($(date +%s) + ${GPU_EMU_BUDGET:-1200}))
# doctest from the system or, as tools/gpu-check.sh finds it, from .carry/doctest.
DOCTEST_INC=/usr/include
[ -e "$DOCTEST_INC/doctest/doctest.h" ] || DOCTEST_INC="$ROOT/.carry/doctest/usr/include"
[ -e "$DOCTEST_INC/doctest/doctest.h" ] || { echo "gpu-emu-tests: doctest.h not found" >&2; exit 1; }
export ROOT OUT BIN arch_flag DOCTEST_INC CASE_TIMEOUT END PATH

# ---- what to build: "test NAME", "program NAME|ARGS|FLAGS" -------------------------
nccl_found=0
for dir in /usr/include "$(dirname "$(command -v nvcc)")/../include"; do
    [ -e "$dir/nccl.h" ] && nccl_found=1
done
{
    for source in "$ROOT"/tests/emu/test_*.cu; do
        name=$(basename "$source" .cu); name=${name#test_}
        case $name in
            twin_without_shared | inlined_helpers | profiler) continue ;;
            nccl) [ "$nccl_found" = 1 ] || { echo "none nccl"; continue; } ;;
        esac
        echo "test $name"
    done
    # emu_driver_program(NAME [ARGS...] [FLAGS ...]): the arguments ctest gives it.
    sed -n 's/^ *emu_driver_program(\([^)]*\)).*/\1/p' "$ROOT/tests/emu/CMakeLists.txt" |
        sed "s|\${CMAKE_CURRENT_SOURCE_DIR}|$ROOT/tests/emu|g" |
        while read -r name rest; do
            args=${rest%%FLAGS*}
            flags=""; [ "$args" != "$rest" ] && flags=${rest#*FLAGS}
            read -r -a arg_words <<<"$args"
            read -r -a flag_words <<<"$flags"
            echo "program $name|${arg_words[*]}|${flag_words[*]}"
        done
    echo "program saxpy|100003|"
    echo "program merge_race|--fixed|"
    echo "program printf_hello|3|"
    echo "program course_cpp14|1001|"
} >"$OUT/emu-logs/plan.txt"

# ---- build ---------------------------------------------------------------------------
# Builds everything in the plan; fails when something did not build.
build_all() {
    build_start=$SECONDS
    common=("$arch_flag" -O2 -w -std=c++17 -I"$ROOT/common" -I"$ROOT/tests/emu" -I"$ROOT/tests/emu/programs/include"
            -I"$DOCTEST_INC")
    if ! timeout $((END - $(date +%s))) nvcc "${common[@]}" -c "$ROOT/tests/emu/doctest_main.cpp" \
            -o "$BIN/doctest_main.o" >"$OUT/emu-logs/build-doctest_main.log" 2>&1; then
        echo "gpu-emu-tests: doctest_main.cpp did not build (emu-logs/build-doctest_main.log)" >&2
        return 1
    fi
    export COMMON="${common[*]}"
    grep -v '^none' "$OUT/emu-logs/plan.txt" | xargs -P "$JOBS" -d '\n' -n 1 bash -c '
        kind=${0%% *} spec=${0#* }
        name=${spec%%|*}
        left=$((END - $(date +%s)))
        if [ "$left" -lt 5 ]; then echo "SKIPPED $kind $name (no time left)"; exit 0; fi
        read -r -a common <<<"$COMMON"
        libs=(-lcublas -lcublasLt -lcurand)
        if [ "$kind" = test ]; then
            extra=()
            case $name in
                thrust) extra=(--extended-lambda) ;;
                math_api) extra=("$ROOT/tests/emu/math_reference.cpp" -Xcompiler -fext-numeric-literals -lquadmath) ;;
                nccl) extra=(-lnccl) ;;
            esac
            cmd=(nvcc "${common[@]}" "${extra[@]}" "$ROOT/tests/emu/test_$name.cu" "$BIN/doctest_main.o"
                 -o "$BIN/test_$name" "${libs[@]}")
        else
            flags=${spec##*|}
            read -r -a flag_words <<<"$flags"
            if [ "$name" = course_cpp14 ]; then  # as its course Makefile builds it
                cmd=(nvcc "$arch_flag" -std=c++14 -x cu "$ROOT/tests/emu/programs/course_cpp14/row_sums.cpp"
                     -o "$BIN/$name" -lcuda -lcudart)
            else
                cmd=(nvcc "${common[@]}" --extended-lambda "${flag_words[@]}" "$ROOT/tests/emu/programs/$name.cu"
                     -o "$BIN/$name" "${libs[@]}")
            fi
        fi
        log=build-$name.log
        [ "$kind" = test ] && log=build-test_$name.log
        start=$(date +%s)
        if timeout "$left" "${cmd[@]}" >"$OUT/emu-logs/$log" 2>&1; then
            echo "built $kind $name in $(($(date +%s) - start)) s"
        else
            echo "BUILD FAILED $kind $name (emu-logs/$log)"
        fi' | sort -k3 >"$OUT/emu-build.txt"
    grep '^none nccl' "$OUT/emu-logs/plan.txt" >/dev/null && echo "not built test nccl (no nccl.h)" >>"$OUT/emu-build.txt"
    built=$(grep -c '^built' "$OUT/emu-build.txt")
    not_built=$(grep -c -e '^BUILD FAILED' -e '^SKIPPED' "$OUT/emu-build.txt")
    echo "gpu-emu-tests: build: $built built, $not_built not, in $((SECONDS - build_start)) s ($arch_flag)"
    grep -e '^BUILD FAILED' -e '^SKIPPED' "$OUT/emu-build.txt"
    [ "$not_built" -eq 0 ]
}
status=0
if [ "$run_only" = 0 ]; then build_all || status=1; fi
if [ "$build_only" = 1 ]; then exit "$status"; fi

# ---- test cases, one process each --------------------------------------------------------
# Each program's cases as doctest lists them with the same filter, numbered as
# --first/--last count them (the cases that pass the filters, in file order).
WORK="$OUT/emu-work"; mkdir -p "$WORK" "$OUT/emu-logs/cases"
export WORK
filter=(--test-suite-exclude=emulator-only --order-by=file --no-colors)
for exe in "$BIN"/test_*; do
    [ -x "$exe" ] || continue
    t=$(basename "$exe"); t=${t#test_}
    # doctest prints "[doctest] listing all test case names", a line of "=", the
    # names, another line of "=", then the count.
    (cd "$WORK" && timeout 30 "$exe" --list-test-cases "${filter[@]}") 2>/dev/null |
        awk '/listing all test case names/ { found = 1; next }
             found && /^=====/ { bars++; next }
             found && bars == 1 && NF { print }' >"$OUT/emu-logs/cases/$t.names"
    k=0
    while IFS= read -r case_name; do
        k=$((k + 1))
        printf '%s\t%d\t%s\n' "$t" "$k" "$case_name"
    done <"$OUT/emu-logs/cases/$t.names"
done >"$OUT/emu-logs/cases.tsv"
export FILTER="${filter[*]}"
xargs -P "$RUN_JOBS" -d '\n' -n 1 bash -c '
    IFS=$'"'"'\t'"'"' read -r t k case_name <<<"$0"
    left=$((END - $(date +%s)))
    [ "$left" -gt "$CASE_TIMEOUT" ] && left=$CASE_TIMEOUT
    if [ "$left" -lt 5 ]; then printf "SKIPPED\t%s\t%s\t%s\n" "$t" "$k" "$case_name"; exit 0; fi
    read -r -a filter <<<"$FILTER"
    log="$OUT/emu-logs/cases/$t.$k.log"
    (cd "$WORK" && timeout "$left" "$BIN/test_$t" "${filter[@]}" --first="$k" --last="$k") >"$log" 2>&1
    rc=$?
    case $rc in 0) v=ok ;; 124 | 137) v=TIMEOUT ;; *) v=FAIL ;; esac
    printf "%s\t%s\t%s\t%s\n" "$v" "$t" "$k" "$case_name"' <"$OUT/emu-logs/cases.tsv" |
    sort -t$'\t' -k2,2 -k3,3n >"$OUT/emu-cases.txt"

# One verdict per test program.
: >"$OUT/emu-verdicts.txt"
for names in "$OUT"/emu-logs/cases/*.names; do
    [ -e "$names" ] || continue
    t=$(basename "$names" .names)
    total=$(wc -l <"$names")
    if [ "$total" -eq 0 ]; then echo "FAIL test_$t: no test cases listed" >>"$OUT/emu-verdicts.txt"; continue; fi
    bad=$(awk -F'\t' -v t="$t" '$2 == t && $1 != "ok" { printf "%s%s %s (%s)", sep, $1, $3, $4; sep = "; " }' \
        "$OUT/emu-cases.txt")
    ok=$(awk -F'\t' -v t="$t" '$2 == t && $1 == "ok"' "$OUT/emu-cases.txt" | wc -l)
    if [ "$ok" -eq "$total" ]; then
        echo "ok test_$t: $total cases" >>"$OUT/emu-verdicts.txt"
    else
        echo "FAIL test_$t: $ok of $total cases ok; $bad" >>"$OUT/emu-verdicts.txt"
    fi
done

# ---- programs ----------------------------------------------------------------------------
grep '^program ' "$OUT/emu-logs/plan.txt" | cut -c9- | xargs -P "$RUN_JOBS" -d '\n' -n 1 bash -c '
    name=${0%%|*} rest=${0#*|} args=${rest%%|*}
    exe="$BIN/$name"
    [ -x "$exe" ] || { echo "FAIL program $name: not built"; exit 0; }
    left=$((END - $(date +%s)))
    [ "$left" -gt "$CASE_TIMEOUT" ] && left=$CASE_TIMEOUT
    if [ "$left" -lt 5 ]; then echo "SKIPPED program $name ($args): no time left"; exit 0; fi
    log="$OUT/emu-logs/run-$name.log"
    # shellcheck disable=SC2086
    (cd "$WORK" && timeout "$left" "$exe" $args) >"$log" 2>&1
    rc=$?
    expected="^$name .* OK"
    [ "$name" = saxpy ] && expected="^saxpy .*errors=0 OK"
    [ "$name" = printf_hello ] && expected="^printf_hello done$"
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "TIMEOUT program $name ($args)"
    elif [ "$rc" -ne 0 ]; then echo "FAIL program $name ($args): exit $rc: $(tail -n 1 "$log")"
    elif ! grep -Eq -- "$expected" "$log"; then echo "FAIL program $name ($args): no line matching $expected"
    else echo "ok program $name ($args)"; fi' | sort -k3 >>"$OUT/emu-verdicts.txt"

grep -v '^ok' "$OUT/emu-verdicts.txt"
not_ok=$(grep -vc '^ok' "$OUT/emu-verdicts.txt")
echo "gpu-emu-tests: $(grep -c '^ok' "$OUT/emu-verdicts.txt") ok, $not_ok not, of $(wc -l <"$OUT/emu-verdicts.txt") verdicts" \
    "($(grep -c '^ok' "$OUT/emu-cases.txt") of $(wc -l <"$OUT/emu-cases.txt") test cases ok)"
[ "$not_ok" -eq 0 ] || status=1
exit "$status"
