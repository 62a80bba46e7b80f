#!/usr/bin/env bash
# bench.sh [--out DIR] - run as ./tutorial [--gpu|--emu] bench [--out DIR]
#
# Reproduces the source articles' tables on whatever machine runs it, from
# the lessons' own --bench modes (the solutions of lessons 05, 08 and 09):
#   vector add, CPU vs GPU across n, kernel only and with the copies (05);
#   matrix multiply, CPU vs naive vs tiled across N (08 and 09);
#   the SGEMM ladder, every rung against cuBLAS across N (19);
#   device-to-device copy bandwidth, vector add's ceiling (GPU only).
# Writes the programs' own output, CSV tables and PNG plots (log axes,
# labelled with the device, the date and whether it is the CPU emulator)
# under results/<date>-<backend>/ (git-ignored), using bench/plot.py and
# python3-matplotlib. On the emulator it takes about a minute and a half on
# two cores.
set -euo pipefail
ROOT=${TUTORIAL_ROOT:?run this as ./tutorial bench}
TUTORIAL=${TUTORIAL_SCRIPT:?run this as ./tutorial bench}
BACKEND=${TUTORIAL_CHOSEN_BACKEND:?run this as ./tutorial bench}
BUILD=${TUTORIAL_BUILD:?run this as ./tutorial bench}
die() { printf 'tutorial: %s\n' "$*" >&2; exit 2; }

out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --out) [ $# -ge 2 ] || die "bench: --out needs a folder"; out=$2; shift 2 ;;
        *) die "bench: unknown argument '$1' (usage: ./tutorial bench [--out DIR])" ;;
    esac
done
# Debian's python3-matplotlib belongs to /usr/bin/python3, which another
# python3 earlier on PATH (pyenv, a venv) may hide.
python=""
for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c 'import matplotlib' 2>/dev/null; then python=$candidate; break; fi
done
[ -n "$python" ] ||
    die "bench: the plots need matplotlib (Debian/Ubuntu: sudo apt-get install python3-matplotlib)"
stamp=$(date -u +%Y-%m-%d)
[ -n "$out" ] || out="$ROOT/results/$stamp-$BACKEND"
mkdir -p "$out" 2>/dev/null && [ -w "$out" ] || die "bench: cannot write to $out"

flag=--emu; [ "$BACKEND" = nvcc ] && flag=--gpu
start=$SECONDS
for nn in 05 08 09 19; do
    printf 'tutorial: bench: lesson %s --bench ...\n' "$nn" >&2
    "$TUTORIAL" "$flag" solution "$nn" --bench >"$out/lesson$nn.txt" ||
        die "bench: lesson $nn --bench failed (its output: $out/lesson$nn.txt)"
done
bandwidth=()
if [ "$BACKEND" = nvcc ]; then
    printf 'tutorial: bench: device-to-device copy bandwidth ...\n' >&2
    cmake --build "$BUILD" --target bench_copy_bandwidth_nvcc >/dev/null ||
        die "bench: building the copy-bandwidth program failed"
    "$BUILD/bin/bench_copy_bandwidth_nvcc" >"$out/copy_bandwidth.txt" ||
        die "bench: the copy-bandwidth program failed (its output: $out/copy_bandwidth.txt)"
    bandwidth=(--bandwidth "$out/copy_bandwidth.txt")
fi
"$python" "$ROOT/tools/bench/plot.py" --out "$out" --date "$stamp" \
    --vector-add "$out/lesson05.txt" --matmul "$out/lesson08.txt" --tiled "$out/lesson09.txt" \
    --ladder "$out/lesson19.txt" "${bandwidth[@]}"
printf 'tutorial: bench: done in %d s; tables and plots in %s\n' "$((SECONDS - start))" "$out" >&2
