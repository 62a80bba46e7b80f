#!/usr/bin/env bash
# emu-vs-numba.sh - the emulator's speed against numba's CUDA simulator, in one run.
#
#   tools/emu-vs-numba.sh            # about 30 s: full measurement
#   tools/emu-vs-numba.sh --quick    # a few seconds: only shows that the tools work
#
# Builds the benchmark (tools/emu-speed.sh --build) and runs it with CUEMU_WORKERS=1
# and with one worker per core (nproc); then runs the same two kernels under
# numba's simulator (tools/numba-speed.py) and prints the rates side by side,
# with cuemu's rate divided by numba's. numba is optional: without it the
# script says so and prints cuemu's figures only. Not a pass/fail test: the
# exit status is 0 whenever the measurements ran and their results were right.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
quick=0
case "${1:-}" in
    "") ;;
    --quick) quick=1 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "emu-vs-numba: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

# Targets from the issue "The emulator as a teaching debugger", for 2 cores.
target_threads_per_s=150e6
target_ratio=1000

work=$(mktemp -d "${TMPDIR:-/tmp}/emu-vs-numba.XXXXXX")
trap 'rm -rf "$work"' EXIT

cores=$(nproc)
echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $cores cores"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

"$ROOT/tools/emu-speed.sh" --build "$work/emu-speed"
# Only the kernels numba's side has; the benchmark's sum alone would take minutes.
emu_args=(--skip-sum-histogram)
[ "$quick" -eq 1 ] && emu_args+=(--rounds 1 --batch 1 --small)

# field NAME FILE: the value of NAME=... on the script line of FILE
field() { sed -n "s/.*[: ]$1=\([^ ]*\).*/\1/p" "$2" | tail -1; }

CUEMU_WORKERS=1 "$work/emu-speed" "${emu_args[@]}" | tee "$work/emu-1"
CUEMU_WORKERS=$cores "$work/emu-speed" "${emu_args[@]}" | tee "$work/emu-all"

# numba: whichever python3 has it (Debian's python3-numba is for /usr/bin/python3,
# which another python3 earlier on PATH may hide).
have_numba=0
numba_args=(--threads 32768 --matrix 64)  # a few seconds each on a 2-core machine
[ "$quick" -eq 1 ] && numba_args=(--threads 512 --matrix 16)
for python in python3 /usr/bin/python3; do
    command -v "$python" >/dev/null || continue
    if "$python" -c 'import numba' 2>/dev/null; then
        "$python" "$ROOT/tools/numba-speed.py" "${numba_args[@]}" | tee "$work/numba"
        have_numba=1
        break
    fi
done
[ "$have_numba" -eq 1 ] ||
    echo "numba is NOT installed (Debian: apt-get install python3-numba): no comparison"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- the table ------------------------------------------------------------------
t1=$(field threads_per_s "$work/emu-1");  b1=$(field barrier_round_trips_per_s "$work/emu-1")
ta=$(field threads_per_s "$work/emu-all"); ba=$(field barrier_round_trips_per_s "$work/emu-all")
tn=""; bn=""
if [ "$have_numba" -eq 1 ]; then
    tn=$(field threads_per_s "$work/numba"); bn=$(field barrier_round_trips_per_s "$work/numba")
fi
[ "$quick" -eq 1 ] && echo "(--quick: single launches on tiny problems; these figures mean little)"
awk -v t1="$t1" -v b1="$b1" -v ta="$ta" -v ba="$ba" -v tn="$tn" -v bn="$bn" -v cores="$cores" \
    -v target_t="$target_threads_per_s" -v target_r="$target_ratio" '
function rate(x) { return x >= 1e6 ? sprintf("%.1f M/s", x / 1e6) : sprintf("%.0f /s", x) }
function times(x, y) { return y == "" ? "-" : sprintf("%.0fx", x / y) }
function met(ok) { return ok ? "met" : "NOT met" }
BEGIN {
    printf "\n%-28s %22s %24s\n", "", "threads (no barrier)", "barrier round trips"
    printf "%-28s %22s %24s\n", "cuemu, 1 worker", rate(t1), rate(b1)
    printf "%-28s %22s %24s\n", "cuemu, " cores " workers", rate(ta), rate(ba)
    if (tn != "") {
        printf "%-28s %22s %24s\n", "numba CUDA simulator", rate(tn), rate(bn)
        printf "%-28s %22s %24s\n", "cuemu 1 worker / numba", times(t1, tn), times(b1, bn)
        printf "%-28s %22s %24s\n", "cuemu " cores " workers / numba", times(ta, tn), times(ba, bn)
    }
    printf "\ntarget >= %.0f M barrier-free threads/s with all workers: %s\n",
           target_t / 1e6, met(ta >= target_t)
    if (tn != "")
        printf "target >= %dx numba, both rates, all workers: %s\n", target_r,
               met(ta / tn >= target_r && ba / bn >= target_r)
}'
