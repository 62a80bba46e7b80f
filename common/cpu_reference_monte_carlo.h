/* cpu_reference_monte_carlo.h - the exact answers lesson 23 (Monte Carlo) is
 * checked against, and the size of the error a Monte Carlo estimate may have.
 *
 * A Monte Carlo estimate is a mean of N random samples, so it is never exact:
 * it is off by about one "standard error", sigma / sqrt(N), where sigma is the
 * standard deviation of one sample. The checks accept an estimate within five
 * standard errors of the truth: a correct program fails that about once in
 * 1.7 million runs (the normal distribution's two tails past 5 sigma), while
 * a wrong one (no hits counted, a shared sequence, a wrong formula) misses by
 * far more.
 */
#ifndef TUTORIAL_CPU_REFERENCE_MONTE_CARLO_H
#define TUTORIAL_CPU_REFERENCE_MONTE_CARLO_H

#include <math.h>

static const double kPi = 3.14159265358979323846;

/* The standard error of pi estimated as 4 * hits / points: each point is a hit
 * with probability p = pi / 4 (the quarter circle's share of the unit square),
 * so hits / points has standard deviation sqrt(p (1 - p) / points). */
static inline double pi_standard_error(double points) {
    const double p = kPi / 4.0;
    return 4.0 * sqrt(p * (1.0 - p) / points);
}

/* The standard normal distribution function, P(Z <= x). */
static inline double normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* Black and Scholes' price of a European call: the right to buy one share at
 * `strike` in `years` years, the share now at `spot`, the risk-free rate
 * `rate` and the share's volatility `volatility` (both per year). */
static inline double black_scholes_call(double spot, double strike, double rate,
                                        double volatility, double years) {
    const double spread = volatility * sqrt(years);
    const double d1 = (log(spot / strike) + (rate + 0.5 * volatility * volatility) * years) / spread;
    const double d2 = d1 - spread;
    return spot * normal_cdf(d1) - strike * exp(-rate * years) * normal_cdf(d2);
}

/* The mean of N samples from their sum and sum of squares, and its standard
 * error: the sample standard deviation over sqrt(N). */
static inline double sample_mean(double sum, double count) { return sum / count; }
static inline double standard_error_of_mean(double sum, double sum_of_squares, double count) {
    const double mean = sum / count;
    double variance = (sum_of_squares - count * mean * mean) / (count - 1.0);
    if (variance < 0.0) variance = 0.0; /* rounding, when every sample is equal */
    return sqrt(variance / count);
}

#endif
