#include "race.h"

#include <cassert>

#include "call_statistics.h"
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

namespace {

std::optional<Interval> turns_interval(const std::vector<double>& calls, size_t calls_per_turn) {
  if (calls.empty()) return std::nullopt;
  return summarize_calls(calls, calls_per_turn).ci95;
}

}  // namespace

std::vector<size_t> race_survivors(std::span<const std::vector<double>> calls_by_candidate,
                                   std::span<const size_t> racing, size_t calls_per_turn) {
  if (racing.empty()) return {};
  const size_t leader = race_leader(calls_by_candidate, racing);
  const std::optional<Interval> leading = turns_interval(calls_by_candidate[leader], calls_per_turn);
  std::vector<size_t> survivors = {leader};
  for (size_t i : racing) {
    if (i == leader) continue;
    const std::optional<Interval> own = turns_interval(calls_by_candidate[i], calls_per_turn);
    const bool clearly_slower = leading && own && own->low > leading->high;
    if (!clearly_slower) survivors.push_back(i);
  }
  return survivors;
}

}  // namespace ringbench::stats
