/* cpu_reference_histogram.h - lesson 14's inputs, CPU reference and count check.
 *
 * - fill_grey_image(pixels, n, seed, skewed): n generated grey-scale pixels,
 *   one byte each. Uniform: every grey level 0..255 equally likely. Skewed: a
 *   dark picture, 90 of every 100 pixels (on average) the background level
 *   HISTOGRAM_BACKGROUND, the rest uniform: one bin gets most of the counts,
 *   which is what makes many threads hit the same counter at once.
 * - cpu_histogram(pixels, n, bins): the plain loop the kernels must match.
 * - compare_histograms(...): counts are whole numbers, so they must match
 *   exactly; a report names the first few wrong bins and the two totals.
 *
 * Plain C, like cpu_reference.h.
 */
#ifndef TUTORIAL_CPU_REFERENCE_HISTOGRAM_H
#define TUTORIAL_CPU_REFERENCE_HISTOGRAM_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "random_data.h"

#define HISTOGRAM_BINS 256
#define HISTOGRAM_BACKGROUND 16u /* the skewed picture's background grey level */

static inline void fill_grey_image(unsigned char* pixels, size_t n, uint64_t seed, int skewed) {
    tutorial_rng rng = {seed};
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = tutorial_rng_next(&rng);
        if (skewed && (r >> 32) % 100u < 90u)
            pixels[i] = (unsigned char)HISTOGRAM_BACKGROUND;
        else
            pixels[i] = (unsigned char)(r & 0xFFu);
    }
}

static inline void cpu_histogram(const unsigned char* pixels, size_t n, unsigned int* bins) {
    for (int b = 0; b < HISTOGRAM_BINS; ++b) bins[b] = 0;
    for (size_t i = 0; i < n; ++i) bins[pixels[i]] += 1;
}

static inline unsigned long long histogram_total(const unsigned int* bins) {
    unsigned long long total = 0;
    for (int b = 0; b < HISTOGRAM_BINS; ++b) total += bins[b];
    return total;
}

/* Appends a report to out and returns the number of wrong bins (0: nothing
 * appended). At most max_print wrong bins are listed. */
static inline int histogram_compare_report(tutorial_text* out, const char* label,
                                           const unsigned int* got, const unsigned int* ref,
                                           int max_print) {
    int bad = 0, first = -1, last = -1;
    for (int b = 0; b < HISTOGRAM_BINS; ++b)
        if (got[b] != ref[b]) {
            if (first < 0) first = b;
            last = b;
            ++bad;
        }
    if (bad == 0) return 0;
    tutorial_append(out, "%s: %d of %d bins differ from the CPU reference, first bin %d, last bin %d\n",
                    label, bad, HISTOGRAM_BINS, first, last);
    int shown = 0;
    for (int b = first; b <= last && shown < max_print; ++b)
        if (got[b] != ref[b]) {
            tutorial_append(out, "    bin %3d: got %u, CPU reference %u\n", b, got[b], ref[b]);
            ++shown;
        }
    if (bad > shown) tutorial_append(out, "    ... and %d more\n", bad - shown);
    unsigned long long got_total = histogram_total(got), ref_total = histogram_total(ref);
    tutorial_append(out, "    total of all bins: got %llu, CPU reference %llu (the number of pixels)\n",
                    got_total, ref_total);
    /* The total says which kind of mistake it is. */
    if (got_total == 0)
        tutorial_append(out, "    hint: every bin is 0: no count reached the global bins\n");
    else if (got_total < ref_total)
        tutorial_append(out, "    hint: counts were lost: two threads adding to one bin without an atomic,\n"
                             "          or bins merged before every thread had counted\n");
    else if (got_total > ref_total)
        tutorial_append(out, "    hint: more counts than pixels: bins that did not start at 0,\n"
                             "          or pixels counted twice\n");
    return bad;
}

/* Prints the report (if any) on stdout; returns the number of wrong bins. */
static inline int compare_histograms(const char* label, const unsigned int* got,
                                     const unsigned int* ref) {
    char text[2048];
    tutorial_text out = {text, sizeof text, 0};
    text[0] = '\0';
    int bad = histogram_compare_report(&out, label, got, ref, 5);
    if (bad) fputs(text, stdout);
    return bad;
}

#endif
