#include "stopping_rule.h"

#include <algorithm>
#include <vector>

#include "call_statistics.h"

namespace ringbench::stats {

std::string_view stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::ci: return "ci";
    case StopReason::time: return "time";
    case StopReason::iterations: return "iterations";
    case StopReason::keep_going: break;
  }
  return "";
}

StopReason decide_stop(const StoppingRule& rule, std::span<const double> times, double elapsed_seconds) {
  if (rule.exact_samples) {
    return times.size() >= *rule.exact_samples ? StopReason::iterations : StopReason::keep_going;
  }
  if (times.size() >= rule.max_calls) return StopReason::iterations;
  if (times.size() < min_blocks_for_interval() * rule.samples_per_block) return StopReason::keep_going;
  // From the block medians alone (O(calls) per decision, where a full summary would sort every
  // call each block): their median and interval are what the row's interval is made of.
  const std::vector<double> medians = block_medians(times, rule.samples_per_block);
  const auto interval = median_confidence_interval(medians, kConfidence);
  const double centre = median(medians);
  if (interval && centre > 0 &&
      std::max(centre - interval->low, interval->high - centre) <= rule.target_half_width * centre) {
    return StopReason::ci;
  }
  if (rule.max_seconds > 0 && elapsed_seconds >= rule.max_seconds) return StopReason::time;
  return StopReason::keep_going;
}

}  // namespace ringbench::stats
