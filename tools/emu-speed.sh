#!/usr/bin/env bash
# emu-speed.sh - the emulator against plain C++ loops, in one run, as ratios.
#
#   tools/emu-speed.sh               # about a minute on 2 cores
#   tools/emu-speed.sh --quick       # a few seconds: only shows that it works
#   tools/emu-speed.sh --build FILE  # only build the benchmark, as FILE
#
# Builds tools/emu-speed.cu and tools/emu-speed-vadd.cu with bin/nvcc-emu, and
# the yardstick loops (tools/emu-speed-cpu.cpp) with plain `g++ -O2 -fopenmp`;
# runs the benchmark with CUEMU_WORKERS=1 and =2 and prints, for each kernel,
# the emulator's time over the serial loop's (one worker) and what a second
# worker gains. All times are wall-clock medians; see tools/emu-speed.cu.
# Not a pass/fail test: the exit status is 0 whenever the measurements ran and
# every result was right.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
quick=0 build_only=""
case "${1:-}" in
    "") ;;
    --quick) quick=1 ;;
    --build) [ $# -ge 2 ] || { echo "emu-speed: --build needs a file name" >&2; exit 2; }
             build_only=$2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
args=(); [ "$quick" -eq 1 ] && args=(--rounds 1 --batch 1 --small)
CUEMU_WORKERS=1 "$work/emu-speed" "${args[@]}" | tee "$work/one"
CUEMU_WORKERS=2 "$work/emu-speed" "${args[@]}" | tee "$work/two"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# field NAME FILE: the value of NAME=... on the script lines of FILE
field() { sed -n "s/.*[: ]$1=\([^ ]*\).*/\1/p" "$2" | tail -1; }
[ "$quick" -eq 1 ] && echo "(--quick: one round of single launches on small problems; these figures mean little)"
for kernel in vadd matmul; do
    printf '%s %s %s %s %s\n' "$kernel" "$(field ${kernel}_serial_s "$work/one")" \
        "$(field ${kernel}_sync_s "$work/one")" "$(field ${kernel}_batch_s "$work/one")" \
        "$(field ${kernel}_batch_s "$work/two")"
done | awk -v e1="$(field empty_launch_s "$work/one")" -v e2="$(field empty_launch_s "$work/two")" '
BEGIN {
    name["vadd"] = "vector add"; target["vadd"] = 3
    name["matmul"] = "tiled matmul"; target["matmul"] = 15
    printf "\n%-20s %16s %16s %18s\n", "wall-clock ratios", "1 worker, sync", "1 worker, batch", "2 workers vs 1"
}
{
    printf "%-20s %15.2fx %15.2fx %17.2fx   (targets: <= %dx serial, >= 1.8x)\n",
           name[$1], $3 / $2, $4 / $2, $4 / $5, target[$1]
}
END { printf "empty kernel, launch + synchronize: %.1f us (1 worker), %.1f us (2 workers)\n", e1 * 1e6, e2 * 1e6 }'
