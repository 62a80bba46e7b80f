#!/usr/bin/env bash
# bench.sh [--out DIR] [--gpu-model NAME] [--no-estimate] - run as ./tutorial [--gpu|--emu] bench [...]
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
# On the emulator it then runs lessons 08, 09 and 19 --bench once more with the
# emulator's profiler on (CUEMU_PROFILE, CUEMU_GPU=NAME, default H100) and adds
# the GFLOP/s that cuemu's model ESTIMATES for that GPU, in tables and plots of
# their own (bench/estimated.py, docs/profiler.md): never on the same axis as the
# CPU-measured times. An emulator without the profiler skips this with one line;
# --no-estimate skips it on purpose (CI: the estimate has tests of its own).
set -euo pipefail
ROOT=${TUTORIAL_ROOT:?run this as ./tutorial bench}
TUTORIAL=${TUTORIAL_SCRIPT:?run this as ./tutorial bench}
BACKEND=${TUTORIAL_CHOSEN_BACKEND:?run this as ./tutorial bench}
BUILD=${TUTORIAL_BUILD:?run this as ./tutorial bench}
die() { printf 'tutorial: %s\n' "$*" >&2; exit 2; }
# The emulator runs a program with __shared__ under its race check by default;
# the times here are of the kernels without it, unless CUEMU_CHECK says otherwise.
export CUEMU_CHECK=${CUEMU_CHECK:-none}

out="" gpu_model=H100 estimate=1
while [ $# -gt 0 ]; do
    case "$1" in
        --no-estimate) estimate=0; shift ;;
        --out) [ $# -ge 2 ] || die "bench: --out needs a folder"; out=$2; shift 2 ;;
        --gpu-model) [ $# -ge 2 ] || die "bench: --gpu-model needs a name"; gpu_model=$2; shift 2 ;;
        *) die "bench: unknown argument '$1' (usage: ./tutorial bench [--out DIR] [--gpu-model NAME] [--no-estimate])" ;;
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
known_models=$("$python" "$ROOT/tools/profile_report.py" --list-gpus) ||
    die "bench: cannot read the GPU table common/emu/profiler/gpus.csv"
grep -qxF -- "$gpu_model" <<<"$known_models" ||
    die "bench: unknown GPU model '$gpu_model' (known: $(paste -sd, <<<"$known_models" | sed 's/,/, /g'))"
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

# The estimate on a GPU model: the same programs again, counters on. A quick run
# first asks whether this emulator has the profiler at all, so that an emulator
# without it costs no second run of the benches. Nothing here fails bench.
estimate_on_gpu_model() {
    local profiles="$out/profile" nn
    mkdir -p "$profiles" && rm -f "$profiles"/*.csv "$profiles"/*.json "$profiles"/*.txt
    CUEMU_PROFILE="$profiles/probe.csv" CUEMU_GPU=$gpu_model \
        "$BUILD/bin/lesson05_solution_emu" --n 1000 >/dev/null 2>&1 || true
    if [ ! -s "$profiles/probe.csv" ]; then
        printf 'tutorial: bench: no estimated GFLOP/s: this emulator wrote no profile (its profiler, CUEMU_PROFILE, is not built in)\n' >&2
        rm -rf "$profiles"
        return 0
    fi
    for nn in 08 09 19; do
        printf 'tutorial: bench: lesson %s --bench with the profiler on (%s) ...\n' "$nn" "$gpu_model" >&2
        if ! CUEMU_PROFILE="$profiles/lesson$nn.csv" CUEMU_GPU=$gpu_model \
            "$BUILD/bin/lesson${nn}_solution_emu" --bench >"$profiles/lesson$nn.txt" 2>&1; then
            printf 'tutorial: bench: no estimated GFLOP/s: lesson %s failed with the profiler on (%s)\n' \
                "$nn" "$profiles/lesson$nn.txt" >&2
            return 0
        fi
    done
    "$python" "$ROOT/tools/bench/estimated.py" --profiles "$profiles" --out "$out" --date "$stamp" ||
        printf 'tutorial: bench: no estimated GFLOP/s: tools/bench/estimated.py failed\n' >&2
}
if [ "$BACKEND" = emu ] && [ "$estimate" -eq 1 ]; then estimate_on_gpu_model; fi
printf 'tutorial: bench: done in %d s; tables and plots in %s\n' "$((SECONDS - start))" "$out" >&2
