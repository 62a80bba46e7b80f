#!/usr/bin/env bash
# tools/sanitizer-lane.sh [BUILD_DIR] - the sanitizer lane: the emulator, every
# lesson and every test built again with AddressSanitizer and
# UndefinedBehaviorSanitizer (emulator builds only, TUTORIAL_SANITIZE), and the
# whole suite run there. Any report ends its program, so it fails its test.
#
# Run it before merging any change that moves or instruments emulator code
# (common/emu): a use after free in the scheduler or a misaligned read in a
# library header shows up here and nowhere else. It is not part of CI's
# .ci/run: alone on the 2-core machine it took 664 s (build and suite,
# 2026-12-01), and the rest of CI takes about 1,590 of the 1,800 it may.
#
#   tools/sanitizer-lane.sh                 # builds in build-sanitize/ (664 s on 2 cores)
#   tools/sanitizer-lane.sh /tmp/san        # another build folder
#   CTEST_ARGS="-R emu\\." tools/sanitizer-lane.sh   # only some tests (ctest's own options)
#   TARGETS="test_cuemu_warps" CTEST_ARGS="-R emu.warps" tools/sanitizer-lane.sh
#                                           # only some targets built (a quick look; the
#                                           # whole lane is what a merge needs)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-$PWD/build-sanitize}
jobs=$(nproc 2>/dev/null || echo 2)

# -O1, as AddressSanitizer's documentation suggests: the build took 307 s
# instead of about 440 s on the development machine; every test passes either
# way. -g1 (line tables, which the sanitizers' reports and the emulator's
# need): an instrumented test compiled in 10.2 s instead of 14.2 s with -g.
cmake -S . -B "$build" -G Ninja -DTUTORIAL_SANITIZE=ON -DTUTORIAL_NVCC=OFF -DTUTORIAL_DEBUG_INFO=lines \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
# shellcheck disable=SC2086
cmake --build "$build" -j "$jobs" ${TARGETS:+--target $TARGETS}
# shellcheck disable=SC2086
ctest --test-dir "$build" --output-on-failure -j "$jobs" ${CTEST_ARGS:-}
echo "sanitizer lane: passed ($build)"
