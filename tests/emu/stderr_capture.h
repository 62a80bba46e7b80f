// stderr_capture.h - what the emulator's diagnostic tests share: this
// process's stderr, from construction to finish(), to check a report's words.
#ifndef CUEMU_TESTS_STDERR_CAPTURE_H
#define CUEMU_TESTS_STDERR_CAPTURE_H

#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

// What finish() waits for before it reads: nothing, or the device going idle.
// Launches and copies are asynchronous, so a kernel's report is printed when
// the device runs it; tests that read it right after a launch wait (the error
// the wait returns is the test's to check, afterwards).
enum class capture_until { now, device_idle };

struct stderr_capture {
    explicit stderr_capture(capture_until until = capture_until::now) : until(until) {
        std::fflush(stderr);
        saved = dup(2);
        REQUIRE(std::freopen(path.c_str(), "w", stderr) != nullptr);
    }
    std::string finish() {
        if (until == capture_until::device_idle) (void)cudaDeviceSynchronize();
        std::fflush(stderr);
        dup2(saved, 2);
        close(saved);
        std::ifstream in(path);
        std::stringstream text;
        text << in.rdbuf();
        std::remove(path.c_str());
        std::fprintf(stderr, "%s", text.str().c_str());  // still show it in the log
        return text.str();
    }

    capture_until until;
    std::string path = "/tmp/cuemu_stderr_" + std::to_string(getpid()) + ".txt";
    int saved = -1;
};

#endif
