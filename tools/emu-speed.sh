#!/usr/bin/env bash
# emu-speed.sh - the emulator against plain C++ loops and against PoCL, its
# nearest peer, in one run, as ratios.
#
#   tools/emu-speed.sh                # about two minutes on 2 cores
#   tools/emu-speed.sh --quick        # a few seconds: only shows that it works
#   tools/emu-speed.sh --build FILE   # only build the emulator's benchmark, as FILE
#   tools/emu-speed.sh --compare FILE # also time FILE (a --build of another
#                                     # tree, say main), in the same rounds
#
# Builds tools/emu-speed.cu and tools/emu-speed-vadd.cu with bin/nvcc-emu, the
# yardstick loops (tools/emu-speed-cpu.cpp) with plain `g++ -O2 -fopenmp`, and,
# where the system has OpenCL with a CPU platform (Debian: apt-get install
# pocl-opencl-icd ocl-icd-opencl-dev opencl-c-headers), the same kernels for
# PoCL (tools/emu-speed-opencl.cpp and .cl); without it, one line says PoCL
# was skipped and the rest runs. In alternating rounds (a process each) it runs
# the benchmark with CUEMU_WORKERS=1 and =2, and PoCL with as many threads, and
# prints, for each kernel (vector add, tiled matmul, warp-shuffle sum, shared-
# memory histogram): the emulator's time over the serial loop's with one
# worker, over the tiled matmul written as serial loops split at its barriers,
# and over PoCL's; PoCL's over the serial loop's; what a second worker or
# thread gains in each; and OpenMP's own gain from a second thread (the
# machine's yardstick for two cores). All times are wall-clock medians over the
# rounds; see tools/emu-speed.cu. Not a pass/fail test: the exit status is 0
# whenever the measurements ran and every result was right.
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
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "emu-speed: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

# OpenMP's idle threads otherwise spin for a while after each parallel loop,
# taking a core from the emulator's worker timed right after them.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# The benchmark uses __shared__, so the emulator would run it under the race
# check by default; the figures are of the emulator without it unless asked.
export CUEMU_CHECK=${CUEMU_CHECK:-none}

work=$(mktemp -d "${TMPDIR:-/tmp}/emu-speed.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The yardstick loops, which the emulator's benchmark and PoCL's both link.
build_yardsticks() {
    g++ -O2 -fopenmp -c "$ROOT/tools/emu-speed-cpu.cpp" -o "$work/emu-speed-cpu.o"
}
# build FILE: the emulator's benchmark program
build() {
    "$ROOT/bin/nvcc-emu" "$ROOT/tools/emu-speed.cu" "$ROOT/tools/emu-speed-vadd.cu" \
        "$work/emu-speed-cpu.o" -lgomp -o "$1"
}
# PoCL's, where the system has the OpenCL headers, the ICD loader and a platform:
# a one-line program that needs all three decides, so that a missing package
# skips PoCL while a mistake in tools/emu-speed-opencl.cpp still fails loudly.
build_pocl() {
    printf '#include <CL/cl.h>\nint main(void) { cl_uint n = 0; return clGetPlatformIDs(0, 0, &n) != CL_SUCCESS || n == 0; }\n' \
        >"$work/probe.c"
    if gcc -DCL_TARGET_OPENCL_VERSION=120 "$work/probe.c" -lOpenCL -o "$work/probe" 2>/dev/null && "$work/probe"; then
        g++ -O2 -fopenmp -I"$ROOT/common" "$ROOT/tools/emu-speed-opencl.cpp" "$work/emu-speed-cpu.o" \
            -lOpenCL -o "$work/emu-speed-opencl"
    fi
}
build_yardsticks
if [ -n "$build_only" ]; then
    build "$build_only"
    exit 0
fi
# Both at once: the second core would otherwise wait through the emulator's build.
build_pocl &
pocl_build=$!
build "$work/emu-speed"
wait "$pocl_build" || { echo "emu-speed: tools/emu-speed-opencl.cpp does not build" >&2; exit 1; }
pocl=""
[ -x "$work/emu-speed-opencl" ] && pocl="$work/emu-speed-opencl"
pocl_skipped() {
    echo "PoCL: skipped, $1 (to include it: apt-get install pocl-opencl-icd ocl-icd-opencl-dev opencl-c-headers)"
    pocl=""
}
[ -n "$pocl" ] || pocl_skipped "no OpenCL headers, ICD loader or platform"

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
        # PoCL 3.1 sizes its thread pool by POCL_MAX_PTHREAD_COUNT; later
        # versions read POCL_CPU_MAX_CU_NUM instead (3.1 ignores it).
        if [ -n "$pocl" ]; then
            status=0
            POCL_MAX_PTHREAD_COUNT=$w POCL_CPU_MAX_CU_NUM=$w "$pocl" --source "$ROOT/tools/emu-speed-opencl.cl" \
                "${args[@]}" >"$work/out" || status=$?
            if [ "$status" -eq 3 ]; then
                pocl_skipped "no OpenCL CPU device"
            elif [ "$status" -ne 0 ]; then
                cat "$work/out"; exit 1
            else
                grep '^emu-speed:' "$work/out" >>"$work/pocl-w$w"
            fi
        fi
    done
    echo "round $r of $rounds done"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$quick" -eq 1 ]; then
    echo "(--quick: one round of single launches on small problems; these figures mean little)"
else
    echo "(vector add of 2^22 floats; tiled matmul 512x512, 16x16 tiles; sum of 2^22 ints; histogram of 2^22 bytes)"
fi

# median NAME FILE: the median of the values of NAME=... in FILE, or - where
# there are none (PoCL skipped, or a figure only the matmul has)
median() {
    [ -f "$2" ] || { echo -; return; }
    sed -n "s/.*[: ]$1=\([^ ]*\).*/\1/p" "$2" | sort -g |
        awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'
}

# report TITLE P: the tables for program number P, and PoCL's beside it
report() {
    local one="$work/p$2-w1" two="$work/p$2-w2" pocl1="$work/pocl-w1" pocl2="$work/pocl-w2"
    printf '\n== %s\n' "$1"
    for kernel in vadd matmul sum histo; do
        echo "$kernel $(median ${kernel}_serial_s "$one") $(median ${kernel}_openmp_s "$one")" \
            "$(median ${kernel}_tiled_s "$one")" \
            "$(median ${kernel}_sync_s "$one") $(median ${kernel}_batch_s "$one")" \
            "$(median ${kernel}_sync_s "$two") $(median ${kernel}_batch_s "$two")" \
            "$(median pocl_${kernel}_sync_s "$pocl1") $(median pocl_${kernel}_batch_s "$pocl1")" \
            "$(median pocl_${kernel}_sync_s "$pocl2") $(median pocl_${kernel}_batch_s "$pocl2")"
    done | awk -v e1="$(median empty_launch_s "$one")" -v e2="$(median empty_launch_s "$two")" \
               -v p1="$(median pocl_empty_launch_s "$pocl1")" -v p2="$(median pocl_empty_launch_s "$pocl2")" \
               -v rounds="$rounds" '
    function ms(v) { return v == "-" ? sprintf("%8s", "-") : sprintf("%8.2f", v * 1e3) }
    function us(v) { return v == "-" ? "-" : sprintf("%.1f", v * 1e6) }
    function ratio(x, y) { return x == "-" || y == "-" ? sprintf("%8s", "-") : sprintf("%7.2fx", x / y) }
    BEGIN {
        name["vadd"] = "vector add"; name["matmul"] = "tiled matmul"
        name["sum"] = "sum (shuffles)"; name["histo"] = "histogram"
        printf "wall-clock ms per launch, median of %d rounds; 1w, 2w: CUEMU_WORKERS=1, 2;\n", rounds
        printf "PoCL 1, 2: POCL_MAX_PTHREAD_COUNT=1, 2; s: launch + synchronize each, b: batched\n"
        printf "%-15s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", "", "serial", "OpenMP 2", "tiled",
               "1w s", "1w b", "2w s", "2w b", "PoCL 1 s", "PoCL 1 b", "PoCL 2 s", "PoCL 2 b"
    }
    {
        row[NR] = $0
        printf "%-15s", name[$1]
        for (i = 2; i <= 12; ++i) printf " %s", ms($i)
        printf "\n"
    }
    END {
        # f: 2 serial, 3 OpenMP, 4 tiled, 5/6 1w s/b, 7/8 2w s/b, 9/10 PoCL 1 s/b, 11/12 PoCL 2 s/b
        for (way = 0; way < 2; ++way) {
            printf "\nratios, %s\n", way ? "batched" : "launch + synchronize each (as a lesson launches)"
            printf "%-15s %8s %8s %8s %8s %8s %8s %8s %8s\n", "", "1w/ser", "1w/tiled", "PoCL1/ser",
                   "1w/PoCL1", "2w/PoCL2", "2w vs 1w", "PoCL 2v1", "OMP 2v1"
            for (i = 1; i <= NR; ++i) {
                split(row[i], f, " ")
                e1w = f[5 + way]; e2w = f[7 + way]; q1 = f[9 + way]; q2 = f[11 + way]
                printf "%-15s %s %s %s %s %s %s %s %s\n", name[f[1]], ratio(e1w, f[2]), ratio(e1w, f[4]),
                       ratio(q1, f[2]), ratio(e1w, q1), ratio(e2w, q2), ratio(e1w, e2w), ratio(q1, q2),
                       ratio(f[2], f[3])
            }
        }
        printf "\nempty kernel, launch + synchronize (us): emulator %s (1 worker), %s (2 workers);", us(e1), us(e2)
        printf " PoCL %s (1 thread), %s (2 threads)\n", us(p1), us(p2)
        printf "issue 30 targets: vector add 1w/ser <= 1.2x; tiled matmul 1w/tiled <= 5x and 1w/PoCL1 < 1x;\n"
        printf "empty launch <= 20 us; 2w vs 1w >= 1.9x where OMP 2v1 is as high\n"
    }'
}
report "this tree" 0
[ -n "$compare" ] && report "$compare" 1
echo
echo "(2w vs 1w only means something where OpenMP gets about 2x from its second thread: a quiet machine)"
