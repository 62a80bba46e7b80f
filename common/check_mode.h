// check_mode.h - what a failed check does (CUDA_CHECK in cuda_check.h, and
// CUBLAS_CHECK and CURAND_CHECK): in a lesson program it prints one line and
// ends the program (exit code 1); in a lesson's test it throws
// std::runtime_error instead, so the test runner reports the one failing test
// case and goes on with the others. The same compiled lesson code serves both
// (cmake/Tutorial.cmake): the test's main() switches the mode
// (tests/test_main.cpp).
#ifndef TUTORIAL_CHECK_MODE_H
#define TUTORIAL_CHECK_MODE_H

inline bool& tutorial_checks_throw() {
    static bool throws = false;  // one flag for the whole program, however many files include this
    return throws;
}

#endif
