// test_01_serial_vector_add.cpp - lesson 01: the serial C loop against the CPU
// reference. Built against lessons/01-serial-vector-add (must fail as shipped)
// and solutions/01-serial-vector-add (must pass).
#include "test_support.h"   // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference.h"

#include <vector>

// The lesson file is plain C, compiled as C: tell the C++ compiler not to
// mangle the name, or the linker would look for a C++ symbol that is not there.
extern "C" {
void vector_add(const float* a, const float* b, float* c, int n);
}

// Tolerance 0: the lesson's loop and the reference do the same single float
// addition on the same CPU, so every element must match bit for bit.
static const double exact = 0.0;

TEST_CASE("vector_add matches the CPU reference for small, odd and large sizes") {
    for (int n : {1, 2, 7, 1000, 1023, 1000003}) {
        CAPTURE(n);
        auto a = random_floats(n), b = random_floats(n);
        auto ref = poisoned_floats(n), got = poisoned_floats(n);
        cpu_vector_add(a.data(), b.data(), ref.data(), n);
        vector_add(a.data(), b.data(), got.data(), n);
        REQUIRE_ALL_CLOSE("your c", got.data(), ref.data(), n, exact, exact);
    }
}

TEST_CASE("vector_add writes exactly c[0..n) and leaves a and b alone") {
    const int n = 1000;
    auto a = random_floats(n), b = random_floats(n);
    const auto a_before = a, b_before = b;
    // One guard element on each side of c: a loop that runs one step too far
    // (i <= n) or starts at -1 would overwrite a guard instead of crashing.
    std::vector<float> padded(n + 2, 12345.0f);
    float* c = padded.data() + 1;
    std::vector<float> ref(n);
    cpu_vector_add(a.data(), b.data(), ref.data(), n);

    vector_add(a.data(), b.data(), c, n);

    REQUIRE_ALL_CLOSE("your c", c, ref.data(), n, exact, exact);
    CHECK_MESSAGE(padded.front() == 12345.0f, "vector_add wrote to c[-1]");
    CHECK_MESSAGE(padded.back() == 12345.0f, "vector_add wrote to c[n]: check the loop bound");
    CHECK_MESSAGE(a == a_before, "vector_add changed its input a");
    CHECK_MESSAGE(b == b_before, "vector_add changed its input b");
}
