#!/usr/bin/env bash
# remove_barrier.sh IN OUT REGEX - writes OUT, a copy of the lesson source IN
# with one __syncthreads() taken out: the one on the first line matching the
# extended regular expression REGEX. The statement becomes an empty one, so
# every other line keeps its number. For the race check's tests
# (tests/emu/CMakeLists.txt): the mutant is made from the solution at build
# time, never committed.
set -euo pipefail
in=$1 out=$2 regex=$3
mkdir -p "$(dirname "$out")"
awk -v re="$regex" '
    !done && $0 ~ re { sub(/__syncthreads\(\);/, ";"); done = 1 }
    { print }
    END { if (!done) { print FILENAME ": no line matches " re > "/dev/stderr"; exit 1 } }
' "$in" >"$out.tmp"
mv "$out.tmp" "$out"
