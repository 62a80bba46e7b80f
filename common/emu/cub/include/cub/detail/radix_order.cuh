// radix_order.cuh - the unsigned bit pattern by which CUB's radix sorts order
// a key: unsigned integers as they are, signed integers with the sign bit
// flipped, floating point with the sign bit flipped for positive numbers and
// every bit flipped for negative ones (so -0.0 sorts before +0.0, and NaNs
// with the sign bit set before everything). begin_bit and end_bit select bits
// of this pattern; a descending sort orders by the pattern's complement.
#pragma once

#include <climits>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cub::emu {

template <typename Key>
struct radix_order {
    static_assert(std::is_arithmetic<Key>::value,
                  "the emulator's CUB radix sorts take integer and floating-point keys");
    using bits_type = std::conditional_t<
        sizeof(Key) == 1, std::uint8_t,
        std::conditional_t<sizeof(Key) == 2, std::uint16_t,
                           std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t>>>;
    static constexpr int BITS = static_cast<int>(sizeof(Key) * CHAR_BIT);
    static constexpr bits_type SIGN = static_cast<bits_type>(bits_type(1) << (BITS - 1));

    static bits_type ordered(const Key& key) {
        bits_type bits;
        std::memcpy(&bits, &key, sizeof bits);
        if constexpr (std::is_floating_point<Key>::value)
            return (bits & SIGN) ? static_cast<bits_type>(~bits) : static_cast<bits_type>(bits | SIGN);
        else if constexpr (std::is_signed<Key>::value)
            return static_cast<bits_type>(bits ^ SIGN);
        else
            return bits;
    }
    // The bits [begin_bit, end_bit) of the ordered pattern, complemented for a
    // descending sort: comparing these as numbers gives the sort's order.
    static std::uint64_t digit(const Key& key, int begin_bit, int end_bit, bool descending) {
        const int width = end_bit - begin_bit;
        if (width <= 0) return 0;
        const std::uint64_t mask = width >= 64 ? ~std::uint64_t(0) : ((std::uint64_t(1) << width) - 1);
        const std::uint64_t d = (static_cast<std::uint64_t>(ordered(key)) >> begin_bit) & mask;
        return descending ? (~d & mask) : d;
    }
};

}  // namespace cub::emu
