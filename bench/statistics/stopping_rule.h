#pragma once
// When to stop measuring a size (Hoefler and Belli's rule: let the observed variability decide
// how many measurements are enough). Checked after every block of calls, by rank 0 alone, which
// then sends its decision to every rank: a rank that decided from its own clock and its own view
// would leave the others waiting in a collective it never calls.
//
// Precedence: an explicit call count (-i N) is exactly N calls, whatever the interval or the
// time; otherwise a size stops when the median's 95% interval is within the target half-width, or
// when its time budget (--max-time) is spent, or at the call ceiling, but never before the
// fewest blocks that give an interval at all.

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "call_statistics.h"

namespace ringbench::stats {

enum class StopReason { keep_going, ci, time, iterations };

// "ci", "time", "iterations" (what /results' stop_reason holds), or "" for keep_going.
std::string_view stop_reason_name(StopReason reason);

struct StoppingRule {
  // -i N: exactly this many samples (calls; or batches of back-to-back calls)
  std::optional<size_t> exact_samples;
  // Consecutive samples whose median makes one block: kCallsPerBlock for single calls, 1 for
  // batches (a batch of back-to-back calls is already a block).
  size_t samples_per_block = kCallsPerBlock;
  double max_seconds = 0;             // time budget for the timed calls; 0 = none
  double target_half_width = 0.05;    // stop once the interval is within +-5% of the median
  // A ceiling for a size whose interval never settles and that has no time budget.
  size_t max_calls = 100000;
};

// The decision after `times` (every sample so far, in order) took `elapsed_seconds` in all.
StopReason decide_stop(const StoppingRule& rule, std::span<const double> times, double elapsed_seconds);

}  // namespace ringbench::stats
