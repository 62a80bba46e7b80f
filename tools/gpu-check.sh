#!/usr/bin/env bash
# gpu-check.sh - the whole GPU check in one command, for a machine with an
# NVIDIA GPU, nvcc, CMake and ninja but no package registry (and so no Boost:
# the emulator is left out there).
#
#   tools/gpu-check.sh OUTDIR
#
# 1. records the GPU, driver and toolkit;
# 2. builds every lesson with nvcc (-DTUTORIAL_EMULATOR=OFF, native architecture);
# 3. runs the whole test suite on the GPU (CTest);
# 4. runs compute-sanitizer (memcheck, racecheck, synccheck, initcheck) over
#    every solution's test executable;
# 5. runs lesson 19's SGEMM ladder with --bench: every rung against cuBLAS up
#    to 4096 x 4096 in one run (issue 12's targets are percentages of cuBLAS);
# 6. runs Nsight Compute with the emulator profiler's metric names over the
#    lessons whose READMEs show `./tutorial profile` (the same flags), into
#    OUTDIR/ncu-NN.csv, and compares each with the emulator's profile of the
#    same run where one was carried (.carry/profiles/NN.csv), into
#    OUTDIR/ncu-vs-emulator-NN.txt (tools/compare_with_ncu.py).
#
#   tools/gpu-check.sh --emulator-profiles
#
# makes those .carry/profiles/NN.csv beforehand, on a machine with the
# emulator (the GPU machine has no Boost to build it).
# Everything lands in OUTDIR/*.log; the exit code is non-zero if any step failed.
# doctest comes from the system or, if absent, from .carry/doctest (the
# doctest-dev .deb unpacked there: see docs/gpu-runs/README.md).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The runs the profiler's lessons show (their README's `./tutorial profile` lines).
PROFILED=("08 --m 128 --n 128 --k 128" "09 --m 128 --n 128 --k 128" "12 --n 262144" "15"
          "19 --m 128 --n 128 --k 128")
if [ "${1:-}" = --emulator-profiles ]; then
    mkdir -p "$ROOT/.carry/profiles"
    for run in "${PROFILED[@]}"; do
        read -r nn flags <<<"$run"
        # shellcheck disable=SC2086
        TUTORIAL_SEED=1 "$ROOT/tutorial" --emu profile "$nn" $flags --out "$ROOT/.carry/profiles/$nn" >/dev/null &&
            cp "$ROOT/.carry/profiles/$nn/profile.csv" "$ROOT/.carry/profiles/$nn.csv" &&
            echo "made .carry/profiles/$nn.csv" || { echo "gpu-check: profiling lesson $nn failed"; exit 1; }
    done
    exit 0
fi
OUT="${1:?usage: tools/gpu-check.sh OUTDIR | --emulator-profiles}"
mkdir -p "$OUT"
BUILD="${GPU_CHECK_BUILD:-$ROOT/build-gpu}"
status=0

{
    date -u +"date: %Y-%m-%d %H:%M UTC"
    nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
    nvcc --version | tail -2
    cmake --version | head -1
} >"$OUT/environment.log" 2>&1
cat "$OUT/environment.log"

args=(-DTUTORIAL_EMULATOR=OFF -DTUTORIAL_NVCC=ON)
if [ -d "$ROOT/.carry/doctest/usr/lib/cmake/doctest" ]; then
    args+=(-Ddoctest_DIR="$ROOT/.carry/doctest/usr/lib/cmake/doctest")
fi
generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
if ! { cmake -S "$ROOT" -B "$BUILD" "${generator[@]}" "${args[@]}" &&
       cmake --build "$BUILD" -j "$(nproc)"; } >"$OUT/build.log" 2>&1; then
    tail -30 "$OUT/build.log"
    echo "gpu-check: build failed (see $OUT/build.log)"
    exit 1
fi

ctest --test-dir "$BUILD" --output-on-failure -j 4 >"$OUT/ctest.log" 2>&1 || status=1
tail -15 "$OUT/ctest.log"

: >"$OUT/sanitizer.log"
for test_exe in "$BUILD"/bin/test_lesson*_solution_nvcc; do
    for tool in memcheck racecheck synccheck initcheck; do
        printf '== %s %s\n' "$tool" "$(basename "$test_exe")" >>"$OUT/sanitizer.log"
        if compute-sanitizer --tool "$tool" --error-exitcode 1 "$test_exe" >>"$OUT/sanitizer.log" 2>&1; then
            echo "ok   $tool $(basename "$test_exe")"
        else
            echo "FAIL $tool $(basename "$test_exe")"
            status=1
        fi
    done
done

if [ -x "$BUILD/bin/lesson19_solution_nvcc" ]; then
    if "$BUILD/bin/lesson19_solution_nvcc" --bench >"$OUT/sgemm-ladder.log" 2>&1; then
        echo "ok   lesson 19 --bench (the SGEMM ladder against cuBLAS: $OUT/sgemm-ladder.log)"
    else
        echo "FAIL lesson 19 --bench (see $OUT/sgemm-ladder.log)"
        status=1
    fi
fi
metrics=$(python3 "$ROOT/tools/profile_report.py" --ncu-metrics)
for run in "${PROFILED[@]}"; do
    read -r nn flags <<<"$run"
    program="$BUILD/bin/lesson${nn}_solution_nvcc"
    [ -x "$program" ] || continue
    # shellcheck disable=SC2086
    if TUTORIAL_SEED=1 ncu --csv --print-units base --metrics "$metrics" "$program" $flags \
            >"$OUT/ncu-$nn.csv" 2>"$OUT/ncu-$nn.log"; then
        echo "ok   ncu lesson $nn ($OUT/ncu-$nn.csv)"
    else
        echo "FAIL ncu lesson $nn (see $OUT/ncu-$nn.log)"
        status=1
        continue
    fi
    if [ -f "$ROOT/.carry/profiles/$nn.csv" ]; then
        python3 "$ROOT/tools/compare_with_ncu.py" "$ROOT/.carry/profiles/$nn.csv" "$OUT/ncu-$nn.csv" \
            >"$OUT/ncu-vs-emulator-$nn.txt" 2>&1 || status=1
        tail -1 "$OUT/ncu-vs-emulator-$nn.txt"
    fi
done
exit "$status"
