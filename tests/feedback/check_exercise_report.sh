#!/usr/bin/env bash
# check_exercise_report.sh TEST_EXE MAX_LINES - what a student reads from
# `./tutorial check NN` on the exercise as shipped: the test fails, each failure
# starts with its summary ("N of M elements differ ..."), the whole output fits
# in MAX_LINES lines, and no test internal (got.data(), mismatches_) is shown.
set -u
exe=$1 max_lines=$2
output=$("$exe" --no-version 2>&1)
rc=$?
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ "$rc" -ne 0 ] || fail "the shipped exercise passed its test (exit 0)"
count=$(printf '%s\n' "$output" | grep -c '')
[ "$count" -le "$max_lines" ] || fail "$count lines of output, more than $max_lines"
# The first line of every comparison failure is its summary.
if printf '%s\n' "$output" | grep -qE 'ERROR: .*elements? differs?'; then
    bad_first=$(printf '%s\n' "$output" | grep -E '(ERROR|FATAL ERROR): ' | grep -E 'index [0-9]+:|\(row [0-9]+, col [0-9]+\):' | head -1)
    [ -z "$bad_first" ] || fail "a failure starts with a mismatch, not its summary: $bad_first"
fi
for internal in '\.data()' 'mismatches_' 'report_'; do
    ! printf '%s\n' "$output" | grep -q "$internal" || fail "output shows the test internal '$internal'"
done
if [ "$failures" -ne 0 ]; then
    echo "---- the output ($count lines) ----"
    printf '%s\n' "$output"
    exit 1
fi
echo "ok: $(basename "$exe") fails with $count lines of output (at most $max_lines), summaries first"
