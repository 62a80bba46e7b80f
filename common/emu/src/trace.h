// trace.h - CUEMU_TRACE=file.json: a timeline of what the emulated device did,
// per stream, in the Chrome trace-event format (trace.cpp says how it is written).
#ifndef CUEMU_TRACE_H
#define CUEMU_TRACE_H

#include <string>

namespace cuemu::detail {

// Reads CUEMU_TRACE and opens the file (once; the device queue calls it when it
// starts). An unwritable path is one line on stderr, and no trace.
void trace_start();
// True when a trace is being written: callers build labels only then.
bool trace_enabled();
// Microseconds since the trace started (the clock of every event).
double trace_now_us();

// A row of the timeline for stream `number` (0 is the legacy default stream).
void trace_name_stream(int number, bool non_blocking);
// A piece of device work that ran from begin to end on a stream's row.
// `args` are JSON object members without braces, e.g. "\"bytes\":4096".
void trace_device_work(int stream_number, const std::string& name, const char* category,
                       const std::string& args, double begin_us, double end_us);
// A moment on a stream's row (an event record, an event wait satisfied).
void trace_stream_moment(int stream_number, const std::string& name, double at_us);
// The host waiting for the device (a synchronizing call), on the host row.
void trace_host_wait(const std::string& what, double begin_us, double end_us);
// Ends the JSON text and closes the file (at exit, after the queue is done).
void trace_finish();

// A string as a JSON string literal, quotes included.
std::string json_quoted(const std::string& text);

}  // namespace cuemu::detail

#endif
