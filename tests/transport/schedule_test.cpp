// The plans themselves, without sockets: for every scheduled algorithm, N in 1..16, awkward
// counts, every root and several placements, every rank's schedule must pair up with its peers'
// (each send has a receive of the same size in the same step and vice versa: the property that
// makes a schedule deadlock-free), keep the exchange contract (at most one send and one receive
// per peer per step, never to itself, inside the buffer), send exactly the bytes per rank that the
// algorithm's file documents (worked out here from those tables, not from the plans), and take
// exactly steps(N) steps for a one-segment message on one host. Pure arithmetic, so it covers far
// more N than the socket tests.

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "transport/algorithm.h"
#include "transport/collectives/schedule.h"
#include "transport/collectives/streamed_ring.h"

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

std::string algorithm_key(const Algorithm& a) {
  return std::string(to_string(a.collective())) + "/" + std::string(a.name());
}

// The bytes per rank each algorithm's specification documents in its table (spec/*.cpp),
// for 4-byte elements, where the table gives an exact figure: for any count where it is a
// multiple of the data ("x data"), else only where N divides the count (chunks of equal size),
// and for the halving/doubling forms only at powers of two unless the fold is spelled out.
// nullopt where the table gives no exact figure (hierarchical on unequal hosts, rhd all-reduce
// folding). Written from the tables, not from the plans, so a plan that drifts from its
// documented bytes fails.
struct Shape {
  int rank, n;
  size_t count;
  int root;
  uint64_t data() const { return count * 4; }
  bool chunks_equal() const { return count % static_cast<size_t>(n) == 0; }
  uint64_t chunk() const { return data() / static_cast<uint64_t>(n); }
  bool power_of_two() const { return (n & (n - 1)) == 0; }
  int pof2() const { return 1 << floor_log2(n); }
  int extra() const { return n - pof2(); }            // ranks folded away (fold.h)
  bool folds() const { return rank < 2 * extra(); }   // rank is one of a folded pair
  bool folds_away() const { return folds() && rank % 2 == 0; }
};

std::optional<uint64_t> documented_allreduce_bytes(std::string_view name, const Shape& s,
                                                   const std::vector<int>& hosts) {
  if (s.n == 1) return 0;
  if (name == "naive") return (s.n - 1) * s.data();
  // Ring and two-shot: the same 2(N-1) chunks, in 2(N-1) steps or in 2.
  if ((name == "ring" || name == "two-shot") && s.chunks_equal()) return 2 * (s.n - 1) * s.chunk();
  if (name == "tree") {  // heap-shaped: parent (r-1)/2, children 2r+1 and 2r+2
    const int children = (2 * s.rank + 1 < s.n) + (2 * s.rank + 2 < s.n);
    return ((s.rank != 0 ? 1 : 0) + children) * s.data();
  }
  if (name == "recursive-doubling") {
    if (s.folds_away()) return s.data();
    return (floor_log2(s.pof2()) + (s.folds() ? 1 : 0)) * s.data();
  }
  if (name == "rhd" && s.power_of_two() && s.chunks_equal()) return 2 * (s.n - 1) * s.chunk();
  if (name == "hierarchical" && s.chunks_equal()) {
    // Equal hosts of m ranks, H hosts: 2(m-1)/m x data inside, 2(H-1)/(mH) x data across.
    std::map<int, int> ranks_on;
    for (int h : hosts) ++ranks_on[h];
    const int host_count = hosts.empty() ? 1 : static_cast<int>(ranks_on.size());
    const int m = s.n / host_count;
    for (const auto& [host, ranks] : ranks_on)
      if (ranks != m) return std::nullopt;
    return 2 * (m - 1) * (s.data() / m) + 2 * (host_count - 1) * s.chunk();
  }
  return std::nullopt;
}

// Recursive-doubling all-gather on N not a power of two. Partners swap everything they hold, so
// survivor v sends, in round i, the blocks of its aligned group of 2^i survivors; survivor u's
// block is two chunks for u < R (its own and its folded partner's), one otherwise. A folding odd
// rank also hands back everything but its partner's chunk; a folding even rank sends its chunk.
uint64_t folded_allgather_bytes(const Shape& s) {
  if (s.folds_away()) return s.chunk();
  const int v = s.folds() ? s.rank / 2 : s.rank - s.extra();
  uint64_t chunks = 0;
  for (int group = 1; group < s.pof2(); group *= 2)
    for (int u = v - v % group; u < v - v % group + group; ++u) chunks += u < s.extra() ? 2 : 1;
  if (s.folds()) chunks += s.n - 1;
  return chunks * s.chunk();
}

std::optional<uint64_t> documented_bytes(const ScheduledAlgorithm& a, int rank, int n, size_t count, int root,
                                         const std::vector<int>& hosts) {
  const Shape s{rank, n, count, root};
  const std::string_view name = a.name();
  switch (a.collective()) {
    case Collective::AllReduce:
      return documented_allreduce_bytes(name, s, hosts);
    case Collective::AllGather:
      if (!s.chunks_equal()) return std::nullopt;
      if (name == "ring" || s.power_of_two()) return (n - 1) * s.chunk();
      return folded_allgather_bytes(s);
    case Collective::ReduceScatter:
      if (!s.chunks_equal()) return std::nullopt;
      if (name == "ring" || s.power_of_two()) return (n - 1) * s.chunk();
      if (s.folds_away()) return s.data();  // its whole vector, once
      return s.data() - s.chunk();           // odd folding rank: (data - 2 chunks) + partner's chunk
    case Collective::Reduce:
      if (name == "binomial-tree") return rank == root ? 0 : s.data();
      if (!s.chunks_equal()) return std::nullopt;
      return rank == root ? (n - 1) * s.chunk() : s.data();
    case Collective::Broadcast: {
      if (name == "pipelined-chain") return n == 1 || rank == (root - 1 + n) % n ? 0 : s.data();
      const int v = (rank - root + n) % n;  // binomial: one send per round i with v < 2^i, v + 2^i < N
      uint64_t sends = 0;
      for (int i = 0; i < ceil_log2(n); ++i) sends += (v < (1 << i) && v + (1 << i) < n) ? 1 : 0;
      return sends * s.data();
    }
    case Collective::AllToAll:
      return (n - 1) * (count / static_cast<size_t>(n)) * 4;
  }
  return std::nullopt;
}

// algorithm key -> how many (rank, N, count, root, placement) had a documented figure to check.
std::map<std::string, int> documented_checks;

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
    // The byte formula the harness checks the counters against, against the formula each
    // algorithm's file documents, worked out here independently of the plan.
    if (const std::optional<uint64_t> documented = documented_bytes(a, r, n, count, root, hosts)) {
      EXPECT_EQ(a.placed_payload_bytes_sent(r, hosts, count, 4, root), *documented) << where << ": rank " << r;
      ++documented_checks[algorithm_key(a)];
    }
  }
  EXPECT_EQ(sent, received) << where << ": a send without its receive (or sizes differ) would hang the job";
}

TEST(Schedules, PairUpAndKeepTheExchangeContract) {
  for (const ScheduledAlgorithm* a : scheduled_algorithms()) {
    const bool rooted = a->collective() == Collective::Broadcast || a->collective() == Collective::Reduce;
    const bool placed = a->collective() == Collective::AllReduce;
    for (int n = 1; n <= 16; ++n) {
      // 720720 = lcm(1..16): equal chunks for every N, where the documented formulas are exact.
      const size_t counts[] = {0, 1, static_cast<size_t>(n - 1), static_cast<size_t>(n + 1), 10007, 70001, 720720};
      for (size_t count : counts)
        for (int root = 0; root < (rooted ? n : 1); ++root)
          for (const auto& hosts : placed ? placements(n) : std::vector<std::vector<int>>{std::vector<int>(n, 0)})
            check_schedules(*a, n, count, root, hosts);
    }
  }
  // Every algorithm's bytes were checked against its documented formula, many times over, so
  // the check above cannot quietly stop applying to one of them.
  for (const ScheduledAlgorithm* a : scheduled_algorithms())
    EXPECT_GE(documented_checks[algorithm_key(*a)], 50) << algorithm_key(*a) << ": no documented byte figure checked";
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

namespace ringbench {
namespace {

// The ring plans run as one stream (streamed_ring.h): every rank's plan must be a chain of one
// send and one receive per step, each step sending what the step before received, at every N and
// at counts N divides or not. The other plans are not, and would run on the generic runner;
// hierarchical's plan is the flat ring's on one host (checked here) and not across hosts (below).
TEST(StreamedRing, TheRingPlansAreStreamableRingsAndTheOthersNot) {
  const std::set<std::string_view> rings = {"allreduce/ring", "allgather/ring", "reducescatter/ring",
                                            "allreduce/hierarchical"};
  for (const ScheduledAlgorithm* a : scheduled_algorithms()) {
    const std::string id = std::string(a->spec().collective) + "/" + std::string(a->name());
    SCOPED_TRACE(id);
    const bool ring = rings.count(id) > 0;
    EXPECT_EQ(dynamic_cast<const StreamedRing*>(a) != nullptr, ring);
    for (int n = 2; n <= 16; ++n)
      for (size_t count : {size_t(n), size_t(4 * n + 3), size_t(1000)})
        for (int r = 0; r < n; ++r) {
          const Schedule s = a->plan({r, n, count, 4, 0, std::vector<int>(static_cast<size_t>(n), 0), 0});
          if (ring) {
            EXPECT_TRUE(is_a_streamable_ring(s)) << "N " << n << " count " << count << " rank " << r;
          } else if (n >= 4) {
            EXPECT_FALSE(is_a_streamable_ring(s)) << "N " << n << " count " << count << " rank " << r;
          }
        }
  }
}

TEST(StreamedRing, HierarchicalAcrossHostsRunsStepByStep) {
  const ScheduledAlgorithm* hierarchical = nullptr;
  for (const ScheduledAlgorithm* a : scheduled_algorithms())
    if (a->spec().collective == "allreduce" && a->name() == "hierarchical") hierarchical = a;
  ASSERT_NE(hierarchical, nullptr);
  const std::vector<int> two_hosts = {0, 0, 1, 1};
  for (int r = 0; r < 4; ++r)
    EXPECT_FALSE(is_a_streamable_ring(hierarchical->plan({r, 4, 1000, 4, 0, two_hosts, 0}))) << "rank " << r;
}

}  // namespace
}  // namespace ringbench
