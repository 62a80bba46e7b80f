// curand_check.h - CURAND_CHECK: wrap every cuRAND host-API call, as CUDA_CHECK
// wraps every runtime call (cuda_check.h).
//
// cuRAND's host calls return a curandStatus_t, which has no string function of
// its own in the library, so the names are spelled out here. A failure becomes
// one line naming the call, the status and where it was made:
//
//   cuRAND error: curandGenerateUniform(...) -> CURAND_STATUS_LENGTH_NOT_MULTIPLE
//     at monte_carlo.cu:200
//
// As with CUDA_CHECK, lesson programs exit (code 1) and the lessons' tests
// throw std::runtime_error (check_mode.h).
#ifndef TUTORIAL_CURAND_CHECK_H
#define TUTORIAL_CURAND_CHECK_H

#include <curand.h>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "check_mode.h"

inline const char* tutorial_curand_status_name(curandStatus_t status) {
    switch (status) {
        case CURAND_STATUS_SUCCESS: return "CURAND_STATUS_SUCCESS";
        case CURAND_STATUS_VERSION_MISMATCH: return "CURAND_STATUS_VERSION_MISMATCH";
        case CURAND_STATUS_NOT_INITIALIZED: return "CURAND_STATUS_NOT_INITIALIZED";
        case CURAND_STATUS_ALLOCATION_FAILED: return "CURAND_STATUS_ALLOCATION_FAILED";
        case CURAND_STATUS_TYPE_ERROR: return "CURAND_STATUS_TYPE_ERROR";
        case CURAND_STATUS_OUT_OF_RANGE: return "CURAND_STATUS_OUT_OF_RANGE";
        case CURAND_STATUS_LENGTH_NOT_MULTIPLE: return "CURAND_STATUS_LENGTH_NOT_MULTIPLE";
        case CURAND_STATUS_DOUBLE_PRECISION_REQUIRED: return "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED";
        case CURAND_STATUS_LAUNCH_FAILURE: return "CURAND_STATUS_LAUNCH_FAILURE";
        case CURAND_STATUS_PREEXISTING_FAILURE: return "CURAND_STATUS_PREEXISTING_FAILURE";
        case CURAND_STATUS_INITIALIZATION_FAILED: return "CURAND_STATUS_INITIALIZATION_FAILED";
        case CURAND_STATUS_ARCH_MISMATCH: return "CURAND_STATUS_ARCH_MISMATCH";
        case CURAND_STATUS_INTERNAL_ERROR: return "CURAND_STATUS_INTERNAL_ERROR";
        default: return "an unknown curandStatus_t";
    }
}

inline void tutorial_curand_check(curandStatus_t status, const char* call, const char* file,
                                  int line) {
    if (status == CURAND_STATUS_SUCCESS) return;
    if (tutorial_checks_throw()) {
        throw std::runtime_error(std::string("cuRAND error: ") + call + " -> " +
                                 tutorial_curand_status_name(status) + " at " + file + ":" +
                                 std::to_string(line));
    }
    std::fflush(stdout);  // what the program printed so far comes first, piped or not
    std::fprintf(stderr, "cuRAND error: %s -> %s\n  at %s:%d\n", call,
                 tutorial_curand_status_name(status), file, line);
    std::exit(1);
}

#define CURAND_CHECK(call) tutorial_curand_check((call), #call, __FILE__, __LINE__)

#endif
