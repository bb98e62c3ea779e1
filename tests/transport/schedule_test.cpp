// The plans themselves, without sockets: for every scheduled algorithm, N in 1..16, awkward
// counts, every root and several placements, every rank's schedule must pair up with its peers'
// (each send has a receive of the same size in the same step and vice versa: the property that
// makes a schedule deadlock-free), keep the exchange contract (at most one send and one receive
// per peer per step, never to itself, inside the buffer), and take exactly steps(N) steps for a
// one-segment message on one host. Pure arithmetic, so it covers far more N than the socket tests.

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "transport/algorithm.h"
#include "transport/collectives/schedule.h"

namespace ringbench {
namespace {

std::vector<const ScheduledAlgorithm*> scheduled_algorithms() {
  std::vector<const ScheduledAlgorithm*> found;
  for (const Algorithm* a : all_algorithms())
    if (auto* s = dynamic_cast<const ScheduledAlgorithm*>(a)) found.push_back(s);
  return found;
}

std::vector<std::vector<int>> placements(int n) {
  std::vector<std::vector<int>> all;
  std::vector<int> one(n, 0), halves(n), last_alone(n, 0), round_robin(n), own(n), three(n);
  for (int r = 0; r < n; ++r) {
    halves[r] = r < (n + 1) / 2 ? 0 : 1;
    round_robin[r] = r % 2;
    own[r] = r;
    three[r] = r < n / 2 ? 0 : (r < n - 1 ? 1 : 2);  // e.g. 3+2+1 at N = 6
  }
  if (n > 1) last_alone[n - 1] = 1;
  return {one, halves, last_alone, round_robin, own, three};
}

std::string describe(const Algorithm& a, int n, size_t count, int root, const std::vector<int>& hosts) {
  std::string text = std::string(to_string(a.collective())) + "/" + std::string(a.name()) + " N=" +
                     std::to_string(n) + " count=" + std::to_string(count) + " root=" + std::to_string(root) +
                     " hosts=";
  for (int h : hosts) text += std::to_string(h);
  return text;
}

void check_schedules(const ScheduledAlgorithm& a, int n, size_t count, int root, const std::vector<int>& hosts) {
  const std::string where = describe(a, n, count, root, hosts);
  std::vector<Schedule> schedules;
  for (int r = 0; r < n; ++r) schedules.push_back(a.plan({r, n, count, 4, root, hosts}));
  // (step, from, to) -> elements, from the senders' side and from the receivers' side.
  std::map<std::tuple<size_t, int, int>, size_t> sent, received;
  for (int r = 0; r < n; ++r) {
    for (size_t t = 0; t < schedules[r].steps.size(); ++t) {
      const Step& step = schedules[r].steps[t];
      std::set<int> to, from;
      for (const SendOp& s : step.sends) {
        ASSERT_TRUE(s.peer >= 0 && s.peer < n && s.peer != r) << where << ": rank " << r << " sends to " << s.peer;
        ASSERT_TRUE(to.insert(s.peer).second) << where << ": rank " << r << " sends twice to " << s.peer
                                              << " in step " << t;
        ASSERT_LE(s.range.offset + s.range.count, count) << where;
        sent[{t, r, s.peer}] = s.range.count;
      }
      for (const RecvOp& v : step.recvs) {
        ASSERT_TRUE(v.peer >= 0 && v.peer < n && v.peer != r) << where << ": rank " << r << " receives from " << v.peer;
        ASSERT_TRUE(from.insert(v.peer).second) << where << ": rank " << r << " receives twice from " << v.peer
                                                << " in step " << t;
        ASSERT_LE(v.range.offset + v.range.count, count) << where;
        received[{t, v.peer, r}] = v.range.count;
      }
    }
    EXPECT_EQ(a.placed_payload_bytes_sent(r, hosts, count, 4, root), schedules[r].elements_sent() * 4) << where;
  }
  EXPECT_EQ(sent, received) << where << ": a send without its receive (or sizes differ) would hang the job";
}

TEST(Schedules, PairUpAndKeepTheExchangeContract) {
  for (const ScheduledAlgorithm* a : scheduled_algorithms()) {
    const bool rooted = a->collective() == Collective::Broadcast || a->collective() == Collective::Reduce;
    const bool placed = a->collective() == Collective::AllReduce;
    for (int n = 1; n <= 16; ++n) {
      const size_t counts[] = {0, 1, static_cast<size_t>(n - 1), static_cast<size_t>(n + 1), 10007, 70001};
      for (size_t count : counts)
        for (int root = 0; root < (rooted ? n : 1); ++root)
          for (const auto& hosts : placed ? placements(n) : std::vector<std::vector<int>>{std::vector<int>(n, 0)})
            check_schedules(*a, n, count, root, hosts);
    }
  }
}

TEST(Schedules, OneSegmentOnOneHostTakesExactlyStepsN) {
  for (const ScheduledAlgorithm* a : scheduled_algorithms()) {
    for (int n = 1; n <= 16; ++n) {
      size_t longest = 0;
      for (int r = 0; r < n; ++r) longest = std::max(longest, a->plan({r, n, 1, 4, 0, {}}).steps.size());
      EXPECT_EQ(longest, a->steps(n)) << to_string(a->collective()) << "/" << a->name() << " N=" << n;
    }
  }
}

TEST(Schedules, PlacementOnlyChangesHierarchicalBytes) {
  for (const ScheduledAlgorithm* a : scheduled_algorithms()) {
    if (a->name() == "hierarchical") continue;
    for (int n = 1; n <= 8; ++n)
      for (const auto& hosts : placements(n))
        for (int r = 0; r < n; ++r)
          EXPECT_EQ(a->placed_payload_bytes_sent(r, hosts, 1001, 8, 0), a->payload_bytes_sent(r, n, 1001, 8, 0))
              << a->name() << " N=" << n;
  }
}

}  // namespace
}  // namespace ringbench
