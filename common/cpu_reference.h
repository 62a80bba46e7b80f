/* cpu_reference.h - the plain, obviously-correct CPU versions every test
 * compares against. One simple loop each; no tricks, so that when a test fails
 * the suspect is the GPU code, not the reference.
 */
#ifndef TUTORIAL_CPU_REFERENCE_H
#define TUTORIAL_CPU_REFERENCE_H

/* c[i] = a[i] + b[i] for i in [0, n) */
static inline void cpu_vector_add(const float* a, const float* b, float* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

#endif
