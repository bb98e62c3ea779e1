#pragma once
// What a row reports about one size's timed calls: the median as the headline time, the 5th and
// 95th percentiles, a 95% confidence interval of the median, and (for -f) the mean, standard
// deviation, minimum and maximum.
//
// Consecutive calls are not independent (a busy core, a TCP window that grew, a cache that warmed
// all last longer than one call), so the interval is not computed from the calls themselves but
// from the medians of blocks of consecutive calls, which are close to independent once a block is
// longer than the correlation: ReproMPI's and Google Benchmark's repetitions, done within one run.

#include <cstddef>
#include <optional>
#include <span>

#include "order_statistics.h"

namespace ringbench::stats {

// Consecutive calls per block. Ten calls span well past the correlation seen between call times
// here (a few calls), and keep six blocks, the fewest that give a 95% interval, at 60 calls.
inline constexpr size_t kCallsPerBlock = 10;
inline constexpr double kConfidence = 0.95;

// The fewest blocks whose medians give a kConfidence interval: 6 at 95%.
size_t min_blocks_for_interval();

struct CallStatistics {
  size_t calls = 0;
  size_t blocks = 0;  // whole blocks of kCallsPerBlock calls
  double median = 0, p05 = 0, p95 = 0;
  double mean = 0, stddev = 0, min = 0, max = 0;
  std::optional<Interval> ci95;  // empty with fewer than min_blocks_for_interval() blocks

  // The interval's larger distance from the median, as a fraction of it: the "+-%" a row prints.
  std::optional<double> relative_half_width() const;
};

// The "+-%" summarize_calls would give `times` (its relative_half_width), alone: what the
// stopping rule judges after every block, so that a size stopped on its interval prints the
// interval it stopped on. O(calls), where summarize_calls sorts them.
std::optional<double> interval_half_width(std::span<const double> times, size_t calls_per_block = kCallsPerBlock);

// Statistics of call times in the order they were measured (the order matters for the blocks).
// Requires at least one value. The interval always contains the median: where the blocks'
// interval misses the all-calls median (skewed times), it is widened to reach it.
CallStatistics summarize_calls(std::span<const double> times, size_t calls_per_block = kCallsPerBlock);

}  // namespace ringbench::stats
