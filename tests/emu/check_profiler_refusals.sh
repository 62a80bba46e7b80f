#!/usr/bin/env bash
# check_profiler_refusals.sh PROGRAM - the profiler's bad settings: an unknown
# CUEMU_GPU and an unwritable CUEMU_PROFILE each end the program with exit
# code 2 and one line on stderr that says what is wrong (and, for the GPU,
# which names it knows). PROGRAM takes the profile's path as its argument.
set -u
program=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

expect_refusal() {  # description, expected text, command...
    local what=$1 text=$2
    shift 2
    "$@" >"$work/out" 2>"$work/err"
    local status=$?
    local lines
    lines=$(grep -c '' "$work/err")
    if [ "$status" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q "$text" "$work/err"; then
        echo "FAIL $what: exit $status, $lines line(s) on stderr:"
        sed 's/^/  /' "$work/err"
        failures=$((failures + 1))
    else
        echo "ok   $what: $(cat "$work/err")"
    fi
}

expect_refusal "unknown CUEMU_GPU" "known: T4, A100, H100" env CUEMU_GPU=GTX9000 "$program" "$work/p.csv"
expect_refusal "unwritable CUEMU_PROFILE" "cannot write" "$program" "$work/no/such/folder/p.csv"
[ "$failures" -eq 0 ] && echo "2 passed, 0 failed" || { echo "$((2 - failures)) passed, $failures failed"; exit 1; }
