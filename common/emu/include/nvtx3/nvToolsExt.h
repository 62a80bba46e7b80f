// <nvtx3/nvToolsExt.h> for emulator builds: NVTX, the annotations (ranges,
// marks, names) that a profiler such as Nsight Systems shows on its timeline.
//
// Without a tool attached, NVTX's calls do nothing and answer "no tool": that
// is also what they do on a GPU when the program runs without a profiler, and
// no NVTX tool ever attaches to the emulator. So every call here is a no-op
// with the value NVTX documents for that case: a push or pop answers
// NVTX_NO_PUSH_POP_TRACKING (-2), a range start 0, a domain or registered
// string handle a null pointer. The types and constants are NVTX version 3's,
// so that code filling an nvtxEventAttributes_t builds unchanged. The less
// common extensions (payloads, counters, memory) are not declared: code using
// them stops at the first undeclared name.
#ifndef CUEMU_NVTOOLSEXT_H
#define CUEMU_NVTOOLSEXT_H

#include <cstddef>
#include <cstdint>

#define NVTX_VERSION 3
#define NVTX_NO_PUSH_POP_TRACKING (static_cast<int>(-2))

struct nvtxDomainRegistration_st;
struct nvtxStringRegistration_st;
typedef std::uint64_t nvtxRangeId_t;
typedef nvtxDomainRegistration_st* nvtxDomainHandle_t;
typedef nvtxStringRegistration_st* nvtxStringHandle_t;

typedef enum nvtxColorType_t { NVTX_COLOR_UNKNOWN = 0, NVTX_COLOR_ARGB = 1 } nvtxColorType_t;
typedef enum nvtxMessageType_t {
    NVTX_MESSAGE_UNKNOWN = 0,
    NVTX_MESSAGE_TYPE_ASCII = 1,
    NVTX_MESSAGE_TYPE_UNICODE = 2,
    NVTX_MESSAGE_TYPE_REGISTERED = 3
} nvtxMessageType_t;
typedef enum nvtxPayloadType_t {
    NVTX_PAYLOAD_UNKNOWN = 0,
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 = 1,
    NVTX_PAYLOAD_TYPE_INT64 = 2,
    NVTX_PAYLOAD_TYPE_DOUBLE = 3,
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT32 = 4,
    NVTX_PAYLOAD_TYPE_INT32 = 5,
    NVTX_PAYLOAD_TYPE_FLOAT = 6
} nvtxPayloadType_t;

typedef union nvtxMessageValue_t {
    const char* ascii;
    const wchar_t* unicode;
    nvtxStringHandle_t registered;
} nvtxMessageValue_t;

// What a mark or range carries: a colour, a payload and a message.
typedef struct nvtxEventAttributes_v2 {
    std::uint16_t version;
    std::uint16_t size;  // NVTX_EVENT_ATTRIB_STRUCT_SIZE
    std::uint32_t category;
    std::int32_t colorType;  // nvtxColorType_t
    std::uint32_t color;     // ARGB
    std::int32_t payloadType;  // nvtxPayloadType_t
    std::int32_t reserved0;
    union payload_t {
        std::uint64_t ullValue;
        std::int64_t llValue;
        double dValue;
        std::uint32_t uiValue;
        std::int32_t iValue;
        float fValue;
    } payload;
    std::int32_t messageType;  // nvtxMessageType_t
    nvtxMessageValue_t message;
} nvtxEventAttributes_v2;
typedef nvtxEventAttributes_v2 nvtxEventAttributes_t;
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE (static_cast<std::uint16_t>(sizeof(nvtxEventAttributes_t)))

// ---- the calls, all without a tool ---------------------------------------------------
inline void nvtxInitialize(const void*) {}
inline void nvtxMarkA(const char*) {}
inline void nvtxMarkW(const wchar_t*) {}
inline void nvtxMarkEx(const nvtxEventAttributes_t*) {}
inline int nvtxRangePushA(const char*) { return NVTX_NO_PUSH_POP_TRACKING; }
inline int nvtxRangePushW(const wchar_t*) { return NVTX_NO_PUSH_POP_TRACKING; }
inline int nvtxRangePushEx(const nvtxEventAttributes_t*) { return NVTX_NO_PUSH_POP_TRACKING; }
inline int nvtxRangePop() { return NVTX_NO_PUSH_POP_TRACKING; }
inline nvtxRangeId_t nvtxRangeStartA(const char*) { return 0; }
inline nvtxRangeId_t nvtxRangeStartW(const wchar_t*) { return 0; }
inline nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t*) { return 0; }
inline void nvtxRangeEnd(nvtxRangeId_t) {}
inline void nvtxNameCategoryA(std::uint32_t, const char*) {}
inline void nvtxNameCategoryW(std::uint32_t, const wchar_t*) {}
inline void nvtxNameOsThreadA(std::uint32_t, const char*) {}
inline void nvtxNameOsThreadW(std::uint32_t, const wchar_t*) {}

inline nvtxDomainHandle_t nvtxDomainCreateA(const char*) { return nullptr; }
inline nvtxDomainHandle_t nvtxDomainCreateW(const wchar_t*) { return nullptr; }
inline void nvtxDomainDestroy(nvtxDomainHandle_t) {}
inline nvtxStringHandle_t nvtxDomainRegisterStringA(nvtxDomainHandle_t, const char*) { return nullptr; }
inline nvtxStringHandle_t nvtxDomainRegisterStringW(nvtxDomainHandle_t, const wchar_t*) { return nullptr; }
inline void nvtxDomainMarkEx(nvtxDomainHandle_t, const nvtxEventAttributes_t*) {}
inline int nvtxDomainRangePushEx(nvtxDomainHandle_t, const nvtxEventAttributes_t*) {
    return NVTX_NO_PUSH_POP_TRACKING;
}
inline int nvtxDomainRangePop(nvtxDomainHandle_t) { return NVTX_NO_PUSH_POP_TRACKING; }
inline nvtxRangeId_t nvtxDomainRangeStartEx(nvtxDomainHandle_t, const nvtxEventAttributes_t*) { return 0; }
inline void nvtxDomainRangeEnd(nvtxDomainHandle_t, nvtxRangeId_t) {}
inline void nvtxDomainNameCategoryA(nvtxDomainHandle_t, std::uint32_t, const char*) {}
inline void nvtxDomainNameCategoryW(nvtxDomainHandle_t, std::uint32_t, const wchar_t*) {}

#endif
