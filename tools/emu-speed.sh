#!/usr/bin/env bash
# emu-speed.sh - the emulator against plain C++ loops, in one run, as ratios.
#
#   tools/emu-speed.sh                # about two minutes on 2 cores
#   tools/emu-speed.sh --quick        # a few seconds: only shows that it works
#   tools/emu-speed.sh --build FILE   # only build the benchmark, as FILE
#   tools/emu-speed.sh --compare FILE # also time FILE (a --build of another
#                                     # tree, say main), in the same rounds
#
# Builds tools/emu-speed.cu and tools/emu-speed-vadd.cu with bin/nvcc-emu, and
# the yardstick loops (tools/emu-speed-cpu.cpp) with plain `g++ -O2 -fopenmp`;
# runs the benchmark with CUEMU_WORKERS=1 and =2 in alternating rounds (a
# process each) and prints, for each kernel, the emulator's time over the
# serial loop's with one worker, what a second worker gains, and what
# OpenMP's second thread gains (the machine's own yardstick for two cores).
# All times are wall-clock medians over the rounds; see tools/emu-speed.cu.
# Not a pass/fail test: the exit status is 0 whenever the measurements ran and
# every result was right.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
quick=0 build_only="" compare=""
case "${1:-}" in
    "") ;;
    --quick) quick=1 ;;
    --build) [ $# -ge 2 ] || { echo "emu-speed: --build needs a file name" >&2; exit 2; }
             build_only=$2 ;;
    --compare) [ $# -ge 2 ] && [ -x "$2" ] || { echo "emu-speed: --compare needs a benchmark program (made with --build)" >&2; exit 2; }
               compare=$(cd "$(dirname "$2")" && pwd)/$(basename "$2") ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "emu-speed: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

# OpenMP's idle threads otherwise spin for a while after each parallel loop,
# taking a core from the emulator's worker timed right after them.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

work=$(mktemp -d "${TMPDIR:-/tmp}/emu-speed.XXXXXX")
trap 'rm -rf "$work"' EXIT

# build FILE: the benchmark program
build() {
    g++ -O2 -fopenmp -c "$ROOT/tools/emu-speed-cpu.cpp" -o "$work/emu-speed-cpu.o"
    "$ROOT/bin/nvcc-emu" "$ROOT/tools/emu-speed.cu" "$ROOT/tools/emu-speed-vadd.cu" \
        "$work/emu-speed-cpu.o" -lgomp -o "$1"
}
if [ -n "$build_only" ]; then
    build "$build_only"
    exit 0
fi
build "$work/emu-speed"

echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# Each process runs one round; the figures are medians over the processes.
rounds=7 args=(--rounds 1 --batch 3)
[ "$quick" -eq 1 ] && rounds=1 args=(--rounds 1 --batch 1 --small)
programs=("$work/emu-speed")
[ -n "$compare" ] && programs+=("$compare")
for ((r = 1; r <= rounds; r++)); do
    for w in 1 2; do
        for p in "${!programs[@]}"; do
            CUEMU_WORKERS=$w "${programs[p]}" "${args[@]}" >"$work/out" || { cat "$work/out"; exit 1; }
            grep '^emu-speed:' "$work/out" >>"$work/p$p-w$w"
        done
    done
    echo "round $r of $rounds done"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$quick" -eq 1 ]; then
    echo "(--quick: one round of single launches on small problems; these figures mean little)"
else
    echo "(vector add of 2^22 floats; tiled matmul 512x512, 16x16 tiles)"
fi

# median NAME FILE: the median of the values of NAME=... in FILE
median() {
    sed -n "s/.*[: ]$1=\([^ ]*\).*/\1/p" "$2" | sort -g |
        awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# report TITLE P: the tables for program number P
report() {
    local one="$work/p$2-w1" two="$work/p$2-w2"
    printf '\n== %s\n' "$1"
    for kernel in vadd matmul; do
        printf '%s %s %s %s %s %s %s\n' "$kernel" "$(median ${kernel}_serial_s "$one")" \
            "$(median ${kernel}_openmp_s "$one")" "$(median ${kernel}_sync_s "$one")" \
            "$(median ${kernel}_batch_s "$one")" "$(median ${kernel}_sync_s "$two")" \
            "$(median ${kernel}_batch_s "$two")"
    done | awk -v e1="$(median empty_launch_s "$one")" -v e2="$(median empty_launch_s "$two")" -v rounds="$rounds" '
    BEGIN {
        name["vadd"] = "vector add"; target["vadd"] = 3
        name["matmul"] = "tiled matmul"; target["matmul"] = 15
        printf "wall-clock ms per launch, median of %d rounds; 1w, 2w: CUEMU_WORKERS=1, 2\n", rounds
        printf "%-19s %9s %9s %9s %9s %9s %9s\n", "", "serial", "OpenMP 2", "1w sync", "1w batch", "2w sync", "2w batch"
    }
    {
        row[NR] = $0
        printf "%-19s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", name[$1], $2 * 1e3, $3 * 1e3, $4 * 1e3, $5 * 1e3, $6 * 1e3, $7 * 1e3
    }
    END {
        printf "ratios              1w sync   1w batch   (target)   2w vs 1w sync, batch   OpenMP 2 vs serial\n"
        for (i = 1; i <= NR; ++i) {
            split(row[i], f, " ")
            printf "%-19s %7.2fx %9.2fx   (<= %2dx) %12.2fx %7.2fx   (>= 1.8x) %8.2fx\n",
                   name[f[1]], f[4] / f[2], f[5] / f[2], target[f[1]], f[4] / f[6], f[5] / f[7], f[2] / f[3]
        }
        printf "empty kernel <<<1, 1>>>, launch + synchronize: %.1f us (1 worker), %.1f us (2 workers)\n", e1 * 1e6, e2 * 1e6
    }'
}
report "this tree" 0
[ -n "$compare" ] && report "$compare" 1
echo
echo "(2w vs 1w only means something where OpenMP gets about 2x from its second thread: a quiet machine)"
