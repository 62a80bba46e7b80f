#!/usr/bin/env bash
# check_run_limits.sh BIN_DIR - lesson programs refuse, up front, what this
# machine cannot hold or finish in a few minutes (common/run_limits.h):
# one line on stderr and exit code 2, never an abort, an OOM kill or hours of
# silence; and a long but allowed run says first how long to expect.
set -u
bin=$1
failures=0

# expect_refusal "what" "regex for the stderr line" [ulimit -d KB] -- program args...
expect_refusal() {
    local what=$1 pattern=$2 data_limit=$3
    shift 4
    local program=$1
    [ -x "$bin/$program" ] || { echo "skip: $program not built"; return; }
    local stderr rc
    stderr=$( (if [ "$data_limit" != none ]; then ulimit -d "$data_limit"; fi
               exec timeout 60 "$bin/$@") 2>&1 >/dev/null)
    rc=$?
    local lines
    lines=$(printf '%s' "$stderr" | grep -c '')
    if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qE "$pattern" <<<"$stderr"; then
        echo "ok:   $what -> exit 2: $stderr"
    else
        echo "FAIL: $what ($*) -> exit $rc, $lines stderr lines, wanted one matching /$pattern/:"
        printf '%s\n' "$stderr" | head -5
        failures=$((failures + 1))
    fi
}

memory='need about [0-9.]+ GiB of memory, but only [0-9.]+ GiB is available'
too_long='would take about [0-9.]+ (s|min|hours|days) .*TUTORIAL_MAX_SECONDS=0'

# Memory: a data limit (ulimit -d) the buffers cannot fit in. Not in the
# sanitizer build, whose shadow memory cannot start under such a limit.
[ -n "${CHECK_LIMITS_SKIP_MEMORY:-}" ] || {
expect_refusal "lesson 01, 10^8 elements in 100 MB" "$memory" 100000 -- lesson01_solution_cpu --n 100000000
expect_refusal "lesson 04, 10^8 elements in 400 MB" "$memory" 400000 -- lesson04_solution_emu --n 100000000
expect_refusal "lesson 06, 10^4 x 10^4 in 400 MB" "$memory" 400000 -- lesson06_solution_emu --rows 10000 --cols 10000
expect_refusal "lesson 14, 2 x 10^8 pixels in 150 MB" "$memory" 150000 -- lesson14_solution_emu --n 200000000
expect_refusal "lesson 16, a 8000 x 8000 scene in 400 MB" "$memory" 400000 -- lesson16_solution_emu --width 8000 --height 8000
}

# Time: sizes that fit in memory but would run for hours on the emulator.
expect_refusal "lesson 08 at 4096^3" "$too_long" none -- lesson08_solution_emu --m 4096 --n 4096 --k 4096
expect_refusal "lesson 09 at 4096^3" "$too_long" none -- lesson09_solution_emu --m 4096 --n 4096 --k 4096
expect_refusal "lesson 19 at 4096^3" "$too_long" none -- lesson19_solution_emu --m 4096 --n 4096 --k 4096
expect_refusal "lesson 24 at 4096^3" "$too_long" none -- lesson24_solution_emu --m 4096 --n 4096 --k 4096
expect_refusal "lesson 10, 16384 x 4096 x 4096" "$too_long" none -- \
    lesson10_solution_emu --batch 16384 --inputs 4096 --hidden 4096 --outputs 16
# Training grows with epochs x pictures: all 60000 for 100 epochs is hours.
expect_refusal "lesson 20, 100 epochs of 60000 pictures" "$too_long" none -- \
    lesson20_solution_emu --epochs 100 --train 60000 --test 10000
expect_refusal "lesson 12, 2^28 elements" "$too_long" none -- lesson12_solution_emu --n 268435456
# Training: every device's step and every picture cost time, before any data is read.
expect_refusal "lesson 21, 100 epochs of 60000 pictures" "$too_long" none -- \
    lesson21_solution_emu --train 60000 --epochs 100
# Lesson 26 refuses before it joins an MPI job: started alone, as here, too.
expect_refusal "lesson 26, 100 epochs of 60000 pictures" "$too_long" none -- \
    lesson26_solution_emu --train 60000 --epochs 100
# A transpose is linear in its size, but 16384 x 16384 is still minutes of emulator.
expect_refusal "lesson 15, 16384 x 16384" "$too_long|$memory" none -- lesson15_solution_emu --rows 16384 --cols 16384
# Monte Carlo is linear in its points, but 2^31 of them (and the host API's
# 16 GiB of numbers) are minutes of emulator.
expect_refusal "lesson 23, 2^20 threads x 2048 points" "$too_long|$memory" none -- \
    lesson23_solution_emu --threads 1048576 --points 2048
# A histogram is linear too, but the largest --n is about 10 minutes of emulator,
# and tiny blocks cost far more (each zeroes and merges 256 bins).
expect_refusal "lesson 14, 2^28 pixels" "$too_long|$memory" none -- lesson14_solution_emu --n 268435456
expect_refusal "lesson 14, 10^8 pixels in blocks of 1" "$too_long|$memory" none -- \
    lesson14_solution_emu --n 100000000 --block 1
# The largest sizes the flags allow (about two days): refused for time, or for
# memory first on a machine with less than about 14 GiB.
expect_refusal "lesson 10, every size 16384" "$too_long|$memory" none -- \
    lesson10_solution_emu --batch 16384 --inputs 16384 --hidden 16384 --outputs 16384
expect_refusal "lesson 13, 10^8 elements" "$too_long|$memory" none -- lesson13_solution_emu --n 100000000
# A convolution is linear in the pixels, but the largest scene is 2.7 x 10^8 of them.
expect_refusal "lesson 16, a 16384 x 16384 scene" "$too_long|$memory" none -- \
    lesson16_solution_emu --width 16384 --height 16384
expect_refusal "lesson 18, every size 16384" "$too_long|$memory" none -- \
    lesson18_solution_emu --batch 16384 --inputs 16384 --outputs 16384
# A limit that is not a number is bad input like any other.
TUTORIAL_MAX_SECONDS=soon expect_refusal "TUTORIAL_MAX_SECONDS=soon" "TUTORIAL_MAX_SECONDS must be a number" none -- \
    lesson08_solution_emu --m 8 --n 8 --k 8

# Allowed, but long: the estimate comes first (the run is stopped after 3 s).
if [ -x "$bin/lesson10_solution_emu" ]; then
    first=$(TUTORIAL_MAX_SECONDS=0 timeout 3 "$bin/lesson10_solution_emu" --batch 4096 --inputs 4096 \
            --hidden 4096 --outputs 16 2>&1 | head -3)
    if grep -qE '^\(expect this to take about [0-9.]+ (min|hours)' <<<"$first"; then
        echo "ok:   a long run allowed by TUTORIAL_MAX_SECONDS=0 announces its estimate first"
    else
        echo "FAIL: no estimate before a long run; its first lines were:"
        printf '%s\n' "$first"
        failures=$((failures + 1))
    fi
fi
[ "$failures" -eq 0 ]
