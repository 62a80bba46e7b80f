#!/usr/bin/env bash
# cases.sh CASE SOURCE_DIR BUILD_DIR - the tutorial script under misuse.
#
# Each case is one ctest test (tests/tutorial/CMakeLists.txt). A check that
# cannot run must fail, never pass; a build directory belongs to one tree;
# concurrent commands wait for each other; links to the scripts work; every
# failure is one "tutorial:" line and exit code 2. Cases that need a build
# make a fresh one of lesson 01 (plain C: no emulator to build); the others
# use the build directory ctest runs in (BUILD_DIR), which is already built.
set -uo pipefail
case_name=$1 ROOT=$2 BUILD_DIR=$3
# Fresh builds need neither nvcc nor the emulator (nor Boost): lesson 01 is C.
export TUTORIAL_NO_INSTALL=1 TUTORIAL_CMAKE_ARGS="-DTUTORIAL_NVCC=OFF -DTUTORIAL_EMULATOR=OFF"
# TUTORIAL_LOCKED_BUILD stays: under ./tutorial test, the cases that use
# BUILD_DIR run inside the command that holds its lock.
unset TUTORIAL_BUILD_DIR CUEMU_BUILD_DIR
work=$(mktemp -d "${TMPDIR:-/tmp}/tutorial-test.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok:   $*"; }

# run_captured NAME COMMAND...: runs it, keeps stdout, stderr and the exit code.
run_captured() {
    local name=$1; shift
    "$@" >"$work/$name.out" 2>"$work/$name.err"
    echo $? >"$work/$name.rc"
}
rc_of() { cat "$work/$1.rc"; }

# expect_one_line_failure NAME PATTERN: exit code 2 and exactly one stderr
# line (besides build progress), starting with "tutorial:" and matching PATTERN.
expect_one_line_failure() {
    local name=$1 pattern=$2 rc lines
    rc=$(rc_of "$name")
    grep -v -e '^tutorial: building: ' -e '^tutorial: configuring ' "$work/$name.err" >"$work/$name.msg"
    lines=$(grep -c '' "$work/$name.msg")
    if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -Eq "^tutorial: .*$pattern" "$work/$name.msg"; then
        ok "$name: exit 2: $(cat "$work/$name.msg")"
    else
        fail "$name: expected exit 2 and one line 'tutorial: ...$pattern', got exit $rc and $lines lines:"
        head -5 "$work/$name.err" "$work/$name.out"
    fi
}

solve_lesson01() {  # solve_lesson01 TREE: the solution copied over the exercise
    cp "$1/solutions/01-serial-vector-add/vector_add.c" "$1/lessons/01-serial-vector-add/vector_add.c"
}

copy_tree() {  # copy_tree DEST: the sources a build needs, no build outputs
    mkdir -p "$1"
    cp -R "$ROOT/CMakeLists.txt" "$ROOT/cmake" "$ROOT/common" "$ROOT/lessons" "$ROOT/solutions" \
          "$ROOT/tests" "$ROOT/tutorial" "$1/"
    [ -d "$ROOT/tools" ] && cp -R "$ROOT/tools" "$1/"
    return 0
}

gpu_is_usable() { [ -x "$BUILD_DIR/bin/tutorial_gpu_probe" ] && "$BUILD_DIR/bin/tutorial_gpu_probe" >/dev/null 2>&1; }

case "$case_name" in
symlinks)
    # tutorial and bin/nvcc-emu called through links in another folder.
    mkdir -p "$work/bin"
    ln -s "$ROOT/tutorial" "$work/bin/tutorial"
    ln -s "$ROOT/bin/nvcc-emu" "$work/bin/nvcc-emu"
    run_captured list "$work/bin/tutorial" list
    if [ "$(rc_of list)" -eq 0 ] && grep -q '01-serial-vector-add' "$work/list.out"; then
        ok "tutorial through a link lists the lessons"
    else
        fail "tutorial through a link: exit $(rc_of list)"; cat "$work/list.out" "$work/list.err"
    fi
    # nvcc-emu builds the emulator in the real tree's build/ when it has none
    # yet: a cmake that fails at once shows which folder it would have used.
    mkdir -p "$work/fake"
    printf '#!/bin/sh\nexit 1\n' >"$work/fake/cmake"; chmod +x "$work/fake/cmake"
    printf 'int main() { return 0; }\n' >"$work/empty.cu"
    CUEMU_BUILD_DIR= PATH="$work/fake:$PATH" run_captured emu "$work/bin/nvcc-emu" "$work/empty.cu" -o "$work/empty"
    real_root=$(cd "$ROOT" && pwd -P)
    if [ -f "$real_root/build/cuemu-driver.env" ]; then
        ok "nvcc-emu through a link: (skipped: $real_root/build already holds an emulator)"
    elif grep -q "building the emulator in $real_root/build " "$work/emu.err"; then
        ok "nvcc-emu through a link uses $real_root/build"
    else
        fail "nvcc-emu through a link looked elsewhere:"; cat "$work/emu.err"
    fi ;;

read-only-build)
    # /proc refuses new folders, even to root.
    TUTORIAL_BUILD_DIR=/proc/tutorial-build run_captured proc "$ROOT/tutorial" setup
    expect_one_line_failure proc "build directory /proc/tutorial-build"
    if [ "$(id -u)" -ne 0 ]; then
        mkdir -p "$work/locked" && chmod a-w "$work/locked"
        TUTORIAL_BUILD_DIR="$work/locked/build" run_captured locked "$ROOT/tutorial" check 01
        expect_one_line_failure locked "build directory $work/locked/build"
    fi ;;

other-tree)
    # A second clone with lesson 01 solved and built: pointing this tree's
    # tutorial at its build must not check (and pass) the other clone's code.
    copy_tree "$work/other"
    solve_lesson01 "$work/other"
    TUTORIAL_BUILD_DIR="$work/other-build" run_captured other "$work/other/tutorial" check 01
    if [ "$(rc_of other)" -ne 0 ]; then
        fail "the other clone's solved lesson 01 should pass: exit $(rc_of other)"; tail -20 "$work/other.err"
    fi
    TUTORIAL_BUILD_DIR="$work/other-build" run_captured mixed "$ROOT/tutorial" check 01
    expect_one_line_failure mixed "other-build belongs to the tree at $work/other"
    # The default build/ of a tree that was moved is rebuilt for the new place.
    run_captured before-move "$work/other/tutorial" check 01
    mv "$work/other" "$work/moved"
    run_captured after-move "$work/moved/tutorial" check 01
    if [ "$(rc_of after-move)" -eq 0 ] && grep -q "rebuilding it for this one" "$work/after-move.err"; then
        ok "a moved tree's build/ is rebuilt"
    else
        fail "a moved tree's build/: exit $(rc_of after-move)"; tail -5 "$work/after-move.err"
    fi ;;

link-error)
    # A learner's code that compiles but does not link: the linker's own line
    # (which says "undefined reference", not "error") reaches the learner.
    copy_tree "$work/linkless"
    file="$work/linkless/lessons/01-serial-vector-add/vector_add.c"
    sed -i 's/^void vector_add(.*) {$/void helper_never_written(void);\n&\n    helper_never_written();/' "$file"
    grep -q '^    helper_never_written();' "$file" || fail "could not plant the missing function in $file"
    TUTORIAL_BUILD_DIR="$work/linkless-build" run_captured linkless "$work/linkless/tutorial" check 01
    if [ "$(rc_of linkless)" -eq 2 ] && grep -q "undefined reference to .helper_never_written" "$work/linkless.err" &&
       grep -q '^tutorial: the build failed' "$work/linkless.err" && ! grep -q ' -o ' "$work/linkless.err"; then
        ok "a link error shows the linker's line: $(grep -m1 'undefined reference' "$work/linkless.err")"
    else
        fail "a link error: exit $(rc_of linkless), stderr:"; cat "$work/linkless.err"
    fi ;;

lock)
    # Two checks at once on a fresh build directory: one configures and
    # builds, the other waits; both then report the exercise unfinished.
    export TUTORIAL_BUILD_DIR="$work/build"
    "$ROOT/tutorial" check 01 >"$work/a.out" 2>"$work/a.err" & first=$!
    "$ROOT/tutorial" check 01 >"$work/b.out" 2>"$work/b.err" & second=$!
    wait "$first"; rc_a=$?; wait "$second"; rc_b=$?
    for run in a b; do
        rc=$rc_a; [ "$run" = b ] && rc=$rc_b
        if [ "$rc" -eq 1 ] && grep -q '^NOT YET' "$work/$run.out" &&
           ! grep -v -e '^tutorial: waiting for another' -e '^tutorial: building:' \
                     -e '^tutorial: configuring' "$work/$run.err" | grep -q 'tutorial:'; then
            ok "concurrent check $run: NOT YET, exit 1"
        else
            fail "concurrent check $run: exit $rc"; cat "$work/$run.err"; tail -5 "$work/$run.out"
        fi
    done
    # The first build shows its progress; a build with nothing to do does not.
    # grep reads both files itself: with pipefail, cat | grep -q failed
    # whenever grep matched in a.err and left before cat wrote b.err (SIGPIPE).
    if grep -q '^tutorial: building: [0-9]* of [0-9]* steps' "$work/a.err" "$work/b.err"; then
        ok "the first build shows progress"
    else
        fail "no build progress shown"; cat "$work/a.err" "$work/b.err"
    fi
    # While another command holds the build directory, a check waits.
    lock="$work/build/.tutorial.lock"
    flock "$lock" sleep 4 & holder=$!
    for _ in $(seq 100); do flock -n "$lock" true || break; sleep 0.1; done  # until it holds the lock
    start=$(date +%s)
    run_captured waited "$ROOT/tutorial" check 01
    elapsed=$(( $(date +%s) - start ))
    wait "$holder"
    if grep -q '^tutorial: waiting for another ./tutorial command' "$work/waited.err" && [ "$elapsed" -ge 2 ] &&
       ! grep -q '^tutorial: building:' "$work/waited.err"; then
        ok "a check waits for the lock ($elapsed s) and rebuilds nothing"
    else
        fail "a check did not wait for the lock (${elapsed} s):"; cat "$work/waited.err"
    fi ;;

gpu-flag)
    # --gpu where no GPU build can run: a failure, never a skipped "pass".
    if gpu_is_usable; then echo "a GPU is usable here: nothing to test"; exit 77; fi
    TUTORIAL_BUILD_DIR=$BUILD_DIR run_captured gpu "$ROOT/tutorial" --gpu check 03
    expect_one_line_failure gpu "--gpu: the GPU build cannot run here"
    if grep -q PASS "$work/gpu.out"; then fail "--gpu check printed PASS"; fi ;;

auto-fallback)
    # nvcc built, no usable GPU (this is a machine with the toolkit but no
    # driver): the default falls back to the emulator and says why.
    if gpu_is_usable; then echo "a GPU is usable here: nothing to test"; exit 77; fi
    TUTORIAL_BUILD_DIR=$BUILD_DIR run_captured auto "$ROOT/tutorial" check 03
    if [ "$(rc_of auto)" -eq 1 ] &&
       grep -q '^tutorial: the GPU build cannot run here (.*); using the CPU emulator$' "$work/auto.err" &&
       grep -q '(emu) ==' "$work/auto.out"; then
        ok "auto mode: $(cat "$work/auto.err")"
    else
        fail "auto mode did not fall back to the emulator, saying so: exit $(rc_of auto)"
        cat "$work/auto.err"; head -3 "$work/auto.out"
    fi ;;

check-selects-nothing)
    # A test-case filter that matches nothing checks nothing: an error.
    TUTORIAL_BUILD_DIR=$BUILD_DIR run_captured none "$ROOT/tutorial" --emu check 03 --test-case=no-such-test
    expect_one_line_failure none "no test case matches"
    TUTORIAL_BUILD_DIR=$BUILD_DIR run_captured one "$ROOT/tutorial" --emu check 03 \
        '--test-case=vector add through device memory matches the CPU*'
    if [ "$(rc_of one)" -eq 1 ] && grep -q 'test cases: *1 |' "$work/one.out"; then
        ok "one selected test case runs (and fails as shipped)"
    else
        fail "a selected test case: exit $(rc_of one)"; tail -5 "$work/one.out"
    fi ;;

emulator-devices)
    # Lesson 21's source names "emulator devices 4": ./tutorial gives the
    # emulator four devices for it, unless CUEMU_DEVICES says otherwise.
    (unset CUEMU_DEVICES; TUTORIAL_BUILD_DIR=$BUILD_DIR run_captured default \
        "$ROOT/tutorial" --emu solution 21 --list-devices)
    CUEMU_DEVICES=2 TUTORIAL_BUILD_DIR=$BUILD_DIR run_captured chosen \
        "$ROOT/tutorial" --emu solution 21 --list-devices
    for run in default:4 chosen:2; do
        if [ "$(rc_of "${run%%:*}")" -eq 0 ] && grep -q "^${run##*:} devices:" "$work/${run%%:*}.out"; then
            ok "${run%%:*}: ${run##*:} emulated devices"
        else
            fail "${run%%:*}: expected ${run##*:} devices, exit $(rc_of "${run%%:*}"):"
            head -5 "$work/${run%%:*}.out" "$work/${run%%:*}.err"
        fi
    done ;;

tour)
    # ./tutorial tour FROM TO runs those lessons' solutions, in order, and stops
    # at the first one that fails (once it stopped at lesson 01 without a
    # word). Two ranges, not the whole tour: lessons 01-03 (plain C, then the
    # emulator) and 25-26 (the last lesson runs under mpirun); every solution
    # also runs in its own lessonNN.solution test, and the whole tour's loop is
    # this one over every lesson (it took 52 s of CI).
    for range in "01 03" "25 26"; do
        first=${range% *} last=${range#* } name=tour-${range// /-}
        TUTORIAL_BUILD_DIR=$BUILD_DIR run_captured "$name" "$ROOT/tutorial" --emu tour $range
        expected=$(for d in "$ROOT"/lessons/[0-9][0-9]-*/; do
            n=$(basename "$d"); n=${n%%-*}
            if ((10#$n >= 10#$first && 10#$n <= 10#$last)); then echo "$n"; fi
        done)
        toured=$(sed -n 's|^ \$ ./tutorial solution \([0-9][0-9]\) .*|\1|p' "$work/$name.out")
        if [ "$(rc_of "$name")" -ne 0 ]; then
            fail "$name: exit $(rc_of "$name") after lesson $(tail -n 1 <<<"$toured"):"
            tail -n 5 "$work/$name.out" "$work/$name.err"
        elif [ "$toured" != "$expected" ]; then
            fail "$name: ran lessons $(echo $toured), expected $(echo $expected)"
        elif ! tail -n 1 "$work/$name.out" | grep -q "^Tour done: the solutions of lessons $first to $last "; then
            fail "$name: no closing line"
        else
            ok "$name: $(grep -c '' <<<"$toured") lessons' solutions ran in order"
        fi
    done
    # A range that makes no sense is one line and exit 2, before any build.
    for bad in "x:expected a lesson number" "26 25:lesson 26 comes after lesson 25" \
               "01 02 03:usage: ./tutorial tour"; do
        TUTORIAL_BUILD_DIR=$BUILD_DIR run_captured tour-bad "$ROOT/tutorial" --emu tour ${bad%%:*}
        expect_one_line_failure tour-bad "${bad#*:}"
    done ;;

*) echo "cases.sh: unknown case '$case_name'"; exit 2 ;;
esac
[ "$failures" -eq 0 ]
