#include "order_statistics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

namespace ringbench::stats {

double sorted_quantile(std::span<const double> sorted, double q) {
  assert(!sorted.empty() && q >= 0 && q <= 1);
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

double median(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted_quantile(sorted, 0.5);
}

namespace {

// P(X = j) for X ~ Binomial(n, 1/2), in log space.
double log_binomial_half_pmf(size_t n, size_t j) {
  const auto nn = static_cast<double>(n);
  const auto jj = static_cast<double>(j);
  return std::lgamma(nn + 1) - std::lgamma(jj + 1) - std::lgamma(nn - jj + 1) - nn * std::numbers::ln2;
}

}  // namespace

double binomial_half_cdf(size_t n, size_t k) {
  if (k >= n) return 1.0;
  double sum = 0;
  for (size_t j = 0; j <= k; ++j) sum += std::exp(log_binomial_half_pmf(n, j));
  return std::min(sum, 1.0);
}

std::optional<MedianRanks> median_confidence_ranks(size_t n, double confidence) {
  // [x_(k), x_(n+1-k)] misses the median when k-1 or fewer values fall below it, or k-1 or fewer
  // above it: coverage = 1 - 2 P(X <= k-1). Coverage falls as k grows; keep the largest k that
  // still reaches the confidence (the narrowest interval). One running sum: O(n).
  std::optional<MedianRanks> best;
  double below = 0;  // P(X <= k-1)
  for (size_t k = 1; 2 * k <= n + 1; ++k) {
    below += std::exp(log_binomial_half_pmf(n, k - 1));
    const double coverage = 1 - 2 * below;
    if (coverage < confidence) break;
    best = MedianRanks{k, n + 1 - k, coverage};
  }
  return best;
}

std::optional<Interval> median_confidence_interval(std::span<const double> values, double confidence) {
  const auto ranks = median_confidence_ranks(values.size(), confidence);
  if (!ranks) return std::nullopt;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return Interval{sorted[ranks->lower - 1], sorted[ranks->upper - 1]};
}

std::vector<double> block_medians(std::span<const double> values, size_t block_size) {
  assert(block_size > 0);
  std::vector<double> medians;
  for (size_t start = 0; start + block_size <= values.size(); start += block_size) {
    medians.push_back(median(values.subspan(start, block_size)));
  }
  return medians;
}

}  // namespace ringbench::stats
