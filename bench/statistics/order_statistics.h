#pragma once
// Distribution-free statistics of one size's call times: quantiles, and a confidence interval of
// the median from order statistics (Hoefler and Belli, "Scientific Benchmarking of Parallel
// Computing Systems", SC'15, rule 5; Le Boudec, "Performance Evaluation", Thm 2.1).
//
// Why order statistics: call times are skewed and heavy-tailed (a descheduled rank adds
// milliseconds to one call), so a mean +- t x stddev interval is neither centred nor honest. For
// n independent values, the number of them below the true median is Binomial(n, 1/2), so the
// interval [x_(k), x_(n+1-k)] covers the median with a probability computed exactly from that
// binomial, whatever the distribution.
//
// Pure functions over plain numbers: no I/O, no clocks, callable from any thread.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace ringbench::stats {

// The q-quantile (0 <= q <= 1) of already sorted, non-empty values, interpolating linearly between
// neighbours (Hyndman and Fan's type 7: numpy's and R's default), so a test can state exactly
// what it expects.
double sorted_quantile(std::span<const double> sorted, double q);

// The median of values in any order (copies and sorts). Requires at least one value.
double median(std::span<const double> values);

// 1-based ranks [lower, upper] of the order statistics that bound the median of n independent
// values with at least the requested confidence, and the exact coverage they give. The interval
// is symmetric (upper = n + 1 - lower) and the narrowest such one. Empty when n is too small for
// any interval to reach the confidence: below 6 values at 95%.
struct MedianRanks {
  size_t lower = 0;
  size_t upper = 0;
  double coverage = 0;
};
std::optional<MedianRanks> median_confidence_ranks(size_t n, double confidence);

// P(X <= k) for X ~ Binomial(n, 1/2), exact to double precision for any n (computed in log
// space, so n in the millions neither overflows nor underflows).
double binomial_half_cdf(size_t n, size_t k);

struct Interval {
  double low = 0;
  double high = 0;
};

// The confidence interval of the median of `values` (any order), from the order statistics
// above. Empty when there are too few values.
std::optional<Interval> median_confidence_interval(std::span<const double> values, double confidence);

// Medians of consecutive blocks of `block_size` values; a last, partial block is dropped, since a
// shorter block's median is a noisier value than the others and would skew their binomial count.
std::vector<double> block_medians(std::span<const double> values, size_t block_size);

}  // namespace ringbench::stats
