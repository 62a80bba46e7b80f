#!/usr/bin/env bash
# check-exports.sh [--build-only NN,NN...] [NN...] - CI's proof that ./tutorial
# export works (.ci/run).
#
# For every lesson (or those named): export it into a temporary folder, move
# the folder elsewhere (a path recorded at export time would now be wrong),
# make sure no file names this tree, build it there for the emulator (as a
# GitHub-hosted runner would: no GPU, no CUDA toolkit), then run its
# autograding tests with grade.py: the exercise as shipped must lose points,
# and with the solution copied in it must get them all. A student's
# ./tutorial test (ctest) must agree: red as shipped, green with the
# solution. Finally no file of the build may name this tree either: nothing
# reached back into it.
#
# --build-only LIST: only the lessons in LIST are built and graded; every
# other lesson is exported, moved, searched for this tree's path and
# configured alone (./tutorial setup), which proves its files and its CMake
# but compiles nothing. CI (.ci/run) builds a few lessons that differ in what
# an export needs and configures the rest: all 26 built and graded took 685 s
# of CI's 47 minutes on the 2-core machine (2026-12-01), where CI must take
# under 30.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
work=$(mktemp -d "${TMPDIR:-/tmp}/export-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The exports must not reuse this tree's build (CI sets these for itself).
unset TUTORIAL_BUILD_DIR CUEMU_BUILD_DIR TUTORIAL_LOCKED_BUILD
# Line tables only (-g1): all the emulator's reports need, and quicker to
# compile (cmake/TutorialSettings.cmake, TUTORIAL_DEBUG_INFO). And -O1, as
# in the sanitizer lane (tools/sanitizer-lane.sh): what this check proves (the export's files, its
# build, its grading) does not depend on GCC's -O2, which was a third of
# each compile of a lesson (its exercise, then its solution), most of an
# export's time. Through a preloaded cache file (cmake -C): the flags hold
# spaces, which TUTORIAL_CMAKE_ARGS cannot carry.
printf 'set(CMAKE_%s_FLAGS_RELWITHDEBINFO "-O1 -g1 -DNDEBUG" CACHE STRING "")\n' C CXX >"$work/flags.cmake"
export TUTORIAL_CMAKE_ARGS="-DTUTORIAL_NVCC=OFF -DTUTORIAL_DEBUG_INFO=lines -C $work/flags.cmake" TUTORIAL_NO_INSTALL=1
# Every export holds the same emulator and test harness: with ccache (where
# installed) the second and later exports reuse their objects instead of
# compiling them again. Paths are made relative to $work, so the cache
# entries of one export match the next; the lesson's own code, rewritten
# with its absolute path in #line, is compiled afresh each time.
if command -v ccache >/dev/null; then
    export CCACHE_DIR=$work/ccache CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=1
    TUTORIAL_CMAKE_ARGS+=" -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
fi

# grade.py reads the workflow with PyYAML (Debian: python3-yaml, which belongs
# to /usr/bin/python3 even where another python3 comes first on PATH).
python=""
for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c 'import yaml' 2>/dev/null; then python=$candidate; break; fi
done
[ -n "$python" ] || { echo "CI: grade.py needs PyYAML (apt-get install python3-yaml)"; exit 1; }

build_only=""
if [ "${1:-}" = "--build-only" ]; then
    [ $# -ge 2 ] || { echo "usage: check-exports.sh [--build-only NN,NN...] [NN...]"; exit 2; }
    build_only=",$2,"
    shift 2
fi
lessons=("$@")
if [ ${#lessons[@]} -eq 0 ]; then
    for dir in "$ROOT"/lessons/[0-9][0-9]-*/; do lessons+=("$(basename "$dir" | cut -c1-2)"); done
fi
# ctest_expect DIR NN red|green: ctest in the export's build folder, as a
# student runs it after ./tutorial check (which grading just ran, so nothing
# is left to build: ./tutorial test would build the lesson's program too,
# minutes of CI for nothing ctest checks), ends with CTest's verdict on the
# exercise's own test (lessonNN.exercise.*): red, that test failed; green,
# every test passed. The
# course's lessonNN.exercise.*.fails-as-shipped check must not be there: it
# is green exactly when the student's work is not.
ctest_expect() {
    local assignment=$1 nn=$2 expect=$3 log=$work/logs/$2.ctest-$3.log
    # Only the exercise's tests: lesson 11's export also registers its bug
    # gallery, whose programs grading does not build.
    (cd "$assignment" && ctest --test-dir build -R "^lesson$nn\\.exercise\\.") >"$log" 2>&1 || true
    if grep -q 'fails-as-shipped' "$log"; then
        tail -20 "$log"; echo "CI: export $nn: ctest runs the course's fails-as-shipped check"; return 1
    fi
    case "$expect" in
        red) grep -Eq "^[[:space:]]*[0-9]+ - lesson$nn\.exercise\.[a-z]+ \(Failed\)" "$log" && return 0 ;;
        green) grep -q "lesson$nn\.exercise\.[a-z]* .*Passed" "$log" &&
                   grep -q '^100% tests passed' "$log" && return 0 ;;
    esac
    tail -20 "$log"
    echo "CI: export $nn: expected ctest to be $expect on lesson$nn.exercise.*"
    return 1
}

# check_one NN: export, move, build and grade one lesson; non-zero if it fails.
check_one() {
    local nn=$1 start=$SECONDS assignment lesson src
    "$ROOT/tutorial" export "$nn" "$work/exported/$nn" >/dev/null ||
        { echo "CI: export $nn: ./tutorial export failed"; return 1; }
    mkdir -p "$work/elsewhere"
    mv "$work/exported/$nn" "$work/elsewhere/$nn" || return 1
    assignment=$work/elsewhere/$nn
    lesson=$(basename "$assignment"/lessons/*)
    if grep -rlF "$ROOT" "$assignment"; then
        echo "CI: export $nn: the files above name $ROOT"; return 1
    fi
    (cd "$assignment" && ./tutorial setup >/dev/null 2>&1) || { echo "CI: export $nn: configuring failed"; return 1; }
    if [ -n "$build_only" ] && [[ "$build_only" != *",$nn,"* ]]; then
        echo "== lesson $nn: exported, moved and configured alone in $((SECONDS - start)) s (not built: --build-only)"
        rm -rf "$assignment"
        return 0
    fi
    # The graded test's program built first, outside grading's timeout:
    # autograding.json gives each test 10 minutes, sized for a GitHub runner
    # that builds the emulator cold in about 2 minutes; CI builds it at nice
    # 19 beside its own build, where lesson 02's first test once took past
    # the 10 minutes (2026-12-02). The build alone is what this proves; then
    # grading times the run, its build already done.
    local backend=emu
    compgen -G "$assignment/lessons/$lesson/*.cu" >/dev/null || backend=cpu
    local build_start=$SECONDS
    cmake --build "$assignment/build" --target "test_lesson${nn}_exercise_$backend" >"$work/logs/$nn.build.log" 2>&1 ||
        { tail -30 "$work/logs/$nn.build.log"; echo "CI: export $nn: building its test failed"; return 1; }
    echo "== lesson $nn exported: its test built alone in $((SECONDS - build_start)) s"
    echo "== lesson $nn exported: the exercise as shipped"
    "$python" "$ROOT/tools/export/grade.py" "$assignment" --expect partial || return 1
    ctest_expect "$assignment" "$nn" red || return 1
    echo "== lesson $nn exported: with the solution copied in"
    for src in "$ROOT/solutions/$lesson"/*; do
        case "$src" in *.cu|*.c|*.cpp|*.h|*.cuh) cp "$src" "$assignment/lessons/$lesson/" ;; esac
    done
    "$python" "$ROOT/tools/export/grade.py" "$assignment" --expect full || return 1
    ctest_expect "$assignment" "$nn" green || return 1
    echo "   ctest: red as shipped, green with the solution"
    if grep -rlaF "$ROOT" "$assignment/build" | head -5 | grep .; then
        echo "CI: export $nn: the build files above name $ROOT"; return 1
    fi
    echo "== lesson $nn: export checked in $((SECONDS - start)) s"
    rm -rf "$assignment"
}

# Lessons run alone until one that builds the emulator (a .cu lesson; 01 is
# plain C) has filled the compiler cache; then two at a time: much of an
# export is serial (configuring, running tests), so the second core would
# otherwise idle. (With 01 alone as the warm-up, 02 and 03 each built the
# emulator cold side by side: 132 s each on the CI machine.) Each lesson's
# output is kept and printed in order.
mkdir -p "$work/logs"
run_one() {
    local rc=0
    check_one "$1" >"$work/logs/$1.out" 2>&1 || rc=$?
    # Written aside and renamed: show_finished never reads a half-written file.
    echo "$rc" >"$work/logs/$1.rc.part" && mv "$work/logs/$1.rc.part" "$work/logs/$1.rc"
}
failed=0 shown=0
show_finished() {  # print, in lesson order, every lesson finished so far
    while [ "$shown" -lt ${#lessons[@]} ] && [ -f "$work/logs/${lessons[$shown]}.rc" ]; do
        cat "$work/logs/${lessons[$shown]}.out"
        [ "$(cat "$work/logs/${lessons[$shown]}.rc")" -eq 0 ] || failed=1
        shown=$((shown + 1))
    done
}
running=0 warm=0
for i in "${!lessons[@]}"; do
    if [ "$warm" -eq 0 ]; then
        run_one "${lessons[$i]}"
        if [ -z "$build_only" ] || [[ "$build_only" == *",${lessons[$i]},"* ]]; then
            compgen -G "$ROOT/lessons/${lessons[$i]}-*/*.cu" >/dev/null && warm=1
        fi
    else
        if [ "$running" -ge 2 ]; then wait -n || true; running=$((running - 1)); fi
        run_one "${lessons[$i]}" &
        running=$((running + 1))
    fi
    show_finished
done
wait
show_finished
if [ "$failed" -eq 0 ]; then
    if [ -n "$build_only" ]; then
        echo "CI: every lesson exports and configures alone; lessons ${build_only:1:-1} built alone, fail as shipped and pass with their solution (autograding and ctest)"
    else
        echo "CI: every exported lesson builds alone, fails as shipped and passes with its solution (autograding and ctest)"
    fi
fi
exit "$failed"
