#include "heard_views.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace ringbench {

const char* to_string(HeardVerdict::Kind kind) {
  switch (kind) {
    case HeardVerdict::Kind::Unknown: return "unknown";
    case HeardVerdict::Kind::Rank: return "rank";
    case HeardVerdict::Kind::Link: return "link";
  }
  return "?";
}

PeerHeardState::Heard classify_heard(uint32_t age_ms, bool closed, bool data_waiting, uint32_t silent_after_ms) {
  using Heard = PeerHeardState::Heard;
  if (closed) return Heard::Silent;
  if (age_ms < silent_after_ms) return Heard::Alive;
  return data_waiting ? Heard::Unknown : Heard::Silent;
}

namespace {

using Heard = PeerHeardState::Heard;

// The first view of each rank, by rank.
std::map<int, const HeardView*> by_rank(const std::vector<HeardView>& views) {
  std::map<int, const HeardView*> first;
  for (const auto& v : views)
    if (v.rank >= 0) first.emplace(v.rank, &v);
  return first;
}

}  // namespace

HeardVerdict combine_views(const std::vector<HeardView>& views) {
  const auto viewers = by_rank(views);
  std::set<int> heard_alive;  // ranks some view hears, or that sent a view themselves
  for (const auto& [rank, view] : viewers) {
    heard_alive.insert(rank);
    for (const auto& p : view->peers)
      if (p.heard == Heard::Alive) heard_alive.insert(p.peer);
  }
  std::set<int> failed_ranks;
  std::map<std::pair<int, int>, uint32_t> failed_links;  // (lower, higher) -> longest silence
  std::map<int, uint32_t> rank_silence;
  for (const auto& [rank, view] : viewers)
    for (const auto& p : view->peers) {
      if (p.heard != Heard::Silent || p.peer == rank) continue;
      if (!heard_alive.count(p.peer)) {
        failed_ranks.insert(p.peer);
        rank_silence[p.peer] = std::max(rank_silence[p.peer], p.age_ms);
        continue;
      }
      auto& longest = failed_links[{std::min(rank, p.peer), std::max(rank, p.peer)}];
      longest = std::max(longest, p.age_ms);
    }
  HeardVerdict verdict;
  if (failed_ranks.size() == 1 && failed_links.empty()) {
    verdict.kind = HeardVerdict::Kind::Rank;
    verdict.rank = *failed_ranks.begin();
    verdict.silent_ms = rank_silence[verdict.rank];
  } else if (failed_ranks.empty() && failed_links.size() == 1) {
    verdict.kind = HeardVerdict::Kind::Link;
    verdict.rank = failed_links.begin()->first.first;
    verdict.other = failed_links.begin()->first.second;
    verdict.silent_ms = failed_links.begin()->second;
  }
  return verdict;
}

}  // namespace ringbench
