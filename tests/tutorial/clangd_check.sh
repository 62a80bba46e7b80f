#!/usr/bin/env bash
# clangd_check.sh SOURCE_DIR - .clangd and common/clangd_cuda.h let clangd
# open a .cu file in CUDA mode without a single error (README, "Editors").
# Runs clangd --check on an exercise, a solution with __shared__ tiles inside
# a __device__ function, and a lesson 11 gallery file (one folder deeper).
# clangd --check also tries its refactorings at every token and logs those
# that do not apply as "E[...] tweak: ..."; only diagnostics ("E[...] [code]")
# count.
set -uo pipefail
root=$1
failures=0
for file in lessons/09-tiled-matmul/tiled_matmul.cu solutions/10-neural-layer/dense_layer.cu \
            lessons/11-when-kernels-go-wrong/gallery/12_race.cu; do
    log=$(cd "$root" && clangd --check="$root/$file" 2>&1)
    diagnostics=$(grep -E '^E\[[^]]*\] \[' <<<"$log")
    if ! grep -q -- '-xcuda' <<<"$log"; then
        echo "FAIL: $file: clangd did not use .clangd's CUDA flags"; failures=$((failures + 1))
    elif [ -n "$diagnostics" ]; then
        echo "FAIL: $file:"; echo "$diagnostics" | head -5; failures=$((failures + 1))
    else
        echo "ok:   $file opens in CUDA mode with no diagnostics"
    fi
done
[ "$failures" -eq 0 ]
