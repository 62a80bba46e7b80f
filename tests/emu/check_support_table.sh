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

# The cuBLAS table (between the cublas-support markers) against cublas_v2.h
# (a declaration's `_v2` is the name a program writes without it) and
# cuemu/cublas_not_emulated.h.
table=$(sed -n '/<!-- cublas-support:begin -->/,/<!-- cublas-support:end -->/p' "$emu/README.md" |
        grep '^| [a-z]')
[ -n "$table" ] || { echo "FAIL: no cublas-support table in $emu/README.md"; exit 1; }
cublas_names() { grep -oE '`cublas[A-Z][A-Za-z0-9_]*`' | tr -d '`' | sort -u; }
listed_emulated=$(cut -d'|' -f3 <<<"$table" | cublas_names)
listed_refused=$(cut -d'|' -f4 <<<"$table" | cublas_names)
declared=$(grep -ohE '^(const char\*|cublasStatus_t) cublas[A-Z][A-Za-z0-9_]*\(' "$emu/include/cublas_v2.h" |
           sed -E 's/.* //; s/\($//; s/_v2$//' | sort -u)
refused=$(grep -ohE '^CUEMU_CUBLAS_NOT_EMULATED\(cublas[A-Za-z0-9_]+' \
              "$emu/include/cuemu/cublas_not_emulated.h" | sed 's/.*(//' | sort -u)
report "cuBLAS: declared but not in the table's emulated column" "$(comm -23 <(echo "$declared") <(echo "$listed_emulated"))"
report "cuBLAS: in the emulated column but not declared" "$(comm -13 <(echo "$declared") <(echo "$listed_emulated"))"
report "cuBLAS: refused but not in the table's refused column" "$(comm -23 <(echo "$refused") <(echo "$listed_refused"))"
report "cuBLAS: in the refused column but not refused" "$(comm -13 <(echo "$refused") <(echo "$listed_refused"))"
[ "$status" -eq 0 ] && echo "PASS: $(wc -l <<<"$declared") emulated and $(wc -l <<<"$refused") refused cuBLAS calls, as the table says"
exit "$status"
