#include "call_statistics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
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

}  // namespace

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

  const std::vector<double> medians = block_medians(times, calls_per_block);
  out.blocks = medians.size();
  out.ci95 = median_confidence_interval(medians, kConfidence);
  if (out.ci95) {
    out.ci95->low = std::min(out.ci95->low, out.median);
    out.ci95->high = std::max(out.ci95->high, out.median);
  }
  return out;
}

}  // namespace ringbench::stats
