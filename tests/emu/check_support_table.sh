#!/usr/bin/env bash
# check_support_table.sh EMU_DIR - the runtime support table in EMU_DIR/README.md
# (between the runtime-support markers) names exactly the calls the headers
# declare (include/cuemu/runtime.h, runtime_extra.h) in its "emulated" column,
# and exactly the calls not_emulated.h refuses in its "refused" column.
set -uo pipefail
emu=$1
table=$(sed -n '/<!-- runtime-support:begin -->/,/<!-- runtime-support:end -->/p' "$emu/README.md" |
        grep '^| [a-z]')
[ -n "$table" ] || { echo "FAIL: no runtime-support table in $emu/README.md"; exit 1; }
names() { grep -oE '`cuda[A-Z][A-Za-z0-9_]*`' | tr -d '`' | sort -u; }
listed_emulated=$(cut -d'|' -f3 <<<"$table" | names)
listed_refused=$(cut -d'|' -f4 <<<"$table" | names)
declared=$(grep -ohE '\bcuda[A-Z][A-Za-z0-9_]*\s*\(' "$emu/include/cuemu/runtime.h" \
               "$emu/include/cuemu/runtime_extra.h" | sed -E 's/\s*\($//' | sort -u)
refused=$(grep -ohE '^CUEMU_(REMOVED_IN_CUDA_13|NOT_EMULATED)\(cuda[A-Za-z0-9_]+' \
              "$emu/include/cuemu/not_emulated.h" | sed 's/.*(//' | sort -u)
status=0
report() {  # TITLE NAMES
    [ -z "$2" ] && return
    echo "FAIL: $1: $(tr '\n' ' ' <<<"$2")"; status=1
}
report "declared but not in the table's emulated column" "$(comm -23 <(echo "$declared") <(echo "$listed_emulated"))"
report "in the emulated column but not declared" "$(comm -13 <(echo "$declared") <(echo "$listed_emulated"))"
report "refused but not in the table's refused column" "$(comm -23 <(echo "$refused") <(echo "$listed_refused"))"
report "in the refused column but not refused" "$(comm -13 <(echo "$refused") <(echo "$listed_refused"))"
[ "$status" -eq 0 ] && echo "PASS: $(wc -l <<<"$declared") emulated and $(wc -l <<<"$refused") refused calls, as the table says"
exit "$status"
