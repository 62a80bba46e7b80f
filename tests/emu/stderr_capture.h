// stderr_capture.h - what the emulator's diagnostic tests share: this
// process's stderr, from construction to finish(), to check a report's words;
// check_sticky, for the error a fault leaves behind; and run_in_child, for a
// bug that ends the program or a run that needs an emulator of its own (a
// fresh pool of workers, no sticky error yet).
#ifndef CUEMU_TESTS_STDERR_CAPTURE_H
#define CUEMU_TESTS_STDERR_CAPTURE_H

#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
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

// After a fault the error is sticky, as on a GPU: every later call fails
// with it. cudaGetLastError reads and resets the thread's last error, so a
// second read right after the first is cudaSuccess (as on an H200, CUDA 13.0).
inline void check_sticky(cudaError_t expected) {
    CHECK(cudaGetLastError() == expected);
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == expected);
    float* more = nullptr;
    CHECK(cudaMalloc(&more, 16) == expected);
}

// Runs body in a forked child (before this process made any CUDA call, so the
// child starts with a fresh emulator) and returns its stderr and wait status.
struct child_result {
    int status = 0;
    std::string err;
};
inline child_result run_in_child(void (*body)()) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    std::fflush(stdout);
    std::fflush(stderr);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // The crash must be the program's own, not caught by the test runner.
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        rlimit no_core{0, 0};
        setrlimit(RLIMIT_CORE, &no_core);  // an expected crash needs no core file
        dup2(fds[1], 2);
        close(fds[0]);
        body();
        std::fflush(stderr);
        _exit(0);
    }
    close(fds[1]);
    child_result r;
    char buf[4096];
    for (ssize_t got; (got = read(fds[0], buf, sizeof buf)) > 0;) r.err.append(buf, static_cast<size_t>(got));
    close(fds[0]);
    waitpid(pid, &r.status, 0);
    std::fprintf(stderr, "%s", r.err.c_str());  // shown in the test log
    return r;
}

#endif
