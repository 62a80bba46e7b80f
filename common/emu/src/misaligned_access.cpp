// misaligned_access.cpp - a load or store through a pointer that is not
// aligned for its type (a float4 read from an address that is not a multiple
// of 16). x86 CPUs do such accesses without complaint; a GPU stops the kernel
// with cudaErrorMisalignedAddress. Programs built for the emulator are
// compiled with GCC's alignment check (-fsanitize=alignment, see
// CMakeLists.txt), which calls __ubsan_handle_type_mismatch_v1 before a
// misaligned access. The emulator defines that handler itself, so no
// sanitizer runtime is needed: inside a kernel the launch stops with
// cudaErrorMisalignedAddress and a report naming the line (the check knows
// it exactly, at every optimisation level); host code goes on, as it would
// on the CPU it runs on.
//
// In the sanitizer build (TUTORIAL_SANITIZE) the programs use UBSan's own
// runtime, which reports a misaligned access and ends the program; this file
// then defines nothing.
#include <cstdint>
#include <cstdio>

#include "cuemu/types.h"
#include "internal.h"

#ifndef CUEMU_SANITIZER_RUNTIME

namespace {

// The layout GCC and Clang pass to the handler (their shared UBSan ABI).
struct source_location {
    const char* file;
    std::uint32_t line;
    std::uint32_t column;
};
struct type_descriptor {
    std::uint16_t kind;
    std::uint16_t info;
    char name[1];
};
struct type_mismatch_data {
    source_location location;
    const type_descriptor* type;
    unsigned char log_alignment;
    unsigned char type_check_kind;
};

const char* access_kind(unsigned char kind) {
    switch (kind) {
        case 0: return "a read of";
        case 1: return "a write of";
        default: return "an access to";  // a reference bound (a struct copied), a member used
    }
}

}  // namespace

extern "C" void __ubsan_handle_type_mismatch_v1(type_mismatch_data* data, std::uintptr_t pointer) {
    using namespace cuemu::detail;
    if (!inside_kernel() || pointer == 0) return;  // host code: the CPU copes
    const std::uintptr_t alignment = std::uintptr_t(1) << data->log_alignment;
    // cudaMalloc on a GPU returns addresses aligned to at least 256 bytes; the
    // emulator places a buffer so that it ends at its guard page, which may
    // align its start less (memory.cpp). What a GPU would see is the offset
    // from the allocation's start: a __half2 at an even element of a __half
    // array is aligned there, whatever the array's length.
    allocation_info owner;
    const char* address = reinterpret_cast<const char*>(pointer);
    if (find_allocation(address, &owner) && !owner.freed && address >= owner.begin &&
        address < owner.begin + owner.size) {
        if (static_cast<std::uintptr_t>(address - owner.begin) % alignment == 0) return;
    }
    char what[512];
    // The type's name comes quoted ('const struct float4').
    std::snprintf(what, sizeof what,
                  "  %s %s at address %p: it must be %zu-byte aligned, and this address is %zu "
                  "bytes\n  past a multiple of %zu",
                  access_kind(data->type_check_kind), data->type->name,
                  reinterpret_cast<void*>(pointer), static_cast<std::size_t>(alignment),
                  static_cast<std::size_t>(pointer % alignment), static_cast<std::size_t>(alignment));
    stop_kernel_with(cudaErrorMisalignedAddress, "misaligned memory access", what,
                     "a vector type (float2, float4, int4 ...) or a cast pointer must point to an "
                     "address\n        that is a multiple of its size: index whole vectors, not "
                     "single elements",
                     "a misaligned access stops the kernel with cudaErrorMisalignedAddress",
                     data->location.file, static_cast<int>(data->location.line));
}

#endif
