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
#    to 4096 x 4096 in one run (issue 12's targets are percentages of cuBLAS).
# Everything lands in OUTDIR/*.log; the exit code is non-zero if any step failed.
# doctest comes from the system or, if absent, from .carry/doctest (the
# doctest-dev .deb unpacked there: see docs/gpu-runs/README.md).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:?usage: tools/gpu-check.sh OUTDIR}"
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
exit "$status"
