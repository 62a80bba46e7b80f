// reductions.cpp - the arithmetic of the emulator's NCCL: the size and name
// of each data type, and one step of a reduction (acc = acc op x) for each
// type and operation. The ranks are combined one at a time in rank order
// (meetings.cpp), so every rank gets the same bits, equal to a plain CPU loop
// over the ranks.
//
// Decisions:
//   - ncclHalf and ncclBfloat16 are rounded to their format after every step,
//     as a reduction in that type does (each step is exact in double, then
//     rounded once, to nearest even).
//   - ncclAvg is the sum, then one division by the number of ranks (integer
//     division for integer types). NCCL may scale before it sums; results of
//     floating-point types may then differ from NCCL's in the last bit.
//   - ncclFloat8e4m3 and ncclFloat8e5m2 are not emulated: type_size says 0
//     and the calls refuse them (operations.cpp).
#include <cstdint>
#include <cstring>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "nccl_internal.h"

namespace cuemu::nccl_detail {
namespace {

template <class T>
T apply(T a, T b, ncclRedOp_t op) {
    switch (op) {
        case ncclSum: case ncclAvg: return static_cast<T>(a + b);
        case ncclProd: return static_cast<T>(a * b);
        case ncclMax: return b > a ? b : a;
        case ncclMin: return b < a ? b : a;
        default: return a;
    }
}

template <class T>
void combine_as(void* acc, const void* x, std::size_t count, ncclRedOp_t op) {
    T* a = static_cast<T*>(acc);
    const T* b = static_cast<const T*>(x);
    for (std::size_t i = 0; i < count; ++i) a[i] = apply(a[i], b[i], op);
}

// __half and __nv_bfloat16: computed in double, rounded to the format each step.
template <class H>
void combine_narrow(void* acc, const void* x, std::size_t count, ncclRedOp_t op) {
    H* a = static_cast<H*>(acc);
    const H* b = static_cast<const H*>(x);
    for (std::size_t i = 0; i < count; ++i)
        a[i] = cuemu::narrow::round<H>(apply(cuemu::narrow::value(a[i]), cuemu::narrow::value(b[i]), op));
}

template <class T>
void divide_as(void* acc, std::size_t count, int divisor) {
    T* a = static_cast<T*>(acc);
    for (std::size_t i = 0; i < count; ++i) a[i] = static_cast<T>(a[i] / static_cast<T>(divisor));
}
template <class H>
void divide_narrow(void* acc, std::size_t count, int divisor) {
    H* a = static_cast<H*>(acc);
    for (std::size_t i = 0; i < count; ++i)
        a[i] = cuemu::narrow::round<H>(cuemu::narrow::value(a[i]) / divisor);
}

}  // namespace

std::size_t type_size(ncclDataType_t type) {
    switch (type) {
        case ncclInt8: case ncclUint8: return 1;
        case ncclFloat16: case ncclBfloat16: return 2;
        case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
        case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
        default: return 0;
    }
}

const char* type_name(ncclDataType_t type) {
    switch (type) {
        case ncclInt8: return "ncclInt8";
        case ncclUint8: return "ncclUint8";
        case ncclInt32: return "ncclInt32";
        case ncclUint32: return "ncclUint32";
        case ncclInt64: return "ncclInt64";
        case ncclUint64: return "ncclUint64";
        case ncclFloat16: return "ncclFloat16";
        case ncclFloat32: return "ncclFloat32";
        case ncclFloat64: return "ncclFloat64";
        case ncclBfloat16: return "ncclBfloat16";
        case ncclFloat8e4m3: return "ncclFloat8e4m3";
        case ncclFloat8e5m2: return "ncclFloat8e5m2";
        default: return "an unknown ncclDataType_t";
    }
}

const char* op_name(ncclRedOp_t op) {
    switch (op) {
        case ncclSum: return "ncclSum";
        case ncclProd: return "ncclProd";
        case ncclMax: return "ncclMax";
        case ncclMin: return "ncclMin";
        case ncclAvg: return "ncclAvg";
        default: return "an unknown ncclRedOp_t";
    }
}

void combine(void* acc, const void* x, std::size_t count, ncclDataType_t type, ncclRedOp_t op) {
    switch (type) {
        case ncclInt8: return combine_as<std::int8_t>(acc, x, count, op);
        case ncclUint8: return combine_as<std::uint8_t>(acc, x, count, op);
        case ncclInt32: return combine_as<std::int32_t>(acc, x, count, op);
        case ncclUint32: return combine_as<std::uint32_t>(acc, x, count, op);
        case ncclInt64: return combine_as<std::int64_t>(acc, x, count, op);
        case ncclUint64: return combine_as<std::uint64_t>(acc, x, count, op);
        case ncclFloat32: return combine_as<float>(acc, x, count, op);
        case ncclFloat64: return combine_as<double>(acc, x, count, op);
        case ncclFloat16: return combine_narrow<__half>(acc, x, count, op);
        case ncclBfloat16: return combine_narrow<__nv_bfloat16>(acc, x, count, op);
        default: return;
    }
}

void divide(void* acc, std::size_t count, ncclDataType_t type, int divisor) {
    switch (type) {
        case ncclInt8: return divide_as<std::int8_t>(acc, count, divisor);
        case ncclUint8: return divide_as<std::uint8_t>(acc, count, divisor);
        case ncclInt32: return divide_as<std::int32_t>(acc, count, divisor);
        case ncclUint32: return divide_as<std::uint32_t>(acc, count, divisor);
        case ncclInt64: return divide_as<std::int64_t>(acc, count, divisor);
        case ncclUint64: return divide_as<std::uint64_t>(acc, count, divisor);
        case ncclFloat32: return divide_as<float>(acc, count, divisor);
        case ncclFloat64: return divide_as<double>(acc, count, divisor);
        case ncclFloat16: return divide_narrow<__half>(acc, count, divisor);
        case ncclBfloat16: return divide_narrow<__nv_bfloat16>(acc, count, divisor);
        default: return;
    }
}

}  // namespace cuemu::nccl_detail
