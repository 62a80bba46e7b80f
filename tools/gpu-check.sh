#!/usr/bin/env bash
# gpu-check.sh - the whole GPU check in one command, for a machine with an
# NVIDIA GPU, nvcc, CMake and ninja but no package registry (and so no Boost:
# the emulator is left out there).
#
#   tools/gpu-check.sh OUTDIR
#
# Phases, in the order they matter (a lent GPU is short of time, so each phase
# has a time limit, and a phase that would start too late is skipped, saying so):
# 1. env:       the GPU, driver, toolkit and clocks (OUTDIR/environment.log);
# 2. build:     every lesson with nvcc (-DTUTORIAL_EMULATOR=OFF; the architecture
#               GPU_CHECK_ARCH, default native) (build.log); then the runtime's
#               answers to launches past the limits (launch-limits.txt);
# 3. ctest:     the whole test suite on the GPU (ctest.log);
# 4. sanitizer: compute-sanitizer's memcheck, racecheck, synccheck and initcheck
#               over every solution's test executable, several at a time
#               (sanitizer.log, one verdict a line in sanitizer-verdicts.txt);
# 5. bench:     ./tutorial --gpu bench (lessons 05, 08, 09, 19 and the copy
#               bandwidth, with its CSV tables and plots under bench/), then every
#               other lesson's --bench (bench-NN.log), one program at a time;
# 6. ncu:       Nsight Compute with the emulator profiler's metric names over the
#               lessons whose READMEs show `./tutorial profile` (the same flags),
#               clocks left as they are (--clock-control none), into ncu-NN.csv,
#               compared with the emulator's profile of the same run where one
#               was carried (.carry/profiles/NN.csv) into ncu-vs-emulator-NN.txt
#               (tools/compare_with_ncu.py);
# 7. emu-tests: the emulator's own doctest files and programs built with nvcc
#               and run on the GPU, one test case per process, leaving out the
#               test suite "emulator-only" (tools/gpu-emu-tests.sh; emu-verdicts.txt,
#               one line per test program and program; emu-cases.txt; emu-tests.log).
#               Its own limit: GPU_CHECK_EMU_LIMIT seconds (default 420); last,
#               as the lessons' phases come first.
# Every phase appends one line to OUTDIR/summary.txt. GPU_CHECK_BUDGET (seconds,
# default 540) is the time for all phases together; GPU_CHECK_PACK=FILE.tar.gz
# packs OUTDIR into FILE after every phase, so that a run stopped from outside
# still leaves what it had (a lent machine returns only a few files).
#
#   tools/gpu-check.sh --emulator-profiles
#
# makes those .carry/profiles/NN.csv beforehand, on a machine with the
# emulator (the GPU machine has no Boost to build it).
# The exit code is non-zero if any phase failed or was skipped.
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
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
BUILD="${GPU_CHECK_BUILD:-$ROOT/build-gpu}"
# The toolkit's tools (compute-sanitizer, ncu) where PATH lacks them.
for dir in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do
    [ -d "$dir" ] && PATH="$PATH:$dir"
done
BUDGET="${GPU_CHECK_BUDGET:-540}"
PACK="${GPU_CHECK_PACK:-}"
status=0
start=$SECONDS

note() { printf '%s\n' "$*" | tee -a "$OUT/summary.txt"; }
pack() {
    [ -n "$PACK" ] || return 0
    tar -czf "$PACK.part" -C "$(dirname "$OUT")" "$(basename "$OUT")" 2>/dev/null && mv "$PACK.part" "$PACK"
}
# phase_limit WANTED: the seconds a phase may take, at most WANTED and never past
# the budget; prints nothing and fails when under 20 s are left.
phase_limit() {
    local left=$((BUDGET - (SECONDS - start)))
    [ "$left" -ge 20 ] || return 1
    [ "$1" -lt "$left" ] && left=$1
    echo "$left"
}
# A phase's own deadline, for the phases that run many programs one by one.
deadline=0
time_left() { echo $((deadline - SECONDS)); }
# program_limit [CAP]: the seconds the next program of such a phase may take, at
# most CAP; prints nothing and fails when under 5 s of the phase are left.
program_limit() {
    local left=$((deadline - SECONDS))
    [ "$left" -ge 5 ] || return 1
    [ -n "${1:-}" ] && [ "$left" -gt "$1" ] && left=$1
    echo "$left"
}

# ---- 1. env ----------------------------------------------------------------------
{
    date -u +"date: %Y-%m-%d %H:%M UTC"
    nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap,clocks.sm,clocks.mem,clocks.max.sm,power.limit --format=csv
    nvcc --version | tail -2
    cmake --version | head -1
    command -v ncu compute-sanitizer
    ncu --version 2>&1 | tail -1
    compute-sanitizer --version 2>&1 | tail -1
    nproc; uname -r
} >"$OUT/environment.log" 2>&1
cat "$OUT/environment.log"
pack

# ---- 2. build --------------------------------------------------------------------
args=(-DTUTORIAL_EMULATOR=OFF -DTUTORIAL_NVCC=ON "-DCMAKE_CUDA_ARCHITECTURES=${GPU_CHECK_ARCH:-native}")
if [ -d "$ROOT/.carry/doctest/usr/lib/cmake/doctest" ]; then
    args+=(-Ddoctest_DIR="$ROOT/.carry/doctest/usr/lib/cmake/doctest")
fi
# zlib and libpng (lessons 16, 20, 21, 26) where the system lacks their headers:
# Debian's -dev packages unpacked into .carry/sysroot, linked statically so that
# nothing carried is needed at run time (GPU_CHECK_USE_CARRIED=1 tries them here).
carried="$ROOT/.carry/sysroot/usr"
carried_lib="$carried/lib/x86_64-linux-gnu"
if { [ -n "${GPU_CHECK_USE_CARRIED:-}" ] || [ ! -e /usr/include/zlib.h ]; } && [ -e "$carried/include/zlib.h" ]; then
    args+=(-DZLIB_INCLUDE_DIR="$carried/include" -DZLIB_LIBRARY="$carried_lib/libz.a")
fi
if { [ -n "${GPU_CHECK_USE_CARRIED:-}" ] || [ ! -e /usr/include/png.h ]; } && [ -e "$carried/include/libpng16/png.h" ]; then
    args+=(-DPNG_PNG_INCLUDE_DIR="$carried/include/libpng16" -DPNG_LIBRARY="$carried_lib/libpng16.a")
fi
generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
phase_start=$SECONDS
limit=$(phase_limit 240) || { note "build: no time left"; exit 1; }
if ! { cmake -S "$ROOT" -B "$BUILD" "${generator[@]}" "${args[@]}" &&
       timeout "$limit" cmake --build "$BUILD" -j "$(nproc)"; } >"$OUT/build.log" 2>&1; then
    tail -30 "$OUT/build.log"
    note "build: FAILED after $((SECONDS - phase_start)) s (build.log)"
    pack
    exit 1
fi
note "build: ok in $((SECONDS - phase_start)) s ($(grep -c 'Building CUDA' "$OUT/build.log") CUDA objects)"
pack

# What the runtime answers to launches past the limits (tools/launch-limits.cu):
# docs/gpu-runs/ keeps it, and the emulator's test compares its own answers with it.
if [ -x "$BUILD/bin/launch_limits_nvcc" ] &&
        timeout 60 "$BUILD/bin/launch_limits_nvcc" >"$OUT/launch-limits.txt" 2>&1; then
    note "launch limits: $(grep -vc '^#' "$OUT/launch-limits.txt") cases (launch-limits.txt)"
else
    note "launch limits: FAILED (launch-limits.txt)"; status=1
fi

# ---- 3. ctest --------------------------------------------------------------------
phase_start=$SECONDS
if limit=$(phase_limit 150); then
    timeout "$limit" ctest --test-dir "$BUILD" --output-on-failure -j 8 --timeout 120 >"$OUT/ctest.log" 2>&1 ||
        status=1
    tail -15 "$OUT/ctest.log"
    note "ctest: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1) in $((SECONDS - phase_start)) s"
else
    note "ctest: skipped, no time left"; status=1
fi
pack

# ---- 4. sanitizer ----------------------------------------------------------------
phase_start=$SECONDS
if limit=$(phase_limit 200); then
    mkdir -p "$OUT/sanitizer"
    # One job a tool and test program; the GPU runs several processes at once,
    # and the sanitizer's cost is mostly on the CPU.
    for tool in memcheck racecheck synccheck initcheck; do
        for test_exe in "$BUILD"/bin/test_lesson*_solution_nvcc; do
            printf '%s %s\n' "$tool" "$test_exe"
        done
    done | SANITIZER_END=$(($(date +%s) + limit)) xargs -P "${GPU_CHECK_JOBS:-6}" -L 1 bash -c '
        tool=$0 exe=$1 name=$(basename "$1")
        log="'"$OUT"'/sanitizer/$tool-$name.log"
        left=$((SANITIZER_END - $(date +%s)))
        [ "$left" -gt 90 ] && left=90
        if [ "$left" -lt 3 ]; then echo "SKIPPED $tool $name (no time left)"; exit 0; fi
        # The tests provoke API errors on purpose (a block of 1025 threads must
        # be refused) and check every call themselves; memcheck looks at memory.
        # A test suite "deliberate-race" races on purpose (lesson 09 without
        # its second barrier): racecheck leaves it out.
        extra=()
        [ "$tool" = memcheck ] && extra=(--report-api-errors no)
        timeout "$left" compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 1 "$exe" \
            --test-suite-exclude=deliberate-race >"$log" 2>&1
        rc=$?
        case $rc in
            0) echo "ok      $tool $name" ;;
            124) echo "TIMEOUT $tool $name" ;;
            *) echo "FAIL    $tool $name (exit $rc)" ;;
        esac' | sort -k3 -k2 >"$OUT/sanitizer-verdicts.txt"
    for log in "$OUT"/sanitizer/*.log; do
        [ -e "$log" ] || continue
        printf '== %s\n' "$(basename "$log" .log)"; tail -25 "$log"
    done >"$OUT/sanitizer.log"
    rm -rf "$OUT/sanitizer"
    grep -v '^ok' "$OUT/sanitizer-verdicts.txt"
    failed=$(grep -vc '^ok' "$OUT/sanitizer-verdicts.txt")
    [ "$failed" -eq 0 ] || status=1
    note "sanitizer: $(grep -c '^ok' "$OUT/sanitizer-verdicts.txt") ok, $failed not ok, of $(wc -l <"$OUT/sanitizer-verdicts.txt") runs in $((SECONDS - phase_start)) s"
else
    note "sanitizer: skipped, no time left"; status=1
fi
pack

# ---- 5. bench --------------------------------------------------------------------
phase_start=$SECONDS
if limit=$(phase_limit 200); then
    deadline=$((SECONDS + limit))
    # The learners' command: the articles' tables and plots. No package
    # installs (the machine has no registry); the build above is reused.
    if TUTORIAL_NO_INSTALL=1 TUTORIAL_BUILD_DIR=$BUILD timeout "$(time_left)" \
            "$ROOT/tutorial" --gpu bench --out "$OUT/bench" >"$OUT/tutorial-bench.log" 2>&1; then
        note "bench: ./tutorial --gpu bench ok in $((SECONDS - phase_start)) s (bench/)"
    else
        note "bench: ./tutorial --gpu bench FAILED (exit $?, tutorial-bench.log)"; status=1
    fi
    tail -5 "$OUT/tutorial-bench.log"
    # Every other lesson's --bench (./tutorial bench ran 05, 08, 09 and 19).
    for source in "$ROOT"/solutions/*/*.cu; do
        grep -q '"--bench"' "$source" || continue
        nn=$(basename "$(dirname "$source")" | cut -c1-2)
        case $nn in 05|08|09|19) continue ;; esac
        program="$BUILD/bin/lesson${nn}_solution_nvcc"
        [ -x "$program" ] || { note "bench: lesson $nn not built"; continue; }
        left=$(program_limit 60) || { note "bench: lesson $nn skipped, no time left"; status=1; continue; }
        one_start=$SECONDS
        (cd "$BUILD" && TUTORIAL_SEED=1 timeout "$left" "$program" --bench) >"$OUT/bench-$nn.log" 2>&1
        rc=$?
        if [ $rc -eq 0 ]; then
            note "bench: lesson $nn --bench ok in $((SECONDS - one_start)) s"
        else
            note "bench: lesson $nn --bench FAILED (exit $rc after $((SECONDS - one_start)) s)"; status=1
        fi
    done
else
    note "bench: skipped, no time left"; status=1
fi
pack

# ---- 6. ncu ----------------------------------------------------------------------
phase_start=$SECONDS
if limit=$(phase_limit 120); then
    deadline=$((SECONDS + limit))
    # The profiler's metrics, and the global reductions: an atomic whose result
    # is unused is a RED instruction, which ncu counts apart from the atomics.
    metrics="$(python3 "$ROOT/tools/profile_report.py" --ncu-metrics),l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"
    for run in "${PROFILED[@]}"; do
        read -r nn flags <<<"$run"
        program="$BUILD/bin/lesson${nn}_solution_nvcc"
        [ -x "$program" ] || continue
        left=$(program_limit) || { note "ncu: lesson $nn skipped, no time left"; status=1; continue; }
        # shellcheck disable=SC2086
        if TUTORIAL_SEED=1 timeout "$left" ncu --clock-control none --csv --print-units base \
                --metrics "$metrics" "$program" $flags >"$OUT/ncu-$nn.csv" 2>"$OUT/ncu-$nn.log"; then
            note "ncu: lesson $nn ok ($(grep -c '^"' "$OUT/ncu-$nn.csv") rows)"
        else
            note "ncu: lesson $nn FAILED (ncu-$nn.log)"; tail -3 "$OUT/ncu-$nn.log"
            status=1
            continue
        fi
        if [ -f "$ROOT/.carry/profiles/$nn.csv" ]; then
            python3 "$ROOT/tools/compare_with_ncu.py" "$ROOT/.carry/profiles/$nn.csv" "$OUT/ncu-$nn.csv" \
                >"$OUT/ncu-vs-emulator-$nn.txt" 2>&1 || status=1
            note "ncu vs emulator, lesson $nn: $(tail -1 "$OUT/ncu-vs-emulator-$nn.txt")"
        fi
    done
else
    note "ncu: skipped, no time left"; status=1
fi
# ---- 7. emu-tests ----------------------------------------------------------------
phase_start=$SECONDS
if limit=$(phase_limit "${GPU_CHECK_EMU_LIMIT:-420}"); then
    GPU_EMU_BUDGET=$limit GPU_EMU_ARCH="${GPU_CHECK_ARCH:-native}" GPU_EMU_BUILD="$BUILD-emu" \
        timeout $((limit + 30)) "$ROOT/tools/gpu-emu-tests.sh" "$OUT" >"$OUT/emu-tests.log" 2>&1 || status=1
    tail -25 "$OUT/emu-tests.log"
    note "emu tests: $(tail -1 "$OUT/emu-tests.log") in $((SECONDS - phase_start)) s"
else
    note "emu tests: skipped, no time left"; status=1
fi
pack

note "all phases: $((SECONDS - start)) s, exit $status"
pack
exit "$status"
