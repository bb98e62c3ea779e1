#include "stall_watch.h"

#include <algorithm>

namespace ringbench::stall_probe {

void StallRecord::note_gap(std::chrono::nanoseconds gap) {
  watched += gap;
  if (gap < kStallThreshold) return;
  ++stalls;
  if (gap >= kLongStall) ++long_stalls;
  longest_ms = std::max(longest_ms, std::chrono::duration<double, std::milli>(gap).count());
  lost += gap;
}

void StallRecord::merge(const StallRecord& other) {
  stalls += other.stalls;
  long_stalls += other.long_stalls;
  longest_ms = std::max(longest_ms, other.longest_ms);
  lost += other.lost;
  watched += other.watched;
}

StallRecord watch_for_stalls(std::chrono::nanoseconds duration) {
  using Clock = std::chrono::steady_clock;
  StallRecord record;
  const auto start = Clock::now();
  const auto end = start + duration;
  for (auto previous = start; previous < end;) {
    const auto now = Clock::now();
    record.note_gap(now - previous);
    previous = now;
  }
  return record;
}

}  // namespace ringbench::stall_probe
