// devices.cpp - how many devices the emulator has (CUEMU_DEVICES), which one
// each host thread is using (cudaSetDevice, cudaGetDevice), and which peer
// accesses are enabled (cudaDeviceEnablePeerAccess; peer_access.cpp has the
// calls). Everything else that is per device keeps its own table indexed by
// the device number: memory (address_space.cpp, memory.cpp, the
// protection in memory_protection.cpp), queues, streams and events
// (queue.cpp), sticky errors (errors.cpp).
//
// As in CUDA, the current device belongs to the host thread: a new thread
// starts on device 0, and cudaSetDevice in one thread changes nothing in another.
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuemu/runtime.h"
#include "internal.h"

namespace cuemu::detail {
namespace {

thread_local int current = 0;

// peer[a][b]: device a may access device b's memory (enabled while a was current).
std::atomic<bool> peer[max_devices][max_devices];

int read_device_count() {
    const char* text = std::getenv("CUEMU_DEVICES");
    if (!text || !*text) return 1;
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || n < 1 || n > max_devices) {
        std::fprintf(stderr,
                     "cuemu: CUEMU_DEVICES must be a whole number from 1 to %d (how many devices "
                     "the emulator has), got '%s'\n",
                     max_devices, text);
        std::exit(2);
    }
    return static_cast<int>(n);
}

}  // namespace

int device_count() {
    static const int count = read_device_count();
    return count;
}

bool is_valid_device(int device) { return device >= 0 && device < device_count(); }

int current_device() { return current; }

void set_current_device(int device) { current = device; }

bool peer_access_enabled(int from, int to) {
    return from == to || (is_valid_device(from) && is_valid_device(to) && peer[from][to].load());
}

bool set_peer_access(int from, int to, bool enabled) {
    return peer[from][to].exchange(enabled) != enabled;
}

}  // namespace cuemu::detail
