#!/usr/bin/env bash
# run_program.sh SOURCE BINARY EXPECTED [ARGS...] - build an ordinary CUDA program
# with bin/nvcc-emu, from the command line a user would give nvcc, and run it.
# Passes when the program exits 0 and prints a line matching the extended
# regular expression EXPECTED (its own check against the CPU says OK); with
# EXPECT_FAILURE=1, when it exits non-zero and prints such a line (a report).
set -uo pipefail
source=$1 binary=$2 expected=$3
shift 3
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$(dirname "$binary")"
# PROGRAM_FLAGS: more nvcc options the program needs (-I include, -D ...).
# shellcheck disable=SC2086
"$root/bin/nvcc-emu" -O2 -arch=sm_90 ${PROGRAM_FLAGS:-} "$source" -o "$binary" || {
    echo "FAIL: bin/nvcc-emu could not build $(basename "$source")"; exit 1; }
output=$("$binary" "$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "${EXPECT_FAILURE:-0}" = 1 ]; then
    if [ "$status" -eq 0 ]; then
        echo "FAIL: $(basename "$binary") exited 0; it was expected to stop"; exit 1
    fi
elif [ "$status" -ne 0 ]; then
    echo "FAIL: $(basename "$binary") exited with status $status"; exit 1
fi
grep -Eq -- "$expected" <<<"$output" || {
    echo "FAIL: no line matching '$expected'"; exit 1; }
echo "PASS: $(basename "$binary") $*"
