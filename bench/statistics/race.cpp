#include "race.h"

#include <cassert>

#include "order_statistics.h"

namespace ringbench::stats {

size_t race_leader(std::span<const std::vector<double>> calls_by_candidate, std::span<const size_t> racing) {
  assert(!racing.empty());
  size_t leader = racing.front();
  double best = median(calls_by_candidate[leader]);
  for (size_t i : racing.subspan(1)) {
    const double m = median(calls_by_candidate[i]);
    if (m < best) best = m, leader = i;
  }
  return leader;
}

std::vector<size_t> race_survivors(std::span<const std::vector<double>> calls_by_candidate,
                                   std::span<const size_t> racing, double confidence) {
  if (racing.empty()) return {};
  const size_t leader = race_leader(calls_by_candidate, racing);
  const std::optional<Interval> leading = median_confidence_interval(calls_by_candidate[leader], confidence);
  std::vector<size_t> survivors = {leader};
  for (size_t i : racing) {
    if (i == leader) continue;
    const std::optional<Interval> own = median_confidence_interval(calls_by_candidate[i], confidence);
    const bool clearly_slower = leading && own && own->low > leading->high;
    if (!clearly_slower) survivors.push_back(i);
  }
  return survivors;
}

}  // namespace ringbench::stats
