#include "collective_call_time.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace ringbench::stats {

std::vector<double> collective_call_times_us(std::span<const std::vector<CallStamp>> by_rank, bool shared_clock) {
  if (by_rank.empty()) return {};
  const size_t calls = by_rank.front().size();
  std::vector<double> times(calls);
  for (size_t k = 0; k < calls; ++k) {
    int64_t last_start = std::numeric_limits<int64_t>::min(), last_end = last_start, longest = 0;
    for (const auto& rank : by_rank) {
      assert(rank.size() == calls);
      last_start = std::max(last_start, rank[k].start_ns);
      last_end = std::max(last_end, rank[k].end_ns);
      longest = std::max(longest, rank[k].end_ns - rank[k].start_ns);
    }
    times[k] = static_cast<double>(shared_clock ? last_end - last_start : longest) / 1e3;
  }
  return times;
}

}  // namespace ringbench::stats
