// How an algorithm of the emulator's Thrust device system runs: Thrust's own
// sequential version (thrust::seq), as one piece of device work on the
// policy's stream (common/emu/thrust/device_work.cpp), while the host waits.
// Device memory is open while the device works; on the host it is closed, so
// the sequential code must not run there.
//
// CUEMU_THRUST_ON_DEVICE(name) gives this system an overload of thrust::name,
// which Thrust's dispatch prefers for its policies; each
// detail/<algorithm>.h lists the functions it takes over. Inside device work,
// or in a kernel, a nested call runs at once.
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <thrust/detail/seq.h>
#include <thrust/system/cuemu/detail/execution_policy.h>
#include <thrust/system/system_error.h>

#include <thrust/system/cuemu/detail/device_work.h>

THRUST_NAMESPACE_BEGIN
namespace system::cuemu::detail {

// What thrust::system_error says for a CUDA error: the runtime's words.
class runtime_error_category : public thrust::error_category {
public:
    const char* name() const override { return "cuda"; }
    std::string message(int error) const override {
        return cudaGetErrorString(static_cast<cudaError_t>(error));
    }
};

[[noreturn]] inline void throw_device_error(cudaError_t error, const char* algorithm) {
    static const runtime_error_category category;
    throw thrust::system_error(error, category, algorithm);
}

// Runs work() as device work and waits; a CUDA error (a sticky one from an
// earlier fault) or an exception work() threw comes back as an exception.
template <typename Work>
void run_as_device_work(cudaStream_t stream, const char* algorithm, Work& work) {
    std::exception_ptr thrown;
    const cudaError_t error = ::cuemu::thrust_glue::run_as_device_work(
        stream, algorithm, [](void* w) { (*static_cast<Work*>(w))(); }, &work, &thrown);
    if (error != cudaSuccess) throw_device_error(error, algorithm);
    if (thrown) std::rethrow_exception(thrown);
}

template <typename Body>
decltype(auto) run_on_device(cudaStream_t stream, const char* algorithm, Body&& body) {
    using result = decltype(body());
    if (::cuemu::thrust_glue::on_device_side()) return body();
    if constexpr (std::is_void_v<result>) {
        auto work = [&] { body(); };
        run_as_device_work(stream, algorithm, work);
    } else {
        std::optional<std::decay_t<result>> value;
        auto work = [&] { value.emplace(body()); };
        run_as_device_work(stream, algorithm, work);
        return std::decay_t<result>(std::move(*value));
    }
}

}  // namespace system::cuemu::detail
THRUST_NAMESPACE_END

// Defined in thrust::system::cuemu::detail, the policies' namespace, where
// Thrust's dispatch finds it by argument-dependent lookup.
#define CUEMU_THRUST_ON_DEVICE(name)                                                          \
    THRUST_NAMESPACE_BEGIN namespace system { namespace cuemu { namespace detail {            \
    template <typename Derived, typename... Args>                                             \
    auto name(execution_policy<Derived>& policy, Args&&... args)                              \
        -> decltype(thrust::name(thrust::seq, std::forward<Args>(args)...)) {                 \
        return run_on_device(stream_of(policy), "thrust::" #name, [&]() -> decltype(auto) {   \
            return thrust::name(thrust::seq, std::forward<Args>(args)...);                    \
        });                                                                                   \
    }                                                                                         \
    } } } THRUST_NAMESPACE_END
