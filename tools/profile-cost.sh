#!/usr/bin/env bash
# tools/profile-cost.sh [BUILD_DIR] - what CUEMU_PROFILE costs (docs/profiler.md,
# "What it costs"): each lesson program below runs normally (CUEMU_CHECK=none:
# without the race check a program with __shared__ has by default), with
# CUEMU_CHECK=race and with CUEMU_PROFILE, three rounds interleaved; prints the
# median user CPU time of each (CPU time is what a busy machine disturbs least)
# and the profiled / normal ratio.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
BIN=${1:-$ROOT/build}/bin
work=$(mktemp -d "${TMPDIR:-/tmp}/profile-cost.XXXXXX")
trap 'rm -rf "$work"' EXIT

user_seconds() {  # user_seconds ENV_SETTING PROGRAM ARGS...
    local setting=$1 program=$2
    shift 2
    /usr/bin/time -o "$work/time" -f "%U" env CUEMU_CHECK=none "$setting" "$BIN/$program" "$@" >/dev/null 2>&1 ||
        { echo "profile-cost: $program $* failed ($setting)" >&2; exit 1; }
    cat "$work/time"
}
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

printf '%-52s %8s %8s %8s %8s\n' "program" "normal" "race" "profile" "ratio"
while IFS='|' read -r program args; do
    [ -x "$BIN/$program" ] || { echo "profile-cost: build $program first (cmake --build build --target $program)" >&2; exit 2; }
    normal=() race=() profile=()
    for _ in 1 2 3; do
        # shellcheck disable=SC2086
        normal+=("$(user_seconds TUTORIAL_PROFILE_COST=1 "$program" $args)")
        # shellcheck disable=SC2086
        race+=("$(user_seconds CUEMU_CHECK=race "$program" $args)")
        # shellcheck disable=SC2086
        profile+=("$(user_seconds CUEMU_PROFILE="$work/profile.csv" "$program" $args)")
    done
    n=$(median "${normal[@]}") r=$(median "${race[@]}") p=$(median "${profile[@]}")
    printf '%-52s %8s %8s %8s %7sx\n' "$program $args" "$n" "$r" "$p" \
        "$(awk -v p="$p" -v n="$n" 'BEGIN { printf "%.1f", (n > 0 ? p / n : 0) }')"
done <<'LIST'
lesson05_solution_emu|
lesson08_solution_emu|--m 256 --n 256 --k 256
lesson09_solution_emu|--m 256 --n 256 --k 256
lesson12_solution_emu|
lesson14_solution_emu|
lesson15_solution_emu|
lesson19_solution_emu|
LIST
