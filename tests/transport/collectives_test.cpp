// Every registered algorithm over real loopback sockets, ranks as threads: exact results on every
// rank and exact payload bytes (counted against the algorithm's own formula), for N in 1..8,
// counts {0, 1, N-1, N+1, a prime, a count far past 4 KiB socket buffers}, every dtype, every op
// where the collective reduces, every root where it has one, and for all-reduce several
// placements of ranks on hosts. The cross-product does not fit CI; rows cover every pair of
// parameter values (pairwise.h), per collective, with the algorithm as one of the parameters.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "collective_inputs.h"
#include "pairwise.h"
#include "thread_ranks.h"
#include "transport/algorithm.h"
#include "transport/collectives/chain_broadcast.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/collectives/schedule.h"
#include "transport/collectives/streamed_ring.h"
#include "transport/collectives/tree_allreduce.h"
#include "transport/copy_distance.h"
#include "transport/counted_run.h"

namespace ringbench {
namespace {

using testing::count_for;
using testing::CountKind;
using testing::kCountNames;

// Where ranks live, for host-aware algorithms; a function of N.
enum class Placement { OneHost, TwoHalves, LastAlone, RoundRobin, OwnHost };
constexpr const char* kPlacementNames[] = {"onehost", "halves", "lastalone", "roundrobin", "ownhost"};
std::vector<int> hosts_for(Placement p, int n) {
  std::vector<int> hosts(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    switch (p) {
      case Placement::OneHost: hosts[r] = 0; break;
      case Placement::TwoHalves: hosts[r] = r < (n + 1) / 2 ? 0 : 1; break;
      case Placement::LastAlone: hosts[r] = r == n - 1 && n > 1 ? 1 : 0; break;  // e.g. 3+1
      case Placement::RoundRobin: hosts[r] = r % 2; break;
      case Placement::OwnHost: hosts[r] = r; break;
    }
  }
  return hosts;
}

struct Case {
  const Algorithm* algorithm;
  int n;
  CountKind count;
  DataType dtype;
  ReduceOp op;
  bool tiny_buffers;
  Placement placement;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  std::string name = std::string(to_string(c.algorithm->collective())) + "_" + std::string(c.algorithm->name()) +
                     "_n" + std::to_string(c.n) + "_" + kCountNames[static_cast<int>(c.count)] + "_" +
                     std::string(to_string(c.dtype));
  if (testing::reduces(c.algorithm->collective())) name += "_" + std::string(to_string(c.op));
  if (c.tiny_buffers) name += "_tinybuf";
  if (c.placement != Placement::OneHost) name += std::string("_") + kPlacementNames[static_cast<int>(c.placement)];
  for (char& ch : name)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name + "_" + std::to_string(info.index);
}

std::vector<Case> pairwise_cases() {
  std::vector<Case> cases;
  const Collective collectives[] = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
                                    Collective::Broadcast, Collective::Reduce,    Collective::AllToAll};
  for (Collective collective : collectives) {
    std::vector<const Algorithm*> algorithms;
    for (const Algorithm* a : all_algorithms())
      if (a->collective() == collective) algorithms.push_back(a);
    const bool reduces = testing::reduces(collective);
    const bool placed = collective == Collective::AllReduce;
    // Parameters: algorithm, N (1..8), count kind, dtype, tiny buffers, [op], [placement].
    std::vector<int> sizes = {static_cast<int>(algorithms.size()), 8, 6, 4, 2};
    if (reduces) sizes.push_back(4);
    if (placed) sizes.push_back(5);
    for (const auto& row : testing::pairwise_rows(sizes)) {
      Case c{algorithms[row[0]], row[1] + 1, static_cast<CountKind>(row[2]), kAllDataTypes[row[3]],
             ReduceOp::Sum, row[4] == 1, Placement::OneHost};
      if (reduces) c.op = kAllReduceOps[row[5]];
      if (placed) c.placement = static_cast<Placement>(row[reduces ? 6 : 5]);
      cases.push_back(c);
    }
  }
  return cases;
}

template <typename T>
void to_typed(const std::vector<double>& values, std::vector<std::byte>& buffer) {
  T* data = reinterpret_cast<T*>(buffer.data());
  for (size_t i = 0; i < values.size(); ++i) data[i] = static_cast<T>(values[i]);
}

template <typename T>
void expect_typed(const std::vector<std::optional<double>>& expected, const std::vector<std::byte>& buffer,
                  const std::string& where) {
  const T* data = reinterpret_cast<const T*>(buffer.data());
  for (size_t i = 0; i < expected.size(); ++i) {
    if (!expected[i] || data[i] == static_cast<T>(*expected[i])) continue;
    ADD_FAILURE() << where << " element " << i << " of " << expected.size() << ": expected "
                  << static_cast<T>(*expected[i]) << ", got " << data[i];
    return;
  }
}

void fill(DataType dtype, const std::vector<double>& values, std::vector<std::byte>& buffer) {
  switch (dtype) {
    case DataType::Float32: return to_typed<float>(values, buffer);
    case DataType::Float64: return to_typed<double>(values, buffer);
    case DataType::Int32: return to_typed<int32_t>(values, buffer);
    case DataType::Int64: return to_typed<int64_t>(values, buffer);
    default: FAIL() << "the pairwise rows here use the first four dtypes; dtype_collectives_test.cpp covers the rest";
  }
}

void expect(DataType dtype, const std::vector<std::optional<double>>& expected, const std::vector<std::byte>& buffer,
            const std::string& where) {
  switch (dtype) {
    case DataType::Float32: return expect_typed<float>(expected, buffer, where);
    case DataType::Float64: return expect_typed<double>(expected, buffer, where);
    case DataType::Int32: return expect_typed<int32_t>(expected, buffer, where);
    case DataType::Int64: return expect_typed<int64_t>(expected, buffer, where);
    default: FAIL() << "the pairwise rows here use the first four dtypes; dtype_collectives_test.cpp covers the rest";
  }
}

// What `me` receives in total: the sum over the other ranks' schedules of their sends to me.
uint64_t bytes_received(const ScheduledAlgorithm& algorithm, const PlanInput& mine) {
  uint64_t elements = 0;
  for (int q = 0; q < mine.world_size; ++q) {
    PlanInput theirs = mine;
    theirs.rank = q;
    for (const Step& step : algorithm.plan(theirs).steps)
      for (const SendOp& send : step.sends)
        if (send.peer == mine.rank) elements += send.range.count;
  }
  return elements * mine.element_bytes;
}

class CollectivesTest : public ::testing::TestWithParam<Case> {};

TEST_P(CollectivesTest, ExactResultsAndExactBytesOnEveryRank) {
  const Case c = GetParam();
  const Algorithm& algorithm = *c.algorithm;
  const Collective collective = algorithm.collective();
  const size_t count = count_for(c.count, c.n);
  const size_t esize = element_size(c.dtype);
  const std::vector<int> hosts = hosts_for(c.placement, c.n);
  testing::run_ranks(c.n, testing::on_hosts(hosts, c.tiny_buffers ? 4096 : 0), [&](Communicator& comm) {
    ASSERT_EQ(host_placement(comm).size(), hosts.size());
    const int roots = testing::rooted(collective) ? c.n : 1;
    std::vector<std::byte> buffer(count * esize);
    for (int root = 0; root < roots; ++root) {
      const std::string where = "rank " + std::to_string(comm.rank()) + " root " + std::to_string(root);
      auto e = testing::expectation(collective, c.op, c.n, comm.rank(), count, root);
      fill(c.dtype, e.input, buffer);
      CollectiveCall call{c.dtype, c.op, buffer, count, root};
      CountedRun run = run_counted(comm, algorithm, call);
      EXPECT_EQ(run.moved.payload_sent, run.expected_payload) << where;
      if (auto* scheduled = dynamic_cast<const ScheduledAlgorithm*>(&algorithm)) {
        const std::vector<int> placement = host_placement(comm);  // outlives the span in PlanInput
        PlanInput me{comm.rank(), c.n, count, esize, root, placement};
        EXPECT_EQ(run.moved.payload_received, bytes_received(*scheduled, me)) << where;
      }
      expect(c.dtype, e.result, buffer, where);
    }
    comm.barrier();
    for (const auto& check : comm.check_kernel_counts())
      EXPECT_TRUE(check.ok()) << "rank " << comm.rank() << " peer " << check.peer_rank << ": sent " << check.ours_sent
                              << " vs kernel " << check.kernel_sent << ", received " << check.ours_received
                              << " vs kernel " << check.kernel_received;
    // Nobody leaves (Bye, then close) while a peer still reads its kernel counters: the FIN would
    // count in the kernel's bytes received (seen under TSan, whose slowness widens the window).
    comm.barrier();
  });
}

INSTANTIATE_TEST_SUITE_P(Pairwise, CollectivesTest, ::testing::ValuesIn(pairwise_cases()), case_name);

// Every algorithm with messages far larger than 4 KiB socket buffers at N = 2, 4 and 5, so that
// sends lag receives: an algorithm that reduces into data it has not finished sending (a whole-
// vector swap) would send half-reduced values here. Pairwise cover alone missed that once.
std::vector<Case> lagging_send_cases() {
  std::vector<Case> cases;
  for (const Algorithm* a : all_algorithms())
    for (int n : {2, 4, 5})
      cases.push_back({a, n, CountKind::Large, DataType::Float32, ReduceOp::Sum, true, Placement::OneHost});
  return cases;
}
INSTANTIATE_TEST_SUITE_P(LaggingSends, CollectivesTest, ::testing::ValuesIn(lagging_send_cases()), case_name);

// Every algorithm with its buffer at page offsets that put a landing area in scratch at each
// distance from it that malloc could have drawn (transport/copy_distance.h places them): each
// landing area must still fit the scratch its run set aside (a page of slack each; an overrun
// throws) and every result stay exact. Large enough for several pages and several pieces.
TEST(CopyDistance, EveryAlgorithmExactWithItsBufferAtAnyPageOffset) {
  const size_t count = 40001, bytes = count * 4;
  for (const Algorithm* algorithm : all_algorithms())
    for (int n : {2, 3}) {
      testing::run_ranks(n, testing::on_hosts(std::vector<int>(static_cast<size_t>(n), 0)), [&](Communicator& comm) {
        std::vector<std::byte> storage(bytes + 2 * kCopyPageBytes), values(bytes);
        const auto misalignment = reinterpret_cast<uintptr_t>(storage.data()) % kCopyPageBytes;
        std::byte* const page = storage.data() + (kCopyPageBytes - misalignment) % kCopyPageBytes;
        const int root = testing::rooted(algorithm->collective()) ? n - 1 : 0;
        for (size_t offset : {size_t{0}, size_t{8}, size_t{16}, size_t{24}, size_t{2048}, size_t{4088}}) {
          const std::string where = std::string(to_string(algorithm->collective())) + "/" +
                                    std::string(algorithm->name()) + " N=" + std::to_string(n) + " rank " +
                                    std::to_string(comm.rank()) + " buffer at page offset " + std::to_string(offset);
          auto e = testing::expectation(algorithm->collective(), ReduceOp::Sum, n, comm.rank(), count, root);
          fill(DataType::Float32, e.input, values);
          const std::span<std::byte> buffer(page + offset, bytes);
          std::memcpy(buffer.data(), values.data(), bytes);
          const CountedRun run = run_counted(comm, *algorithm, {DataType::Float32, ReduceOp::Sum, buffer, count, root});
          EXPECT_EQ(run.moved.payload_sent, run.expected_payload) << where;
          std::memcpy(values.data(), buffer.data(), bytes);
          expect(DataType::Float32, e.result, values, where);
        }
        comm.barrier();
      });
    }
}

// The pipelined algorithms cut in any segment the caller names (CollectiveCall::segment_bytes,
// which ringbench chooses per size): exact results, the same bytes as the default cut, and the
// plan's steps. Segments from a page to more than the message, one that divides no element count
// evenly (12 KiB of float32 is 3072 elements, and 50001 is odd), every root, with sends lagging
// receives behind 4 KiB socket buffers.
TEST(PipelinedSegments, AnySegmentGivesExactResultsAndTheSameBytes) {
  const size_t count = 50001;
  for (const Algorithm* algorithm : {&tree_allreduce(), &chain_broadcast()})
    for (int n : {3, 4, 5})
      testing::run_ranks(n, testing::on_hosts(std::vector<int>(static_cast<size_t>(n), 0), 4096), [&](Communicator& comm) {
        std::vector<std::byte> buffer(count * 4);
        const int roots = testing::rooted(algorithm->collective()) ? n : 1;
        for (size_t segment : {size_t{4} << 10, size_t{12} << 10, size_t{64} << 10, size_t{1} << 20})
          for (int root = 0; root < roots; ++root) {
            const std::string where = std::string(algorithm->name()) + " N=" + std::to_string(n) + " rank " +
                                      std::to_string(comm.rank()) + " root " + std::to_string(root) + " segment " +
                                      std::to_string(segment);
            auto e = testing::expectation(algorithm->collective(), ReduceOp::Sum, n, comm.rank(), count, root);
            fill(DataType::Float32, e.input, buffer);
            const CollectiveCall call{DataType::Float32, ReduceOp::Sum, buffer, count, root, segment};
            const CountedRun run = run_counted(comm, *algorithm, call);
            EXPECT_EQ(run.moved.payload_sent, run.expected_payload) << where;
            EXPECT_EQ(run.moved.payload_sent, algorithm->payload_bytes_sent(comm.rank(), n, count, 4, root)) << where;
            expect(DataType::Float32, e.result, buffer, where);
          }
        comm.barrier();
      });
}

// A ring all-reduce cut in rounds still runs as one stream (streamed_ring.h), every step fed by the
// one before but a round's first, which sends data of the rank's own; without rounds, every step
// after the first is fed.
TEST(RingRounds, RunAsOneStreamWithEachRoundsFirstSendUnfed) {
  for (int n : {2, 3, 5})
    for (int rank = 0; rank < n; ++rank) {
      const size_t count = 50001, per_step = 2 * static_cast<size_t>(n - 1);
      const Schedule rounds = spec::ring_allreduce().plan({rank, n, count, 4, 0, {}, size_t{4} << 10});
      const Schedule one = spec::ring_allreduce().plan({rank, n, count, 4, 0, {}, 0});
      const std::string where = "N=" + std::to_string(n) + " rank " + std::to_string(rank);
      ASSERT_GT(rounds.steps.size(), per_step) << where;
      EXPECT_TRUE(is_a_streamable_ring(rounds)) << where;
      EXPECT_TRUE(is_a_streamable_ring(one)) << where;
      for (size_t k = 1; k < rounds.steps.size(); ++k)
        EXPECT_EQ(sends_what_the_step_before_received(rounds, k), k % per_step != 0) << where << " step " << k;
      for (size_t k = 1; k < one.steps.size(); ++k) EXPECT_TRUE(sends_what_the_step_before_received(one, k)) << where;
    }
}

// The ring all-reduce in rounds (spec/ring_allreduce.cpp: a segment smaller than a chunk cuts the
// buffer into slices, each a whole ring all-reduce, streamed one after another): exact results and
// the bytes of one round, for rounds of a page up to more than a chunk, an odd count (the last
// round takes the rest), a core for every rank and more ranks than a run would give one, with
// sends lagging receives behind 4 KiB socket buffers.
TEST(RingRounds, AnyRoundGivesExactResultsAndTheSameBytes) {
  const size_t count = 50001;
  for (int n : {2, 3, 5})
    testing::run_ranks(n, testing::on_hosts(std::vector<int>(static_cast<size_t>(n), 0), 4096), [&](Communicator& comm) {
      std::vector<std::byte> buffer(count * 4);
      for (size_t segment : {size_t{4} << 10, size_t{12} << 10, size_t{64} << 10, size_t{1} << 20}) {
        const std::string where = "N=" + std::to_string(n) + " rank " + std::to_string(comm.rank()) + " segment " +
                                  std::to_string(segment);
        auto e = testing::expectation(Collective::AllReduce, ReduceOp::Sum, n, comm.rank(), count, 0);
        fill(DataType::Float32, e.input, buffer);
        const CollectiveCall call{DataType::Float32, ReduceOp::Sum, buffer, count, 0, segment};
        const CountedRun run = run_counted(comm, ring_allreduce(), call);
        EXPECT_EQ(run.moved.payload_sent, run.expected_payload) << where;
        EXPECT_EQ(run.moved.payload_sent, ring_allreduce().payload_bytes_sent(comm.rank(), n, count, 4, 0)) << where;
        expect(DataType::Float32, e.result, buffer, where);
      }
      comm.barrier();
    });
}

}  // namespace
}  // namespace ringbench
