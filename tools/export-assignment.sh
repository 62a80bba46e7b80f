#!/usr/bin/env bash
# export-assignment.sh NN DIR [--with-solution] [--gpu-runner]
#   (run as ./tutorial export NN DIR ...)
#
# Writes lesson NN as a standalone assignment in DIR: the lesson's README and
# exercise, its test and what the test shares, common/ with the emulator,
# cmake/, a CMakeLists.txt and the tutorial script, a student README, and a
# GitHub Classroom autograding setup (.github/) with one test per test case
# of the lesson's test, each worth points. The copy refers to nothing outside
# DIR. --with-solution adds the solution (the instructor's copy);
# --gpu-runner grades on a self-hosted runner labelled gpu instead of a
# GitHub-hosted one. Templates: tools/export/.
set -euo pipefail
ROOT=${TUTORIAL_ROOT:?run this as ./tutorial export}
TEMPLATES=$ROOT/tools/export
POINTS_PER_TEST=10

die() { printf 'tutorial: %s\n' "$*" >&2; exit 2; }
usage="usage: ./tutorial export NN DIR [--with-solution] [--gpu-runner]"

nn="" dest="" with_solution=0 gpu_runner=0
for arg in "$@"; do
    case "$arg" in
        --with-solution) with_solution=1 ;;
        --gpu-runner) gpu_runner=1 ;;
        -*) die "export: unknown option '$arg' ($usage)" ;;
        *) if [ -z "$nn" ]; then nn=$arg; elif [ -z "$dest" ]; then dest=$arg; else die "export: too many arguments ($usage)"; fi ;;
    esac
done
[ -n "$nn" ] && [ -n "$dest" ] || die "$usage"
[[ "$nn" =~ ^[0-9]+$ ]] || die "export: expected a lesson number such as 03, got '$nn'"
nn=$(printf '%02d' "$((10#$nn))")
matches=("$ROOT"/lessons/"$nn"-*)
[ -d "${matches[0]}" ] || die "export: there is no lesson $nn (see ./tutorial list)"
lesson=$(basename "${matches[0]}")
test_file=test_${nn}_${lesson#*-}.cpp; test_file=${test_file//-/_}
[ -f "$ROOT/tests/$test_file" ] || die "export: lesson $nn has no test tests/$test_file"
if [ -e "$dest" ] && [ -n "$(ls -A "$dest" 2>/dev/null)" ]; then
    die "export: $dest exists and is not empty (choose a new folder)"
fi
# Refused before anything is written: an export inside this tree would be
# built as part of it.
existing=$dest rest=""
while [ ! -d "$existing" ]; do
    rest=/$(basename "$existing")$rest
    existing=$(dirname "$existing")
done
case "$(cd "$existing" && pwd -P)$rest/" in
    "$ROOT"/*) die "export: $dest is inside this tree; choose a folder outside it" ;;
esac
mkdir -p "$dest" 2>/dev/null && [ -w "$dest" ] || die "export: cannot create or write $dest"
dest=$(cd "$dest" && pwd -P)

title=$(sed -n '1s/^# *//p' "$ROOT/lessons/$lesson/README.md")

# ---- the files ------------------------------------------------------------------
mkdir -p "$dest/lessons" "$dest/tests" "$dest/.github/classroom" "$dest/.github/workflows"
cp -R "$ROOT/lessons/$lesson" "$dest/lessons/"
cp -R "$ROOT/common" "$ROOT/cmake" "$dest/"
cp "$ROOT/tutorial" "$dest/"
# The lesson's test and what every lesson test shares (test_main.cpp,
# headers, the bad-input check the solution's build registers).
cp "$ROOT/tests/$test_file" "$ROOT/tests/test_main.cpp" "$ROOT/tests/check_bad_input.sh" "$dest/tests/"
for header in "$ROOT"/tests/*.h; do cp "$header" "$dest/tests/"; done
[ -f "$ROOT/.clangd" ] && cp "$ROOT/.clangd" "$dest/"
# The diagrams the lesson README shows live in slides/img/; the README names
# them as ../../slides/img/NAME.svg, so the same relative path works in DIR.
for picture in $(grep -o '\.\./\.\./slides/img/[A-Za-z0-9_.-]*' "$ROOT/lessons/$lesson/README.md" | sort -u); do
    mkdir -p "$dest/slides/img"
    cp "$ROOT/slides/img/${picture##*/}" "$dest/slides/img/" ||
        die "export: the README shows ${picture#../../}, which does not exist"
done
# A lesson may build on an earlier lesson's solution (lesson 21 includes
# ../../solutions/20-training/mlp.cuh): the files its sources include from
# solutions/ come along, at the same path. Never the lesson's own solution.
for included in $(sed -n 's|^#include "\.\./\.\./\(solutions/[^"]*\)".*|\1|p' \
                      "$ROOT/lessons/$lesson"/*.cu 2>/dev/null | sort -u); do
    case "$included" in
        solutions/"$lesson"/*) die "export: lessons/$lesson includes its own solution ($included)" ;;
    esac
    [ -f "$ROOT/$included" ] || die "export: lessons/$lesson includes $included, which does not exist"
    mkdir -p "$dest/$(dirname "$included")"
    cp "$ROOT/$included" "$dest/$included"
done
if [ "$with_solution" -eq 1 ]; then
    mkdir -p "$dest/solutions"
    cp -R "$ROOT/solutions/$lesson" "$dest/solutions/"
fi
printf '# build trees and editor files\n/build/\n/build-*/\n/compile_commands.json\n/.cache/\n' >"$dest/.gitignore"

substitute() {  # substitute TEMPLATE OUTPUT: fills in the @NAME@ fields
    sed -e "s|@NN@|$nn|g" -e "s|@LESSON@|$lesson|g" -e "s|@TEST@|$test_file|g" \
        -e "s|@TITLE@|${title//|/\\|}|g" "$1" >"$2"
}
substitute "$TEMPLATES/CMakeLists.txt.in" "$dest/CMakeLists.txt"

# ---- the autograding tests: one per TEST_CASE of the lesson's test ---------------
mapfile -t test_cases < <(sed -n 's/^TEST_CASE("\(.*\)").*/\1/p' "$ROOT/tests/$test_file")
[ "${#test_cases[@]}" -gt 0 ] || die "export: found no TEST_CASE(\"...\") in tests/$test_file"
backend_flag=""; [ "$gpu_runner" -eq 1 ] && backend_flag="--gpu "

json_string() {  # the JSON text of a string
    local s=$1
    s=${s//\\/\\\\}; s=${s//\"/\\\"}
    printf '"%s"' "$s"
}
{
    printf '{\n  "tests": [\n'
    for i in "${!test_cases[@]}"; do
        name=${test_cases[$i]}
        # doctest reads commas in a filter as separators unless escaped; the
        # shell sees the filter inside double quotes.
        filter=${name//,/\\,}
        filter=${filter//\\/\\\\}; filter=${filter//\"/\\\"}; filter=${filter//\$/\\\$}; filter=${filter//\`/\\\`}
        run="./tutorial ${backend_flag}check $nn \"--test-case=$filter\""
        [ "$i" -gt 0 ] && printf ',\n'
        printf '    {\n'
        printf '      "name": %s,\n' "$(json_string "$name")"
        printf '      "setup": "",\n'
        printf '      "run": %s,\n' "$(json_string "$run")"
        printf '      "input": "",\n'
        printf '      "output": %s,\n' "$(json_string "PASS: lessons/$lesson")"
        printf '      "comparison": "included",\n'
        printf '      "timeout": 10,\n'
        printf '      "points": %d\n' "$POINTS_PER_TEST"
        printf '    }'
    done
    printf '\n  ]\n}\n'
} >"$dest/.github/classroom/autograding.json"

workflow="$dest/.github/workflows/classroom.yml"
cp "$TEMPLATES/classroom.yml" "$workflow"
if [ "$gpu_runner" -eq 1 ]; then
    sed -i.bak 's/^    runs-on: ubuntu-latest$/    runs-on: [self-hosted, gpu]/' "$workflow" && rm -f "$workflow.bak"
fi

# ---- the student README -----------------------------------------------------------
files=""
for f in "$ROOT/lessons/$lesson"/*.cu "$ROOT/lessons/$lesson"/*.c; do
    [ -f "$f" ] && files+="${files:+, }\`lessons/$lesson/$(basename "$f")\`"
done
tests_table=""
for name in "${test_cases[@]}"; do tests_table+="| ${name//|/\\|} | $POINTS_PER_TEST |"$'\n'; done
if [ "$with_solution" -eq 1 ]; then
    note="This is the instructor's copy: it includes \`solutions/$lesson/\`; \`./tutorial solution $nn\` runs it."
else
    note="This copy was exported without the solution."
fi
substitute "$TEMPLATES/README.md.in" "$dest/README.md.tmp"
awk -v files="$files" -v tests="${tests_table%$'\n'}" -v note="$note" '
    /^@TESTS@$/ { print tests; next }
    { gsub(/@FILES@/, files); gsub(/@SOLUTION_NOTE@/, note); print }' "$dest/README.md.tmp" >"$dest/README.md"
rm -f "$dest/README.md.tmp"

printf 'tutorial: exported lesson %s (%s) to %s: %d autograding tests, %d points%s\n' \
    "$nn" "$lesson" "$dest" "${#test_cases[@]}" $(( ${#test_cases[@]} * POINTS_PER_TEST )) \
    "$([ "$with_solution" -eq 1 ] && echo ', with the solution' || true)"
