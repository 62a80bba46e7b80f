// trace.cpp - CUEMU_TRACE=file.json: the timeline of the emulated device.
//
// The file is a Chrome trace-event JSON array (Perfetto at ui.perfetto.dev and
// chrome://tracing open it). One process, "cuemu", holds one row ("thread")
// per stream plus a host row:
//   - tid 0 is the host: each synchronizing call, as long as the host waited
//     in it (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize,
//     cudaMemcpy, a cudaMemcpyAsync on pageable memory, cudaFree, the end of the
//     program);
//   - tid N+1 is stream N ("stream 0 (default)", "stream 1", ...): each kernel,
//     copy, memset and host function is a complete event ("ph":"X") from the
//     moment an engine started it to the moment it finished, in microseconds
//     ("ts", "dur"); event records and event waits are instants ("ph":"i").
//     "args" say which engine did the work, the grid and block, the bytes.
// Events are written (and flushed) as the work finishes, each on its own line,
// so a program that dies on an error path still leaves every finished event in
// the file; the format lets a reader accept an array whose closing bracket is
// missing, and a normal exit (main returning, exit(1) from an error check)
// closes it. An unwritable path is one line on stderr, and the program runs on
// without a trace.
#include "trace.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace cuemu::detail {
namespace {

// A program that queues work in an endless loop must not fill the disk.
constexpr long max_events = 2000000;

struct trace_file {
    std::mutex mutex;
    std::FILE* file = nullptr;
    // Read on every launch and copy: a flag, not the mutex.
    std::atomic<bool> enabled{false};
    std::string path;
    long events = 0;
    bool dropped = false;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

trace_file& state() {
    static trace_file* instance = new trace_file;  // never destroyed: used at exit
    return *instance;
}

// One line of the array; the caller holds the mutex.
void write_line_locked(trace_file& t, const std::string& json) {
    if (!t.file) return;
    if (t.events >= max_events) {
        t.dropped = true;
        return;
    }
    std::fprintf(t.file, "%s%s", t.events == 0 ? "" : ",\n", json.c_str());
    std::fflush(t.file);
    ++t.events;
}

void write_line(const std::string& json) {
    trace_file& t = state();
    std::lock_guard<std::mutex> lock(t.mutex);
    write_line_locked(t, json);
}

std::string number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

int stream_tid(int stream_number) { return stream_number + 1; }

std::string metadata(const char* what, int tid, const std::string& args) {
    return "{\"name\":\"" + std::string(what) + "\",\"ph\":\"M\",\"pid\":1,\"tid\":" +
           std::to_string(tid) + ",\"args\":{" + args + "}}";
}

}  // namespace

std::string json_quoted(const std::string& text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

void trace_start() {
    static std::once_flag once;
    std::call_once(once, [] {
        const char* path = std::getenv("CUEMU_TRACE");
        if (!path || !*path) return;
        trace_file& t = state();
        std::lock_guard<std::mutex> lock(t.mutex);
        t.path = path;
        t.file = std::fopen(path, "w");
        if (!t.file) {
            std::fprintf(stderr, "cuemu: CUEMU_TRACE=%s: cannot write the trace there (%s); the program runs without one\n",
                         path, std::strerror(errno));
            return;
        }
        t.start = std::chrono::steady_clock::now();
        std::fputs("[\n", t.file);
        write_line_locked(t, metadata("process_name", 0, "\"name\":\"cuemu (CPU emulator)\""));
        write_line_locked(t, metadata("thread_name", 0, "\"name\":\"host\""));
        write_line_locked(t, metadata("thread_sort_index", 0, "\"sort_index\":0"));
        t.enabled = true;
    });
}

bool trace_enabled() { return state().enabled.load(std::memory_order_relaxed); }

double trace_now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - state().start)
        .count();
}

void trace_name_stream(int number, bool non_blocking) {
    if (!trace_enabled()) return;
    std::string name = "stream " + std::to_string(number);
    if (number == 0) name += " (default)";
    if (non_blocking) name += " (non-blocking)";
    const int tid = stream_tid(number);
    write_line(metadata("thread_name", tid, "\"name\":" + json_quoted(name)));
    write_line(metadata("thread_sort_index", tid, "\"sort_index\":" + std::to_string(tid)));
}

void trace_device_work(int stream_number, const std::string& name, const char* category,
                       const std::string& args, double begin_us, double end_us) {
    write_line("{\"name\":" + json_quoted(name) + ",\"cat\":\"" + category +
               "\",\"ph\":\"X\",\"ts\":" + number(begin_us) + ",\"dur\":" +
               number(end_us - begin_us) + ",\"pid\":1,\"tid\":" +
               std::to_string(stream_tid(stream_number)) + ",\"args\":{\"stream\":" +
               std::to_string(stream_number) + (args.empty() ? "" : "," + args) + "}}");
}

void trace_stream_moment(int stream_number, const std::string& name, double at_us) {
    write_line("{\"name\":" + json_quoted(name) + ",\"cat\":\"event\",\"ph\":\"i\",\"s\":\"t\",\"ts\":" +
               number(at_us) + ",\"pid\":1,\"tid\":" + std::to_string(stream_tid(stream_number)) +
               ",\"args\":{\"stream\":" + std::to_string(stream_number) + "}}");
}

void trace_host_wait(const std::string& what, double begin_us, double end_us) {
    write_line("{\"name\":" + json_quoted(what) + ",\"cat\":\"host waits\",\"ph\":\"X\",\"ts\":" +
               number(begin_us) + ",\"dur\":" + number(end_us - begin_us) +
               ",\"pid\":1,\"tid\":0,\"args\":{}}");
}

void trace_finish() {
    trace_file& t = state();
    std::lock_guard<std::mutex> lock(t.mutex);
    if (!t.file) return;
    t.enabled = false;
    std::fputs("\n]\n", t.file);
    if (std::fclose(t.file) != 0)
        std::fprintf(stderr, "cuemu: CUEMU_TRACE=%s: the trace could not be completed (%s)\n",
                     t.path.c_str(), std::strerror(errno));
    else if (t.dropped)
        std::fprintf(stderr, "cuemu: CUEMU_TRACE=%s: only the first %ld events were written\n",
                     t.path.c_str(), max_events);
    t.file = nullptr;
}

}  // namespace cuemu::detail
