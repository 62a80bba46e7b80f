#!/usr/bin/env bash
# check_race_report.sh PROGRAM SOLUTION MUTANT [ARGS...] - runs a lesson program
# built from MUTANT (SOLUTION with one __syncthreads() taken out, see
# remove_barrier.cmake) under CUEMU_CHECK=race and checks that it stops with
# one race report whose hint puts the missing barrier where the solution has it.
set -uo pipefail
program=$1 solution=$2 mutant=$3
shift 3
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }

removed=$(diff "$solution" "$mutant" | sed -n 's/^\([0-9][0-9]*\)c[0-9]*$/\1/p')
[ -n "$removed" ] || fail "no line differs between $solution and $mutant"
output=$(CUEMU_CHECK=race "$program" "$@" 2>&1)
status=$?
printf '%s\n' "$output"
[ "$status" -ne 0 ] || fail "the program exited 0: the race went unreported"
reports=$(grep -c 'cuemu: race on shared memory' <<<"$output")
[ "$reports" -eq 1 ] || fail "expected one race report, got $reports"
name=$(basename "$mutant")
[ "$(grep -cE "^    (read |write) by thread \([0-9]+,[0-9]+,[0-9]+\) at .*$name:[0-9]+" <<<"$output")" -eq 2 ] ||
    fail "the report does not name both threads and both lines of $name"
grep -qE "hazard on '[a-z_]+' of .*, element [0-9]+" <<<"$output" ||
    fail "the report does not name the shared variable and the element"
hint=$(grep -m1 'hint: add a __syncthreads()' <<<"$output") || fail "no hint naming __syncthreads()"
if [[ $hint =~ after\ line\ ([0-9]+)\ and\ before\ line\ ([0-9]+) ]]; then
    first=${BASH_REMATCH[1]} second=${BASH_REMATCH[2]}
    if [ "$first" -ge "$removed" ] || [ "$removed" -ge "$second" ]; then
        fail "the hint says between lines $first and $second; the barrier was at line $removed"
    fi
elif [[ $hint =~ after\ line\ ([0-9]+),\ before\ the\ loop\ comes\ back\ to\ line\ ([0-9]+) ]] ||
     [[ $hint =~ after\ line\ ([0-9]+),\ inside\ the\ loop ]]; then
    first=${BASH_REMATCH[1]}
    [ "$first" -lt "$removed" ] ||
        fail "the hint says after line $first; the barrier was at line $removed"
else
    fail "the hint does not say where the barrier goes: $hint"
fi
echo "PASS: the race report puts the missing barrier of line $removed in place ($hint)"
