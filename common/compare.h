/* compare.h - is the GPU's answer close enough to the CPU's, and if not,
 * what does the difference look like?
 *
 * Floating-point results from two different machines (or two different orders
 * of addition) rarely match bit for bit, so we accept a small difference:
 *
 *     |got - ref| <= atol + rtol * |ref|
 *
 * atol (absolute tolerance) covers values near zero, rtol (relative
 * tolerance) covers large values. A NaN never matches: outputs are poisoned
 * with NaN before a run, so an element the kernel never wrote is caught.
 *
 * A failed comparison is reported summary first (how many differ, the first
 * and last place), then at most a few mismatches, with (row, col) for a
 * matrix, then a hint when the mismatches have a shape that usually has one
 * cause (still NaN, shifted by one, only the tail, ...).
 *
 * Plain C so that lesson 01 (serial C) can use it as well as the .cu lessons.
 */
#ifndef TUTORIAL_COMPARE_H
#define TUTORIAL_COMPARE_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static inline int tutorial_close_enough(float got, float ref, double atol,
                                        double rtol) {
    double diff = fabs((double)got - (double)ref);
    /* written so that a NaN in got or ref makes the comparison false */
    return diff <= atol + rtol * fabs((double)ref);
}

/* Text appended to a fixed buffer; a report that does not fit is cut short,
 * never overrun. */
typedef struct {
    char* text;
    size_t capacity;
    size_t length;
} tutorial_text;

static inline void tutorial_append(tutorial_text* out, const char* format, ...) {
    if (out->length + 1 >= out->capacity) return;
    va_list args;
    va_start(args, format);
    int written = vsnprintf(out->text + out->length, out->capacity - out->length, format, args);
    va_end(args);
    if (written < 0) return;
    out->length += (size_t)written;
    if (out->length >= out->capacity) out->length = out->capacity - 1;
}

/* Where element i sits: "index 17" for a vector, "(row 3, col 2)" for a
 * row-major matrix with cols columns. */
static inline void tutorial_append_place(tutorial_text* out, size_t i, size_t cols) {
    if (cols == 0)
        tutorial_append(out, "index %zu", i);
    else
        tutorial_append(out, "(row %zu, col %zu)", i / cols, i % cols);
}

/* How many elements i with i + shift inside [0, n) satisfy
 * got[i] == ref[i + shift] within the tolerance, out of how many tried. */
static inline int tutorial_mostly_shifted(const float* got, const float* ref, size_t n,
                                          long long shift, double atol, double rtol) {
    size_t tried = 0, matched = 0;
    for (size_t i = 0; i < n; ++i) {
        long long j = (long long)i + shift;
        if (j < 0 || j >= (long long)n) continue;
        ++tried;
        matched += (size_t)tutorial_close_enough(got[i], ref[j], atol, rtol);
    }
    return tried >= 2 && matched * 10 >= tried * 9;
}

/* Is a rows x cols result the transpose of the reference? */
static inline int tutorial_is_transposed(const float* got, const float* ref, size_t rows,
                                         size_t cols, double atol, double rtol) {
    if (rows != cols || rows < 2) return 0;
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c)
            if (!tutorial_close_enough(got[r * cols + c], ref[c * cols + r], atol, rtol))
                return 0;
    return 1;
}

/* Compare n floats (a row-major matrix when cols > 0, n = rows * cols) and
 * write the report, if any element differs, into out. Returns the number of
 * elements that differ. label heads the summary; got_name and ref_name name
 * the two sides of each mismatch: what the student reads ("your c", "CPU
 * reference"). */
static inline size_t tutorial_compare_report(tutorial_text* out, const char* label,
                                             const char* got_name,
                                             const char* ref_name, const float* got,
                                             const float* ref, size_t n, size_t cols,
                                             double atol, double rtol, int max_print) {
    size_t bad = 0, still_nan = 0, first_bad = 0, last_bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (tutorial_close_enough(got[i], ref[i], atol, rtol)) continue;
        if (bad == 0) first_bad = i;
        last_bad = i;
        ++bad;
        still_nan += (size_t)isnan(got[i]);
    }
    if (bad == 0) return 0;

    /* Summary first. */
    tutorial_append(out, "%s: %zu of %zu element%s %s from the %s, first at ", label, bad, n,
                    n == 1 ? "" : "s", bad == 1 ? "differs" : "differ", ref_name);
    tutorial_append_place(out, first_bad, cols);
    if (bad > 1) {
        tutorial_append(out, ", last at ");
        tutorial_append_place(out, last_bad, cols);
    }
    if (still_nan) tutorial_append(out, " (%zu of them NaN)", still_nan);
    tutorial_append(out, "\n");

    /* Then a few of the mismatches themselves. */
    int shown = 0;
    for (size_t i = first_bad; i < n && shown < max_print; ++i) {
        if (tutorial_close_enough(got[i], ref[i], atol, rtol)) continue;
        tutorial_append(out, "  ");
        tutorial_append_place(out, i, cols);
        /* "NaN" spelled the same everywhere (printf may say nan or -nan). */
        if (isnan(got[i]))
            tutorial_append(out, ": %s NaN, %s %.7g\n", got_name, ref_name, ref[i]);
        else
            tutorial_append(out, ": %s %.7g, %s %.7g\n", got_name, got[i], ref_name, ref[i]);
        ++shown;
    }
    if (bad > (size_t)shown) tutorial_append(out, "  ... and %zu more\n", bad - (size_t)shown);
    if (still_nan < bad)
        tutorial_append(out, "  allowed difference: |%s - %s| <= %g + %g * |%s|\n", got_name,
                        ref_name, atol, rtol, ref_name);

    /* Then a hint, when the shape of the mismatches usually has one cause. */
    const char* hint = NULL;
    size_t rows = cols ? n / cols : 0;
    if (still_nan == n) {
        hint = "every element is still NaN (the poison it started with): nothing was written "
               "to it, or the result was never copied back to the host";
    } else if (tutorial_mostly_shifted(got, ref, n, 1, atol, rtol) ||
               tutorial_mostly_shifted(got, ref, n, -1, atol, rtol)) {
        hint = "almost every element holds its neighbour's value: the index is shifted by one";
    } else if (cols && rows > 1 &&
               (tutorial_mostly_shifted(got, ref, n, (long long)cols, atol, rtol) ||
                tutorial_mostly_shifted(got, ref, n, -(long long)cols, atol, rtol))) {
        hint = "almost every element holds the value of the row above or below: the row index is off by one";
    } else if (cols && tutorial_is_transposed(got, ref, rows, cols, atol, rtol)) {
        hint = "the result is the transpose of the reference: row and column are swapped";
    } else if (first_bad > 0 && bad == n - first_bad) {
        hint = "the first elements are right and everything from the first mismatch to the end "
               "is wrong: did enough threads run, each with its own index? Check the index, the "
               "bounds check and the number of blocks (rounded up?)";
    } else if (still_nan > 0) {
        hint = "some elements are still NaN (the poison they started with): no thread wrote "
               "them. Are there enough threads, and does every thread use its own index?";
    }
    if (hint) tutorial_append(out, "  hint: %s\n", hint);
    return bad;
}

/* Prints the report for n floats (a row-major matrix when cols > 0) to stdout,
 * each line indented under the program's own "  label: PASS/FAIL" lines.
 * stdout only, flushed: the report stays in order with everything else the
 * program prints. */
static inline size_t tutorial_print_comparison(const char* label, const float* got,
                                               const float* ref, size_t n, size_t cols,
                                               double atol, double rtol, int max_print) {
    char buffer[4096];
    tutorial_text out = {buffer, sizeof buffer, 0};
    buffer[0] = '\0';
    size_t bad = tutorial_compare_report(&out, label, "got", "CPU reference", got, ref, n, cols,
                                         atol, rtol, max_print);
    for (const char* line = buffer; *line;) {
        const char* end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        printf("  %.*s\n", (int)length, line);
        line += length + (end ? 1 : 0);
    }
    fflush(stdout);
    return bad;
}

/* Compare n floats; print at most max_print mismatches, labelled with label.
 * Returns how many elements mismatch. */
static inline size_t compare_floats(const char* label, const float* got,
                                    const float* ref, size_t n, double atol,
                                    double rtol, int max_print) {
    return tutorial_print_comparison(label, got, ref, n, 0, atol, rtol, max_print);
}

/* The same for a rows x cols row-major matrix: mismatches as (row, col). */
static inline size_t compare_matrix(const char* label, const float* got, const float* ref,
                                    size_t rows, size_t cols, double atol, double rtol,
                                    int max_print) {
    return tutorial_print_comparison(label, got, ref, rows * cols, cols, atol, rtol, max_print);
}

#endif
