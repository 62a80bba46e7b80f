// test_compare.cpp - the reports a student reads when a result is wrong
// (common/compare.h): summary first, a bounded list, (row, col) for a matrix,
// plain names, and a hint for each common shape of failure.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "compare.h"

#include <cmath>
#include <string>
#include <vector>

namespace {

std::vector<float> counting(std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = 0.5f + (float)i;
    return v;
}

struct Report {
    std::size_t bad;
    std::string text;
};

Report compare(const std::vector<float>& got, const std::vector<float>& ref, std::size_t cols = 0,
               int max_print = 10) {
    std::string text(8192, '\0');
    tutorial_text out = {&text[0], text.size(), 0};
    std::size_t bad = tutorial_compare_report(&out, "your c", "your c", "CPU reference", got.data(),
                                              ref.data(), got.size(), cols, 1e-6, 1e-6, max_print);
    text.resize(out.length);
    return {bad, text};
}

int lines(const std::string& text) {
    int count = 0;
    for (char c : text) count += c == '\n';
    return count;
}

bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a match reports nothing") {
    auto ref = counting(1000);
    Report r = compare(ref, ref);
    CHECK(r.bad == 0);
    CHECK(r.text.empty());
}

TEST_CASE("the summary comes first and names both sides plainly") {
    auto ref = counting(1000), got = ref;
    for (std::size_t i = 588; i < 1000; i += 2) got[i] += 1.0f;
    Report r = compare(got, ref);
    CAPTURE(r.text);
    CHECK(r.bad == 206);
    CHECK(r.text.rfind("your c: 206 of 1000 elements differ from the CPU reference, first at index 588, last at index 998\n", 0) == 0);
    CHECK(has(r.text, "  index 588: your c 589.5, CPU reference 588.5\n"));
    CHECK(has(r.text, "... and 196 more"));
    CHECK(has(r.text, "allowed difference"));
    CHECK_FALSE(has(r.text, ".data()"));
}

TEST_CASE("at most max_print mismatches are listed, whatever n is") {
    auto ref = counting(100000), got = ref;
    for (auto& x : got) x = -x;
    Report r = compare(got, ref, 0, 10);
    CAPTURE(r.text);
    CHECK(r.bad == 100000);
    CHECK(lines(r.text) <= 14);
}

TEST_CASE("a matrix mismatch is given as (row, col)") {
    const std::size_t rows = 7, cols = 13;
    auto ref = counting(rows * cols), got = ref;
    got[3 * cols + 5] = 0.0f;
    Report r = compare(got, ref, cols);
    CAPTURE(r.text);
    CHECK(has(r.text, "first at (row 3, col 5)"));
    CHECK(has(r.text, "  (row 3, col 5): your c 0, CPU reference 44.5\n"));
}

TEST_CASE("hint: everything still NaN means nothing was written or copied back") {
    auto ref = counting(1000);
    std::vector<float> got(1000, std::nanf(""));
    Report r = compare(got, ref);
    CAPTURE(r.text);
    CHECK(has(r.text, "(1000 of them NaN)"));
    CHECK(has(r.text, "your c NaN"));
    CHECK(has(r.text, "hint: every element is still NaN"));
    CHECK(has(r.text, "copied back"));
    CHECK_FALSE(has(r.text, "allowed difference"));  // a tolerance cannot explain a NaN
}

TEST_CASE("hint: every element holding its neighbour's value is an index shifted by one") {
    auto ref = counting(1000);
    for (int shift : {1, -1}) {
        CAPTURE(shift);
        std::vector<float> got(1000, std::nanf(""));
        for (int i = 0; i < 1000; ++i)
            if (i + shift >= 0 && i + shift < 1000) got[(std::size_t)i] = ref[(std::size_t)(i + shift)];
        Report r = compare(got, ref);
        CAPTURE(r.text);
        CHECK(has(r.text, "hint: almost every element holds its neighbour's value"));
    }
}

TEST_CASE("hint: only the tail wrong points at the bounds and the block count") {
    auto ref = counting(1000), got = ref;
    for (std::size_t i = 768; i < 1000; ++i) got[i] = std::nanf("");
    Report r = compare(got, ref);
    CAPTURE(r.text);
    CHECK(has(r.text, "first at index 768, last at index 999 (232 of them NaN)"));
    CHECK(has(r.text, "everything from the first mismatch to the end is wrong"));
    CHECK(has(r.text, "number of blocks"));
}

TEST_CASE("hint: a transposed matrix, and a matrix shifted by a row") {
    const std::size_t n = 9;
    auto ref = counting(n * n);
    std::vector<float> transposed(n * n), shifted(n * n, std::nanf(""));
    for (std::size_t r = 0; r < n; ++r)
        for (std::size_t c = 0; c < n; ++c) transposed[r * n + c] = ref[c * n + r];
    for (std::size_t i = n; i < n * n; ++i) shifted[i] = ref[i - n];
    Report t = compare(transposed, ref, n);
    Report s = compare(shifted, ref, n);
    CAPTURE(t.text);
    CAPTURE(s.text);
    CHECK(has(t.text, "hint: the result is the transpose"));
    CHECK(has(s.text, "hint: almost every element holds the value of the row above or below"));
}

TEST_CASE("scattered small differences get no hint that would mislead") {
    auto ref = counting(1000), got = ref;
    got[17] += 0.01f;
    got[500] -= 0.01f;
    Report r = compare(got, ref);
    CAPTURE(r.text);
    CHECK(r.bad == 2);
    CHECK_FALSE(has(r.text, "hint:"));
}

TEST_CASE("a report longer than the buffer is cut short, never overrun") {
    auto ref = counting(1000);
    std::vector<float> got(1000, std::nanf(""));
    std::string small(64, '#');
    tutorial_text out = {&small[0], 60, 0};  // the last 4 bytes must stay '#'
    std::size_t bad = tutorial_compare_report(&out, "your c", "your c", "CPU reference", got.data(), ref.data(),
                                              got.size(), 0, 1e-6, 1e-6, 10);
    CHECK(bad == 1000);
    CHECK(out.length == 59);
    CHECK(small.substr(60) == "####");
}
