// internal.h - what the emulator's source files share and programs never see:
// the error state, the allocation registry, the worker count, the launch
// steps and the device queue.
#ifndef CUEMU_INTERNAL_H
#define CUEMU_INTERNAL_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cuemu/launch.h"
#include "cuemu/types.h"

namespace cuemu::detail {

// ---- several devices (devices.cpp) -------------------------------------------------
// CUEMU_DEVICES=N emulated devices (1 by default, at most max_devices); a bad
// setting stops the program with one line (exit 2).
constexpr int max_devices = 16;
int device_count();
bool is_valid_device(int device);
// The calling host thread's current device (cudaSetDevice; 0 in a new thread).
int current_device();
void set_current_device(int device);
// Whether a kernel on device `from` may use device `to`'s memory: the same
// device, or peer access from -> to enabled. set_peer_access: false when it
// was already so.
bool peer_access_enabled(int from, int to);
bool set_peer_access(int from, int to, bool enabled);

// ---- errors (errors.cpp) ---------------------------------------------------------
// Records e as this host thread's last error when it is not cudaSuccess and
// returns it, so API functions can end with `return record(code);`.
cudaError_t record(cudaError_t e);
// A sticky error (an illegal address, a failed launch) corrupts the CUDA
// context: every later call fails with it, each setting the host thread's
// last error again (cudaGetLastError resets only that slot).
// Sticky errors belong to one device (its context): device is the one whose
// work faulted.
void make_sticky(cudaError_t e, int device);
// cudaSuccess, or the current device's sticky error (recorded as the last
// error). Every API call that talks to the "device" starts with this.
cudaError_t context_status();
// context_status without making the context current on this host thread
// (cudaInitDevice: an H200 still answered cudaCtxResetPersistingL2Cache with
// cudaErrorDeviceUninitialized after it).
cudaError_t device_status();
// Whether this host thread has made the current device's context current
// (a call that checks context_status has).
bool context_is_current();

// ---- CUEMU_CHECK (check_setting.cpp) ---------------------------------------------
// Whether CUEMU_CHECK names this check ("uninit", "race"); the setting is a
// comma-separated list, or "none". A bad setting stops the program (exit 2).
bool check_requested(const char* name);
// CUEMU_CHECK=none: not even the default race check (race_detector.cpp).
bool checks_turned_off();

// ---- fork (fork_safety.cpp) --------------------------------------------------------
// Registers the fork handler (once); the device queue and the worker pool call
// it when they start, since only then is there anything a child must not wait for.
void install_fork_guard_once();
// True in a child made with fork() after the emulator started: its threads
// are gone, so exit handlers must not wait for them.
bool in_forked_child();
// The error every CUDA call returns in such a child (with one line saying why).
cudaError_t forked_child_error();

// ---- memory (memory.cpp, or the file named) ---------------------------------------
struct allocation_info {
    const char* begin = nullptr;  // what the program got back
    std::size_t size = 0;
    const char* file = "";
    int line = 0;
    const char* how = "";  // "cudaMalloc", "cudaMallocManaged"
    bool freed = false;
    const char* freed_by = "";  // "cudaFree" or "cudaDeviceReset"
    const char* free_file = "";  // where cudaFree was called, once freed
    int free_line = 0;
    int device = 0;  // the device current when it was allocated
    // Graph memory outside its lifetime in stream order: before its alloc
    // node ran, or after its free ran (freed_by, free_file and free_line say
    // which free, if any) until its alloc node runs again. Still live for the
    // host's checks; closed to every access, the device's included.
    bool graph_unmapped = false;
};
// Memory only the device may touch: cudaMalloc's, and the stream-ordered
// allocator's (cudaMallocAsync, cudaMallocFromPoolAsync), which differ only
// in when they are allocated and freed. Not managed memory.
bool is_device_only_kind(const char* how);
// cudaMallocAsync's and cudaMallocFromPoolAsync's (memory_pools.cpp).
bool is_stream_ordered_kind(const char* how);
void forget_stream_ordered_allocation(const void* p);
// At a synchronization: the pools give back reserved memory above their release thresholds.
void release_pool_memory();
// For the stream-ordered allocator (memory_pools.cpp): allocates as cudaMalloc
// does, recorded as `how`; releases the live allocation that starts at p
// (false when there is none) without waiting for the device; the size of the
// live allocation starting at p, 0 when there is none.
cudaError_t allocate_device_memory(void** out, std::size_t size, const char* how, const char* file,
                                   int line);
// Memory of a graph's allocation node (graph_memory.cpp): cudaGraphAddMemAllocNode's,
// and cudaMallocAsync's in a stream capture. A graph owns it, not the device:
// cudaDeviceReset leaves it.
bool is_graph_memory_kind(const char* how);
// graph_memory.cpp: cudaFree (queued false: at once) and cudaFreeAsync (queued
// on stream) of graph memory. False when p is no graph allocation's address;
// else *result is the call's result.
bool free_graph_allocation(void* p, cudaStream_t stream, bool queued, const char* call, const char* file,
                           int line, cudaError_t* result);
// cudaMallocAsync and cudaFreeAsync on a capturing stream: an allocation node
// (memory of the pool's properties) and a free node of the capture's graph.
cudaError_t capture_graph_malloc(cudaStream_t stream, const struct cudaMemPoolProps& props, std::size_t size,
                                 void** out, const char* file, int line);
cudaError_t capture_graph_free(cudaStream_t stream, void* p, const char* file, int line);
bool release_device_memory(void* p, const char* freed_by, const char* file, int line);
// graph_memory.cpp, as the stream reaches an alloc node (mapped) or a free of
// graph memory at p (memory_protection.cpp): its pages open as any buffer's,
// or closed so that an access is reported as a use after `freed_by` (at file
// and line when given; none: not allocated yet). Its address stays.
void set_graph_memory_mapped(const void* p, bool mapped, const char* freed_by, const char* file, int line);
std::size_t live_allocation_size(const void* p);
// The allocation whose buffer or guard page holds addr, live or freed.
bool find_allocation(const void* addr, allocation_info* out);
// The same for a signal handler: waits at most half a second for the registry
// (the interrupted code may hold its lock), then answers false.
bool find_allocation_in_signal(const void* addr, allocation_info* out);
// True when [p, p + n) lies inside one live device (or managed) allocation.
bool is_device_range(const void* p, std::size_t n);
// True when p points into a live device allocation at all.
bool is_device_pointer(const void* p);
// The device whose live allocation holds p; -1 for anything else (host
// memory, __device__ variables, freed buffers).
int device_of_pointer(const void* p);
// memory_protection.cpp: device memory is open to the host only while the
// emulated device works on it (a kernel, an async copy): the device queue
// calls open before it runs work and close when it goes idle, so a host
// dereference of a device pointer faults and can be reported. They count: a
// copy between two devices opens the other device's memory for its length
// too, and memory is closed when every open has had its close.
void device_memory_open(int device);
void device_memory_close(int device);
// From the fault handler: addr lies in a device buffer whose device is open
// but which was not touched yet in this open period; opens it (true: retry
// the access). False for anything else, which is reported as before.
bool open_device_memory_on_touch(const void* addr);
// Around each kernel, on the device thread (run_launch). Under
// CUEMU_CHECK=uninit the kernel sees only the pages something wrote; the end
// collects what the kernel wrote and reports its first read of memory nothing
// wrote. Without the check both do nothing.
void device_memory_kernel_begin();
void device_memory_kernel_end();
// Device work other than a kernel or a copy (a cuBLAS call) wrote [p, p + n):
// for CUEMU_CHECK=uninit's bookkeeping. Nothing without the check.
void note_device_write(const void* p, std::size_t n);
// Device work that does not say what it wrote (a Thrust algorithm) has just
// run, on the device thread: under CUEMU_CHECK=uninit, every word of device
// memory that nothing had written and that no longer holds the fill is taken
// as written, as after a kernel. Nothing without the check.
void note_unlisted_device_writes();

// kernel_pointers.cpp: a launch argument that pointed into host memory was
// replaced by an address in a reserved, inaccessible window
// (screen_pointer_argument, launch.h).
struct host_alias_info {
    const void* host_pointer = nullptr;  // what the program passed
    int argument = 0;                    // 1 for the kernel's first parameter
    // A reference parameter: host_pointer is the address of the caller's
    // object, which the reference names (screen_reference_argument).
    bool reference = false;
    launch_site site{"", "", 0};
    long long offset = 0;  // of the faulting address from the passed pointer
    // A pointer into another device's memory, passed to a kernel launched on
    // launch_device without peer access to memory_device (-1: a host pointer).
    int memory_device = -1;
    int launch_device = -1;
    // A launch from a kernel passed the launching thread's own memory,
    // which a child grid cannot reach: "shared memory" or "local memory"
    // (dynamic_parallelism.cpp); nullptr otherwise.
    const char* parent_memory = nullptr;
    // The window was given to another launch while this one still held it
    // (more launches with screened arguments in flight than windows): the
    // fields above may be that launch's.
    bool shared = false;
};
bool find_host_alias(const void* addr, host_alias_info* out);
// The windows this host thread's screened arguments got since its last
// launch was queued: the launch being queued keeps the result until it is
// done, so no later launch reuses them meanwhile (null when there are none).
std::shared_ptr<void> hold_pointer_aliases();

// The copy the device thread is doing now (for a fault report): false when
// it is doing something else. Safe in a signal handler on the device thread.
struct copy_in_progress {
    const char* call = "";  // "cudaMemcpy", "cudaMemcpyAsync"
    const char* file = "";
    int line = 0;
    const char* kind_name = "";
    void* dst = nullptr;
    const void* src = nullptr;
    std::size_t count = 0;
};
bool current_device_copy(copy_in_progress* out);

// CUEMU_CHECK=uninit (memory_protection.cpp): a kernel that reads device
// memory nothing wrote. Called by the fault handler for a fault inside a
// kernel; true when the fault was the check's own (the page is opened and
// the access can be retried).
bool handle_uninit_fault(const void* addr, int is_write);

// Every live allocation becomes freed, as cudaFree would leave it (so a later
// use is reported as a use after free). For cudaDeviceReset.
void free_all_allocations(int device);
// symbols.cpp: a __constant__ or __device__ variable used through the symbol
// API counts as device memory from then on (cudaMemcpy to its address is
// accepted).
void register_symbol(const void* begin, std::size_t size);
// True when [p, p + n) lies inside one live cudaMallocManaged allocation.
bool is_managed_range(const void* p, std::size_t n);

// ---- the device's address range and its memory (address_space.cpp) -------------------
// Maps `length` bytes (readable and writable) at addresses inside the
// device's own range; nullptr when no room is left. Each device has its own
// slice of the range, so an address tells its device.
char* carve_device_range(std::size_t length, int device);
// Gives the memory back; the addresses stay reserved (inaccessible) for reuse.
void release_device_range(char* begin, std::size_t length);
// True for any address in the device's range or the fences around it: no host
// object can be there.
bool in_device_address_range(const void* p);
// The same range as two addresses, [*low, *high) (both 0 before the first allocation).
void device_address_bounds(std::uintptr_t* low, std::uintptr_t* high);
// Where the devices' address range starts (0 before the first allocation):
// the profiler numbers memory from it, so its figures do not depend on where
// the system put the range.
std::uintptr_t device_heap_base();
// How much memory each emulated device has (fixed for the process: the
// emulator's share of the machine, split evenly), and how much the machine
// could back now.
std::size_t device_memory_capacity();
std::size_t machine_memory_available();
// Counts an allocation of `size` bytes against the device's memory, or
// refuses it with cudaErrorMemoryAllocation (and a line saying why): more than
// the device has left, or (from 16 MiB) more than the machine could back now.
// The fill pattern touches every page at once, so an allocation the machine
// cannot back would get the process killed instead of refused.
cudaError_t take_device_memory(std::size_t size, int device, const char* how, const char* file,
                               int line);
void give_back_device_memory(std::size_t size, int device);
// The device's memory allocated and not yet freed.
std::size_t device_memory_in_use(int device);

// ---- the fault handler (fault_handler.cpp) ------------------------------------------
// Installs the SIGSEGV/SIGBUS/SIGFPE/SIGILL handler (once); memory.cpp calls
// it at the first allocation, so host code that touches device memory before
// any launch is reported too.
void install_fault_handler_once();
// Whether SIGSEGV still reaches the emulator's handler (a program may replace it).
bool fault_handler_in_place();
// Installs the handler again where the program replaced it (CUEMU_CHECK=uninit needs it).
void put_fault_handler_back();
// Where the calling OS thread is inside a kernel: false outside kernels.
struct kernel_position {
    launch_site site{"", "", 0};
    uint3 block_idx{0, 0, 0}, thread_idx{0, 0, 0};
    dim3 grid_dim, block_dim;
};
bool current_kernel_position(kernel_position* out);

// ---- scheduler (scheduler.cpp, block_loop.cpp) ----------------------------------
int worker_count();  // worker_pool.cpp
std::string emulator_device_name();  // device.cpp
// What the launch itself refuses (a bad configuration), checked at the launch
// (launch_checks.cpp).
cudaError_t check_launch(const launch_site& site, const launch_config& config);
// Shared memory a block may have (static and dynamic together): 48 KiB, or up
// to compute capability 7.5's 64 KiB where its kernel opts in.
constexpr std::size_t shared_per_block = 48 * 1024;
constexpr std::size_t shared_per_block_optin = 64 * 1024;
// What a launch of `kernel` may ask for (kernel_facts.cpp), read once a launch.
struct launch_limits {
    int max_threads;            // its __launch_bounds__, or 1024
    std::size_t static_bytes;   // the __shared__ bytes its body declares, where
                                // cuemu-rewrite could count them; 0 where it could not
    std::size_t dynamic_limit;  // what the static bytes leave of 48 KiB, or the opt-in
    bool opted_in;              // cudaFuncSetAttribute set the dynamic limit
};
launch_limits launch_limits_of(const void* kernel);
// Runs a checked launch to the end, with the grids its threads launch (a
// host launch is of depth 0); the fault's (sticky) error or cudaSuccess.
cudaError_t run_launch(const launch_site& site, const launch_config& config,
                       void (*run_thread)(void*), void* ctx, int depth = 0);
// What the device refuses in a launch's configuration (launch_checks.cpp):
// cudaSuccess, or the error with why in words.
cudaError_t launch_configuration_error(const launch_config& config, std::string& why);
// True on a worker thread while it runs a CUDA thread.
bool inside_kernel();
// True on the engine thread while it runs a library's algorithm as device
// work (Thrust's, thrust/device_work.cpp): cuemu::in_device_branch() then
// takes the device branches of __host__ __device__ functors (scheduler.cpp).
extern __thread bool tls_library_device_work;
// Stops the launch from inside a kernel with a report (see
// kernel_cannot_go_on in builtins.h) and the given sticky error
// (stuck_block_report.cpp).
[[noreturn]] void stop_kernel_with(cudaError_t error, const char* headline, const char* what,
                                   const char* hint, const char* on_a_gpu, const char* file,
                                   int line);
// A barrier or warp function reached while a split version of a kernel runs
// (split_blocks.cpp, cuemu/split_block.h): refused, naming the call.
[[noreturn]] void split_block_cannot_wait(const char* file, int line);

// ---- the device's properties beyond device.cpp's (attributes.cpp) ---------------
void fill_more_properties(cudaDeviceProp& prop);

// ---- host registration (host_memory.cpp) --------------------------------------------
// True when p lies inside memory registered with cudaHostRegister: a kernel may use it.
bool is_registered_host_memory(const void* p);
// cudaHostAlloc's flags, for cudaHostGetFlags (cudaHostAllocDefault forgets them).
void note_host_alloc_flags(const void* p, unsigned int flags);
// True when p lies inside cudaMallocHost/cudaHostAlloc memory (memory.cpp);
// its start in *base when base is not null.
bool is_pinned_host_memory(const void* p, const void** base);

// ---- cooperative launches (cooperative.cpp) ---------------------------------------------
// Around a launch on the device thread, and after each block a worker ran.
void cooperative_launch_begin(const launch_config& config, std::uint64_t total_blocks);
void cooperative_launch_end();
void cooperative_block_finished(bool failed);

// ---- the device queue (queue.cpp) -------------------------------------------------
// One piece of device work. It runs on one of the device's threads (an
// engine) and returns a sticky error (a fault in a kernel) or cudaSuccess; seq
// is its place in the queue.
using device_work = std::function<cudaError_t(std::uint64_t seq)>;
// Which of the device's engines does a piece of work. Like a GPU's copy
// engines, the two copy engines work while the compute engine runs a kernel
// (see queue.cpp). Bookkeeping (an event record, a prefetch) takes no time:
// it is done, under the queue's lock, as soon as the work before it is.
enum class engine_kind { compute, copy_to_device, copy_to_host, host_function, bookkeeping };
// What a piece of work is, for its engine and for the trace (trace.cpp):
// args are JSON object members without braces; filled only when tracing.
struct work_label {
    engine_kind engine = engine_kind::compute;
    const char* category = "kernel";
    std::string name;
    std::string args;
};
// Queues work in stream order (behind the stream's earlier work, and as the
// legacy default stream orders it against other streams) on the queue of the
// stream's device, and returns a ticket for wait_for (the work's place in
// that queue, and the device). The stream must be valid (0, cudaStreamLegacy
// and cudaStreamPerThread name the current device's default stream). The
// seq that work receives is its place in its device's queue.
std::uint64_t enqueue(cudaStream_t stream, device_work work, work_label label = {});
// Waits until the work of the ticket (and so everything it comes after) is
// done. cudaSuccess, or the sticky error of a fault in work up to it, made
// sticky now: this is where the host learns of a fault, as at a synchronizing
// call on a GPU. `what` names the waiting call (trace, messages).
cudaError_t wait_for(std::uint64_t ticket, const char* what = "a CUDA call that waits");
// wait_for everything queued so far (every stream) on the current device.
cudaError_t synchronize_device(const char* what = "cudaDeviceSynchronize");
// Waits for everything queued so far on `device`, without taking a fault
// there as the caller's error (that device's own calls report it): before a
// copy that reads or writes another device's memory.
void drain_device(int device, const char* what);
// The device a stream belongs to (the current device for 0, cudaStreamLegacy
// and cudaStreamPerThread); -1 for a stream never created or destroyed.
int stream_device(cudaStream_t stream);
// The stream's device and its number there (0 for the default stream, then
// 1, 2, ... in creation order, never reused); false for no live stream.
bool stream_identity(cudaStream_t stream, int* device, int* number);
// The device whose engine the calling thread is; -1 on any other thread.
int engine_device();
// A copy's engine (and, when tracing, its name and bytes) (copy_engines.cpp).
work_label copy_label(const char* call, cudaMemcpyKind kind, const void* dst, const void* src,
                      std::size_t count);
// True when cudaMemcpyAsync must return only once the copy is done: a
// pageable host buffer, or host to host (copy_engines.cpp).
bool copy_waits_for_host(cudaMemcpyKind kind, const void* dst, const void* src, std::size_t count);
// cudaMemcpy2D(Async)'s rows as one queued copy (memory.cpp); the caller has
// checked the pitches and rectangles.
cudaError_t copy_rows(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                      size_t height, cudaMemcpyKind kind, cudaStream_t stream, const char* call,
                      const char* file, int line);
// cudaMemset2D(Async)'s rows as one queued fill (memory.cpp); the caller has
// checked the pitch and the rectangle.
cudaError_t fill_rows(void* dev_ptr, size_t pitch, int value, size_t width, size_t height,
                      cudaStream_t stream, const char* call, const char* file, int line);
// False for a stream that was never created or was destroyed.
bool is_valid_stream(cudaStream_t stream);
// Launches must go to a stream of the current device (a copy may use any).
bool is_stream_of_current_device(cudaStream_t stream);
// True on the device thread (the one that runs queued work). Safe in a signal handler.
bool on_device_thread();
// The program has read its last error (cudaGetLastError, cudaPeekAtLastError):
// a refused launch needs no note from the emulator.
void last_error_was_read();

}  // namespace cuemu::detail

#endif
