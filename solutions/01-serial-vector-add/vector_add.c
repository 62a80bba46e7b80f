/* vector_add.c - lesson 01: add two vectors on the CPU, one element at a time.
 *
 * c[i] = a[i] + b[i] for every i. This loop is where the whole tutorial
 * starts: no iteration reads what another one writes, so all of them could
 * run at the same moment ("embarrassingly parallel"). Here they run one after
 * another on a single CPU core; from lesson 02 on, a GPU gives each element
 * its own thread. This is plain C: no CUDA yet, no GPU needed.
 *
 *   ./tutorial run 01 [--n 1000000]    build and run this program
 *   ./tutorial check 01                run its test
 *   ./tutorial solution 01             run the finished version
 *
 * It prints the vector size, the time one pass of the loop takes, how many
 * elements per second that is, and PASS or FAIL against the CPU reference.
 */

#include "cli.h"
#include "compare.h"
#include "cpu_reference.h"
#include "random_data.h"
#include "run_limits.h"
#include "timer.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- the loop every later lesson parallelizes ---- */

/* c[i] = a[i] + b[i] for i in [0, n).
 * Each iteration touches only element i of each array, so the order does not
 * matter and nothing has to wait for anything else: that independence is
 * exactly what lets a GPU hand one element to each of thousands of threads. */
// [snippet: vector-add]
void vector_add(const float* a, const float* b, float* c, int n) {
    for (int i = 0; i < n; ++i) {
        c[i] = a[i] + b[i];
    }
}
// [end snippet]

/* ---- the program: time the loop, then check it ---- */

#ifndef TUTORIAL_TEST_BUILD

/* How many timed passes; the best one is reported, because the slow ones are
 * usually the operating system doing something else, not our loop. */
enum { TIMED_REPEATS = 5 };

int main(int argc, char** argv) {
    // [snippet: flags]
    long long n = 1000000;
    cli_option opts[] = {
        {"--n", "number of elements", CLI_INT, &n, 1, 100000000},
    };
    cli_parse(argc, argv, "Adds two float vectors with a plain C loop on one CPU core.",
              opts, 1);
    // [end snippet]

    size_t bytes = (size_t)n * sizeof(float);
    /* Too big for this machine: one line and exit code 2, before anything runs. */
    run_limits_require_memory(4.0 * (double)bytes, 0.0);
    float* a = malloc(bytes);
    float* b = malloc(bytes);
    float* c = malloc(bytes);
    float* ref = malloc(bytes);
    if (!a || !b || !c || !ref) {
        fprintf(stderr, "error: could not allocate 4 arrays of %lld floats (%.1f MiB)\n",
                n, 4.0 * (double)bytes / (1024.0 * 1024.0));
        return 2;
    }

    /* Random inputs (a constant input would hide an indexing mistake), and a
     * NaN-poisoned output, so an element the loop forgets stays visibly wrong. */
    // [snippet: inputs]
    fill_random(a, (size_t)n, 1, -1.0f, 1.0f);
    fill_random(b, (size_t)n, 2, -1.0f, 1.0f);
    fill_poison(c, (size_t)n);
    // [end snippet]

    /* One untimed pass first: the first touch of freshly allocated memory
     * costs page faults, which are not what we want to measure. */
    // [snippet: timing]
    vector_add(a, b, c, (int)n);

    double best_ms = 0.0;
    for (int r = 0; r < TIMED_REPEATS; ++r) {
        double start = wall_time_ms();
        vector_add(a, b, c, (int)n);
        double ms = wall_time_ms() - start;
        if (r == 0 || ms < best_ms) best_ms = ms;
    }
    // [end snippet]

    printf("vector add on the CPU, one core: n = %lld floats (%.2f MiB read + written)\n",
           n, 3.0 * (double)bytes / (1024.0 * 1024.0));
    printf("c[0] = %g + %g = %g\n", a[0], b[0], c[0]);

    /* Tolerance 0: the same single float addition on the same CPU must give
     * the very same bits as the reference. */
    cpu_vector_add(a, b, ref, (int)n);
    size_t bad = compare_floats("c", c, ref, (size_t)n, 0.0, 0.0, 5);

    if (bad != 0) {
        /* A loop that skips the work is fast for the wrong reason. */
        printf("time: not reported, the result is wrong\n");
    } else if (best_ms > 0.0) {
        /* Each element moves 12 bytes: two floats read, one written. */
        double per_second = (double)n / (best_ms * 1e-3);
        printf("time: %.4g ms per pass (best of %d) = %.0f million elements/s, %.1f GB/s\n",
               best_ms, TIMED_REPEATS, per_second * 1e-6,
               per_second * 3.0 * sizeof(float) * 1e-9);
    } else {
        printf("time: too short for the clock to see (try a larger --n)\n");
    }
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");

    free(a);
    free(b);
    free(c);
    free(ref);
    return bad == 0 ? 0 : 1;
}

#endif /* TUTORIAL_TEST_BUILD */
