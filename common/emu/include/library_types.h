// <library_types.h> for emulator builds: the element types the CUDA libraries
// take as a run-time argument (cublasGemmEx's Atype, Btype, Ctype), with the
// toolkit's names and values. Only the types of cuemu's cuBLAS are computed
// with (CUDA_R_16F, CUDA_R_16BF, CUDA_R_32F, CUDA_R_64F); the others are here
// so that a program naming one builds and gets the library's status for it.
#ifndef CUEMU_LIBRARY_TYPES_H
#define CUEMU_LIBRARY_TYPES_H
#define __LIBRARY_TYPES_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

// R: a real number; C: a complex one, a pair of the same type.
typedef enum cudaDataType_t {
    CUDA_R_16F = 2,    // __half
    CUDA_C_16F = 6,
    CUDA_R_16BF = 14,  // __nv_bfloat16
    CUDA_C_16BF = 15,
    CUDA_R_32F = 0,    // float
    CUDA_C_32F = 4,
    CUDA_R_64F = 1,    // double
    CUDA_C_64F = 5,
    CUDA_R_4I = 16,
    CUDA_C_4I = 17,
    CUDA_R_4U = 18,
    CUDA_C_4U = 19,
    CUDA_R_8I = 3,
    CUDA_C_8I = 7,
    CUDA_R_8U = 8,
    CUDA_C_8U = 9,
    CUDA_R_16I = 20,
    CUDA_C_16I = 21,
    CUDA_R_16U = 22,
    CUDA_C_16U = 23,
    CUDA_R_32I = 10,
    CUDA_C_32I = 11,
    CUDA_R_32U = 12,
    CUDA_C_32U = 13,
    CUDA_R_64I = 24,
    CUDA_C_64I = 25,
    CUDA_R_64U = 26,
    CUDA_C_64U = 27,
    CUDA_R_8F_E4M3 = 28,  // 8-bit floats
    CUDA_R_8F_UE4M3 = CUDA_R_8F_E4M3,
    CUDA_R_8F_E5M2 = 29,
    CUDA_R_8F_UE8M0 = 30,
    CUDA_R_6F_E2M3 = 31,  // 6- and 4-bit floats
    CUDA_R_6F_E3M2 = 32,
    CUDA_R_4F_E2M1 = 33
} cudaDataType;

typedef enum libraryPropertyType_t { MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL } libraryPropertyType;

#endif
