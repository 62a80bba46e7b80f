// cublaslt_internal.h - what the emulator's cuBLASLt files share
// (cublaslt.cpp, cublaslt_matmul.cpp): the fields each descriptor keeps
// inside its cuBLASLt-sized storage, and the check that a handle or a
// descriptor is one the program made and has not destroyed.
#ifndef CUEMU_CUBLASLT_INTERNAL_H
#define CUEMU_CUBLASLT_INTERNAL_H

#include <cstdint>

#include "cublasLt.h"
#include "cublas_internal.h"

namespace cuemu::cublaslt_detail {

using cuemu::cublas_detail::call_site;

// A matrix layout (cublasLtMatrixLayoutCreate and its attributes). The
// order, plane offset and batch mode are always their defaults (column-major,
// real, strided): other values are refused when set.
struct layout_fields {
    std::int32_t type;  // cudaDataType
    std::int32_t batch_count;
    std::uint64_t rows, cols;
    std::int64_t ld;
    std::int64_t batch_stride;  // elements between the matrices of a batch
};
static_assert(sizeof(layout_fields) <= sizeof(cublasLtMatrixLayoutOpaque_t));

// A matmul descriptor: the attributes that change what cublasLtMatmul does.
// The others (FP8 scales, pointer modes, fill modes ...) keep their defaults:
// other values are refused when set.
struct matmul_fields {
    std::int32_t compute_type;  // cublasComputeType_t
    std::int32_t scale_type;    // cudaDataType of alpha and beta
    std::int32_t transa, transb;
    std::uint32_t epilogue;
    std::int32_t bias_type;  // cudaDataType; -1: D's type
    std::int32_t aux_type;   // cudaDataType; -1: D's type
    std::int32_t sm_count_target;  // a hint for a GPU's scheduling; kept and given back
    const void* bias;
    std::int64_t bias_batch_stride;
    void* aux;
    std::int64_t aux_ld;
    std::int64_t aux_batch_stride;
};
static_assert(sizeof(matmul_fields) <= sizeof(cublasLtMatmulDescOpaque_t));

// Heuristic preferences. Each only narrows which algorithms a GPU's cuBLASLt
// may return; the emulator's one algorithm needs no workspace and no
// alignment, so every value is kept, given back, and answered by it.
struct preference_fields {
    std::uint32_t search_mode;
    std::uint32_t reduction_scheme_mask;
    std::uint64_t max_workspace_bytes;
    std::uint32_t min_alignment[4];  // A, B, C, D
    float max_waves_count;
    std::uint64_t impl_mask;
};
static_assert(sizeof(preference_fields) <= sizeof(cublasLtMatmulPreferenceOpaque_t));

enum class descriptor_kind { layout, matmul, preference };

// CUBLAS_STATUS_NOT_INITIALIZED for a null handle or one that is not live
// (with a line saying so for the second); CUBLAS_STATUS_SUCCESS otherwise.
cublasStatus_t check_handle(cublasLtHandle_t handle, const call_site& at);
// Whether p is a live descriptor of that kind; if not, a line names the
// argument (a null one too) and the caller returns CUBLAS_STATUS_INVALID_VALUE.
bool check_descriptor(const void* p, descriptor_kind kind, const char* argument,
                      const call_site& at);

inline const layout_fields& fields_of(cublasLtMatrixLayout_t p) {
    return *reinterpret_cast<const layout_fields*>(p->data);
}
inline const matmul_fields& fields_of(cublasLtMatmulDesc_t p) {
    return *reinterpret_cast<const matmul_fields*>(p->data);
}

using cuemu::cublas_detail::data_type_name;
const char* epilogue_name(std::uint32_t epilogue);

}  // namespace cuemu::cublaslt_detail

#endif
