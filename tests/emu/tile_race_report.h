// tile_race_report.h - for tests of asynchronous copies whose kernels race on
// a __shared__ array named 'tile' (test_libcudacxx.cu, test_async_copy.cu):
// the report of one launch under CUEMU_CHECK=race, checked to be a single
// race on 'tile' that leaves the sticky error, and whether it names an access
// at a given line; check_tile_race puts the two together.
#pragma once

#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <string>

#include "stderr_capture.h"

// Launches kernel(in, out) on one block of `threads` threads, in and out
// holding `threads` elements (in zeroed).
template <typename T>
std::string tile_race_report_of_launch(void (*kernel)(const T*, T*), int threads) {
    T *in = nullptr, *out = nullptr;  // never freed: the report makes the error sticky
    REQUIRE(cudaMalloc(&in, threads * sizeof(T)) == cudaSuccess);
    REQUIRE(cudaMalloc(&out, threads * sizeof(T)) == cudaSuccess);
    REQUIRE(cudaMemset(in, 0, threads * sizeof(T)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    kernel<<<1, threads>>>(in, out);
    const std::string text = capture.finish();
    CHECK(text.find("cuemu: race on shared memory (CUEMU_CHECK=race)") != std::string::npos);
    CHECK(text.find("'tile' of ") != std::string::npos);
    CHECK(text.find("race on shared memory") == text.rfind("race on shared memory"));  // one report
    check_sticky(cudaErrorLaunchFailure);
    return text;
}

// True when the report has the line "    <kind> by thread ... at <path>/<file>:<line>"
// (kind "read " or "write"): a copy's write is named at the line of its call.
inline bool names_access_at(const std::string& text, const std::string& kind, const std::string& file, int line) {
    const std::string head = "    " + kind + " by thread ", tail = "/" + file + ":" + std::to_string(line);
    const std::size_t at = text.find(head);
    if (at == std::string::npos) return false;
    const std::size_t end = text.find('\n', at);
    return end != std::string::npos && end >= tail.size() && text.compare(end - tail.size(), tail.size(), tail) == 0;
}

// One launch's report must name the racing read and the copy's write at
// their lines of `file`.
template <typename T>
void check_tile_race(void (*kernel)(const T*, T*), int threads, const std::string& file, int read_line,
                     int write_line) {
    const std::string text = tile_race_report_of_launch(kernel, threads);
    CHECK(names_access_at(text, "read ", file, read_line));
    CHECK(names_access_at(text, "write", file, write_line));
}
