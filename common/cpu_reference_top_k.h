/* cpu_reference_top_k.h - lesson 22's CPU answers for its top-k pipeline.
 *
 * - top_k_score(logit): the score a candidate gets, a logistic function
 *   (0 for very negative logits, 1 for very positive ones), the formula the
 *   lesson's functor computes on the device.
 * - cpu_top_k(logits, n, k, ids, scores): the k highest scores in falling
 *   order and the candidates they belong to, by a plain partial sort.
 * - cpu_ids_above(logits, n, cut, ids): the candidates whose logit is above
 *   the cut, in rising order; returns how many.
 */
#ifndef TUTORIAL_CPU_REFERENCE_TOP_K_H
#define TUTORIAL_CPU_REFERENCE_TOP_K_H

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

inline float top_k_score(float logit) { return 1.0f / (1.0f + expf(-logit)); }

inline void cpu_top_k(const float* logits, int n, int k, int* ids, float* scores) {
    std::vector<int> order((size_t)n);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](int a, int b) { return logits[a] > logits[b]; });
    for (int i = 0; i < k; ++i) {
        ids[i] = order[(size_t)i];
        scores[i] = top_k_score(logits[order[(size_t)i]]);
    }
}

inline int cpu_ids_above(const float* logits, int n, float cut, int* ids) {
    int count = 0;
    for (int i = 0; i < n; ++i)
        if (logits[i] > cut) ids[count++] = i;
    return count;
}

#endif
