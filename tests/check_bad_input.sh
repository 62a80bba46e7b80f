#!/usr/bin/env bash
# check_bad_input.sh PROGRAM - a lesson program given bad flags must print one
# clear line on stderr and exit with code 2: never crash, hang or run anyway.
set -u
program=$1
failures=0
cases=("--no-such-flag")
# Every numeric option listed by --help ("  --name N  text (MIN to MAX, ...)")
# gets a word, a missing value, a huge number and each value just outside its range.
while read -r name min max; do
    cases+=("$name abc" "$name" "$name 1e99" "$name $((min - 1))" "$name $((max + 1))")
done < <("$program" --help 2>/dev/null |
         sed -n 's/^ *\(--[a-z0-9-]*\) *N .*(\(-\{0,1\}[0-9]*\) to \([0-9]*\),.*/\1 \2 \3/p')
[ "${#cases[@]}" -gt 1 ] || { echo "FAIL: $(basename "$program") --help lists no numeric option"; exit 1; }
for args in "${cases[@]}"; do
    # shellcheck disable=SC2086
    stderr=$(timeout 60 "$program" $args 2>&1 >/dev/null)
    rc=$?
    lines=$(printf '%s' "$stderr" | grep -c '')
    if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ]; then
        echo "FAIL: $(basename "$program") $args -> exit $rc, $lines stderr lines:"
        printf '%s\n' "$stderr" | head -5
        failures=$((failures + 1))
    else
        echo "ok:   $(basename "$program") $args -> exit 2: $stderr"
    fi
done
[ "$failures" -eq 0 ]
