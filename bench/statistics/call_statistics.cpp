#include "call_statistics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <vector>

namespace ringbench::stats {

size_t min_blocks_for_interval() {
  size_t n = 1;
  while (!median_confidence_ranks(n, kConfidence)) ++n;
  return n;
}

std::optional<double> CallStatistics::relative_half_width() const {
  if (!ci95 || median <= 0) return std::nullopt;
  return std::max(median - ci95->low, ci95->high - median) / median;
}

namespace {

void fill_moments(std::span<const double> times, CallStatistics& out) {
  const auto n = static_cast<double>(times.size());
  out.mean = std::accumulate(times.begin(), times.end(), 0.0) / n;
  double squares = 0;
  for (double t : times) squares += (t - out.mean) * (t - out.mean);
  out.stddev = times.size() > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
}

// The interval of the median of `times` from their blocks' medians, widened to reach `median`.
std::optional<Interval> widened_interval(std::span<const double> times, size_t calls_per_block, double median,
                                         size_t& blocks) {
  const std::vector<double> medians = block_medians(times, calls_per_block);
  blocks = medians.size();
  auto interval = median_confidence_interval(medians, kConfidence);
  if (interval) {
    interval->low = std::min(interval->low, median);
    interval->high = std::max(interval->high, median);
  }
  return interval;
}

// sorted_quantile(sorted, 0.5) without sorting: the middle element, or the mean of the two.
double median_in_linear_time(std::span<const double> times) {
  std::vector<double> values(times.begin(), times.end());
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  return (*std::max_element(values.begin(), middle) + *middle) / 2;
}

}  // namespace

std::optional<double> interval_half_width(std::span<const double> times, size_t calls_per_block) {
  if (times.empty()) return std::nullopt;
  CallStatistics s;
  s.median = median_in_linear_time(times);
  s.ci95 = widened_interval(times, calls_per_block, s.median, s.blocks);
  return s.relative_half_width();
}

CallStatistics summarize_calls(std::span<const double> times, size_t calls_per_block) {
  assert(!times.empty());
  CallStatistics out;
  out.calls = times.size();
  std::vector<double> sorted(times.begin(), times.end());
  std::sort(sorted.begin(), sorted.end());
  out.median = sorted_quantile(sorted, 0.5);
  out.p05 = sorted_quantile(sorted, 0.05);
  out.p95 = sorted_quantile(sorted, 0.95);
  out.min = sorted.front();
  out.max = sorted.back();
  fill_moments(times, out);

  out.ci95 = widened_interval(times, calls_per_block, out.median, out.blocks);
  return out;
}

}  // namespace ringbench::stats
