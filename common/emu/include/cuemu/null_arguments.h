// null_arguments.h - 0 and NULL passed for a kernel's pointer parameter.
//
// nvcc compiles `kernel<<<grid, block>>>(d_out, NULL, n)` as a call: the null
// pointer constant (0, NULL) becomes the pointer parameter's nullptr. The
// emulator's launch passes the arguments through a generic lambda
// (cuemu-rewrite's launch body), where the literal has already become an int
// (or a long), and C++ turns no int into a pointer. So where the plain call
// does not compile and one with every integer argument marked does, the launch
// (launch.h) passes marks instead: a mark converts to the integer it holds for
// an arithmetic parameter and to nullptr for a pointer parameter.
//
// A mark holding anything but 0 for a pointer parameter would be an integer
// nvcc refuses to pass there; the emulator stops with one line saying so.
#pragma once

#include <type_traits>
#include <utility>

namespace cuemu {

[[noreturn]] void integer_passed_as_pointer(long long value);

struct integer_or_null {
    long long value;
    template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    constexpr operator T() const {
        return static_cast<T>(value);
    }
    template <class T>
    operator T*() const {
        if (value != 0) integer_passed_as_pointer(value);
        return nullptr;
    }
};

// An integer argument as a mark; any other argument as it is.
template <class A>
decltype(auto) mark_integer(A&& argument) {
    using plain = std::decay_t<A>;
    if constexpr (std::is_integral_v<plain> && !std::is_same_v<plain, bool>)
        return integer_or_null{static_cast<long long>(argument)};
    else
        return std::forward<A>(argument);
}

template <class A>
using marked_t = std::decay_t<decltype(mark_integer(std::declval<A>()))>;

// True when `body` cannot take the arguments as they are but takes them marked:
// then, and only then, the launch marks them (a launch that compiles today is
// left exactly as it is).
template <class Body, class... Args>
inline constexpr bool needs_integer_marks =
    !std::is_invocable_v<Body&, std::decay_t<Args>&...> &&
    std::is_invocable_v<Body&, marked_t<Args>&...>;

}  // namespace cuemu
