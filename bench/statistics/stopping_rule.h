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

// Several algorithms measured at one size take turns, a block each (ringbench's
// Measurement::measure_together), and stop together: whether one whose latest decision was `own`
// leaves the turns now. One whose interval is already narrow (ci) keeps taking its turns while
// another still needs calls, until its own budget is spent (seconds_spent >= max_seconds > 0), so
// that every row's median covers the same rounds of the machine's time. Leaving alone, a row kept
// the speed of its first rounds: on the 2-vCPU AMD EPYC guest, whose rows switch between two
// speeds 1.8x apart (N = 2, seven all-reduces at 512 KiB-2 MiB, 10 runs of each way taking turns,
// 2026-12-08), ring, rhd, two-shot and hierarchical, which run the same steps there, came out
// 1.65-2.03x apart at 5 of 30 sizes stopping alone, at most 1.10x apart stopping together.
bool leaves_the_turns(StopReason own, double seconds_spent, double max_seconds, bool another_needs_calls);

}  // namespace ringbench::stats
