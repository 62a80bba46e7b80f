// peer_access.cpp - the peer calls: whether one device may use another's
// memory (cudaDeviceCanAccessPeer, cudaDeviceEnablePeerAccess,
// cudaDeviceDisablePeerAccess) and copies between devices (cudaMemcpyPeer,
// cudaMemcpyPeerAsync).
//
// Every two distinct emulated devices can be peers. Access is one-way, as in
// CUDA: enabling it while device A is current lets A's kernels use B's
// memory, not the other way round. Copies between devices need no peer
// access (they work on a GPU without it too, staged through the host).
// Kernels that use another device's memory without access are caught at the
// launch (kernel_pointers.cpp, screen_pointer_argument) and reported
// (diagnostics.cpp).
#include <cstdio>

#include "cuemu/runtime.h"
#include "cuemu/runtime_extra.h"
#include "internal.h"

using namespace cuemu::detail;

namespace {

// A copy's side must be a live buffer of the device the call names: one line
// says what is wrong otherwise (the copy checks themselves follow in cudaMemcpy).
bool wrong_device(const void* p, int device, const char* role, const char* call, const char* file,
                  int line) {
    const int owner = device_of_pointer(p);
    if (owner < 0 || owner == device) return false;
    std::fprintf(stderr,
                 "cuemu: %s at %s:%d: the %s %p is memory of device %d, but the call names "
                 "device %d;\n  %s returns cudaErrorInvalidValue\n",
                 call, file, line, role, p, owner, device, call);
    return true;
}

cudaError_t check_peer_copy(void* dst, int dst_device, const void* src, int src_device,
                            const char* call, const char* file, int line) {
    if (!is_valid_device(dst_device) || !is_valid_device(src_device))
        return record(cudaErrorInvalidDevice);
    if (cudaError_t e = context_status()) return e;
    if (wrong_device(dst, dst_device, "destination", call, file, line) ||
        wrong_device(src, src_device, "source", call, file, line))
        return record(cudaErrorInvalidValue);
    return cudaSuccess;
}

}  // namespace

// Serialized with the pending and later work of the current device, the
// source device and the destination device, as CUDA documents. The emulator
// returns only when the copy is done (CUDA may return earlier): cudaMemcpy
// between devices does the same (memory.cpp).
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                           size_t count, const char* file, int line) {
    if (cudaError_t e = check_peer_copy(dst, dst_device, src, src_device, "cudaMemcpyPeer", file, line))
        return e;
    if (dst_device != current_device() && dst_device != src_device) drain_device(dst_device, "cudaMemcpyPeer");
    return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice, file, line);
}

// Ordered in `stream` only (of any device, as in CUDA): work of the source
// device that writes src must be waited for first (an event and
// cudaStreamWaitEvent), or the copy may read it half done, as on a GPU.
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                size_t count, cudaStream_t stream, const char* file, int line) {
    if (cudaError_t e = check_peer_copy(dst, dst_device, src, src_device, "cudaMemcpyPeerAsync",
                                        file, line))
        return e;
    return cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToDevice, stream, file, line);
}

// A device is not its own peer: the answer is 0 for the same device, 1 for
// two distinct ones.
cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer_device) {
    if (!can_access) return record(cudaErrorInvalidValue);
    if (!is_valid_device(device) || !is_valid_device(peer_device))
        return record(cudaErrorInvalidDevice);
    *can_access = device != peer_device ? 1 : 0;
    return cudaSuccess;
}

// Every link is the same memory here: the best rank, peer access and every
// atomic supported, arrays readable across it.
cudaError_t cudaDeviceGetP2PAttribute(int* value, cudaDeviceP2PAttr attribute, int src_device,
                                      int dst_device) {
    if (!value) return record(cudaErrorInvalidValue);
    if (!is_valid_device(src_device) || !is_valid_device(dst_device) || src_device == dst_device)
        return record(cudaErrorInvalidDevice);
    switch (attribute) {
        case cudaDevP2PAttrPerformanceRank: *value = 0; return cudaSuccess;
        case cudaDevP2PAttrAccessSupported:
        case cudaDevP2PAttrNativeAtomicSupported:
        case cudaDevP2PAttrCudaArrayAccessSupported: *value = 1; return cudaSuccess;
        case cudaDevP2PAttrOnlyPartialNativeAtomicSupported: *value = 0; return cudaSuccess;
    }
    return record(cudaErrorInvalidValue);
}

// From the current device to peer_device; one-way.
// As an H200 answers (CUDA 13.0): a peer that is no device first, then the
// flags; a device is not its own peer (cudaDeviceCanAccessPeer says 0), so
// access to itself is unsupported, and never enabled to be disabled.
cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned int flags) {
    if (cudaError_t e = context_status()) return e;
    const int device = current_device();
    if (!is_valid_device(peer_device)) return record(cudaErrorInvalidDevice);
    if (flags != cudaPeerAccessDefault) return record(cudaErrorInvalidValue);
    if (peer_device == device) return record(cudaErrorPeerAccessUnsupported);
    if (!set_peer_access(device, peer_device, true))
        return record(cudaErrorPeerAccessAlreadyEnabled);
    return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peer_device) {
    if (cudaError_t e = context_status()) return e;
    const int device = current_device();
    if (!is_valid_device(peer_device)) return record(cudaErrorInvalidDevice);
    if (peer_device == device || !set_peer_access(device, peer_device, false))
        return record(cudaErrorPeerAccessNotEnabled);
    return cudaSuccess;
}
