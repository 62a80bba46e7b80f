// removed_in_cuda_13<...>: always false, but only known once a template that
// tests it is instantiated, so a stand-in's static_assert fires where a
// program uses a name CUDA 13's Thrust removed and not where the stand-in is
// declared (removed_in_cuda_13.h, type_traits/void_t.h,
// type_traits/remove_cvref.h).
#ifndef CUEMU_THRUST_REMOVED_MARKER_H
#define CUEMU_THRUST_REMOVED_MARKER_H

#include <thrust/detail/config.h>

THRUST_NAMESPACE_BEGIN
namespace system::cuemu::detail {
template <typename...>
constexpr bool removed_in_cuda_13 = false;
}  // namespace system::cuemu::detail
THRUST_NAMESPACE_END

#endif
