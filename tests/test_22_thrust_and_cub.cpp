// Lesson 22: the four sums (a hand-written kernel, thrust::reduce,
// cub::DeviceReduce, a kernel with cub::BlockReduce) agree with the CPU, and
// the top-k pipeline finds the k highest scores in falling order, the
// candidates they belong to, and the candidates above a cut.
#include "test_support.h"
#include "cpu_reference_reduction.h"
#include "cpu_reference_top_k.h"

#include <cmath>
#include <vector>

// The launchers from the lesson file.
void sums_on_gpu(const float* h_x, int n, float* sums);
int top_k_on_gpu(const float* h_logits, int n, int k, float cut, int* h_top_ids,
                 float* h_top_scores, int* h_above_ids);

TEST_CASE("every way of summing matches the CPU's sum") {
    for (int n : {1, 1000, 100003}) {
        CAPTURE(n);
        auto x = random_floats((size_t)n);
        auto sums = poisoned_floats(4);
        sums_on_gpu(x.data(), n, sums.data());
        // Another order of float additions: errors grow with the magnitudes added.
        const double tolerance = 1e-5 * cpu_sum_abs(x.data(), n) + 1e-6;
        const std::vector<float> ref(4, (float)cpu_sum_exact(x.data(), n));
        REQUIRE_ALL_CLOSE("your four sums (hand, Thrust, DeviceReduce, BlockReduce)",
                          sums.data(), ref.data(), 4, tolerance, 0.0);
    }
}

TEST_CASE("the top-k pipeline: the highest scores, their candidates, the ids above the cut") {
    const struct {
        int n, k;
    } sizes[] = {{1, 1}, {1000, 10}, {1023, 1023}, {100003, 7}};
    for (const auto& size : sizes) {
        const int n = size.n, k = size.k;
        CAPTURE(n);
        CAPTURE(k);
        const float cut = 3.5f;
        auto logits = random_floats((size_t)n, -4.0f, 4.0f);
        std::vector<int> ids((size_t)k, -1), above((size_t)n, -1);
        auto scores = poisoned_floats((size_t)k);
        const int count = top_k_on_gpu(logits.data(), n, k, cut, ids.data(), scores.data(), above.data());

        std::vector<int> ref_ids((size_t)k), ref_above((size_t)n, -1);
        std::vector<float> ref_scores((size_t)k);
        cpu_top_k(logits.data(), n, k, ref_ids.data(), ref_scores.data());
        const int ref_count = cpu_ids_above(logits.data(), n, cut, ref_above.data());
        // A GPU's expf may differ from the CPU's in the last place; scores lie in 0..1.
        REQUIRE_ALL_CLOSE("your top scores (highest first)", scores.data(), ref_scores.data(),
                          (size_t)k, 1e-6, 1e-6);
        // Equal scores may come in either order, so each id is checked against its score.
        std::vector<float> scores_of_ids((size_t)k);
        for (int i = 0; i < k; ++i) {
            REQUIRE_MESSAGE((ids[(size_t)i] >= 0 && ids[(size_t)i] < n),
                            "your top id #" << i << " is " << ids[(size_t)i] << ", not a candidate");
            scores_of_ids[(size_t)i] = top_k_score(logits[(size_t)ids[(size_t)i]]);
        }
        REQUIRE_ALL_CLOSE("the scores of your top ids", scores_of_ids.data(), scores.data(),
                          (size_t)k, 1e-6, 1e-6);
        REQUIRE(count == ref_count);
        REQUIRE(above == ref_above);
    }
}
