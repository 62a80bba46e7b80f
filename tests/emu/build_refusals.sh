#!/usr/bin/env bash
# build_refusals.sh WORKDIR - calls that must not build under bin/nvcc-emu,
# each with a message naming the call (and, for what CUDA 13 removed, its
# replacement): a program using one stops at build time instead of running
# with a call that silently does nothing.
set -uo pipefail
work=$1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$work"
failures=0
refused() {  # NAME EXPECTED-MESSAGE-REGEX BODY
    local name=$1 expected=$2 body=$3
    printf '#include <cuda_runtime.h>\n#include <cublas_v2.h>\n__global__ void k(int* p) { *p = 1; }\nint main() {\n%s\nreturn 0;\n}\n' \
        "$body" >"$work/$name.cu"
    local output
    if output=$("$root/bin/nvcc-emu" "$work/$name.cu" -o "$work/$name" 2>&1); then
        echo "FAIL: $name built"; failures=$((failures + 1)); return
    fi
    if ! grep -Eq -- "$expected" <<<"$output"; then
        echo "FAIL: $name: no message matching '$expected' in:"; printf '%s\n' "$output" | head -20
        failures=$((failures + 1)); return
    fi
    echo "ok: $name refused"
}
# only_error NAME: the refusal of NAME (built just before) is its one error.
only_error() {
    local errors
    errors=$("$root/bin/nvcc-emu" "$work/$1.cu" -o "$work/$1" 2>&1 | grep -c 'error:')
    if [ "$errors" -ne 1 ]; then
        echo "FAIL: $1: $errors errors, not the refusal alone"; failures=$((failures + 1)); return
    fi
    echo "ok: $1 refused with one error"
}
refused thread-synchronize "cudaThreadSynchronize was removed in CUDA 13.*cudaDeviceSynchronize" \
    'cudaThreadSynchronize();'
refused prefetch-int-device "cudaMemPrefetchAsync\(ptr, bytes, int device, stream\) was removed in CUDA 13.*cudaMemLocation" \
    'int* p; cudaMallocManaged(&p, 4); cudaMemPrefetchAsync(p, 4, 0, 0);'
refused advise-int-device "cudaMemAdvise\(ptr, bytes, advice, int device\) was removed in CUDA 13" \
    'int* p; cudaMallocManaged(&p, 4); cudaMemAdvise(p, 4, cudaMemAdviseSetReadMostly, 0);'
refused clock-rate-field "clockRate" \
    'cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0); return prop.clockRate;'
# External semaphore nodes, as a program writes them (CUDA's types declared):
# the one error is the call's, not a type's.
semaphore_node='cudaGraph_t g; cudaGraphCreate(&g, 0); cudaExternalSemaphore_t sem = nullptr;
cudaExternalSemaphoreSignalParams signal = {}; signal.params.fence.value = 1;
cudaExternalSemaphoreSignalNodeParams p = {}; p.extSemArray = &sem; p.paramsArray = &signal; p.numExtSems = 1;
cudaGraphNode_t n; cudaGraphAddExternalSemaphoresSignalNode(&n, g, nullptr, 0, &p);'
refused graph-semaphore-node "cuemu does not emulate cudaGraphAddExternalSemaphoresSignalNode" "$semaphore_node"
only_error graph-semaphore-node
refused graph-semaphore-wait-params "cuemu does not emulate cudaGraphExternalSemaphoresWaitNodeGetParams" \
    'cudaGraphNode_t n = nullptr; cudaExternalSemaphoreWaitNodeParams p = {}; cudaGraphExternalSemaphoresWaitNodeGetParams(n, &p); return int(p.numExtSems);'
only_error graph-semaphore-wait-params
# Graph calls in their CUDA 11 and 12 forms, which nvcc 13 refuses too: one
# error naming the call and its new form, not "too many arguments".
refused graph-instantiate-cuda11 "cudaGraphInstantiate\\(exec, graph, errorNode, logBuffer, bufferSize\\) was removed in CUDA 12.*cudaGraphInstantiate\\(&exec, graph, 0" \
    'cudaGraph_t g; cudaGraphCreate(&g, 0); cudaGraphExec_t e; cudaGraphInstantiate(&e, g, NULL, NULL, 0);'
only_error graph-instantiate-cuda11
refused graph-exec-update-cuda11 "cudaGraphExecUpdate\\(exec, graph, &errorNode, &result\\) was removed in CUDA 12.*cudaGraphExecUpdateResultInfo" \
    'cudaGraph_t g; cudaGraphExec_t e; cudaGraphNode_t n; cudaGraphExecUpdateResult r; cudaGraphExecUpdate(e, g, &n, &r);'
refused graph-add-dependencies-cuda12 "cudaGraphAddDependencies\\(graph, from, to, count\\) was removed in CUDA 13.*nullptr /\\* edge data \\*/, count" \
    'cudaGraph_t g; cudaGraphNode_t a, b; cudaGraphAddDependencies(g, &a, &b, 1);'
refused capture-info-cuda12 "cudaStreamGetCaptureInfo\\(stream, &status, &id, &graph, &nodes, &count\\) was removed in CUDA 13" \
    'cudaStreamCaptureStatus s; unsigned long long id; cudaGraph_t g; const cudaGraphNode_t* d; size_t n; cudaStreamGetCaptureInfo(0, &s, &id, &g, &d, &n);'
refused graphics-interop "cuemu does not emulate cudaGraphicsMapResources \\(graphics interop" \
    'cudaGraphicsMapResources(1, nullptr, 0);'
refused tex2d-layered "cuemu does not emulate tex2DLayered \\(layered textures\\)" '}
__global__ void sample(cudaTextureObject_t t, float* out) { *out = tex2DLayered<float>(t, 0.5f, 0.5f, 1); }
int unused() {'
refused texture-reference "texture references .* were removed in CUDA 12" '}
texture<float, 2, cudaReadModeElementType> legacy_texture;
int unused() {'
refused driver-api "cuMemAlloc" \
    'cuMemAlloc(nullptr, 4);'
# cuBLAS calls outside the emulator's subset, and the cuBLAS headers it does not have.
refused cublas-hgemm "cuemu's cuBLAS does not have cublasHgemm" \
    'cublasHandle_t h; cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, nullptr, nullptr, 1, nullptr, 1, nullptr, nullptr, 1);'
refused cublas-gemm-batched-ex "cuemu's cuBLAS does not have cublasGemmBatchedEx.*cublasGemmStridedBatchedEx is emulated" \
    'cublasHandle_t h; cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1);'
refused cublas-isamax "cuemu's cuBLAS does not have cublasIsamax" 'cublasHandle_t h; int i; cublasIsamax(h, 1, nullptr, 1, &i);'
refused cublas-scopy "cuemu's cuBLAS does not have cublasScopy.*vector copies" 'cublasHandle_t h; cublasScopy(h, 1, nullptr, 1, nullptr, 1);'
# cuBLASLt calls outside the emulator's subset (<cublasLt.h> itself builds).
refused cublaslt-transform "cuemu's cuBLASLt does not have cublasLtMatrixTransform.*cublasLtMatmul" '}
#include <cublasLt.h>
int unused() { cublasLtHandle_t h; cublasLtMatrixTransform(h, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);'
refused cublaslt-algo-init "cuemu's cuBLASLt does not have cublasLtMatmulAlgoInit \\(algorithm ids\\)" '}
#include <cublasLt.h>
int unused() { cublasLtHandle_t h; cublasLtMatmulAlgo_t a; cublasLtMatmulAlgoInit(h, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 0, &a);'
refused cublas-legacy "cuemu does not emulate the legacy cuBLAS API" '}
#include <cublas.h>
int unused() {'
# Toolkit headers of what the emulator does not have.
refused cuda-fp8 "cuemu does not emulate the FP8 types of <cuda_fp8.h>" '}
#include <cuda_fp8.h>
int unused() {'
refused occupancy-calculator "cuemu does not emulate the occupancy calculator of <cuda_occupancy.h>" '}
#include <cuda_occupancy.h>
int unused() {'
# NCCL calls outside the emulator's subset.
refused nccl-alltoall "cuemu's NCCL does not have ncclAlltoAll" '}
#include <nccl.h>
int unused() { ncclAlltoAll(nullptr, nullptr, 1, ncclFloat, nullptr, nullptr);'
refused nccl-comm-split "cuemu's NCCL does not have ncclCommSplit" '}
#include <nccl.h>
int unused() { ncclComm_t c = nullptr; ncclCommSplit(c, 0, 0, &c, nullptr);'
# cuRAND calls outside the emulator's subset.
refused curand-binomial "cuemu's cuRAND does not have curandGenerateBinomial \\(binomial numbers" '}
#include <curand.h>
int unused() { curandGenerateBinomial(nullptr, nullptr, 4, 10u, 0.5);'
# Cooperative groups: what CUDA 13 does not give a tile of more than 32 threads
# is undeclared here too (cuemu/multi_warp_tile.h), so a program using it fails
# to build as with nvcc, instead of running with a guess.
# refused_on_tile64 NAME EXPECTED STATEMENT: STATEMENT in a kernel with an
# int* p and a thread_block_tile<64> tile.
refused_on_tile64() {
    refused "$1" "$2" "}
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void on_tile64(int* p) {
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cg::this_thread_block());
    $3
}
int unused() {"
}
refused_on_tile64 cg-tile64-shfl-down "has no member named .*shfl_down" \
    '*p = tile.shfl_down(*p, 1u);'
refused_on_tile64 cg-tile64-shfl-up "has no member named .*shfl_up" \
    '*p = tile.shfl_up(*p, 1u);'
refused_on_tile64 cg-tile64-shfl-xor "has no member named .*shfl_xor" \
    '*p = tile.shfl_xor(*p, 1u);'
refused_on_tile64 cg-tile64-ballot "has no member named .*ballot" \
    '*p = tile.ballot(*p);'
refused_on_tile64 cg-tile64-match-any "has no member named .*match_any" \
    '*p = tile.match_any(*p);'
refused_on_tile64 cg-tile64-match-all "has no member named .*match_all" \
    'int pred; *p = tile.match_all(*p, pred);'
refused_on_tile64 cg-tile64-as-thread-group "to non-scalar type .*cooperative_groups::thread_group" \
    'cg::thread_group g = tile; *p = g.size();'
refused_on_tile64 cg-tile64-wide-shfl "collectives of tiles larger than 32 threads move trivially copyable values of at most 8 bytes" \
    'double2 v = tile.shfl(make_double2(*p, 1.0), 0); *p = v.x;'
refused_on_tile64 cg-tile64-of-tile64 "the new tiles must be smaller than the parent tile" \
    '*p = cg::tiled_partition<64>(tile).thread_rank();'
refused cg-tile-2048 "Size must be a power of two from 1 to 1024" '}
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k_2048(int* p) { *p = cg::tiled_partition<2048>(cg::this_thread_block()).thread_rank(); }
int unused() {'
[ "$failures" -eq 0 ] || { echo "FAIL: $failures refusals missing"; exit 1; }
echo "PASS: every refusal names its call"
