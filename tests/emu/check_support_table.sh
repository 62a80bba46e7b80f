#!/usr/bin/env bash
# check_support_table.sh EMU_DIR [CUDA_RUNTIME_API_H] - each support table in EMU_DIR/README.md
# names exactly the calls the headers declare in its "emulated" column, and
# exactly the calls the emulator refuses at build time in its "refused" column:
#   runtime-support  include/cuemu/runtime.h, runtime_extra.h, graphs.h, textures.h,
#                    launch_attributes.h;
#                    not_emulated.h, graphs.h
#   cublas-support   include/cublas_v2.h, cublasLt.h; cuemu/cublas_not_emulated.h,
#                    cuemu/cublaslt_not_emulated.h
#   nccl-support     include/nccl.h; cuemu/nccl_not_emulated.h
set -uo pipefail
emu=$1
status=0

# check_table MARKER PREFIX WHAT DECLARED REFUSED: the table between MARKER's
# begin and end comments, whose call names start with PREFIX, against the
# DECLARED and REFUSED names (one a line). WHAT names the calls in messages.
check_table() {
    local marker=$1 prefix=$2 what=$3 declared=$4 refused=$5 table listed_emulated listed_refused
    table=$(sed -n "/<!-- $marker:begin -->/,/<!-- $marker:end -->/p" "$emu/README.md" | grep '^| [a-z]')
    [ -n "$table" ] || { echo "FAIL: no $marker table in $emu/README.md"; status=1; return; }
    names() { grep -oE "\`$prefix[A-Z][A-Za-z0-9_]*\`" | tr -d '`' | sort -u; }
    listed_emulated=$(cut -d'|' -f3 <<<"$table" | names)
    listed_refused=$(cut -d'|' -f4 <<<"$table" | names)
    local failed=0
    report() {  # TITLE NAMES
        [ -z "$2" ] && return
        echo "FAIL: $what $1: $(tr '\n' ' ' <<<"$2")"; failed=1
    }
    report "declared but not in the table's emulated column" "$(comm -23 <(echo "$declared") <(echo "$listed_emulated"))"
    report "in the emulated column but not declared" "$(comm -13 <(echo "$declared") <(echo "$listed_emulated"))"
    report "refused but not in the table's refused column" "$(comm -23 <(echo "$refused") <(echo "$listed_refused"))"
    report "in the refused column but not refused" "$(comm -13 <(echo "$refused") <(echo "$listed_refused"))"
    if [ "$failed" -eq 0 ]; then
        echo "PASS: $(wc -l <<<"$declared") emulated and $(wc -l <<<"$refused") refused $what, as the table says"
    else
        status=1
    fi
}

check_table runtime-support cuda "calls" \
    "$(grep -ohE '\bcuda[A-Z][A-Za-z0-9_]*\s*\(' "$emu/include/cuemu/runtime.h" \
           "$emu/include/cuemu/runtime_extra.h" "$emu/include/cuemu/graphs.h" \
           "$emu/include/cuemu/textures.h" "$emu/include/cuemu/launch_attributes.h" |
           sed -E 's/\s*\($//' | sort -u)" \
    "$(grep -ohE '^CUEMU_(REMOVED_IN_CUDA_13|NOT_EMULATED|GRAPH_CALL_NOT_EMULATED)\(cuda[A-Za-z0-9_]+' \
           "$emu/include/cuemu/not_emulated.h" "$emu/include/cuemu/graphs.h" | sed 's/.*(//' | sort -u)"
# With a toolkit's cuda_runtime_api.h (second argument, where one is
# installed): every runtime function it declares is in the table, emulated or
# refused, so that none is a bare undeclared identifier.
if [ -n "${2:-}" ] && [ -f "$2" ]; then
    table=$(sed -n '/<!-- runtime-support:begin -->/,/<!-- runtime-support:end -->/p' "$emu/README.md")
    missing=$(comm -23 <(grep -ohE 'CUDARTAPI cuda[A-Z][A-Za-z0-9_]*\(' "$2" | sed -E 's/.* //; s/\($//' | sort -u) \
                       <(grep -oE '`cuda[A-Z][A-Za-z0-9_]*`' <<<"$table" | tr -d '`' | sort -u))
    if [ -n "$missing" ]; then
        echo "FAIL: runtime calls of $2 in neither column: $(tr '\n' ' ' <<<"$missing")"
        status=1
    else
        echo "PASS: every runtime call of $2 is emulated or refused"
    fi
fi
# A cuBLAS declaration's `_v2` is the name a program writes without it.
check_table cublas-support cublas "cuBLAS and cuBLASLt calls" \
    "$(grep -ohE '^(const char\*|cublasStatus_t|size_t) cublas[A-Z][A-Za-z0-9_]*\(' \
           "$emu/include/cublas_v2.h" "$emu/include/cublasLt.h" |
           sed -E 's/.* //; s/\($//; s/_v2$//' | sort -u)" \
    "$(grep -ohE '^CUEMU_CUBLAS(LT)?_NOT_EMULATED\(cublas[A-Za-z0-9_]+' \
           "$emu/include/cuemu/cublas_not_emulated.h" "$emu/include/cuemu/cublaslt_not_emulated.h" |
           sed 's/.*(//' | sort -u)"
check_table nccl-support nccl "NCCL calls" \
    "$(grep -ohE '^(const char\*|ncclResult_t) nccl[A-Z][A-Za-z0-9_]*\(' "$emu/include/nccl.h" |
           sed -E 's/.* //; s/\($//' | sort -u)" \
    "$(grep -ohE '^CUEMU_NCCL_NOT_EMULATED\(nccl[A-Za-z0-9_]+' \
           "$emu/include/cuemu/nccl_not_emulated.h" | sed 's/.*(//' | sort -u)"
exit "$status"
