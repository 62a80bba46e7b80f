/* run_limits.h - refuse, before starting, a run this machine cannot hold or
 * cannot finish soon.
 *
 * A lesson program's flags allow big sizes, and a student will try them. Two
 * things must not happen then: the program dies halfway (std::bad_alloc, an
 * abort, or the kernel's out-of-memory killer taking it and others down), or
 * it sits silent for hours. So main(), once the flags are parsed:
 *
 *   run_limits_require_memory(host_bytes, device_bytes);
 *       One line on stderr and exit code 2 when the buffers do not fit in
 *       the memory this process may use. On the CPU emulator device memory is
 *       host memory too, so both count there; on a GPU, cudaMalloc answers for
 *       device memory itself. It also makes any later failed `new` one line
 *       and exit code 2 instead of an abort.
 *
 *   run_limits_check_duration(work, emulator_rate, cpu_rate, "--n");
 *       work is the lesson's own count of its work (for example multiply-adds),
 *       the rates are seconds per unit measured for it (see each call): the
 *       whole program on the emulator, the CPU reference alone on a GPU.
 *       Over the limit (300 s, or TUTORIAL_MAX_SECONDS; 0 means no limit):
 *       one line naming the flags to shrink, exit code 2. Over 20 s: one line
 *       saying how long to expect, then the run.
 *
 * Plain C (lesson 01 is C) with a C++ addition for `new`.
 */
#ifndef TUTORIAL_RUN_LIMITS_H
#define TUTORIAL_RUN_LIMITS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#include <unistd.h>
#endif

#ifdef __cplusplus
#include <new>
#endif

/* Beyond this, a run is refused: "more than a few minutes". */
#define RUN_LIMITS_DEFAULT_MAX_SECONDS 300.0
/* Beyond this, the estimate is printed before the run starts. */
#define RUN_LIMITS_ANNOUNCE_SECONDS 20.0

static inline double run_limits_gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }

/* A number from /proc: "Name:   123 kB" -> bytes, or -1 when absent. */
static inline double run_limits_proc_kb(const char* path, const char* name) {
    FILE* f = fopen(path, "r");
    if (!f) return -1.0;
    char line[256];
    double bytes = -1.0;
    size_t length = strlen(name);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, name, length) == 0 && line[length] == ':') {
            bytes = strtod(line + length + 1, NULL) * 1024.0;
            break;
        }
    }
    fclose(f);
    return bytes;
}

/* The bytes this process can still allocate and touch: the machine's available
 * memory, lowered by a data or address-space limit (ulimit -d, -v) if one is
 * set. Negative when nothing is known (then nothing is refused). */
static inline double run_limits_available_bytes(void) {
    double available = run_limits_proc_kb("/proc/meminfo", "MemAvailable");
#if defined(__unix__) || defined(__APPLE__)
    if (available < 0) {
#if defined(_SC_AVPHYS_PAGES)
        long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0) available = (double)pages * (double)page;
#endif
    }
    struct {
        int resource;
        const char* used_field; /* what /proc/self/status says is used of it */
    } limits[] = {{RLIMIT_DATA, "VmData"}, {RLIMIT_AS, "VmSize"}};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; ++i) {
        struct rlimit limit;
        if (getrlimit(limits[i].resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) continue;
        double used = run_limits_proc_kb("/proc/self/status", limits[i].used_field);
        double left = (double)limit.rlim_cur - (used > 0 ? used : 0.0);
        if (left < 0) left = 0;
        if (available < 0 || left < available) available = left;
    }
#endif
    return available;
}

#ifdef __cplusplus
/* Any allocation that fails later still ends in one line, not an abort. */
static inline void run_limits_out_of_memory(void) {
    fputs("error: out of host memory (an allocation failed); try smaller sizes\n", stderr);
    exit(2);
}
#endif

static inline void run_limits_require_memory(double host_bytes, double device_bytes) {
#ifdef __cplusplus
    std::set_new_handler(run_limits_out_of_memory);
#endif
    double needed = host_bytes;
#ifdef CUEMU
    needed += device_bytes; /* the emulator's device memory is this process's memory */
#else
    (void)device_bytes;
#endif
    double available = run_limits_available_bytes();
    if (available >= 0 && needed > available) {
        fprintf(stderr,
                "error: these sizes need about %.2f GiB of memory, but only %.2f GiB is "
                "available here; try smaller sizes\n",
                run_limits_gib(needed), run_limits_gib(available));
        exit(2);
    }
}

/* "about 40 s", "about 3 min", "about 2.1 hours", "about 2 days" */
static inline void run_limits_describe(char* out, size_t size, double seconds) {
    if (seconds < 120)
        snprintf(out, size, "about %.0f s", seconds);
    else if (seconds < 2 * 3600)
        snprintf(out, size, "about %.0f min", seconds / 60);
    else if (seconds < 2 * 86400)
        snprintf(out, size, "about %.1f hours", seconds / 3600);
    else
        snprintf(out, size, "about %.0f days", seconds / 86400);
}

static inline double run_limits_max_seconds(void) {
    const char* text = getenv("TUTORIAL_MAX_SECONDS");
    if (!text || !*text) return RUN_LIMITS_DEFAULT_MAX_SECONDS;
    char* end = NULL;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || value < 0) {
        fprintf(stderr, "error: TUTORIAL_MAX_SECONDS must be a number of seconds (0: no limit), got '%s'\n",
                text);
        exit(2);
    }
    return value;
}

/* work: the lesson's own count of its work (multiply-adds, say). The rates
 * are seconds per unit measured for the whole program on the emulator, and
 * for its CPU reference alone (what is left of it on a GPU). */
static inline void run_limits_check_duration(double work, double emulator_seconds_per_unit,
                                             double cpu_seconds_per_unit,
                                             const char* flags_to_shrink) {
#ifdef CUEMU
    double estimated_seconds = work * emulator_seconds_per_unit;
    const char* where = "on the CPU emulator";
    (void)cpu_seconds_per_unit;
#else
    double estimated_seconds = work * cpu_seconds_per_unit;
    const char* where = "for the CPU reference alone";
    (void)emulator_seconds_per_unit;
#endif
    double limit = run_limits_max_seconds();
    char duration[64];
    run_limits_describe(duration, sizeof duration, estimated_seconds);
    if (limit > 0 && estimated_seconds > limit) {
        fprintf(stderr,
                "error: these sizes would take %s %s (an estimate); make %s smaller, or set "
                "TUTORIAL_MAX_SECONDS=0 to run anyway\n",
                duration, where, flags_to_shrink);
        exit(2);
    }
    if (estimated_seconds > RUN_LIMITS_ANNOUNCE_SECONDS) {
        printf("(expect this to take %s %s: an estimate from a 2-core machine)\n", duration, where);
        fflush(stdout);
    }
}

#endif
