// cublaslt.cpp - the emulator's cuBLASLt handles and descriptors
// (include/cublasLt.h): cublasLtCreate and the version calls; matrix layouts,
// matmul descriptors and heuristic preferences, made, destroyed, and their
// attributes set and read back. cublaslt_matmul.cpp owns the heuristic and
// the product itself.
//
// Decisions:
//   - Attributes are checked as cuBLASLt checks them: a size that is not the
//     attribute's type's, a null buffer, or an attribute cuBLASLt does not
//     have is CUBLAS_STATUS_INVALID_VALUE. An attribute cuBLASLt has and the
//     emulator does not run (a row-major order, a ReLU bit mask, an FP8 scale,
//     a device pointer mode ...) may be set to its default; any other value
//     is CUBLAS_STATUS_NOT_SUPPORTED with a line naming it, so a program never
//     runs with a setting silently ignored.
//   - Handles and descriptors are remembered while live, so one used after it
//     was destroyed is reported instead of read.
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>

#include "cublaslt_internal.h"

using namespace cuemu::cublaslt_detail;

namespace {

std::mutex live_mutex;
// Live handles and descriptors, each with what it is.
std::unordered_map<const void*, int> live_objects;
constexpr int handle_kind = -1;

void remember(const void* p, int kind) {
    std::lock_guard<std::mutex> lock(live_mutex);
    live_objects[p] = kind;
}
bool forget(const void* p, int kind) {
    std::lock_guard<std::mutex> lock(live_mutex);
    auto it = live_objects.find(p);
    if (it == live_objects.end() || it->second != kind) return false;
    live_objects.erase(it);
    return true;
}
bool is_live(const void* p, int kind) {
    std::lock_guard<std::mutex> lock(live_mutex);
    auto it = live_objects.find(p);
    return it != live_objects.end() && it->second == kind;
}

const char* kind_words(descriptor_kind kind) {
    switch (kind) {
        case descriptor_kind::layout: return "matrix layout (cublasLtMatrixLayoutCreate)";
        case descriptor_kind::matmul: return "matmul descriptor (cublasLtMatmulDescCreate)";
        case descriptor_kind::preference: return "preference (cublasLtMatmulPreferenceCreate)";
    }
    return "";
}

cublasStatus_t refuse(const call_site& at, cublasStatus_t status, const char* status_name,
                      const char* why) {
    std::fprintf(stderr, "cuemu: %s at %s:%d: %s\n  %s returns %s\n", at.call, at.file, at.line,
                 why, at.call, status_name);
    return status;
}
cublasStatus_t invalid(const call_site& at, const char* why) {
    return refuse(at, CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE, as cuBLASLt does",
                  why);
}

// ---- attributes ---------------------------------------------------------------------------
// How one attribute is kept: in a field of the descriptor (any value), or
// not at all (only `fixed` is accepted, and read back).
struct attribute_rule {
    int attr;
    const char* name;
    std::size_t size;  // bytes of its value
    std::ptrdiff_t offset;  // of its field; -1: not kept
    std::int64_t fixed;     // the one value accepted when not kept
    const char* not_run;    // why other values are refused (when not kept)
};
#define CUEMU_FIELD(attr, type, fields, member) \
    {attr, #attr, sizeof(type), static_cast<std::ptrdiff_t>(offsetof(fields, member)), 0, nullptr}
#define CUEMU_FIXED(attr, type, value, why) {attr, #attr, sizeof(type), -1, value, why}

const attribute_rule layout_rules[] = {
    CUEMU_FIELD(CUBLASLT_MATRIX_LAYOUT_TYPE, std::uint32_t, layout_fields, type),
    CUEMU_FIXED(CUBLASLT_MATRIX_LAYOUT_ORDER, std::int32_t, CUBLASLT_ORDER_COL,
                "the emulator's cuBLASLt has column-major matrices only (CUBLASLT_ORDER_COL); "
                "for a row-major matrix, swap the roles of rows and columns (a row-major M is a "
                "column-major M^T)"),
    CUEMU_FIELD(CUBLASLT_MATRIX_LAYOUT_ROWS, std::uint64_t, layout_fields, rows),
    CUEMU_FIELD(CUBLASLT_MATRIX_LAYOUT_COLS, std::uint64_t, layout_fields, cols),
    CUEMU_FIELD(CUBLASLT_MATRIX_LAYOUT_LD, std::int64_t, layout_fields, ld),
    CUEMU_FIELD(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, std::int32_t, layout_fields, batch_count),
    CUEMU_FIELD(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, std::int64_t, layout_fields,
                batch_stride),
    CUEMU_FIXED(CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, std::int64_t, 0,
                "planar complex matrices are not emulated"),
    CUEMU_FIXED(CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, std::uint32_t, CUBLASLT_BATCH_MODE_STRIDED,
                "batches of pointer arrays are not emulated (CUBLASLT_BATCH_MODE_STRIDED is)"),
};

const char* const fp8_only = "scaling factors (FP8 and block-scaled products) are not emulated";
const attribute_rule matmul_rules[] = {
    CUEMU_FIELD(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, std::int32_t, matmul_fields, compute_type),
    CUEMU_FIELD(CUBLASLT_MATMUL_DESC_SCALE_TYPE, std::int32_t, matmul_fields, scale_type),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_POINTER_MODE, std::int32_t, CUBLASLT_POINTER_MODE_HOST,
                "the emulator's cublasLtMatmul reads alpha and beta from host memory only "
                "(CUBLASLT_POINTER_MODE_HOST)"),
    CUEMU_FIELD(CUBLASLT_MATMUL_DESC_TRANSA, std::int32_t, matmul_fields, transa),
    CUEMU_FIELD(CUBLASLT_MATMUL_DESC_TRANSB, std::int32_t, matmul_fields, transb),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_TRANSC, std::int32_t, CUBLAS_OP_N,
                "cuBLASLt supports CUBLAS_OP_N only for C"),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_FILL_MODE, std::int32_t, 2 /* CUBLAS_FILL_MODE_FULL */,
                "triangular products are not emulated (CUBLAS_FILL_MODE_FULL is)"),
    CUEMU_FIELD(CUBLASLT_MATMUL_DESC_EPILOGUE, std::uint32_t, matmul_fields, epilogue),
    CUEMU_FIELD(CUBLASLT_MATMUL_DESC_BIAS_POINTER, void*, matmul_fields, bias),
    CUEMU_FIELD(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, std::int64_t, matmul_fields,
                bias_batch_stride),
    CUEMU_FIELD(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, void*, matmul_fields, aux),
    CUEMU_FIELD(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, std::int64_t, matmul_fields, aux_ld),
    CUEMU_FIELD(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, std::int64_t, matmul_fields,
                aux_batch_stride),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE, std::int64_t, 0,
                "alpha vectors (device vector pointer modes) are not emulated"),
    CUEMU_FIELD(CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, std::int32_t, matmul_fields,
                sm_count_target),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, void*, 0, fp8_only),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, void*, 0, fp8_only),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, void*, 0, fp8_only),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, void*, 0, fp8_only),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, void*, 0, fp8_only),
    CUEMU_FIELD(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, std::int32_t, matmul_fields, aux_type),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER, void*, 0, fp8_only),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER, void*, 0, fp8_only),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_FAST_ACCUM, std::int8_t, 0,
                "FP8 fast accumulation is not emulated"),
    CUEMU_FIELD(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, std::int32_t, matmul_fields, bias_type),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, std::int32_t, 0, fp8_only),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, std::int32_t, 0, fp8_only),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_C_SCALE_MODE, std::int32_t, 0, fp8_only),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_D_SCALE_MODE, std::int32_t, 0, fp8_only),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE, std::int32_t, 0, fp8_only),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER, void*, 0, fp8_only),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE, std::int32_t, 0, fp8_only),
    CUEMU_FIXED(CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR, void*, 0,
                "emulated-precision descriptors are not emulated"),
};

const attribute_rule preference_rules[] = {
    CUEMU_FIELD(CUBLASLT_MATMUL_PREF_SEARCH_MODE, std::uint32_t, preference_fields, search_mode),
    CUEMU_FIELD(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, std::uint64_t, preference_fields,
                max_workspace_bytes),
    CUEMU_FIELD(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, std::uint32_t, preference_fields,
                reduction_scheme_mask),
    CUEMU_FIELD(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, std::uint32_t, preference_fields,
                min_alignment[0]),
    CUEMU_FIELD(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, std::uint32_t, preference_fields,
                min_alignment[1]),
    CUEMU_FIELD(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, std::uint32_t, preference_fields,
                min_alignment[2]),
    CUEMU_FIELD(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, std::uint32_t, preference_fields,
                min_alignment[3]),
    CUEMU_FIELD(CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT, float, preference_fields, max_waves_count),
    CUEMU_FIELD(CUBLASLT_MATMUL_PREF_IMPL_MASK, std::uint64_t, preference_fields, impl_mask),
};
#undef CUEMU_FIELD
#undef CUEMU_FIXED

template <std::size_t N>
const attribute_rule* find_rule(const attribute_rule (&rules)[N], int attr) {
    for (const attribute_rule& rule : rules)
        if (rule.attr == attr) return &rule;
    return nullptr;
}

// The value in buf (size bytes), as a signed number (a pointer as its address).
std::int64_t value_in(const void* buf, std::size_t size) {
    switch (size) {
        case 1: { std::int8_t v; std::memcpy(&v, buf, 1); return v; }
        case 4: { std::int32_t v; std::memcpy(&v, buf, 4); return v; }
        default: { std::int64_t v; std::memcpy(&v, buf, 8); return v; }
    }
}

bool emulated_epilogue(std::uint32_t e) {
    switch (e) {
        case CUBLASLT_EPILOGUE_DEFAULT: case CUBLASLT_EPILOGUE_RELU: case CUBLASLT_EPILOGUE_BIAS:
        case CUBLASLT_EPILOGUE_RELU_BIAS: case CUBLASLT_EPILOGUE_GELU:
        case CUBLASLT_EPILOGUE_GELU_AUX: case CUBLASLT_EPILOGUE_GELU_BIAS:
        case CUBLASLT_EPILOGUE_GELU_AUX_BIAS: case CUBLASLT_EPILOGUE_DGELU:
        case CUBLASLT_EPILOGUE_DGELU_BGRAD: case CUBLASLT_EPILOGUE_BGRADA:
        case CUBLASLT_EPILOGUE_BGRADB:
            return true;
        default: return false;
    }
}

template <std::size_t N>
cublasStatus_t set_attribute(const call_site& at, const void* descriptor, descriptor_kind kind,
                             void* fields, const attribute_rule (&rules)[N], int attr,
                             const void* buf, std::size_t size) {
    if (!check_descriptor(descriptor, kind, "the descriptor", at)) return CUBLAS_STATUS_INVALID_VALUE;
    const attribute_rule* rule = find_rule(rules, attr);
    char why[600];
    if (!rule) {
        std::snprintf(why, sizeof why, "attribute %d is not one cuBLASLt has", attr);
        return invalid(at, why);
    }
    if (!buf || size != rule->size) {
        std::snprintf(why, sizeof why, "%s takes a %zu-byte value; buf is %s and sizeInBytes is %zu",
                      rule->name, rule->size, buf ? "given" : "a null pointer", size);
        return invalid(at, why);
    }
    if (rule->offset < 0) {
        if (value_in(buf, size) == rule->fixed) return CUBLAS_STATUS_SUCCESS;
        std::snprintf(why, sizeof why, "%s = %lld is not emulated: %s", rule->name,
                      static_cast<long long>(value_in(buf, size)), rule->not_run);
        return refuse(at, CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED", why);
    }
    if (attr == CUBLASLT_MATMUL_DESC_EPILOGUE && kind == descriptor_kind::matmul) {
        const std::uint32_t e = static_cast<std::uint32_t>(value_in(buf, size));
        if (!emulated_epilogue(e)) {
            const char* name = epilogue_name(e);
            std::snprintf(why, sizeof why,
                          "CUBLASLT_MATMUL_DESC_EPILOGUE = %s is not emulated: the emulator runs "
                          "DEFAULT, BIAS, RELU, RELU_BIAS, the GELU ones, DGELU, DGELU_BGRAD, "
                          "BGRADA and BGRADB (ReLU bit masks are not emulated)",
                          name ? name : "a value that is no cublasLtEpilogue_t");
            return refuse(at, CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED", why);
        }
    }
    std::memcpy(static_cast<char*>(fields) + rule->offset, buf, size);
    return CUBLAS_STATUS_SUCCESS;
}

template <std::size_t N>
cublasStatus_t get_attribute(const call_site& at, const void* descriptor, descriptor_kind kind,
                             const void* fields, const attribute_rule (&rules)[N], int attr,
                             void* buf, std::size_t size, std::size_t* written) {
    if (!check_descriptor(descriptor, kind, "the descriptor", at)) return CUBLAS_STATUS_INVALID_VALUE;
    const attribute_rule* rule = find_rule(rules, attr);
    char why[300];
    if (!rule) {
        std::snprintf(why, sizeof why, "attribute %d is not one cuBLASLt has", attr);
        return invalid(at, why);
    }
    if (size == 0) {
        if (!written) return invalid(at, "sizeInBytes is 0 and sizeWritten is a null pointer");
        *written = rule->size;
        return CUBLAS_STATUS_SUCCESS;
    }
    if (!buf || size != rule->size) {
        std::snprintf(why, sizeof why, "%s has a %zu-byte value; buf is %s and sizeInBytes is %zu",
                      rule->name, rule->size, buf ? "given" : "a null pointer", size);
        return invalid(at, why);
    }
    if (rule->offset < 0) std::memcpy(buf, &rule->fixed, size);  // little-endian: the low bytes
    else std::memcpy(buf, static_cast<const char*>(fields) + rule->offset, size);
    if (written) *written = size;
    return CUBLAS_STATUS_SUCCESS;
}

// A new descriptor of type T (one of the opaque storages) holding fields.
template <class T, class Fields>
cublasStatus_t make(T** out, const Fields& fields, descriptor_kind kind, const call_site& at) {
    if (!out) return invalid(at, "the pointer to the new descriptor is a null pointer");
    T* storage = new (std::nothrow) T{};
    if (!storage) return CUBLAS_STATUS_ALLOC_FAILED;
    new (storage->data) Fields(fields);
    remember(storage, static_cast<int>(kind));
    *out = storage;
    return CUBLAS_STATUS_SUCCESS;
}

template <class T>
cublasStatus_t destroy(T* p, descriptor_kind kind, const call_site& at) {
    if (!p) return CUBLAS_STATUS_SUCCESS;  // as cuBLASLt: destroying nothing succeeds
    if (!check_descriptor(p, kind, "the descriptor", at)) return CUBLAS_STATUS_INVALID_VALUE;
    forget(p, static_cast<int>(kind));
    delete p;
    return CUBLAS_STATUS_SUCCESS;
}

template <class T>
void* fields_in(T* p) {
    return p ? static_cast<void*>(p->data) : nullptr;
}

}  // namespace

struct cublasLtContext {
    int unused;
};

namespace cuemu::cublaslt_detail {

cublasStatus_t check_handle(cublasLtHandle_t handle, const call_site& at) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (is_live(handle, handle_kind)) return CUBLAS_STATUS_SUCCESS;
    std::fprintf(stderr,
                 "cuemu: %s at %s:%d: the handle is not a live cuBLASLt handle (destroyed with "
                 "cublasLtDestroy, or never made by cublasLtCreate)\n"
                 "  %s returns CUBLAS_STATUS_NOT_INITIALIZED\n",
                 at.call, at.file, at.line, at.call);
    return CUBLAS_STATUS_NOT_INITIALIZED;
}

bool check_descriptor(const void* p, descriptor_kind kind, const char* argument,
                      const call_site& at) {
    if (p && is_live(p, static_cast<int>(kind))) return true;
    char why[300];
    std::snprintf(why, sizeof why, "%s is %s, not a live %s", argument,
                  p ? "destroyed or of another kind" : "a null pointer", kind_words(kind));
    invalid(at, why);
    return false;
}

const char* epilogue_name(std::uint32_t epilogue) {
    switch (epilogue) {
        case CUBLASLT_EPILOGUE_DEFAULT: return "CUBLASLT_EPILOGUE_DEFAULT";
        case CUBLASLT_EPILOGUE_RELU: return "CUBLASLT_EPILOGUE_RELU";
        case CUBLASLT_EPILOGUE_RELU_AUX: return "CUBLASLT_EPILOGUE_RELU_AUX";
        case CUBLASLT_EPILOGUE_BIAS: return "CUBLASLT_EPILOGUE_BIAS";
        case CUBLASLT_EPILOGUE_RELU_BIAS: return "CUBLASLT_EPILOGUE_RELU_BIAS";
        case CUBLASLT_EPILOGUE_RELU_AUX_BIAS: return "CUBLASLT_EPILOGUE_RELU_AUX_BIAS";
        case CUBLASLT_EPILOGUE_DRELU: return "CUBLASLT_EPILOGUE_DRELU";
        case CUBLASLT_EPILOGUE_DRELU_BGRAD: return "CUBLASLT_EPILOGUE_DRELU_BGRAD";
        case CUBLASLT_EPILOGUE_GELU: return "CUBLASLT_EPILOGUE_GELU";
        case CUBLASLT_EPILOGUE_GELU_AUX: return "CUBLASLT_EPILOGUE_GELU_AUX";
        case CUBLASLT_EPILOGUE_GELU_BIAS: return "CUBLASLT_EPILOGUE_GELU_BIAS";
        case CUBLASLT_EPILOGUE_GELU_AUX_BIAS: return "CUBLASLT_EPILOGUE_GELU_AUX_BIAS";
        case CUBLASLT_EPILOGUE_DGELU: return "CUBLASLT_EPILOGUE_DGELU";
        case CUBLASLT_EPILOGUE_DGELU_BGRAD: return "CUBLASLT_EPILOGUE_DGELU_BGRAD";
        case CUBLASLT_EPILOGUE_BGRADA: return "CUBLASLT_EPILOGUE_BGRADA";
        case CUBLASLT_EPILOGUE_BGRADB: return "CUBLASLT_EPILOGUE_BGRADB";
        default: return nullptr;
    }
}

}  // namespace cuemu::cublaslt_detail

// ---- the library -----------------------------------------------------------------------------
cublasStatus_t cublasLtCreate(cublasLtHandle_t* lightHandle, const char* file, int line) {
    const call_site at{"cublasLtCreate", file, line};
    if (!lightHandle) return invalid(at, "lightHandle is a null pointer");
    auto* handle = new (std::nothrow) cublasLtContext{};
    if (!handle) return CUBLAS_STATUS_ALLOC_FAILED;
    remember(handle, handle_kind);
    *lightHandle = handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle, const char* file, int line) {
    const call_site at{"cublasLtDestroy", file, line};
    if (cublasStatus_t status = check_handle(lightHandle, at)) return status;
    // As cublasDestroy: the work already queued runs first.
    cuemu::detail::synchronize_device();
    forget(lightHandle, handle_kind);
    delete lightHandle;
    return CUBLAS_STATUS_SUCCESS;
}

const char* cublasLtGetStatusName(cublasStatus_t status) { return cublasGetStatusName(status); }
const char* cublasLtGetStatusString(cublasStatus_t status) { return cublasGetStatusString(status); }
// libcublasLt 13.1.0's answers (major * 10000 + minor * 100 + patch; CUDART_VERSION).
size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }
size_t cublasLtGetCudartVersion(void) { return CUDART_VERSION; }

cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int* value, const char* file,
                                   int line) {
    const call_site at{"cublasLtGetProperty", file, line};
    if (!value) return invalid(at, "value is a null pointer");
    switch (type) {
        case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
        case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
        case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    }
    return invalid(at, "type is not a libraryPropertyType");
}

// ---- matrix layouts -----------------------------------------------------------------------
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* matLayout, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld,
                                          const char* file, int line) {
    layout_fields fields{};
    fields.type = type;
    fields.batch_count = 1;
    fields.rows = rows;
    fields.cols = cols;
    fields.ld = ld;
    return make(matLayout, fields, descriptor_kind::layout,
                {"cublasLtMatrixLayoutCreate", file, line});
}
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout, const char* file,
                                           int line) {
    return destroy(matLayout, descriptor_kind::layout, {"cublasLtMatrixLayoutDestroy", file, line});
}
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
                                                cublasLtMatrixLayoutAttribute_t attr,
                                                const void* buf, size_t sizeInBytes,
                                                const char* file, int line) {
    return set_attribute({"cublasLtMatrixLayoutSetAttribute", file, line}, matLayout,
                         descriptor_kind::layout, fields_in(matLayout), layout_rules, attr, buf,
                         sizeInBytes);
}
cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
                                                cublasLtMatrixLayoutAttribute_t attr, void* buf,
                                                size_t sizeInBytes, size_t* sizeWritten,
                                                const char* file, int line) {
    return get_attribute({"cublasLtMatrixLayoutGetAttribute", file, line}, matLayout,
                         descriptor_kind::layout, fields_in(matLayout), layout_rules, attr, buf,
                         sizeInBytes, sizeWritten);
}

// ---- matmul descriptors ---------------------------------------------------------------------
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* matmulDesc,
                                        cublasComputeType_t computeType, cudaDataType_t scaleType,
                                        const char* file, int line) {
    matmul_fields fields{};
    fields.compute_type = computeType;
    fields.scale_type = scaleType;
    fields.transa = fields.transb = CUBLAS_OP_N;
    fields.epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    fields.bias_type = fields.aux_type = -1;
    return make(matmulDesc, fields, descriptor_kind::matmul,
                {"cublasLtMatmulDescCreate", file, line});
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc, const char* file,
                                         int line) {
    return destroy(matmulDesc, descriptor_kind::matmul, {"cublasLtMatmulDescDestroy", file, line});
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                              cublasLtMatmulDescAttributes_t attr, const void* buf,
                                              size_t sizeInBytes, const char* file, int line) {
    return set_attribute({"cublasLtMatmulDescSetAttribute", file, line}, matmulDesc,
                         descriptor_kind::matmul, fields_in(matmulDesc), matmul_rules, attr, buf,
                         sizeInBytes);
}
cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                              cublasLtMatmulDescAttributes_t attr, void* buf,
                                              size_t sizeInBytes, size_t* sizeWritten,
                                              const char* file, int line) {
    return get_attribute({"cublasLtMatmulDescGetAttribute", file, line}, matmulDesc,
                         descriptor_kind::matmul, fields_in(matmulDesc), matmul_rules, attr, buf,
                         sizeInBytes, sizeWritten);
}

// ---- heuristic preferences ------------------------------------------------------------------
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref, const char* file,
                                              int line) {
    preference_fields fields{};
    fields.search_mode = CUBLASLT_SEARCH_BEST_FIT;
    fields.reduction_scheme_mask = 7;  // every reduction scheme allowed (libcublasLt's default)
    for (std::uint32_t& alignment : fields.min_alignment) alignment = 256;
    fields.impl_mask = ~std::uint64_t{0};
    return make(pref, fields, descriptor_kind::preference,
                {"cublasLtMatmulPreferenceCreate", file, line});
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref, const char* file,
                                               int line) {
    return destroy(pref, descriptor_kind::preference,
                   {"cublasLtMatmulPreferenceDestroy", file, line});
}
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void* buf, size_t sizeInBytes,
                                                    const char* file, int line) {
    return set_attribute({"cublasLtMatmulPreferenceSetAttribute", file, line}, pref,
                         descriptor_kind::preference, fields_in(pref), preference_rules, attr, buf,
                         sizeInBytes);
}
cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    void* buf, size_t sizeInBytes,
                                                    size_t* sizeWritten, const char* file,
                                                    int line) {
    return get_attribute({"cublasLtMatmulPreferenceGetAttribute", file, line}, pref,
                         descriptor_kind::preference, fields_in(pref), preference_rules, attr, buf,
                         sizeInBytes, sizeWritten);
}
