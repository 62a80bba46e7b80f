#!/usr/bin/env bash
# check_printf.sh SOURCE BINARY - build programs/printf_hello.cu with bin/nvcc-emu
# and check the text its kernel prints. The multiplier is random each run. The
# lines of different threads may come in any order on a GPU, so they are
# compared sorted; all of them must come before the host's "done" line, since
# the host prints it after cudaDeviceSynchronize.
set -uo pipefail
source=$1 binary=$2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$(dirname "$binary")"
"$root/bin/nvcc-emu" "$source" -o "$binary" || { echo "FAIL: build"; exit 1; }
multiplier=$((RANDOM % 1000 + 2))
output=$("$binary" "$multiplier") || { echo "FAIL: exit status $?"; exit 1; }
printf '%s\n' "$output"

expected=$(for block in 0 1; do
    word=first; [ "$block" -eq 1 ] && word=second
    for tid in 0 8 16 24; do
        printf 'block %d thread %2d: %d x %d = %d (%.1f%% of the block) %s\n' \
            "$block" "$tid" "$tid" "$multiplier" $((tid * multiplier)) \
            "$(awk -v t="$tid" 'BEGIN { print 100 * t / 32 }')" "$word"
    done
done | sort)
got=$(sed -n '/^block /p' <<<"$output" | sort)
if [ "$got" != "$expected" ]; then
    echo "FAIL: kernel printf lines differ (expected < > got):"
    diff <(printf '%s\n' "$expected") <(printf '%s\n' "$got")
    exit 1
fi
if [ "$(tail -n 1 <<<"$output")" != "printf_hello done" ]; then
    echo "FAIL: the last line should be the host's 'printf_hello done'"; exit 1
fi
echo "PASS: 8 kernel lines as expected (multiplier $multiplier), then the host's line"
