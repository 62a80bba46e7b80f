// device_identity.cpp - naming and choosing devices beyond a number: PCI bus
// id strings (cudaDeviceGetPCIBusId, cudaDeviceGetByPCIBusId), cudaInitDevice
// and cudaSetValidDevices.
//
// Emulated device N sits at PCI domain 0, bus 0, device N, function 0, as
// cudaGetDeviceProperties reports it (pciDomainID, pciBusID, pciDeviceID), so
// every device has a location of its own, as GPUs in one machine do.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuemu/runtime.h"
#include "cuemu/runtime_extra.h"
#include "internal.h"

using namespace cuemu::detail;

namespace {
// One hexadecimal field of a bus id, ending at `stop` (or at the end when
// stop is 0); advances text past the field and its delimiter.
bool hex_field(const char*& text, char stop, unsigned long* out) {
    char* end = nullptr;
    if (!*text || !std::strchr("0123456789abcdefABCDEF", *text)) return false;
    *out = std::strtoul(text, &end, 16);
    if (*end != stop) return false;
    text = stop ? end + 1 : end;
    return true;
}

// The forms CUDA documents: domain:bus:device.function, domain:bus:device,
// bus:device.function (all hexadecimal).
bool parse_bus_id(const char* text, unsigned long* domain, unsigned long* bus, unsigned long* device) {
    unsigned long function = 0;
    const char* p = text;
    if (hex_field(p, ':', domain) && hex_field(p, ':', bus)) {
        const char* rest = p;
        if (hex_field(p, '.', device) && hex_field(p, '\0', &function)) return function == 0;
        p = rest;
        return hex_field(p, '\0', device);
    }
    p = text;
    *domain = 0;
    return hex_field(p, ':', bus) && hex_field(p, '.', device) && hex_field(p, '\0', &function) &&
           function == 0;
}
}  // namespace

cudaError_t cudaDeviceGetPCIBusId(char* pci_bus_id, int len, int device) {
    if (!pci_bus_id || len <= 0) return record(cudaErrorInvalidValue);
    if (!is_valid_device(device)) return record(cudaErrorInvalidDevice);
    std::snprintf(pci_bus_id, static_cast<std::size_t>(len), "%04x:%02x:%02x.0", 0u, 0u,
                  static_cast<unsigned>(device));
    return cudaSuccess;
}

cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* pci_bus_id) {
    if (!device || !pci_bus_id) return record(cudaErrorInvalidValue);
    unsigned long domain = 0, bus = 0, number = 0;
    if (!parse_bus_id(pci_bus_id, &domain, &bus, &number)) return record(cudaErrorInvalidValue);
    if (domain != 0 || bus != 0 || number >= static_cast<unsigned long>(device_count()))
        return record(cudaErrorInvalidDevice);
    *device = static_cast<int>(number);
    return cudaSuccess;
}

// The runtime is always ready here; with cudaInitDeviceFlagsAreValid the
// flags are checked and kept as cudaSetDeviceFlags keeps them (one setting
// for every device of the emulator).
cudaError_t cudaInitDevice(int device, unsigned int device_flags, unsigned int flags) {
    if (!is_valid_device(device)) return record(cudaErrorInvalidDevice);
    if (flags & ~static_cast<unsigned int>(cudaInitDeviceFlagsAreValid)) return record(cudaErrorInvalidValue);
    if (flags & cudaInitDeviceFlagsAreValid) return cudaSetDeviceFlags(device_flags);
    return device_status();  // the context is made, not made current (as documented)
}

// Checked as documented; every emulated device works, so the first one of the
// list is the one CUDA would settle on, and this host thread starts on it.
cudaError_t cudaSetValidDevices(int* devices, int len) {
    if (len < 0 || (len > 0 && !devices) || len > device_count()) return record(cudaErrorInvalidValue);
    for (int i = 0; i < len; ++i)
        if (!is_valid_device(devices[i])) return record(cudaErrorInvalidDevice);
    if (len > 0) return cudaSetDevice(devices[0]);
    return cudaSuccess;
}
