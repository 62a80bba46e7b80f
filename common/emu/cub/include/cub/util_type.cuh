// util_type.cuh - CUB's small types: NullType, KeyValuePair (ArgMin/ArgMax
// results) and DoubleBuffer (the ping-pong pair DeviceRadixSort can use).
#pragma once

#include <cub/detail/emu_common.cuh>

namespace cub {

template <typename K, typename V>
struct KeyValuePair {
    using Key = K;
    using Value = V;
    Key key;
    Value value;
    __host__ __device__ KeyValuePair() {}
    __host__ __device__ KeyValuePair(const Key& k, const Value& v) : key(k), value(v) {}
    __host__ __device__ bool operator!=(const KeyValuePair& other) const {
        return key != other.key || value != other.value;
    }
};

// Two device buffers of the same size, one of them current.
template <typename T>
struct DoubleBuffer {
    T* d_buffers[2];
    int selector;
    __host__ __device__ DoubleBuffer() : d_buffers{nullptr, nullptr}, selector(0) {}
    __host__ __device__ DoubleBuffer(T* d_current, T* d_alternate)
        : d_buffers{d_current, d_alternate}, selector(0) {}
    __host__ __device__ T* Current() { return d_buffers[selector]; }
    __host__ __device__ T* Alternate() { return d_buffers[selector ^ 1]; }
};

}  // namespace cub
