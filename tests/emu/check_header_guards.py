#!/usr/bin/env python3
"""check_header_guards.py ROOT [TOOLKIT_INCLUDE] - every CUDA header the emulator
provides (common/emu/include, outside cuemu/) defines the include guard of the
toolkit's header of the same name.

Programs test those guards to learn what was included: NVIDIA's helper_cuda.h
defines its cuRAND error strings only `#ifdef CURAND_H_`, so a sample that
checks a curandStatus_t with checkCudaErrors failed to build until curand.h
defined it. The guards are in GUARDS below, read from CUDA 13.0's headers; where
a toolkit is given (CI's nvcc), the table is also read again from its headers,
so that it cannot drift from them, and a header of ours missing from the table
fails the test.
"""
import pathlib
import re
import sys

# Header -> its guard in the toolkit (CUDA 13.0).
GUARDS = {
    'channel_descriptor.h': '__CHANNEL_DESCRIPTOR_H__',
    'cooperative_groups.h': '_COOPERATIVE_GROUPS_H_',
    'cooperative_groups/memcpy_async.h': '_COOPERATIVE_GROUPS_MEMCPY_ASYNC',
    'cooperative_groups/reduce.h': '_COOPERATIVE_GROUPS_REDUCE_H',
    'cooperative_groups/scan.h': '_COOPERATIVE_GROUPS_SCAN_H',
    'cublas.h': 'CUBLAS_H_',
    'cublasXt.h': 'CUBLAS_XT_H_',
    'cublas_api.h': 'CUBLAS_API_H_',
    'cublas_v2.h': 'CUBLAS_V2_H_',
    'cuda.h': '__cuda_cuda_h__',
    'cuda_bf16.h': '__CUDA_BF16_H__',
    'cuda_fp16.h': '__CUDA_FP16_H__',
    'cuda_fp8.h': '__CUDA_FP8_H__',
    'cuda_occupancy.h': '__cuda_occupancy_h__',
    'cuda_pipeline.h': '_CUDA_PIPELINE_H_',
    'cuda_pipeline_primitives.h': '_CUDA_PIPELINE_PRIMITIVES_H_',
    'cuda_profiler_api.h': '__CUDA_PROFILER_API_H__',
    'cuda_runtime.h': '__CUDA_RUNTIME_H__',
    'cuda_runtime_api.h': '__CUDA_RUNTIME_API_H__',
    'curand.h': 'CURAND_H_',
    'curand_kernel.h': 'CURAND_KERNEL_H_',
    'curand_mtgp32.h': 'CURAND_MTGP32_H',
    'curand_mtgp32_host.h': 'CURAND_MTGP32_HOST_H',
    'curand_mtgp32_kernel.h': 'CURAND_MTGP32_KERNEL_H',
    'curand_mtgp32dc_p_11213.h': 'CURAND_MTGP32DC_P_11213_H',
    'device_atomic_functions.h': '__DEVICE_ATOMIC_FUNCTIONS_H__',
    'device_functions.h': '__DEVICE_FUNCTIONS_H__',
    'device_launch_parameters.h': '__DEVICE_LAUNCH_PARAMETERS_H__',
    'driver_functions.h': '__DRIVER_FUNCTIONS_H__',
    'driver_types.h': '__DRIVER_TYPES_H__',
    'library_types.h': '__LIBRARY_TYPES_H__',
    'math_constants.h': '__MATH_CONSTANTS_H__',
    'math_functions.h': '__MATH_FUNCTIONS_H__',
    'mma.h': '__CUDA_MMA_H__',
    'nccl.h': 'NCCL_H_',
    'nvtx3/nvToolsExtCudaRt.h': 'NVTOOLSEXT_CUDART_V3',
    'sm_20_atomic_functions.h': '__SM_20_ATOMIC_FUNCTIONS_H__',
    'sm_30_intrinsics.h': '__SM_30_INTRINSICS_H__',
    'sm_32_atomic_functions.h': '__SM_32_ATOMIC_FUNCTIONS_H__',
    'sm_32_intrinsics.h': '__SM_32_INTRINSICS_H__',
    'sm_35_atomic_functions.h': '__SM_35_ATOMIC_FUNCTIONS_H__',
    'sm_35_intrinsics.h': '__SM_35_INTRINSICS_H__',
    'sm_60_atomic_functions.h': '__SM_60_ATOMIC_FUNCTIONS_H__',
    'sm_61_intrinsics.h': '__SM_61_INTRINSICS_H__',
    'surface_indirect_functions.h': '__SURFACE_INDIRECT_FUNCTIONS_H__',
    'surface_types.h': '__SURFACE_TYPES_H__',
    'texture_indirect_functions.h': '__TEXTURE_INDIRECT_FUNCTIONS_H__',
    'texture_types.h': '__TEXTURE_TYPES_H__',
    'vector_functions.h': '__VECTOR_FUNCTIONS_H__',
    'vector_types.h': '__VECTOR_TYPES_H__',
}
# Left out on purpose: host_defines.h and crt/host_defines.h (__HOST_DEFINES_H__),
# which Thrust's CUDA backend tests to decide whether to #undef __host__ and
# __device__ before it includes cuda_runtime_api.h; the emulator's own
# definitions of those must stay. cublasLt.h and nvtx3/nvToolsExt.h have no
# guard of this form in the toolkit (#pragma once, versioned macros).
LEFT_OUT = {'host_defines.h', 'crt/host_defines.h', 'cublasLt.h', 'nvtx3/nvToolsExt.h'}

DIRECTIVE = re.compile(r'^\s*#\s*(\w+)\s*(.*?)\s*$')


def directives(path):
    found = []
    for line in path.read_text(errors='replace').splitlines():
        m = DIRECTIVE.match(line)
        if m:
            found.append((m.group(1), m.group(2)))
    return found


def toolkit_guard(toolkit, path, follow=True):
    """The name X of the first `#ifndef X` (or `#if !defined(X)`) followed by
    `#define X` whose #endif closes the file (only #undef lines and the
    toolkit's internal-headers bookkeeping after it); a wrapper header
    (mma.h) is followed into the crt/ header it includes."""
    lines = directives(path)
    for k, (word, argument) in enumerate(lines[:-1]):
        name = None
        if word == 'ifndef' and argument:
            name = argument.split()[0]
        elif word == 'if':
            m = re.fullmatch(r'!\s*defined\s*\(?\s*(\w+)\s*\)?', argument)
            name = m.group(1) if m else None
        if not name or 'COMPILER_INTERNAL_HEADERS' in name:
            continue
        if lines[k + 1][0] != 'define' or lines[k + 1][1].split() != [name]:
            continue
        depth, end = 0, len(lines)
        for m in range(k, len(lines)):
            if lines[m][0] in ('if', 'ifdef', 'ifndef'):
                depth += 1
            elif lines[m][0] == 'endif':
                depth -= 1
                if depth == 0:
                    end = m
                    break
        if all('COMPILER_INTERNAL_HEADERS' in a or w in ('endif', 'else', 'undef') for w, a in lines[end + 1:]):
            return name
    if follow:
        for word, argument in lines:
            m = re.fullmatch(r'"(crt/[\w./]+)"', argument) if word == 'include' else None
            if m and (toolkit / m.group(1)).is_file():
                return toolkit_guard(toolkit, toolkit / m.group(1), follow=False)
    return None


def defined_through(ours, path, seen=None):
    """The macros that `path` #defines, with those of the emulator's headers
    it includes (the runtime's guards are defined in cuemu/cuemu.h)."""
    seen = set() if seen is None else seen
    if path in seen or not path.is_file():
        return set()
    seen.add(path)
    names = set()
    for word, argument in directives(path):
        if word == 'define' and argument:
            names.add(re.match(r'\w+', argument).group(0))
        elif word == 'include':
            m = re.fullmatch(r'["<]([\w./]+)[">]', argument)
            if m:
                for candidate in (path.parent / m.group(1), ours / m.group(1)):
                    names |= defined_through(ours, candidate.resolve(), seen)
    return names


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.splitlines()[0])
        return 2
    ours = pathlib.Path(sys.argv[1]) / 'common' / 'emu' / 'include'
    toolkit = pathlib.Path(sys.argv[2]) if len(sys.argv) == 3 and sys.argv[2] else None
    failures = []
    headers = sorted(p.relative_to(ours).as_posix() for p in ours.rglob('*.h') if p.is_file())
    headers = [h for h in headers if not h.startswith('cuemu/')]
    for header in headers:
        if header in LEFT_OUT:
            continue
        if header not in GUARDS:
            if toolkit and (toolkit / header).is_file():
                failures.append(f'{header}: not in GUARDS (the toolkit\'s guard: '
                                f'{toolkit_guard(toolkit, toolkit / header)})')
            continue
        guard = GUARDS[header]
        if toolkit and (toolkit / header).is_file():
            real = toolkit_guard(toolkit, toolkit / header)
            if real != guard:
                failures.append(f'{header}: GUARDS says {guard}, the toolkit\'s header guards with {real}')
        if guard not in defined_through(ours, ours / header):
            failures.append(f'{header}: does not #define {guard}, the toolkit\'s include guard')
    for header in GUARDS:
        if header not in headers:
            failures.append(f'{header}: in GUARDS but not a header of common/emu/include')
    for failure in failures:
        print('FAIL:', failure)
    checked = len([h for h in headers if h in GUARDS])
    print(f'{checked} headers checked against the toolkit\'s guards'
          f' ({"read from " + str(toolkit) if toolkit else "stored table; no toolkit given"})')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
