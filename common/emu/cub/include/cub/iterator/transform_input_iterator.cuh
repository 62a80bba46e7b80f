// transform_input_iterator.cuh - cub::TransformInputIterator: reading element
// i gives conversion_op(input_itr[i]). A device-wide algorithm checks the
// iterator it wraps (a raw pointer must be device memory). (CUDA 13's CUB
// removed it for thrust::transform_iterator; it builds here and nvcc 13
// refuses it.)
#pragma once

#include <cstddef>
#include <iterator>

#include <cub/detail/device_work.cuh>

namespace cub {

template <typename ValueType, typename ConversionOp, typename InputIteratorT, typename OffsetT = std::ptrdiff_t>
class TransformInputIterator {
public:
    using self_type = TransformInputIterator;
    using difference_type = OffsetT;
    using value_type = ValueType;
    using pointer = ValueType*;
    using reference = ValueType;
    using iterator_category = std::random_access_iterator_tag;

    __host__ __device__ TransformInputIterator(InputIteratorT input_itr, ConversionOp conversion_op)
        : conversion_op_(conversion_op), input_itr_(input_itr) {}

    __host__ __device__ reference operator*() const { return conversion_op_(*input_itr_); }
    template <typename Distance>
    __host__ __device__ reference operator[](Distance n) const { return conversion_op_(input_itr_[n]); }
    __host__ __device__ self_type& operator++() { ++input_itr_; return *this; }
    __host__ __device__ self_type operator++(int) { self_type old = *this; ++input_itr_; return old; }
    template <typename Distance>
    __host__ __device__ self_type operator+(Distance n) const { return self_type(input_itr_ + n, conversion_op_); }
    template <typename Distance>
    __host__ __device__ self_type& operator+=(Distance n) { input_itr_ += n; return *this; }
    template <typename Distance>
    __host__ __device__ self_type operator-(Distance n) const { return self_type(input_itr_ - n, conversion_op_); }
    __host__ __device__ difference_type operator-(const self_type& other) const { return input_itr_ - other.input_itr_; }
    __host__ __device__ bool operator==(const self_type& other) const { return input_itr_ == other.input_itr_; }
    __host__ __device__ bool operator!=(const self_type& other) const { return input_itr_ != other.input_itr_; }

    // For the device-wide algorithms' operand screening (detail/device_work.cuh).
    bool cub_emu_check(const emu::call_site& at, const char* family, const char* name, long count) const {
        return emu::operand(at, family, name, input_itr_, count);
    }

private:
    ConversionOp conversion_op_;
    InputIteratorT input_itr_;
};

}  // namespace cub
