#!/usr/bin/env bash
# check_bad_input.sh PROGRAM - a lesson program given bad flags must print one
# clear line on stderr and exit with code 2: never crash, hang or run anyway.
set -u
program=$1
failures=0
cases=("--n -5" "--n abc" "--n" "--n 1e99" "--no-such-flag")
"$program" --help 2>/dev/null | grep -q -- '--block' && cases+=("--block 2000" "--block 0")
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
