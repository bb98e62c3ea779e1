#include "stopping_rule.h"

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
  // The interval the row will print, about the median it will print. Judged about the blocks'
  // own median instead, a size whose calls fell in two modes could stop on "ci" and print +-7%:
  // on the 2-core VM (2026-12-06, N = 4, 256 B) 150.7 us was the blocks' median, 160.8 the calls'.
  const auto half_width = interval_half_width(times, rule.samples_per_block);
  if (half_width && *half_width <= rule.target_half_width) return StopReason::ci;
  if (rule.max_seconds > 0 && elapsed_seconds >= rule.max_seconds) return StopReason::time;
  return StopReason::keep_going;
}

bool leaves_the_turns(StopReason own, double seconds_spent, double max_seconds, bool another_needs_calls) {
  switch (own) {
    case StopReason::keep_going: return false;
    case StopReason::time:
    case StopReason::iterations: return true;
    case StopReason::ci: break;
  }
  const bool budget_spent = max_seconds > 0 && seconds_spent >= max_seconds;
  return budget_spent || !another_needs_calls;
}

}  // namespace ringbench::stats
