// counting_input_iterator.cuh - cub::CountingInputIterator: the sequence
// start, start+1, ... without memory. (CUDA 13's CUB removed it for
// thrust::counting_iterator; it builds here and nvcc 13 refuses it.)
#pragma once

#include <cstddef>
#include <iterator>

namespace cub {

template <typename ValueType, typename OffsetT = std::ptrdiff_t>
class CountingInputIterator {
public:
    using self_type = CountingInputIterator;
    using difference_type = OffsetT;
    using value_type = ValueType;
    using pointer = ValueType*;
    using reference = ValueType;
    using iterator_category = std::random_access_iterator_tag;

    __host__ __device__ CountingInputIterator(const ValueType& val) : val_(val) {}

    __host__ __device__ reference operator*() const { return val_; }
    template <typename Distance>
    __host__ __device__ reference operator[](Distance n) const { return static_cast<ValueType>(val_ + n); }
    __host__ __device__ self_type& operator++() { ++val_; return *this; }
    __host__ __device__ self_type operator++(int) { self_type old = *this; ++val_; return old; }
    template <typename Distance>
    __host__ __device__ self_type operator+(Distance n) const { return self_type(static_cast<ValueType>(val_ + n)); }
    template <typename Distance>
    __host__ __device__ self_type& operator+=(Distance n) { val_ = static_cast<ValueType>(val_ + n); return *this; }
    template <typename Distance>
    __host__ __device__ self_type operator-(Distance n) const { return self_type(static_cast<ValueType>(val_ - n)); }
    __host__ __device__ difference_type operator-(const self_type& other) const {
        return static_cast<difference_type>(val_ - other.val_);
    }
    __host__ __device__ bool operator==(const self_type& other) const { return val_ == other.val_; }
    __host__ __device__ bool operator!=(const self_type& other) const { return val_ != other.val_; }

private:
    ValueType val_;
};

}  // namespace cub
